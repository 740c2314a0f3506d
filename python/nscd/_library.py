"""Finding and loading the three libraries (libnscd, libnscd_fclib,
libnscd_mpi) through one loader, the checked conversions of Python values to C,
and short aliases of the generated ctypes declarations (_bindings.py).

Hand-written here: what cannot be generated from the headers (the search for
the libraries, value checks, the aliases); the structs, callback types and
prototypes come from tools/gen_python_bindings.py."""
import ctypes
import ctypes.util
import operator
import os
import shutil
import subprocess

from . import _bindings as _b

# The ABI major this package was written against (the SONAME number).
ABI_VERSION = 0


class _Spec:
    """How to find and recognise one library: lib<stem>.so, the environment
    variable that names it explicitly, a function only it exports, and what
    to say when it is missing."""

    def __init__(self, stem, env_var, probe, missing):
        self.stem, self.env_var, self.probe, self.missing = stem, env_var, probe, missing


LIBRARIES = {
    "nscd": _Spec("nscd", "NSCD_LIBRARY", "nscd_abi_version",
                  "libnscd not found (set NSCD_LIBRARY to the path of libnscd.so)"),
    "nscd_fclib": _Spec("nscd_fclib", "NSCD_FCLIB_LIBRARY", "nscd_fclib_problem_create",
                        "libnscd_fclib not found: nscd was built without FCLIB support (install "
                        "libfclib-dev and rebuild) or set NSCD_FCLIB_LIBRARY to "
                        "libnscd_fclib.so"),
    "nscd_mpi": _Spec("nscd_mpi", "NSCD_MPI_LIBRARY", "nscd_world_mpi_create",
                      "libnscd_mpi not found (build with libopenmpi-dev installed, or set "
                      "NSCD_MPI_LIBRARY)"),
}

_loaded = {}  # stem -> (ctypes.CDLL, path)


def _pkg_config_libdir():
    """The libdir of `pkg-config nscd` (an installed nscd in any prefix found
    through PKG_CONFIG_PATH), or None."""
    pkg_config = shutil.which("pkg-config")
    if pkg_config is None:
        return None
    try:
        done = subprocess.run([pkg_config, "--variable=libdir", "nscd"], capture_output=True,
                              text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    libdir = done.stdout.strip()
    return os.path.normpath(libdir) if done.returncode == 0 and libdir else None


def candidates(stem="nscd"):
    """Where lib<stem>.so is looked for, in order: $NSCD_LIBRARY (resp.
    $NSCD_FCLIB_LIBRARY, $NSCD_MPI_LIBRARY; an explicit choice is final),
    beside the loaded libnscd (companions only), a build tree next to the
    package (the repository's build/), the libdir of `pkg-config nscd`, then
    the system's library search (LD_LIBRARY_PATH, the ld.so cache) and the
    versioned soname. A generator: the later (slower) searches run only when
    the earlier fail."""
    spec = LIBRARIES[stem]
    env = os.environ.get(spec.env_var)
    if env:
        yield env
        return
    name = f"lib{stem}.so"
    if stem != "nscd":
        try:
            core = library_path()
        except OSError:
            core = ""
        if os.sep in core:
            yield os.path.join(os.path.dirname(core), name)
    here = os.path.dirname(os.path.abspath(__file__))
    for build in (os.path.join(here, "..", "build"), os.path.join(here, "..", "..", "build")):
        yield os.path.normpath(os.path.join(build, name))
    libdir = _pkg_config_libdir()
    if libdir:
        yield os.path.join(libdir, f"{name}.{ABI_VERSION}")
    found = ctypes.util.find_library(stem)
    if found:
        yield found
    yield f"{name}.{ABI_VERSION}"


def load(stem="nscd"):
    """The ctypes.CDLL of lib<stem>.so (stem: "nscd", "nscd_fclib" or
    "nscd_mpi"), loaded on first use with the prototypes of its header
    declared; OSError (listing what was tried) when it cannot be loaded. A
    companion loads libnscd first (it links to it)."""
    if stem in _loaded:
        return _loaded[stem][0]
    spec = LIBRARIES[stem]
    if stem != "nscd":
        load("nscd")
    errors = []
    for candidate in candidates(stem):
        if os.sep in candidate and not os.path.exists(candidate):
            if candidate == os.environ.get(spec.env_var):
                errors.append(f"{candidate}: no such file")
            continue
        try:
            lib = ctypes.CDLL(candidate)
        except OSError as exc:
            errors.append(f"{candidate}: {exc}")
            continue
        if not hasattr(lib, spec.probe):
            errors.append(f"{candidate}: not lib{stem} (no {spec.probe})")
            continue
        _declare(lib, stem)
        if stem == "nscd" and lib.nscd_abi_version() != ABI_VERSION:
            errors.append(f"{candidate}: ABI {lib.nscd_abi_version()}, this package needs ABI "
                          f"{ABI_VERSION}")
            continue
        _loaded[stem] = (lib, candidate)
        return lib
    raise OSError(spec.missing + ("; tried: " + "; ".join(errors) if errors else ""))


def loaded_path(stem="nscd"):
    """The path or name lib<stem>.so was loaded from (loads it)."""
    load(stem)
    return _loaded[stem][1]


def library():
    """The loaded ctypes.CDLL of libnscd (loaded on first use)."""
    return load("nscd")


def library_path():
    """The path or name libnscd was loaded from."""
    return loaded_path("nscd")


def companion_candidates(env_var, stem):
    """Deprecated: list(candidates(stem)) (kept for scripts that used it)."""
    del env_var
    return list(candidates(stem))


def integer(value, what, bits=32, signed=True):
    """value as a Python int that fits the C integer type (ctypes would wrap it
    silently: 2**32 + 5 became 5). Only integers (int, bool, numpy integers:
    anything with __index__) are taken: a float or a string is a TypeError,
    never truncated by int() (docs/hostile_input.md)."""
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"{what}: expected an integer, got {type(value).__name__} "
                        f"{value!r}") from None
    lo, hi = (-2**(bits - 1), 2**(bits - 1)) if signed else (0, 2**bits)
    if not lo <= number < hi:
        kind = f"{'' if signed else 'u'}int{bits}_t"
        raise OverflowError(f"{what}: {number} does not fit an {kind}")
    return number


