"""The ctypes package: library loading, version and status strings."""
import os
import re

import nscd

HERE = os.path.dirname(os.path.abspath(__file__))
VERSION_H = os.path.join(HERE, "..", "..", "include", "nscd", "version.h")


def header_define(name):
    with open(VERSION_H, encoding="utf-8") as f:
        match = re.search(rf"#define {name} (\d+)", f.read())
    assert match, name
    return int(match.group(1))


def test_version_matches_header():
    major, minor, patch = (header_define(f"NSCD_VERSION_{p}") for p in ("MAJOR", "MINOR", "PATCH"))
    assert nscd.version_string() == f"{major}.{minor}.{patch}"
    assert nscd.version() == major * 10000 + minor * 100 + patch
    # The pip package's version (python/nscd/_version.py, read by setup.cfg).
    assert nscd.__version__ == f"{major}.{minor}.{patch}"


def test_abi_version_matches_header_and_package():
    assert nscd.abi_version() == header_define("NSCD_ABI_VERSION")
    assert nscd.abi_version() == nscd.ABI_VERSION


def test_library_from_environment():
    # ctest points NSCD_LIBRARY at the library it just built.
    if "NSCD_LIBRARY" in os.environ:
        assert nscd.library_path() == os.environ["NSCD_LIBRARY"]


def test_status_strings():
    assert nscd.status_string(nscd.Status.OK) == "ok"
    names = {nscd.status_string(code) for code in nscd.Status}
    assert len(names) == len(nscd.Status), "every status has its own string"
    assert "unknown status" not in names
    assert nscd.status_string(-9999) == "unknown status"
    assert nscd.status_string(1) == "unknown status"


def test_error_carries_status_and_message():
    err = nscd.NscdError(nscd.Status.ERR_NOT_SPD, "f", "details")
    assert err.status == nscd.Status.ERR_NOT_SPD
    assert err.status_name == nscd.status_string(-9)
    assert err.last_error == "details"
    assert "details" in str(err) and "f:" in str(err)
