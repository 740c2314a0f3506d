"""cffi (ABI mode) parses the real public headers and calls the library.

The umbrella header is preprocessed with `cc -E -P` after its system includes
are removed (cffi knows the <stdint.h>/<stddef.h> types itself) and with the
GNU visibility attribute stripped, so cdef() sees exactly the declarations a C
program sees: preprocessed_headers of tools/gen_python_bindings.py, the same
preprocessing the generator of the ctypes layer (_bindings.py) uses. The
layouts and signatures cffi computes from the headers then check the
generated ctypes declarations (an independent parser: cffi's cdef against the
generator's pycparser walk), field by field and argument by argument."""
import ctypes
import importlib.util
import os

import pytest

cffi = pytest.importorskip("cffi")

import nscd  # noqa: E402
from nscd import _bindings, _library  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def _generator():
    spec = importlib.util.spec_from_file_location(
        "gen_python_bindings", os.path.join(ROOT, "tools", "gen_python_bindings.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def preprocessed_headers(tmp_path, umbrella="nscd.h"):
    return _generator().preprocessed_headers(tmp_path, umbrella)


@pytest.fixture(scope="module")
def ffi_lib(tmp_path_factory):
    source = preprocessed_headers(tmp_path_factory.mktemp("cffi"))
    ffi = cffi.FFI()
    ffi.cdef(source)
    lib = ffi.dlopen(nscd.library_path())
    return ffi, lib


def test_version_and_status_through_cffi(ffi_lib):
    ffi, lib = ffi_lib
    assert ffi.string(lib.nscd_version_string()).decode() == nscd.version_string()
    assert lib.nscd_version() == nscd.version()
    assert ffi.string(lib.nscd_status_string(lib.NSCD_OK)).decode() == "ok"
    assert ffi.string(lib.nscd_status_string(lib.NSCD_ERR_NOT_SPD)).decode() == \
        nscd.status_string(nscd.Status.ERR_NOT_SPD)


def test_status_enum_matches_package(ffi_lib):
    _, lib = ffi_lib
    for status in nscd.Status:
        assert getattr(lib, "NSCD_" + status.name) == status.value, status.name


def test_system_desc_init_through_cffi(ffi_lib):
    ffi, lib = ffi_lib
    desc = ffi.new("nscd_system_desc *")
    assert lib.nscd_system_desc_init(desc, ffi.sizeof("nscd_system_desc")) == lib.NSCD_OK
    assert desc.struct_size == ffi.sizeof("nscd_system_desc")
    assert lib.nscd_system_desc_init(desc, 3) == lib.NSCD_ERR_STRUCT_SIZE


@pytest.fixture(scope="module")
def companion_ffis(tmp_path_factory):
    """{umbrella: FFI} of the companion headers (fclib.h, world_mpi.h), which
    nscd/nscd.h does not include."""
    ffis = {}
    for umbrella in ("fclib.h", "world_mpi.h"):
        ffi = cffi.FFI()
        ffi.cdef(preprocessed_headers(tmp_path_factory.mktemp("cffi"), umbrella))
        ffis[umbrella] = ffi
    return ffis


def ffi_of(c_name, ffi_lib, companion_ffis):
    for ffi in [ffi_lib[0]] + list(companion_ffis.values()):
        try:
            ffi.typeof(c_name)
            return ffi
        except cffi.CDefError:
            continue
    raise AssertionError(f"{c_name} is declared by no header")


@pytest.mark.parametrize("c_name, mirror", sorted(_bindings.STRUCTS.items()))
def test_ctypes_mirrors_match_headers(ffi_lib, companion_ffis, c_name, mirror):
    ffi = ffi_of(c_name, ffi_lib, companion_ffis)
    assert ffi.sizeof(c_name) == ctypes.sizeof(mirror), c_name
    c_fields = [name for name, _ in ffi.typeof(c_name).fields]
    assert c_fields == [name for name, _ in mirror._fields_], c_name
    for name in c_fields:
        assert ffi.offsetof(c_name, name) == getattr(mirror, name).offset, (c_name, name)


@pytest.mark.parametrize("c_name, enum_class, prefix", [
    ("nscd_fc3d_method", "Fc3dMethod", "NSCD_FC3D_"),
    ("nscd_fc3d_newton_failure", "Fc3dNewtonFailure", "NSCD_FC3D_NEWTON_"),
    ("nscd_hc_model", "HcModel", "NSCD_HC_"),
    ("nscd_copt_method", "CoptMethod", "NSCD_COPT_"),
    ("nscd_indentation", "Indentation", "NSCD_INDENTATION_"),
    ("nscd_routh_case", "RouthCase", "NSCD_ROUTH_"),
    ("nscd_body_type", "BodyType", "NSCD_BODY_"),
    ("nscd_beam_reference", "BeamReference", "NSCD_BEAM_REFERENCE_"),
    ("nscd_shape_type", "ShapeType", "NSCD_SHAPE_"),
    ("nscd_friction_law", "FrictionLaw", "NSCD_FRICTION_"),
    ("nscd_friction_combine", "FrictionCombine", "NSCD_COMBINE_"),
    ("nscd_world_format", "WorldFormat", "NSCD_WORLD_"),
    ("nscd_joint_type", "JointType", "NSCD_JOINT_"),
    ("nscd_clearance_type", "ClearanceType", "NSCD_CLEARANCE_"),
    ("nscd_clearance_impact", "ClearanceImpact", "NSCD_CLEARANCE_"),
])
def test_enums_match_headers(ffi_lib, c_name, enum_class, prefix):
    ffi, _ = ffi_lib
    # by name: an enum may hold aliases (nscd_friction_law keeps fc3d's 0.1
    # names NSCD_FC3D_COULOMB, ... with the same values)
    c_values = {name[len(prefix):]: value
                for name, value in ffi.typeof(c_name).relements.items()
                if name.startswith(prefix)}
    assert c_values == {m.name: m.value for m in getattr(nscd, enum_class)}, c_name


def test_fc3d_friction_law_is_the_friction_law(ffi_lib):
    ffi, _ = ffi_lib
    names = ffi.typeof("nscd_friction_law").relements
    assert names["NSCD_FC3D_COULOMB"] == names["NSCD_FRICTION_COULOMB"] == 0
    assert names["NSCD_FC3D_MAX_DISSIPATION"] == names["NSCD_FRICTION_MAX_DISSIPATION"] == 1
    assert nscd.Fc3dFrictionLaw is nscd.FrictionLaw


def test_package_aliases_are_the_generated_structs():
    assert _library.SystemDesc is _bindings.nscd_system_desc
    assert _library.WorldDesc is _bindings.nscd_world_desc
    assert _library.MASS_FN is _bindings.nscd_mass_fn


def _cffi_kind(ffi, ctype):
    """"void", "pointer", "float<size>" or "int<size>" of a cffi type."""
    if ctype.kind in ("pointer", "array"):
        return "pointer"
    if ctype.kind == "function":
        return "pointer"
    if ctype.kind == "void":
        return "void"
    if ctype.kind == "primitive" and ctype.cname in ("double", "float"):
        return f"float{ffi.sizeof(ctype)}"
    if ctype.kind in ("primitive", "enum"):
        return f"int{ffi.sizeof(ctype)}"
    return ctype.kind


def _ctypes_kind(ctype):
    """The same classification of a ctypes type (None: void)."""
    if ctype is None:
        return "void"
    if ctype in (ctypes.c_double, ctypes.c_float):
        return f"float{ctypes.sizeof(ctype)}"
    if ctype in (ctypes.c_void_p, ctypes.c_char_p) or issubclass(
            ctype, (ctypes._Pointer, ctypes._CFuncPtr)):
        return "pointer"
    return f"int{ctypes.sizeof(ctype)}"


def test_generated_prototypes_match_cffi(ffi_lib):
    """Every function of nscd/nscd.h: the generated restype and argtypes have
    the kinds and sizes cffi reads in the header."""
    ffi, lib = ffi_lib
    protos = _bindings.PROTOTYPES["nscd"]
    assert protos
    for name, (restype, argtypes) in protos.items():
        ftype = ffi.typeof(getattr(lib, name))
        assert _ctypes_kind(restype) == _cffi_kind(ffi, ftype.result), name
        assert len(argtypes) == len(ftype.args), name
        for i, (mine, theirs) in enumerate(zip(argtypes, ftype.args)):
            assert _ctypes_kind(mine) == _cffi_kind(ffi, theirs), (name, i)