def int32(value, what):
    """value as a Python int that fits an int32_t (see integer)."""
    return integer(value, what, 32, True)


def uint64(value, what):
    """value as a Python int that fits a uint64_t (ids; see integer)."""
    return integer(value, what, 64, False)


def real(value, what):
    """value as a Python float: ints and reals only (a string, a complex or
    None is a TypeError instead of a silent conversion)."""
    if isinstance(value, (str, bytes, complex)) or not hasattr(value, "__float__"):
        raise TypeError(f"{what}: expected a real number, got {type(value).__name__} {value!r}")
    return float(value)


_INTEGER_FIELDS = {ctypes.c_int8: (8, True), ctypes.c_uint8: (8, False),
                   ctypes.c_int16: (16, True), ctypes.c_uint16: (16, False),
                   ctypes.c_int32: (32, True), ctypes.c_uint32: (32, False),
                   ctypes.c_int64: (64, True), ctypes.c_uint64: (64, False)}


def set_field(struct, name, value, what=None):
    """struct.name = value, checked against the field's C type: an integer
    field takes an integer that fits it (integer), a double a real number
    (real); ctypes alone would wrap integers and accept bools for doubles."""
    what = what or name
    ctype = dict(struct._fields_)[name]
    if ctype in _INTEGER_FIELDS:
        bits, signed = _INTEGER_FIELDS[ctype]
        value = integer(value, what, bits, signed)
    elif ctype in (ctypes.c_double, ctypes.c_float):
        value = real(value, what)
    setattr(struct, name, value)


def enum_value(enum_class, value, what):
    """An enum member's value from a member, an int (range-checked) or a
    case-insensitive name; an unknown name is a ValueError that lists the
    valid ones (it was a KeyError('BOGUS'))."""
    if isinstance(value, str):
        try:
            return int(enum_class[value.upper()])
        except KeyError:
            names = ", ".join(m.name.lower() for m in enum_class)
            raise ValueError(f"{what}: unknown name {value!r} (valid: {names})") from None
    return int32(value, what)


