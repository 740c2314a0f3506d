"""The release of libnscd this package was written for (NSCD_VERSION_* of
include/nscd/version.h; a test keeps the two equal). The loaded library's
own version is nscd.version_string()."""
__version__ = "0.2.0"
