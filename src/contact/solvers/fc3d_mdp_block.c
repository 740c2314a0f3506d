/* The maximum-dissipation block solver of the fc3d sweeps. */
#include "contact/solvers/fc3d_local.h"

#include "nscd/single_contact.h"

/* Eq. (5) of seed 002 for one contact, in the paper's notation: minimise
 * 1/2 x'Ax - x'b with b = -v (so that A x - b = u, the FCLIB velocity). The
 * solution is unique, so the incoming x is not needed. */
nscd_status nscd__fc3d_local_mdp(const double A[9], const double v[3], double mu, double x[3]) {
    double b[3] = {-v[0], -v[1], -v[2]};
    return nscd_mdp_single_contact(A, b, mu, x);
}
