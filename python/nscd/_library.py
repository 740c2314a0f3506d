"""Finding and loading libnscd, and the C prototypes (ctypes)."""
import ctypes
import ctypes.util
import operator
import os
import shutil
import subprocess

# The ABI major this package was written against (the SONAME number).
ABI_VERSION = 0

_lib = None
_path = None


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


def _candidates():
    """Where to look, in order: $NSCD_LIBRARY, a build tree next to the package
    (the repository's build/), the libdir of `pkg-config nscd`, then the
    system's library search (LD_LIBRARY_PATH, the ld.so cache)."""
    env = os.environ.get("NSCD_LIBRARY")
    if env:
        # An explicit choice is final: never silently fall back to another library.
        yield env
        return
    # A generator: the later (slower) searches run only when the earlier fail.
    here = os.path.dirname(os.path.abspath(__file__))
    for build in (os.path.join(here, "..", "build"), os.path.join(here, "..", "..", "build")):
        path = os.path.normpath(os.path.join(build, "libnscd.so"))
        if os.path.exists(path):
            yield path
    libdir = _pkg_config_libdir()
    if libdir:
        path = os.path.join(libdir, f"libnscd.so.{ABI_VERSION}")
        if os.path.exists(path):
            yield path
    name = ctypes.util.find_library("nscd")
    if name:
        yield name
    yield f"libnscd.so.{ABI_VERSION}"


def _load():
    global _lib, _path
    if _lib is not None:
        return _lib
    errors = []
    for candidate in _candidates():
        try:
            lib = ctypes.CDLL(candidate)
        except OSError as exc:
            errors.append(f"{candidate}: {exc}")
            continue
        _declare(lib)
        try:
            abi = lib.nscd_abi_version()
        except AttributeError:
            errors.append(f"{candidate}: not libnscd (no nscd_abi_version)")
            continue
        if abi != ABI_VERSION:
            errors.append(f"{candidate}: ABI {abi}, this package needs ABI {ABI_VERSION}")
            continue
        _lib, _path = lib, candidate
        return lib
    raise OSError("libnscd not found (set NSCD_LIBRARY to the path of libnscd.so): "
                  + "; ".join(errors))


def library():
    """The loaded ctypes.CDLL of libnscd (loaded on first use)."""
    return _load()


def library_path():
    """The path or name libnscd was loaded from."""
    _load()
    return _path


def companion_candidates(env_var, stem):
    """Where a companion library (lib<stem>.so: nscd_fclib, nscd_mpi) may be,
    in order: $env_var (an explicit choice is final), beside libnscd, the
    build trees, the system's search, the versioned soname."""
    env = os.environ.get(env_var)
    if env:
        return [env]
    found = []
    try:
        core = library_path()
    except OSError:
        core = ""
    if os.sep in core:
        found.append(os.path.join(os.path.dirname(core), f"lib{stem}.so"))
    here = os.path.dirname(os.path.abspath(__file__))
    for build in (os.path.join(here, "..", "build"), os.path.join(here, "..", "..", "build")):
        found.append(os.path.normpath(os.path.join(build, f"lib{stem}.so")))
    name = ctypes.util.find_library(stem)
    if name:
        found.append(name)
    found.append(f"lib{stem}.so.{ABI_VERSION}")
    return found


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
c_status = ctypes.c_int32
c_double_p = ctypes.POINTER(ctypes.c_double)
c_int32_p = ctypes.POINTER(ctypes.c_int32)

MASS_FN = ctypes.CFUNCTYPE(c_status, ctypes.c_void_p, c_double_p, c_double_p)
MASS_SOLVE_FN = ctypes.CFUNCTYPE(c_status, ctypes.c_void_p, c_double_p, c_double_p, c_double_p)
FORCES_FN = ctypes.CFUNCTYPE(c_status, ctypes.c_void_p, ctypes.c_double, c_double_p, c_double_p,
                             c_double_p)
CONTACT_FN = ctypes.CFUNCTYPE(c_status, ctypes.c_void_p, ctypes.c_int32, ctypes.c_double,
                              c_double_p, c_double_p, c_double_p, c_double_p)
EQUALITY_FN = ctypes.CFUNCTYPE(c_status, ctypes.c_void_p, ctypes.c_int32, ctypes.c_double,
                               c_double_p, c_double_p, c_double_p)
MATRIX_FN = FORCES_FN  # (user, t, q, v, out): an n_dof x n_dof matrix instead of h
LOG_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int32, ctypes.c_char_p)


