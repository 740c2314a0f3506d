/**
 * @file version.h
 * @brief Compile-time and run-time version of libnscd.
 *
 * The release version (MAJOR.MINOR.PATCH) is independent of the ABI version
 * carried in the shared library's SONAME (`libnscd.so.<NSCD_ABI_VERSION>`).
 * Compare ::NSCD_VERSION (the header you compiled against) with
 * nscd_version() (the library you run against) to detect a mismatch.
 */
#ifndef NSCD_VERSION_H
#define NSCD_VERSION_H

#include "nscd/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Release major version. */
#define NSCD_VERSION_MAJOR 0
/** Release minor version. */
#define NSCD_VERSION_MINOR 2
/** Release patch version. */
#define NSCD_VERSION_PATCH 0
/** ABI major version: the number in the SONAME, bumped only on an ABI break. */
#define NSCD_ABI_VERSION 0
/** Release version as one integer: MAJOR*10000 + MINOR*100 + PATCH. */
#define NSCD_VERSION (NSCD_VERSION_MAJOR * 10000 + NSCD_VERSION_MINOR * 100 + NSCD_VERSION_PATCH)

/**
 * @brief Release version of the library at run time.
 * @return MAJOR*10000 + MINOR*100 + PATCH, e.g. 100 for 0.1.0.
 */
NSCD_API int nscd_version(void);

/**
 * @brief Release version of the library at run time, as text.
 * @return A static string such as `"0.1.0"`; never NULL.
 */
NSCD_API const char *nscd_version_string(void);

/**
 * @brief ABI version of the library at run time (the SONAME number).
 * @return The ABI major version, e.g. 0.
 */
NSCD_API int nscd_abi_version(void);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_VERSION_H */