def callback(function, what):
    """function when it is callable or None, else a TypeError at once (not a
    failure deep inside a step)."""
    if function is not None and not callable(function):
        raise TypeError(f"{what}: expected a callable or None, got {type(function).__name__}")
    return function


def observer_answer(action, what):
    """An observer's Python answer as the int32 the C callback returns:
    None/False go on (0), True stops (1), an int is passed on when it fits
    an int32_t (2**40 wrapped to 0, "go on"); anything else raises."""
    if action is None or isinstance(action, bool):
        return 1 if action else 0
    return int32(action, f"{what}'s return value")


def law_handle(law):
    """The nscd_contact_law pointer of a ContactLaw (checked before it reaches C)."""
    handle = getattr(law, "handle", None)
    if handle is None or not getattr(handle, "value", None):
        raise TypeError(f"expected an open nscd.ContactLaw, got {law!r}")
    return handle


# ------------------------------------------------------------------ C types
# The structs, callback types and prototypes are generated from the public
# headers (_bindings.py, by tools/gen_python_bindings.py); the names below are
# the package's short aliases of the generated C names.
c_status = _b.nscd_status
c_double_p = ctypes.POINTER(ctypes.c_double)
c_int32_p = ctypes.POINTER(ctypes.c_int32)

MASS_FN = _b.nscd_mass_fn
MASS_SOLVE_FN = _b.nscd_mass_solve_fn
FORCES_FN = _b.nscd_forces_fn
CONTACT_FN = _b.nscd_contact_fn
EQUALITY_FN = _b.nscd_equality_fn
MATRIX_FN = _b.nscd_matrix_fn
LOG_FN = _b.nscd_log_fn
EVENT_HANDLER_FN = _b.nscd_event_handler_fn
USER_EVENT_FN = _b.nscd_user_event_fn
TIME_STEP_FN = _b.nscd_time_step_fn

Allocator = _b.nscd_allocator
SystemDesc = _b.nscd_system_desc
ContactDesc = _b.nscd_contact_desc
EventInfo = _b.nscd_event_info
EventDrivenOptions = _b.nscd_event_driven_options
EventDrivenStats = _b.nscd_event_driven_stats
TimeSteppingOptions = _b.nscd_time_stepping_options
TimeSteppingReport = _b.nscd_time_stepping_report
TimeSteppingStats = _b.nscd_time_stepping_stats
Fc3dOptions = _b.nscd_fc3d_options
Fc3dInfo = _b.nscd_fc3d_info
Fc3dBlockReport = _b.nscd_fc3d_block_report
Gfc3dOptions = _b.nscd_gfc3d_options
Gfc3dInfo = _b.nscd_gfc3d_info
CoulombOptions = _b.nscd_coulomb_options
CoulombInfo = _b.nscd_coulomb_info
CentralImpactResult = _b.nscd_central_impact_result
RouthResult = _b.nscd_routh_result
WorldDesc = _b.nscd_world_desc
BeamDesc = _b.nscd_beam_desc
BodyDesc = _b.nscd_body_desc
ShapeDesc = _b.nscd_shape_desc
WorldStepReport = _b.nscd_world_step_report
JointDesc = _b.nscd_joint_desc
ClearanceJointDesc = _b.nscd_clearance_joint_desc
WorldMpiDesc = _b.nscd_world_mpi_desc


def prototypes(stem="nscd"):
    """{C function name: (restype, argtypes)} of every function of lib<stem>.so
    the package binds: all that its public header declares (generated)."""
    return {name: (restype, list(argtypes))
            for name, (restype, argtypes) in _b.PROTOTYPES[stem].items()}


def _declare(lib, stem):
    """Declares the prototypes of lib<stem>. Functions a library lacks (an
    older build) are skipped; calling them raises AttributeError later."""
    for name, (restype, argtypes) in _b.PROTOTYPES[stem].items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            continue
        fn.restype = restype
        fn.argtypes = argtypes