class Allocator(ctypes.Structure):
    """nscd_allocator (host.h). The Python package always uses malloc/free."""
    _fields_ = [("allocate", ctypes.c_void_p), ("release", ctypes.c_void_p),
                ("user", ctypes.c_void_p)]


class SystemDesc(ctypes.Structure):
    """nscd_system_desc (system.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("n_dof", ctypes.c_int32),
        ("n_contacts", ctypes.c_int32),
        ("user", ctypes.c_void_p),
        ("mass", MASS_FN),
        ("mass_solve", MASS_SOLVE_FN),
        ("forces", FORCES_FN),
        ("contact", CONTACT_FN),
        ("allocator", Allocator),
        ("log", LOG_FN),
        ("log_user", ctypes.c_void_p),
        ("n_equalities", ctypes.c_int32),  # since 0.2
        ("equality", EQUALITY_FN),  # since 0.2
        ("stiffness", MATRIX_FN),  # since 0.2
        ("damping", MATRIX_FN),  # since 0.2
    ]


class ContactDesc(ctypes.Structure):
    """nscd_contact_desc (system.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("law", ctypes.c_void_p),
        ("friction", ctypes.c_double),
        ("n_tangent", ctypes.c_int32),
        ("tangential_restitution", ctypes.c_double),  # since 0.2
    ]


class EventInfo(ctypes.Structure):
    """nscd_event_info (event_driven.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("type", ctypes.c_int32),
        ("t", ctypes.c_double),
        ("index", ctypes.c_int32),
        ("n_contacts", ctypes.c_int32),
        ("contacts", c_int32_p),
        ("gap_velocity_before", c_double_p),
        ("gap_velocity_after", c_double_p),
        ("impulse", c_double_p),
        ("n_dof", ctypes.c_int32),
        ("q", c_double_p),
        ("v_before", c_double_p),
        ("v_after", c_double_p),
    ]


EVENT_HANDLER_FN = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.POINTER(EventInfo))
USER_EVENT_FN = ctypes.CFUNCTYPE(c_status, ctypes.c_void_p, ctypes.c_double, c_double_p,
                                 c_double_p, c_double_p)


class EventDrivenOptions(ctypes.Structure):
    """nscd_event_driven_options (event_driven.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("method", ctypes.c_int32),
        ("relative_tolerance", ctypes.c_double),
        ("absolute_tolerance", ctypes.c_double),
        ("initial_step", ctypes.c_double),
        ("max_step", ctypes.c_double),
        ("min_step", ctypes.c_double),
        ("fixed_step", ctypes.c_double),
        ("event_time_tolerance", ctypes.c_double),
        ("zeno_policy", ctypes.c_int32),
        ("zeno_velocity", ctypes.c_double),
        ("zeno_min_interval", ctypes.c_double),
        ("zeno_max_close_impacts", ctypes.c_int32),
        ("persistent_gap_tolerance", ctypes.c_double),
        ("max_steps", ctypes.c_int64),
        ("n_user_events", ctypes.c_int32),
        ("user_events", USER_EVENT_FN),
        ("user_events_user", ctypes.c_void_p),
        ("on_event", EVENT_HANDLER_FN),
        ("on_event_user", ctypes.c_void_p),
    ]


class EventDrivenStats(ctypes.Structure):
    """nscd_event_driven_stats (event_driven.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("steps_accepted", ctypes.c_int64),
        ("steps_rejected", ctypes.c_int64),
        ("rhs_evaluations", ctypes.c_int64),
        ("impacts", ctypes.c_int64),
        ("events", ctypes.c_int64),
        ("t", ctypes.c_double),
        ("stopped", ctypes.c_int32),
        ("workspace_peak_bytes", ctypes.c_int64),  # since 0.2
    ]


TIME_STEP_FN = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p)


class TimeSteppingOptions(ctypes.Structure):
    """nscd_time_stepping_options (time_stepping.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("scheme", ctypes.c_int32),
        ("dt", ctypes.c_double),
        ("theta", ctypes.c_double),
        ("gamma", ctypes.c_double),
        ("rho_infinity", ctypes.c_double),
        ("local_solver", ctypes.c_int32),
        ("max_iterations", ctypes.c_int32),
        ("tolerance", ctypes.c_double),
        ("on_step", TIME_STEP_FN),
        ("on_step_user", ctypes.c_void_p),
        ("max_steps", ctypes.c_int64),
        ("forces", ctypes.c_int32),
        ("reserved", ctypes.c_int32),
        ("level", ctypes.c_int32),
        ("start", ctypes.c_int32),
        ("alpha_ar", ctypes.c_double),
        ("prox_r_mode", ctypes.c_int32),
        ("max_newton_iterations", ctypes.c_int32),
        ("newton_tolerance", ctypes.c_double),
        ("prox_r", ctypes.c_double),
        ("dt_min", ctypes.c_double),
        ("dt_max", ctypes.c_double),
        ("impulse_velocities", ctypes.c_int32),
        ("reserved2", ctypes.c_int32),
    ]


