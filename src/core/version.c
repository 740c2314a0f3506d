/* Run-time version of the library. */
#include "nscd/version.h"

#define NSCD_STRINGIFY2(x) #x
#define NSCD_STRINGIFY(x) NSCD_STRINGIFY2(x)

int nscd_version(void) { return NSCD_VERSION; }

const char *nscd_version_string(void) {
    return NSCD_STRINGIFY(NSCD_VERSION_MAJOR) "." NSCD_STRINGIFY(
        NSCD_VERSION_MINOR) "." NSCD_STRINGIFY(NSCD_VERSION_PATCH);
}

int nscd_abi_version(void) { return NSCD_ABI_VERSION; }
