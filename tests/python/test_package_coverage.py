"""Every exported nscd_* function of the library has a ctypes prototype in the
package (_library.prototypes), or is listed below with the reason it is not."""
import os
import shutil
import subprocess

import pytest

from nscd import _library

# Exported functions the package does not bind, each with its reason.
NOT_BOUND = {
    # "nscd_example": "reason",
}


def exported_functions():
    path = os.environ.get("NSCD_LIBRARY") or _library.library_path()
    if not os.path.isfile(path):
        pytest.skip(f"{path} is not a file (set NSCD_LIBRARY)")
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


def test_every_exported_function_is_bound_or_excused():
    exported = exported_functions()
    bound = set(_library.prototypes())
    missing = sorted(exported - bound - set(NOT_BOUND))
    assert not missing, f"exported but neither bound nor in NOT_BOUND: {missing}"


def test_exclusions_are_current():
    exported = exported_functions()
    bound = set(_library.prototypes())
    stale = sorted(set(NOT_BOUND) & bound)
    assert not stale, f"bound, remove from NOT_BOUND: {stale}"
    gone = sorted(set(NOT_BOUND) - exported)
    assert not gone, f"not exported by the library, remove from NOT_BOUND: {gone}"
    assert all(reason.strip() for reason in NOT_BOUND.values())


def test_prototypes_name_existing_functions():
    exported = exported_functions()
    unknown = sorted(set(_library.prototypes()) - exported)
    assert not unknown, f"prototypes of functions the library does not export: {unknown}"


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
