/* Consumer of nscd through find_package(nscd) and target nscd::nscd. */
#include <nscd/nscd.h>

#include <stdio.h>
#include <string.h>

int main(void) {
    if (nscd_version() != NSCD_VERSION) {
        fprintf(stderr, "header %d, library %d\n", NSCD_VERSION, nscd_version());
        return 1;
    }
    /* The LCP kernel uses LAPACKE: this checks the static link pulls it in. */
    const double M[4] = {2.0, 1.0, 1.0, 2.0};
    const double q[2] = {-1.0, -1.0};
    double z[2] = {0.0, 0.0};
    nscd_status status = nscd_lcp_solve_dense(2, M, q, z, NULL);
    printf("find_package consumer: nscd %s, lcp %s, z = (%g, %g)\n", nscd_version_string(),
           nscd_status_string(status), z[0], z[1]);
    return status == NSCD_OK && z[0] > 0.33 && z[0] < 0.34 && z[1] > 0.33 && z[1] < 0.34 ? 0 : 1;
}
