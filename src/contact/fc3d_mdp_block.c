/* The maximum-dissipation block solver of the fc3d sweeps.
 * TEMPORARY until the mdp branch (nscd_mdp_single_contact) is merged. */
#include "contact/fc3d_local.h"

nscd_status nscd__fc3d_local_mdp(const double A[9], const double v[3], double mu, double x[3]) {
    (void)A, (void)v, (void)mu, (void)x;
    return NSCD_ERR_UNSUPPORTED;
}
