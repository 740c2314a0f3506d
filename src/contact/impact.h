/* Impact resolution: the velocity jump of a set of simultaneously impacting
 * (or persistently closed) contacts of a model. */
#ifndef NSCD_CONTACT_IMPACT_H
#define NSCD_CONTACT_IMPACT_H

#include <stdint.h>

#include "core/model.h"

/* Scratch memory for impacts of up to `capacity` contacts of a model. */
typedef struct nscd__impact_work {
    int32_t capacity;
    int32_t n_v;
    double *rows_t;   /* n_v x capacity: W' */
    double *minv_wt;  /* n_v x capacity: M^-1 W' */
    double *delassus; /* capacity x capacity: W M^-1 W' */
    double *rhs;      /* capacity */
    double *dv;       /* n_v */
    int32_t *pivots;  /* capacity */
} nscd__impact_work;

nscd_status nscd__impact_work_create(const nscd__model *model, nscd__impact_work *work);
void nscd__impact_work_destroy(const nscd__model *model, nscd__impact_work *work);

/* One impact problem. `rows` holds the normal rows of the `count` contacts
 * (count x n_v, row-major); the outputs are per contact. */
typedef struct nscd__impact {
    int32_t count;
    const int32_t *contacts;
    const double *rows;
    int plastic; /* 1: ignore the laws and make every gap velocity zero (bilateral) */
    double *impulse;
    double *velocity_before;
    double *velocity_after;
} nscd__impact;

/* Applies the impact to velocities v (in: before, out: after) at positions q.
 * Frictionless Newton contacts are solved together as the LCP
 *     P >= 0 _|_ W v+ + e min(W v-, 0) >= 0   with   v+ = v- + M^-1 W' P;
 * a plastic impact solves W v+ = 0 instead (used to close contacts). */
nscd_status nscd__resolve_impact(nscd__model *model, nscd__impact_work *work, const double *q,
                                 const nscd__impact *impact, double *v);

/* Builds W', M^-1 W' and G = W M^-1 W' (in work) for `count` rows at q. */
nscd_status nscd__impact_delassus(nscd__model *model, nscd__impact_work *work, const double *q,
                                  int32_t count, const double *rows);

#endif