class TimeSteppingReport(ctypes.Structure):
    """nscd_time_stepping_report (time_stepping.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("converged", ctypes.c_int32),
        ("step", ctypes.c_int64),
        ("t", ctypes.c_double),
        ("dt", ctypes.c_double),
        ("active_contacts", ctypes.c_int32),
        ("new_contacts", ctypes.c_int32),
        ("iterations", ctypes.c_int32),
        ("rows", ctypes.c_int32),
        ("residual", ctypes.c_double),
        ("max_penetration", ctypes.c_double),
        ("impact", ctypes.c_int32),
        ("newton_iterations", ctypes.c_int32),
        ("equality_violation", ctypes.c_double),
        ("momentum_residual", ctypes.c_double),
        ("step_rule", ctypes.c_int32),
        ("predicted_contacts", ctypes.c_int32),
    ]


class TimeSteppingStats(ctypes.Structure):
    """nscd_time_stepping_stats (time_stepping.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("stopped", ctypes.c_int32),
        ("steps", ctypes.c_int64),
        ("solver_iterations", ctypes.c_int64),
        ("t", ctypes.c_double),
        ("max_penetration", ctypes.c_double),
        ("workspace_peak_bytes", ctypes.c_int64),
        ("dt_smallest", ctypes.c_double),
        ("dt_largest", ctypes.c_double),
        ("contact_steps", ctypes.c_int64),
        ("max_equality_violation", ctypes.c_double),
        ("max_momentum_residual", ctypes.c_double),
    ]


class Fc3dOptions(ctypes.Structure):
    """nscd_fc3d_options (fc3d.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("friction_law", ctypes.c_int32),
        ("tolerance", ctypes.c_double),
        ("max_iterations", ctypes.c_int32),
        ("relaxation", ctypes.c_double),
        ("method", ctypes.c_int32),
        ("jacobi_weight", ctypes.c_double),
        ("jacobi_groups", ctypes.c_int32),
        ("warm_start", ctypes.c_int32),
        ("allocator", Allocator),
    ]


class Fc3dInfo(ctypes.Structure):
    """nscd_fc3d_info (fc3d.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("iterations", ctypes.c_int32),
        ("merit", ctypes.c_double),
        ("converged", ctypes.c_int32),
        ("merit_evaluations", ctypes.c_int32),
        ("last_update", ctypes.c_double),
        ("local_failures", ctypes.c_int32),
        ("newton_iterations", ctypes.c_int32),
        ("newton_failure", ctypes.c_int32),
    ]


class Fc3dBlockReport(ctypes.Structure):
    """nscd_fc3d_block_report (fc3d.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("n_regular", ctypes.c_int32),
        ("n_semidefinite", ctypes.c_int32),
        ("refused_block", ctypes.c_int32),
        ("refused_kind", ctypes.c_int32),
        ("max_asymmetry", ctypes.c_double),
        ("min_eigenvalue", ctypes.c_double),
        ("message", ctypes.c_char * 160),
    ]


class Gfc3dOptions(ctypes.Structure):
    """nscd_gfc3d_options (gfc3d.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("factorization", ctypes.c_int32),
        ("pivot_tolerance", ctypes.c_double),
        ("symmetry_tolerance", ctypes.c_double),
        ("allocator", Allocator),
        ("condensation", ctypes.c_int32),
    ]


class Gfc3dInfo(ctypes.Structure):
    """nscd_gfc3d_info (gfc3d.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("factorization", ctypes.c_int32),
        ("factor_nnz", ctypes.c_int64),
        ("w_blocks", ctypes.c_int64),
        ("iterations", ctypes.c_int32),
        ("converged", ctypes.c_int32),
        ("merit", ctypes.c_double),
        ("equilibrium_residual", ctypes.c_double),
        ("local_failures", ctypes.c_int32),
        ("dense_condensation", ctypes.c_int32),
    ]


class CoulombOptions(ctypes.Structure):
    """nscd_coulomb_options (single_contact.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("tolerance", ctypes.c_double),
        ("max_iterations", ctypes.c_int32),
        ("enumeration_safeguard", ctypes.c_int32),
    ]


