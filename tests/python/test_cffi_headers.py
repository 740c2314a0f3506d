"""cffi (ABI mode) parses the real public headers and calls the library.

The umbrella header is preprocessed with `cc -E -P` after its system includes
are removed (cffi knows the <stdint.h>/<stddef.h> types itself) and with the
GNU visibility attribute stripped, so cdef() sees exactly the declarations a C
program sees. The layouts cffi computes from the headers then check the
ctypes mirrors of the Python package, field by field."""
import ctypes
import os
import re
import shutil
import subprocess

import pytest

cffi = pytest.importorskip("cffi")

import nscd  # noqa: E402
from nscd import _library  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.path.normpath(os.path.join(HERE, "..", "..", "include"))


def preprocessed_headers(tmp_path):
    work = tmp_path / "nscd"
    work.mkdir()
    for name in os.listdir(os.path.join(INCLUDE, "nscd")):
        if not name.endswith(".h"):
            continue
        with open(os.path.join(INCLUDE, "nscd", name), encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"^\s*#\s*include\s*<[^>]*>\s*$", "", text, flags=re.M)
        (work / name).write_text(text, encoding="utf-8")
    cc = shutil.which(os.environ.get("CC", "cc")) or "cc"
    done = subprocess.run([cc, "-E", "-P", "-I", str(tmp_path), str(work / "nscd.h")],
                          capture_output=True, text=True, check=True)
    return re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", "", done.stdout)


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


@pytest.mark.parametrize("c_name, mirror", [
    ("nscd_system_desc", _library.SystemDesc),
    ("nscd_contact_desc", _library.ContactDesc),
    ("nscd_allocator", _library.Allocator),
    ("nscd_event_info", _library.EventInfo),
    ("nscd_event_driven_options", _library.EventDrivenOptions),
    ("nscd_event_driven_stats", _library.EventDrivenStats),
    ("nscd_time_stepping_options", _library.TimeSteppingOptions),
    ("nscd_time_stepping_report", _library.TimeSteppingReport),
    ("nscd_time_stepping_stats", _library.TimeSteppingStats),
    ("nscd_fc3d_options", _library.Fc3dOptions),
    ("nscd_fc3d_info", _library.Fc3dInfo),
    ("nscd_coulomb_options", _library.CoulombOptions),
    ("nscd_coulomb_info", _library.CoulombInfo),
    ("nscd_central_impact_result", _library.CentralImpactResult),
    ("nscd_routh_result", _library.RouthResult),
    ("nscd_world_desc", _library.WorldDesc),
    ("nscd_body_desc", _library.BodyDesc),
    ("nscd_shape_desc", _library.ShapeDesc),
    ("nscd_world_step_report", _library.WorldStepReport),
    ("nscd_beam_desc", _library.BeamDesc),
    ("nscd_joint_desc", _library.JointDesc),
    ("nscd_clearance_joint_desc", _library.ClearanceJointDesc),
])
def test_ctypes_mirrors_match_headers(ffi_lib, c_name, mirror):
    ffi, _ = ffi_lib
    assert ffi.sizeof(c_name) == ctypes.sizeof(mirror), c_name
    c_fields = [name for name, _ in ffi.typeof(c_name).fields]
    assert c_fields == [name for name, _ in mirror._fields_], c_name
    for name in c_fields:
        assert ffi.offsetof(c_name, name) == getattr(mirror, name).offset, (c_name, name)


@pytest.mark.parametrize("c_name, enum_class, prefix", [
    ("nscd_fc3d_friction_law", "Fc3dFrictionLaw", "NSCD_FC3D_"),
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
    c_values = {name[len(prefix):]: value
                for value, name in ffi.typeof(c_name).elements.items()}
    assert c_values == {m.name: m.value for m in getattr(nscd, enum_class)}, c_name
