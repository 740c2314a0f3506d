"""ctypes loads the INSTALLED libnscd.so.<ABI> and calls it; then the Python
package, pointed at the installed library, does the same.

usage: ctypes_check.py STAGE_LIBDIR ABI_VERSION EXPECTED_VERSION PYTHON_PACKAGE_DIR"""
import ctypes
import os
import sys

libdir, abi, expected, package_dir = sys.argv[1:5]
path = os.path.join(libdir, f"libnscd.so.{abi}")
lib = ctypes.CDLL(path)
lib.nscd_version_string.restype = ctypes.c_char_p
lib.nscd_version_string.argtypes = []
lib.nscd_status_string.restype = ctypes.c_char_p
lib.nscd_status_string.argtypes = [ctypes.c_int32]
version = lib.nscd_version_string().decode()
assert version == expected, (version, expected)
assert lib.nscd_status_string(0), "empty status string"
print(f"ctypes consumer: {path} -> nscd_version_string() = {version!r}")

os.environ["NSCD_LIBRARY"] = path
sys.path.insert(0, package_dir)
import nscd  # noqa: E402  (after the path is set up)

assert nscd.version_string() == expected
assert os.path.realpath(nscd.library_path()) == os.path.realpath(path), nscd.library_path()
print(f"python package: nscd.version_string() = {nscd.version_string()!r} from {nscd.library_path()}")