class CoulombInfo(ctypes.Structure):
    """nscd_coulomb_info (single_contact.h)."""
    _fields_ = [
        ("iterations", ctypes.c_int32),
        ("converged", ctypes.c_int32),
        ("residual", ctypes.c_double),
    ]


class CentralImpactResult(ctypes.Structure):
    """nscd_central_impact_result (compliant.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("e_out", ctypes.c_double),
        ("duration", ctypes.c_double),
        ("max_penetration", ctypes.c_double),
        ("residual_penetration", ctypes.c_double),
        ("peak_force", ctypes.c_double),
        ("damping", ctypes.c_double),
        ("steps", ctypes.c_int64),
    ]


class RouthResult(ctypes.Structure):
    """nscd_routh_result (routh.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("impact_case", ctypes.c_int32),
        ("impulse", ctypes.c_double * 2),
        ("velocity", ctypes.c_double * 2),
        ("compression_impulse", ctypes.c_double * 2),
        ("transition_impulse", ctypes.c_double * 2),
        ("energy_change", ctypes.c_double),
        ("slip_before", ctypes.c_int32),
        ("slip_after", ctypes.c_int32),
    ]


class WorldDesc(ctypes.Structure):
    """nscd_world_desc (world.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("gravity", ctypes.c_double * 3),
        ("dt", ctypes.c_double),
        ("friction_law", ctypes.c_int32),
        ("max_sweeps", ctypes.c_int32),
        ("tolerance", ctypes.c_double),
        ("relaxation", ctypes.c_double),
        ("jacobi_groups", ctypes.c_int32),
        ("warm_start", ctypes.c_int32),
        ("error_reduction", ctypes.c_double),
        ("contact_margin", ctypes.c_double),
        ("default_friction", ctypes.c_double),
        ("friction_combine", ctypes.c_int32),
        ("use_domain", ctypes.c_int32),
        ("domain_min", ctypes.c_double * 3),
        ("domain_max", ctypes.c_double * 3),
        ("allocator", Allocator),
        ("log", LOG_FN),
        ("log_user", ctypes.c_void_p),
        ("max_correction_speed", ctypes.c_double),  # since 0.2
        ("on_unconverged", ctypes.c_int32),  # since 0.2
        ("relax_sweeps", ctypes.c_int32),  # since 0.2
    ]


class BeamDesc(ctypes.Structure):
    """nscd_beam_desc (beam.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("youngs_modulus", ctypes.c_double),
        ("density", ctypes.c_double),
        ("area", ctypes.c_double),
        ("second_moment", ctypes.c_double),
        ("length", ctypes.c_double),
        ("n_elements", ctypes.c_int32),
        ("reference", ctypes.c_int32),
        ("rotary_inertia", ctypes.c_int32),
        ("n_modes", ctypes.c_int32),
        ("cutoff_frequency", ctypes.c_double),
        ("gravity", ctypes.c_double * 2),
        ("allocator", Allocator),
    ]


class BodyDesc(ctypes.Structure):
    """nscd_body_desc (world.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("type", ctypes.c_int32),
        ("position", ctypes.c_double * 3),
        ("orientation", ctypes.c_double * 4),
        ("velocity", ctypes.c_double * 3),
        ("angular_velocity", ctypes.c_double * 3),
        ("density", ctypes.c_double),
        ("mass", ctypes.c_double),
        ("inertia", ctypes.c_double * 3),
        ("user_id", ctypes.c_uint64),
    ]


class ShapeDesc(ctypes.Structure):
    """nscd_shape_desc (world.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("type", ctypes.c_int32),
        ("radius", ctypes.c_double),
        ("half_height", ctypes.c_double),
        ("half_extents", ctypes.c_double * 3),
        ("position", ctypes.c_double * 3),
        ("orientation", ctypes.c_double * 4),
        ("material", ctypes.c_int32),
        ("category", ctypes.c_uint32),
        ("mask", ctypes.c_uint32),
    ]


