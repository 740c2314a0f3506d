/* Position projection of closed constraint entries onto g = 0: what the
 * event-driven stepper does after every step with persistent contacts, and
 * what a time stepper needs against drift. */
#ifndef NSCD_CONTACT_PROJECTION_H
#define NSCD_CONTACT_PROJECTION_H

#include <stdint.h>

#include "contact/impacts/impact.h"
#include "core/arena.h"
#include "core/model.h"

/* Moves q (n_q, in place) by mass-weighted Gauss–Newton steps
 *     dq = -M^-1 W' (W M^-1 W')^-1 g
 * until every |g| of the `count` entries is <= tolerance, at most
 * max_iterations times. *projected tells whether q moved. `work` lends its
 * Delassus matrix and dv; `pivots` has `count` entries; `q_tmp` n_q doubles.
 * Dependent rows (core/redundant.h) take the least-norm step;
 * NSCD_ERR_SINGULAR when their gaps are inconsistent (no step closes them). The caller resets the
 * arena of `work` as it sees fit; each iteration takes memory from it. */
nscd_status nscd__project_positions(nscd__model *model, nscd__impact_work *work, double t,
                                    double *q, int32_t count, const int32_t *entries,
                                    double tolerance, int max_iterations, int32_t *pivots,
                                    double *gaps, double *q_tmp, int *projected);

#endif
