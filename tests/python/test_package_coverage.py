"""Every exported nscd_* function of the three libraries (libnscd and the
optional libnscd_fclib and libnscd_mpi) has a ctypes prototype in the package
(_library.prototypes(stem), generated from the library's headers into
_bindings.py), or is listed below with the reason it is not; and every
prototype names a function the library exports."""
import os
import shutil
import subprocess

import pytest

from nscd import _library

# Exported functions the package does not bind, each with its reason.
NOT_BOUND = {
    # "nscd_example": "reason",
}

STEMS = ["nscd", "nscd_fclib", "nscd_mpi"]


def library_file(stem):
    if stem == "nscd" and os.environ.get("NSCD_LIBRARY"):
        path = os.environ["NSCD_LIBRARY"]
    else:
        try:
            path = _library.loaded_path(stem)
        except OSError as exc:
            if stem == "nscd":
                raise
            pytest.skip(f"lib{stem} is optional and not available here: {exc}")
    if not os.path.isfile(path):
        pytest.skip(f"{path} is not a file (set NSCD_LIBRARY)")
    return path


def exported_functions(stem):
    path = library_file(stem)
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm (binutils) is not installed")
    out = subprocess.run([nm, "-D", "--defined-only", path], capture_output=True, text=True,
                         check=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[1] in ("T", "t", "W") and fields[2].startswith("nscd_"):
            names.add(fields[2].split("@")[0])
    assert names, f"no nscd_* function exported by {path}"
    return names


@pytest.mark.parametrize("stem", STEMS)
def test_every_exported_function_is_bound_or_excused(stem):
    exported = exported_functions(stem)
    bound = set(_library.prototypes(stem))
    missing = sorted(exported - bound - set(NOT_BOUND))
    assert not missing, f"lib{stem} exports but neither bound nor in NOT_BOUND: {missing}"


@pytest.mark.parametrize("stem", STEMS)
def test_exclusions_are_current(stem):
    exported = exported_functions(stem)
    bound = set(_library.prototypes(stem))
    stale = sorted(set(NOT_BOUND) & bound)
    assert not stale, f"bound, remove from NOT_BOUND: {stale}"
    assert all(reason.strip() for reason in NOT_BOUND.values())
    if stem == "nscd":
        gone = sorted(set(NOT_BOUND) - exported)
        assert not gone, f"not exported by the library, remove from NOT_BOUND: {gone}"


@pytest.mark.parametrize("stem", STEMS)
def test_prototypes_name_existing_functions(stem):
    exported = exported_functions(stem)
    unknown = sorted(set(_library.prototypes(stem)) - exported)
    assert not unknown, f"prototypes of functions lib{stem} does not export: {unknown}"


@pytest.mark.parametrize("stem", STEMS)
def test_loaded_library_has_its_prototypes_declared(stem):
    library_file(stem)  # skips an absent optional library
    lib = _library.load(stem)
    for name, (restype, argtypes) in _library.prototypes(stem).items():
        function = getattr(lib, name)
        assert function.restype is restype and list(function.argtypes) == argtypes, name


def test_public_names_exist():
    import nscd
    missing = [name for name in nscd.__all__ if not hasattr(nscd, name)]
    assert not missing, missing


def test_core_imports_without_numpy():
    # numpy is imported only by the array kernels, on first use.
    import sys
    code = ("import sys, nscd; assert 'numpy' not in sys.modules; "
            "nscd.ContactLaw.poisson(0.5).close(); nscd.kelvin_voigt_restitution(0.1); "
            "assert 'numpy' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ))
