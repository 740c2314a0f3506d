/* The table of time-stepping schemes: one row per nscd_ts_scheme, indexed
 * by the enum, with its step, the commit of an accepted step and what it
 * supports (nscd__ts_scheme in time_stepping_impl.h). The step loop and the
 * option checks read the row instead of switching over the enum; a new
 * scheme is a new row.
 *
 * The Moreau schemes and HETS solve for impulses (velocity level only); the
 * α schemes (the mixed framework of mixed_step.c over a base scheme's
 * stages) for accelerations and forces. The midpoint rule and HETS take the
 * forces explicitly. The α schemes' and HETS's histories are indexed by
 * entry: they drive a fixed entry set only. The semi-implicit step of seed
 * 004 is Moreau–Jean's with θ = 1 and linearised gaps. */
#include <stddef.h>

#include "integrators/alpha/mixed_impl.h"
#include "integrators/time_stepping/time_stepping_impl.h"

/* clang-format off */
static const nscd__ts_scheme schemes[] = {
    /* name, step, commit, stages (the α schemes' base scheme);
     * capabilities: staged  acc_level  subspace  implicit  changing  linearised */
    [NSCD_TS_MOREAU_JEAN] = {
        "Moreau-Jean", nscd__moreau_jean_step, nscd__ts_commit_impulses, NULL,
                     0,      0,         0,        1,        1,        0},
    [NSCD_TS_MOREAU_MIDPOINT] = {
        "Moreau midpoint", nscd__moreau_midpoint_step, nscd__ts_commit_impulses, NULL,
                     0,      0,         0,        0,        1,        0},
    [NSCD_TS_HALF_EXPLICIT] = {
        "HETS", nscd__hets_step, nscd__ts_commit_impulses, NULL,
                     0,      0,         0,        0,        0,        0},
    [NSCD_TS_GENERALIZED_ALPHA] = {
        "generalized-alpha", nscd__alpha_step, nscd__ts_commit_staged,
        nscd__generalized_alpha_stages,
                     1,      1,         1,        1,        0,        0},
    [NSCD_TS_BATHE] = {
        "Bathe", nscd__alpha_step, nscd__ts_commit_staged, nscd__bathe_stages,
                     1,      1,         1,        1,        0,        0},
    [NSCD_TS_ED_ALPHA] = {
        "ED-alpha", nscd__alpha_step, nscd__ts_commit_staged, nscd__ed_alpha_stages,
                     1,      1,         1,        1,        0,        0},
    [NSCD_TS_SEMI_IMPLICIT] = {
        "semi-implicit", nscd__moreau_jean_step, nscd__ts_commit_impulses, NULL,
                     0,      0,         0,        1,        1,        1},
};
/* clang-format on */

const nscd__ts_scheme *nscd__ts_scheme_of(int32_t scheme) {
    if (scheme < 0 || scheme >= (int32_t)(sizeof schemes / sizeof schemes[0])) {
        return NULL;
    }
    return &schemes[scheme];
}
