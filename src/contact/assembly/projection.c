/* Position projection of closed entries (see projection.h). */
#include "contact/assembly/projection.h"

#include <math.h>
#include <string.h>

#include "contact/assembly/assembly.h"
#include "core/dense.h"

/* Largest |g| of the entries at q; their rows go to *rows. */
static nscd_status entry_gaps(nscd__model *model, nscd__arena *arena, double t, const double *q,
                              int32_t count, const int32_t *entries, nscd__rows **rows,
                              double *gaps, double *largest) {
    *largest = 0.0;
    nscd__arena_reset(arena);
    nscd_status rc = nscd__gather_rows(model, arena, t, q, count, entries, rows, gaps);
    for (int32_t r = 0; r < count && rc == NSCD_OK; ++r) {
        *largest = fmax(*largest, fabs(gaps[r]));
    }
    return rc;
}

nscd_status nscd__project_positions(nscd__model *model, nscd__impact_work *work, double t,
                                    double *q, int32_t count, const int32_t *entries,
                                    double tolerance, int max_iterations, int32_t *pivots,
                                    double *gaps, double *q_tmp, int *projected) {
    *projected = 0;
    for (int it = 0; it < max_iterations && count > 0; ++it) {
        nscd__rows *rows = NULL;
        double largest = 0.0;
        nscd_status rc =
            entry_gaps(model, work->arena, t, q, count, entries, &rows, gaps, &largest);
        if (rc != NSCD_OK || largest <= tolerance) {
            return rc;
        }
        rc = nscd__impact_delassus(model, work, q, count, rows);
        for (int32_t r = 0; r < count; ++r) {
            gaps[r] = -gaps[r];
        }
        (void)pivots; /* nscd__impact_equations pivots in work->pivots */
        nscd_status solved =
            rc == NSCD_OK ? nscd__impact_equations(work, count, work->delassus, gaps) : NSCD_OK;
        if (solved == NSCD_ERR_OUT_OF_MEMORY) {
            rc = nscd__fail(model->diag, solved, "projection of %d closed contacts", (int)count);
        } else if (solved != NSCD_OK) {
            rc = nscd__fail(model->diag, NSCD_ERR_SINGULAR,
                            "closed contacts have dependent rows whose gaps no motion closes");
        }
        if (rc != NSCD_OK) {
            return rc;
        }
        nscd__response_gemv(&work->response, gaps, work->dv);
        model->displace(model->self, q, work->dv, q_tmp);
        memcpy(q, q_tmp, (size_t)model->n_q * sizeof(double));
        *projected = 1;
    }
    return NSCD_OK;
}
