/* A C11 consumer of the installed library: built only with
 * `pkg-config --cflags --libs nscd`. Exits 0 when every check holds. */
#include <nscd/nscd.h>

#include <stdio.h>
#include <string.h>

static nscd_status unit_mass(void *user, const double *q, double *mass) {
    (void)user;
    (void)q;
    mass[0] = 1.0;
    return NSCD_OK;
}

int main(void) {
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", NSCD_VERSION_MAJOR, NSCD_VERSION_MINOR,
             NSCD_VERSION_PATCH);
    if (strcmp(nscd_version_string(), expected) != 0 || nscd_version() != NSCD_VERSION ||
        nscd_abi_version() != NSCD_ABI_VERSION) {
        fprintf(stderr, "version mismatch: library %s, header %s\n", nscd_version_string(),
                expected);
        return 1;
    }
    const char *ok = nscd_status_string(NSCD_OK);
    const char *err = nscd_status_string(NSCD_ERR_NULL_POINTER);
    if (ok == NULL || err == NULL || strcmp(ok, err) == 0) {
        fprintf(stderr, "status strings are not distinct\n");
        return 1;
    }

    nscd_system_desc desc;
    if (nscd_system_desc_init(&desc, sizeof desc) != NSCD_OK)
        return 1;
    desc.n_dof = 1;
    desc.mass = unit_mass;
    nscd_system *system = NULL;
    nscd_status status = nscd_system_create(&desc, &system);
    if (status != NSCD_OK || system == NULL) {
        fprintf(stderr, "nscd_system_create: %s\n", nscd_status_string(status));
        return 1;
    }
    int32_t n_dof = 0;
    status = nscd_system_get_sizes(system, &n_dof, NULL);
    nscd_system_destroy(system);
    if (status != NSCD_OK || n_dof != 1)
        return 1;

    printf("C consumer: nscd %s, ABI %d, \"%s\"\n", nscd_version_string(), nscd_abi_version(), ok);
    return 0;
}