class WorldStepReport(ctypes.Structure):
    """nscd_world_step_report (world.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("contacts", ctypes.c_int32),
        ("sweeps", ctypes.c_int32),
        ("converged", ctypes.c_int32),
        ("merit", ctypes.c_double),
        ("max_penetration", ctypes.c_double),
        ("bodies_removed", ctypes.c_int32),
        ("broad_pairs", ctypes.c_int32),
        ("relax_sweeps", ctypes.c_int32),  # since 0.2
    ]


class JointDesc(ctypes.Structure):
    """nscd_joint_desc (joint.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("type", ctypes.c_int32),
        ("body_a", ctypes.c_uint64),
        ("body_b", ctypes.c_uint64),
        ("position_a", ctypes.c_double * 3),
        ("orientation_a", ctypes.c_double * 4),
        ("position_b", ctypes.c_double * 3),
        ("orientation_b", ctypes.c_double * 4),
        ("energy_form", ctypes.c_int32),
    ]


class ClearanceJointDesc(ctypes.Structure):
    """nscd_clearance_joint_desc (joint.h)."""
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("type", ctypes.c_int32),
        ("inner_body", ctypes.c_uint64),
        ("outer_body", ctypes.c_uint64),
        ("inner_position", ctypes.c_double * 3),
        ("inner_orientation", ctypes.c_double * 4),
        ("outer_position", ctypes.c_double * 3),
        ("outer_orientation", ctypes.c_double * 4),
        ("hole_radius", ctypes.c_double),
        ("pin_radius", ctypes.c_double),
        ("inner_length", ctypes.c_double),
        ("outer_length", ctypes.c_double),
        ("n_vertices", ctypes.c_int32),
        ("vertices", ctypes.c_double * 16),
        ("clearance", ctypes.c_double),
        ("friction", ctypes.c_double),
        ("impact_law", ctypes.c_int32),
        ("energy_form", ctypes.c_int32),
    ]


def prototypes():
    """{C function name: (restype, argtypes)} of every function the package binds."""
    vp = ctypes.c_void_p
    pp = ctypes.POINTER(ctypes.c_void_p)
    u64p = ctypes.POINTER(ctypes.c_uint64)
    protos = {
        "nscd_version": (ctypes.c_int, []),
        "nscd_version_string": (ctypes.c_char_p, []),
        "nscd_abi_version": (ctypes.c_int, []),
        "nscd_status_string": (ctypes.c_char_p, [c_status]),
        "nscd_contact_law_create_newton": (c_status, [ctypes.c_double, vp, pp]),
        "nscd_contact_law_destroy": (None, [vp]),
        "nscd_contact_law_get_kind": (c_status, [vp, c_int32_p]),
        "nscd_contact_law_name": (ctypes.c_char_p, [vp]),
        "nscd_system_desc_init": (c_status, [ctypes.POINTER(SystemDesc), ctypes.c_size_t]),
        "nscd_system_create": (c_status, [ctypes.POINTER(SystemDesc), pp]),
        "nscd_system_destroy": (None, [vp]),
        "nscd_system_last_error": (ctypes.c_char_p, [vp]),
        "nscd_contact_desc_init": (c_status, [ctypes.POINTER(ContactDesc), ctypes.c_size_t]),
        "nscd_system_set_contact": (c_status, [vp, ctypes.c_int32, ctypes.POINTER(ContactDesc)]),
        "nscd_system_get_sizes": (c_status, [vp, c_int32_p, c_int32_p]),
        "nscd_system_set_state": (c_status, [vp, ctypes.c_double, c_double_p, c_double_p]),
        "nscd_system_get_state": (c_status, [vp, c_double_p, c_double_p, c_double_p]),
        "nscd_system_get_contact": (c_status, [vp, ctypes.c_int32, c_double_p, c_double_p,
                                               c_int32_p]),
        "nscd_system_kinetic_energy": (c_status, [vp, c_double_p]),
        "nscd_system_get_equality": (c_status, [vp, ctypes.c_int32, c_double_p, c_double_p]),
        "nscd_event_driven_options_init": (c_status, [ctypes.POINTER(EventDrivenOptions),
                                                      ctypes.c_size_t]),
        "nscd_event_driven_create": (c_status, [vp, ctypes.POINTER(EventDrivenOptions), pp]),
        "nscd_event_driven_destroy": (None, [vp]),
        "nscd_event_driven_advance": (c_status, [vp, ctypes.c_double,
                                                 ctypes.POINTER(EventDrivenStats)]),
        "nscd_event_driven_last_error": (ctypes.c_char_p, [vp]),
        "nscd_event_driven_get_contact_force": (c_status, [vp, ctypes.c_int32,
                                                           ctypes.POINTER(ctypes.c_double),
                                                           ctypes.POINTER(ctypes.c_double)]),
        "nscd_event_driven_get_equality_force": (c_status, [vp, ctypes.c_int32, c_double_p]),
        "nscd_time_stepping_options_init": (c_status, [ctypes.POINTER(TimeSteppingOptions),
                                                       ctypes.c_size_t]),
        "nscd_time_stepping_create": (c_status, [vp, ctypes.POINTER(TimeSteppingOptions), pp]),
        "nscd_time_stepping_create_world": (c_status,
                                            [vp, ctypes.POINTER(TimeSteppingOptions), pp]),
        "nscd_time_stepping_destroy": (None, [vp]),
        "nscd_time_stepping_advance": (c_status, [vp, ctypes.c_double,
                                                  ctypes.POINTER(TimeSteppingStats)]),
        "nscd_time_stepping_get_report": (c_status, [vp, ctypes.POINTER(TimeSteppingReport)]),
        "nscd_time_stepping_get_contact_impulse": (c_status, [vp, ctypes.c_int32, c_double_p,
                                                              c_double_p]),
        "nscd_time_stepping_get_contact_force": (c_status, [vp, ctypes.c_int32, c_double_p,
                                                            c_double_p]),
        "nscd_time_stepping_last_error": (ctypes.c_char_p, [vp]),
        "nscd_fc3d_options_init": (c_status, [ctypes.POINTER(Fc3dOptions), ctypes.c_size_t]),
        "nscd_fc3d_solve_dense": (c_status, [ctypes.c_int32, c_double_p, c_double_p, c_double_p,
                                             ctypes.POINTER(Fc3dOptions), c_double_p, c_double_p,
                                             ctypes.POINTER(Fc3dInfo)]),
        "nscd_fc3d_solve_bsr": (c_status, [ctypes.c_int32, c_int32_p, c_int32_p, c_double_p,
                                           c_double_p, c_double_p, ctypes.POINTER(Fc3dOptions),
                                           c_double_p, c_double_p, ctypes.POINTER(Fc3dInfo)]),
        "nscd_fc3d_check_dense": (c_status, [ctypes.c_int32, c_double_p,
                                             ctypes.POINTER(Fc3dBlockReport)]),
        "nscd_fc3d_check_bsr": (c_status, [ctypes.c_int32, c_int32_p, c_int32_p, c_double_p,
                                           ctypes.POINTER(Fc3dBlockReport)]),
        "nscd_gfc3d_options_init": (c_status, [ctypes.POINTER(Gfc3dOptions), ctypes.c_size_t]),
        "nscd_gfc3d_solve": (c_status, [ctypes.c_int32, ctypes.c_int32, c_int32_p, c_int32_p,
                                        c_double_p, c_int32_p, c_int32_p, c_double_p, c_double_p,
                                        c_double_p, c_double_p, ctypes.POINTER(Gfc3dOptions),
                                        ctypes.POINTER(Fc3dOptions), c_double_p, c_double_p,
                                        c_double_p, ctypes.POINTER(Gfc3dInfo)]),
        "nscd_lcp_solve_dense": (c_status, [ctypes.c_int32, c_double_p, c_double_p, c_double_p,
                                            c_double_p]),
        "nscd_mdp_single_contact": (c_status, [c_double_p, c_double_p, ctypes.c_double,
                                               c_double_p]),
        "nscd_coulomb_options_init": (c_status, [ctypes.POINTER(CoulombOptions),
                                                 ctypes.c_size_t]),
        "nscd_coulomb_single_contact": (c_status, [c_double_p, c_double_p, ctypes.c_double,
                                                   ctypes.POINTER(CoulombOptions), c_double_p,
                                                   ctypes.POINTER(CoulombInfo)]),
        "nscd_coulomb_single_contact_all": (c_status, [c_double_p, c_double_p, ctypes.c_double,
                                                       c_double_p, ctypes.c_int32, c_int32_p]),
        "nscd_copt_closed_form": (c_status, [ctypes.c_double] * 5 + [c_double_p]),
        "nscd_copt_exact": (c_status, [ctypes.c_double] * 5 + [c_double_p]),
        "nscd_hunt_crossley_factor": (c_status, [ctypes.c_int32] + [ctypes.c_double] * 3
                                      + [c_double_p]),
        "nscd_kelvin_voigt_restitution": (c_status, [ctypes.c_double, c_double_p]),
        "nscd_central_impact": (c_status, [vp, ctypes.c_double, ctypes.c_double,
                                           ctypes.POINTER(CentralImpactResult)]),
        "nscd_contact_law_create_poisson": (c_status, [ctypes.c_double, vp, pp]),
        "nscd_contact_law_create_routh": (c_status, [ctypes.c_double, vp, pp]),
        "nscd_contact_law_create_hertz_damper": (c_status, [ctypes.c_double] * 3
                                                 + [ctypes.c_int32, ctypes.c_int32, vp, pp]),
        "nscd_contact_law_create_hunt_crossley": (c_status, [ctypes.c_double] * 3
                                                  + [ctypes.c_int32, vp, pp]),
        "nscd_contact_law_create_kelvin_voigt": (c_status, [ctypes.c_double, ctypes.c_double,
                                                            ctypes.c_int32, vp, pp]),
        "nscd_contact_law_create_spring_damper": (c_status, [ctypes.c_double] * 3
                                                  + [ctypes.c_int32, vp, pp]),
        "nscd_routh_impact": (c_status, [c_double_p, c_double_p, ctypes.c_double,
                                         ctypes.c_double, c_double_p, c_double_p]),
        "nscd_routh_impact_ex": (c_status, [c_double_p, c_double_p, ctypes.c_double,
                                            ctypes.c_double, ctypes.POINTER(RouthResult)]),
        "nscd_routh_case_name": (ctypes.c_char_p, [ctypes.c_int32]),
        "nscd_world_desc_init": (c_status, [ctypes.POINTER(WorldDesc), ctypes.c_size_t]),
        "nscd_body_desc_init": (c_status, [ctypes.POINTER(BodyDesc), ctypes.c_size_t]),
        "nscd_shape_desc_init": (c_status, [ctypes.POINTER(ShapeDesc), ctypes.c_size_t]),
        "nscd_world_create": (c_status, [ctypes.POINTER(WorldDesc), pp]),
        "nscd_world_destroy": (None, [vp]),
        "nscd_world_last_error": (ctypes.c_char_p, [vp]),
        "nscd_world_add_material": (c_status, [vp, ctypes.c_double, c_int32_p]),
        "nscd_world_set_pair_friction": (c_status, [vp, ctypes.c_int32, ctypes.c_int32,
                                                    ctypes.c_double]),
        "nscd_world_add_body": (c_status, [vp, ctypes.POINTER(BodyDesc), ctypes.POINTER(ShapeDesc),
                                           ctypes.c_int32, u64p]),
        "nscd_world_remove_body": (c_status, [vp, ctypes.c_uint64]),
        "nscd_world_body_valid": (ctypes.c_int32, [vp, ctypes.c_uint64]),
        "nscd_world_body_count": (ctypes.c_int32, [vp]),
        "nscd_world_get_body": (c_status, [vp, ctypes.c_uint64] + [c_double_p] * 4),
        "nscd_world_set_body": (c_status, [vp, ctypes.c_uint64] + [c_double_p] * 4),
        "nscd_world_get_body_mass": (c_status, [vp, ctypes.c_uint64, c_double_p, c_double_p]),
        "nscd_world_set_applied_force": (c_status, [vp, ctypes.c_uint64, c_double_p, c_double_p]),
        "nscd_world_get_applied_force": (c_status, [vp, ctypes.c_uint64, c_double_p, c_double_p]),
        "nscd_world_step": (c_status, [vp, ctypes.POINTER(WorldStepReport)]),
        "nscd_world_time": (ctypes.c_double, [vp]),
        "nscd_world_get_bodies": (c_status, [vp, ctypes.c_int32, c_int32_p, u64p, u64p]
                                  + [c_double_p] * 4),
        "nscd_world_get_contacts": (c_status, [vp, ctypes.c_int32, c_int32_p, u64p, u64p]
                                    + [c_double_p] * 4),
        "nscd_world_kinetic_energy": (c_status, [vp, c_double_p]),
        "nscd_world_add_half_space": (c_status, [vp, c_double_p, c_double_p,
                                                 ctypes.POINTER(BodyDesc),
                                                 ctypes.POINTER(ShapeDesc), u64p]),
        "nscd_world_potential_energy": (c_status, [vp, c_double_p]),
        "nscd_world_total_energy": (c_status, [vp, c_double_p]),
        "nscd_world_get_body_contact_impulse": (c_status, [vp, ctypes.c_uint64]
                                                + [c_double_p] * 3),
        "nscd_world_write": (c_status, [vp, ctypes.c_char_p, ctypes.c_int32]),
        "nscd_world_write_vtk_xml": (c_status, [vp, ctypes.c_char_p, ctypes.c_int32]),
        "nscd_world_vtk_series_create": (c_status, [ctypes.c_char_p, ctypes.c_int32, pp]),
        "nscd_world_vtk_series_write": (c_status, [vp, vp]),
        "nscd_world_vtk_series_frames": (ctypes.c_int32, [vp]),
        "nscd_world_vtk_series_destroy": (None, [vp]),
        "nscd_world_save": (c_status, [vp, ctypes.c_char_p, vp, ctypes.c_size_t]),
        "nscd_world_save_to_buffer": (c_status, [vp, vp, ctypes.c_size_t, vp, ctypes.c_size_t,
                                                 ctypes.POINTER(ctypes.c_size_t)]),
        "nscd_world_load": (c_status, [vp, ctypes.c_char_p, vp, ctypes.c_size_t,
                                       ctypes.POINTER(ctypes.c_size_t)]),
        "nscd_world_load_from_buffer": (c_status, [vp, vp, ctypes.c_size_t, vp, ctypes.c_size_t,
                                                   ctypes.POINTER(ctypes.c_size_t)]),
        "nscd_beam_desc_init": (c_status, [ctypes.POINTER(BeamDesc), ctypes.c_size_t]),
        "nscd_beam_create": (c_status, [ctypes.POINTER(BeamDesc), pp]),
        "nscd_beam_destroy": (None, [vp]),
        "nscd_beam_get_sizes": (c_status, [vp, c_int32_p, c_int32_p]),
        "nscd_beam_frequencies": (c_status, [vp, ctypes.c_int32, c_double_p]),
        "nscd_beam_mass": (c_status, [vp, c_double_p, c_double_p]),
        "nscd_beam_forces": (c_status, [vp, c_double_p, c_double_p, c_double_p]),
        "nscd_beam_quadratic_velocity": (c_status, [vp, c_double_p, c_double_p, c_double_p]),
        "nscd_beam_stiffness": (c_status, [vp, c_double_p]),
        "nscd_beam_energy": (c_status, [vp, c_double_p, c_double_p, c_double_p]),
        "nscd_beam_point": (c_status, [vp, ctypes.c_double, c_double_p, c_double_p, c_double_p,
                                       c_double_p, c_double_p]),
        "nscd_beam_nodal_displacements": (c_status, [vp, c_double_p, c_double_p]),
        "nscd_joint_desc_init": (c_status, [ctypes.POINTER(JointDesc), ctypes.c_size_t]),
        "nscd_clearance_joint_desc_init": (c_status, [ctypes.POINTER(ClearanceJointDesc),
                                                      ctypes.c_size_t]),
        "nscd_world_add_joint": (c_status, [vp, ctypes.POINTER(JointDesc), u64p]),
        "nscd_world_add_clearance_joint": (c_status, [vp, ctypes.POINTER(ClearanceJointDesc),
                                                      u64p]),
        "nscd_world_remove_joint": (c_status, [vp, ctypes.c_uint64]),
        "nscd_world_joint_valid": (ctypes.c_int32, [vp, ctypes.c_uint64]),
        "nscd_world_joint_count": (ctypes.c_int32, [vp]),
        "nscd_world_set_joint_projection": (c_status, [vp, ctypes.c_int32, ctypes.c_double]),
        "nscd_world_joint_residual": (c_status, [vp, ctypes.c_uint64, ctypes.c_int32, c_int32_p,
                                                 c_double_p]),
        "nscd_world_joint_reaction": (c_status, [vp, ctypes.c_uint64, c_double_p, c_double_p]),
        "nscd_world_clearance_gaps": (c_status, [vp, ctypes.c_uint64, ctypes.c_int32, c_int32_p]
                                      + [c_double_p] * 4),
    }
    return protos


def _declare(lib):
    """Declares the prototypes of the functions the package calls. Functions a
    library lacks (an older build) are skipped; calling them raises later."""
    for name, (restype, argtypes) in prototypes().items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            continue
        fn.restype = restype
        fn.argtypes = argtypes
