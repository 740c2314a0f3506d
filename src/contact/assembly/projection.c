/* The one projection (see projection.h): the mixed LCP of a stage, the
 * Gauss–Newton loop over an adapter, and the generic model's adapter. */
#include "contact/assembly/projection.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "contact/assembly/assembly.h"
#include "core/dense.h"
#include "core/redundant.h"

static bool is_gap(const int32_t *gap, int32_t a) { return gap != NULL && gap[a] != 0; }

/* W += δ I, δ = NSCD__PROJECTION_DELTA max W_ii: the regularisation of (1)
 * relative to the problem's scale (core/redundant.h). */
static void regularise(int32_t m, double *W) {
    double top = 0.0;
    for (int32_t a = 0; a < m; ++a) {
        top = fmax(top, W[(size_t)a * (size_t)m + (size_t)a]);
    }
    for (int32_t a = 0; a < m; ++a) {
        W[(size_t)a * (size_t)m + (size_t)a] += NSCD__PROJECTION_DELTA * top;
    }
}

/* Projected Gauss–Seidel sweeps on (1) from p, p_a = p_a - u_a / W_aa (then
 * max(0, .) on a gap), until no p moves by more than 1e-15 of the largest. A
 * zero row (W_aa = 0: δ is 0 only when W is) keeps p_a = 0. */
static void sweeps(const int32_t *gap, int32_t m, const double *W, const double *b, double *p,
                   int count) {
    for (int sweep = 0; sweep < count; ++sweep) {
        double change = 0.0, size = 0.0;
        for (int32_t a = 0; a < m; ++a) {
            const double *Wa = W + (size_t)a * (size_t)m;
            if (!(Wa[a] > 0.0)) {
                continue;
            }
            double u = b[a] + nscd__dot(m, Wa, p);
            double next = p[a] - u / Wa[a];
            if (is_gap(gap, a) && next < 0.0) {
                next = 0.0;
            }
            change = fmax(change, fabs(next - p[a]));
            size = fmax(size, fabs(next));
            p[a] = next;
        }
        if (change <= 1e-15 * size) {
            return;
        }
    }
}

/* The exact solution on the active set the sweeps found (equalities and
 * gaps with p > 0): W_AA p_A = -b_A by Cholesky (W carries δ), kept when
 * p_A >= 0 on the gaps and u >= 0 on the inactive gaps, to
 * NSCD__REDUNDANT_CHECK of max|p_A| and max|b| (else the sweeps' p stays). */
static void polish(const int32_t *gap, int32_t m, const double *W, const double *b, double *p,
                   double *Wa, double *L, double *x, int32_t *active) {
    int32_t k = 0;
    double b_size = 0.0;
    for (int32_t a = 0; a < m; ++a) {
        if (!is_gap(gap, a) || p[a] > 0.0) {
            active[k++] = a;
        }
        b_size = fmax(b_size, fabs(b[a]));
    }
    for (int32_t i = 0; i < k; ++i) {
        for (int32_t j = 0; j < k; ++j) {
            Wa[(size_t)i * (size_t)k + (size_t)j] = W[(size_t)active[i] * (size_t)m + active[j]];
        }
        x[i] = -b[active[i]];
    }
    if (k == 0) {
        return;
    }
    if (nscd__cholesky_cm(k, Wa, L) != NSCD_OK || nscd__cholesky_solve_cm(k, L, 1, x) != NSCD_OK) {
        return;
    }
    double x_size = 0.0;
    for (int32_t i = 0; i < k; ++i) {
        x_size = fmax(x_size, fabs(x[i]));
    }
    for (int32_t i = 0; i < k; ++i) {
        if (is_gap(gap, active[i]) && x[i] < -NSCD__REDUNDANT_CHECK * x_size) {
            return;
        }
    }
    for (int32_t a = 0, i = 0; a < m; ++a) { /* inactive gaps must stay open */
        if (i < k && active[i] == a) {
            ++i;
            continue;
        }
        double u = b[a];
        for (int32_t j = 0; j < k; ++j) {
            u += W[(size_t)a * (size_t)m + active[j]] * x[j];
        }
        if (u < -NSCD__REDUNDANT_CHECK * b_size) {
            return;
        }
    }
    memset(p, 0, (size_t)m * sizeof(double));
    for (int32_t i = 0; i < k; ++i) {
        p[active[i]] = x[i];
    }
}

void nscd__projection_solve(nscd__projection_system *sys) {
    int32_t m = sys->m;
    const double *W = sys->W, *b = sys->b;
    double *p = sys->p;
    double *Wa = sys->work, *L = Wa + (size_t)m * (size_t)m, *x = L + (size_t)m * (size_t)m;
    int32_t *active = (int32_t *)(x + m);
    regularise(m, sys->W);
    memset(p, 0, (size_t)m * sizeof(double));
    bool gaps = false;
    for (int32_t a = 0; a < m && !gaps; ++a) {
        gaps = is_gap(sys->gap, a);
    }
    if (!gaps) {
        /* equalities only: the active set is every row whatever the sweeps
         * do, and a successful polish replaces their p; the sweeps run only
         * when it fails (the same result as sweeps first, 200 sweeps less) */
        polish(sys->gap, m, W, b, p, Wa, L, x, active);
        bool solved = false;
        for (int32_t a = 0; a < m && !solved; ++a) {
            solved = p[a] != 0.0;
        }
        if (solved) {
            return;
        }
    }
    sweeps(sys->gap, m, W, b, p, NSCD__PROJECTION_SWEEPS);
    polish(sys->gap, m, W, b, p, Wa, L, x, active);
}

/* The envelope of m rows in the work array: L, then T, then the ints
 * (m^2 + 2 m + 1 <= NSCD__PROJECTION_WORK(m) doubles). */
static nscd__envelope envelope_view(double *work, int32_t m) {
    nscd__envelope e;
    e.n = m;
    e.L = work;
    e.T = work + (size_t)m * ((size_t)m + 1) / 2;
    e.start = (int32_t *)(work + (size_t)m * (size_t)m);
    e.last = e.start + m;
    e.offset = e.last + m;
    e.toff = e.offset + m + 1;
    e.x = NULL;
    return e;
}

/* Equalities alone on the envelope of W the adapter fills (its rows in an
 * order that keeps the envelope narrow): δ as regularise(), then the
 * envelope Cholesky, whose arithmetic is the dense one's (core/envelope.h).
 * False (p overwritten) when W + δ I does not factor or the solution is zero
 * for a nonzero b (then the dense path, with its sweeps, decides). */
static bool solve_envelope(const nscd__projection_ops *ops, nscd__projection_system *sys) {
    int32_t m = sys->m;
    nscd__envelope e = envelope_view(sys->work, m);
    ops->envelope(ops->self, sys, &e);
    double top = 0.0;
    for (int32_t a = 0; a < m; ++a) {
        top = fmax(top, e.L[e.offset[a] + (a - e.start[a])]);
    }
    for (int32_t a = 0; a < m; ++a) {
        e.L[e.offset[a] + (a - e.start[a])] += NSCD__PROJECTION_DELTA * top;
    }
    if (nscd__envelope_factor(&e) != NSCD_OK) {
        return false;
    }
    double *x = sys->p; /* the dense path, if it follows, starts from p = 0 */
    bool zero = true, b_zero = true;
    for (int32_t a = 0; a < m; ++a) {
        x[a] = -sys->b[a];
        b_zero = b_zero && sys->b[a] == 0.0;
    }
    nscd__envelope_solve(&e, x);
    for (int32_t a = 0; a < m; ++a) {
        zero = zero && x[a] == 0.0;
    }
    return !zero || b_zero;
}

/* p of the stage: on the envelope when every row is an equation (gaps: of
 * the last position gather, so that both stages take one path) and the
 * adapter has one, else (or when that fails) on the dense W. */
static nscd_status solve_stage(const nscd__projection_ops *ops, nscd__projection_system *sys,
                               bool gaps) {
    sys->enveloped = 0;
    if (!gaps && ops->envelope != NULL && solve_envelope(ops, sys)) {
        sys->enveloped = 1;
        return NSCD_OK;
    }
    nscd_status rc = ops->delassus(ops->self, sys);
    if (rc == NSCD_OK) {
        nscd__projection_solve(sys);
    }
    return rc;
}

/* A chord step: p = -W⁻¹ b by the factor of W an earlier iteration left in
 * sys->work (the layout of solve_envelope, m rows). */
static void solve_chord(nscd__projection_system *sys) {
    int32_t m = sys->m;
    nscd__envelope e = envelope_view(sys->work, m);
    for (int32_t a = 0; a < m; ++a) {
        sys->p[a] = -sys->b[a];
    }
    nscd__envelope_solve(&e, sys->p);
}

nscd_status nscd__project(const nscd__projection_ops *ops, double tolerance, int max_iterations,
                          double *residual, int *projected) {
    nscd__projection_system sys;
    bool gaps = false;
    *projected = 0;
    *residual = 0.0;
    int32_t factored = -1; /* the rows of the factor in sys.work (chord), -1: none */
    double last = 0.0;
    for (int it = 0;; ++it) { /* positions */
        nscd_status rc = ops->gather(ops->self, NSCD__PROJECT_POSITIONS, &sys);
        if (rc != NSCD_OK) {
            return rc;
        }
        *residual = sys.residual;
        gaps = false;
        for (int32_t a = 0; a < sys.m && !gaps; ++a) {
            gaps = is_gap(sys.gap, a);
        }
        if (sys.residual <= tolerance || it >= max_iterations) {
            break;
        }
        if (ops->chord && !gaps && factored == sys.m &&
            sys.residual <= NSCD__PROJECTION_CHORD * last) {
            solve_chord(&sys);
            rc = NSCD_OK;
        } else {
            rc = solve_stage(ops, &sys, gaps);
            factored = sys.enveloped ? sys.m : -1;
        }
        last = sys.residual;
        if (rc == NSCD_OK) {
            rc = ops->apply(ops->self, NSCD__PROJECT_POSITIONS, &sys);
        }
        if (rc != NSCD_OK) {
            return rc;
        }
        *projected = 1;
    }
    if (!ops->velocities) {
        return NSCD_OK;
    }
    nscd_status rc = ops->gather(ops->self, NSCD__PROJECT_VELOCITIES, &sys);
    if (rc == NSCD_OK) {
        rc = solve_stage(ops, &sys, gaps);
    }
    return rc == NSCD_OK ? ops->apply(ops->self, NSCD__PROJECT_VELOCITIES, &sys) : rc;
}

nscd_status nscd__project_velocities(const nscd__projection_ops *ops) {
    nscd__projection_system sys;
    nscd_status rc = ops->gather(ops->self, NSCD__PROJECT_VELOCITIES, &sys);
    if (rc != NSCD_OK || sys.m == 0) {
        return rc;
    }
    bool gaps = false;
    for (int32_t a = 0; a < sys.m && !gaps; ++a) {
        gaps = is_gap(sys.gap, a);
    }
    rc = solve_stage(ops, &sys, gaps);
    return rc == NSCD_OK ? ops->apply(ops->self, NSCD__PROJECT_VELOCITIES, &sys) : rc;
}

/* The generic model's adapter: closed entries, all equalities. */
typedef struct model_projection {
    nscd__model *model;
    nscd__impact_work *work;
    double t;
    double *q, *q_tmp, *gaps;
    int32_t count;
    const int32_t *entries;
    nscd__rows *rows;
} model_projection;

/* The rows and gaps at q (the arena reset: the last step's memory is done
 * with), b = g, and the solver's arrays after them in the arena. */
static nscd_status model_gather(void *self, int stage, nscd__projection_system *sys) {
    model_projection *mp = self;
    int32_t m = mp->count;
    (void)stage; /* positions only */
    nscd__arena_reset(mp->work->arena);
    nscd_status rc = nscd__gather_rows(mp->model, mp->work->arena, mp->t, mp->q, m, mp->entries,
                                       &mp->rows, mp->gaps);
    if (rc != NSCD_OK) {
        return rc;
    }
    sys->m = m;
    sys->gap = NULL;
    sys->b = mp->gaps;
    sys->W = mp->work->delassus; /* nscd__impact_delassus fills it */
    sys->p = nscd__arena_alloc(mp->work->arena, (size_t)m, sizeof(double));
    sys->work = nscd__arena_alloc(mp->work->arena, NSCD__PROJECTION_WORK(m), sizeof(double));
    if (m > 0 && (sys->p == NULL || sys->work == NULL)) {
        return nscd__fail(mp->model->diag, NSCD_ERR_OUT_OF_MEMORY,
                          "projection of %d closed entries", (int)m);
    }
    sys->residual = 0.0;
    for (int32_t r = 0; r < m; ++r) {
        sys->residual = fmax(sys->residual, fabs(mp->gaps[r]));
    }
    return NSCD_OK;
}

/* W = C M^-1 C' into work->delassus, and M^-1 C' into work->response. */
static nscd_status model_delassus(void *self, const nscd__projection_system *sys) {
    model_projection *mp = self;
    return nscd__impact_delassus(mp->model, mp->work, mp->q, sys->m, mp->rows);
}

/* Δ = M^-1 C' p, q <- q ⊕ Δ (model->displace). */
static nscd_status model_apply(void *self, int stage, const nscd__projection_system *sys) {
    model_projection *mp = self;
    (void)stage;
    nscd__response_gemv(&mp->work->response, sys->p, mp->work->dv);
    mp->model->displace(mp->model->self, mp->q, mp->work->dv, mp->q_tmp);
    memcpy(mp->q, mp->q_tmp, (size_t)mp->model->n_q * sizeof(double));
    return NSCD_OK;
}

nscd_status nscd__project_positions(nscd__model *model, nscd__impact_work *work, double t,
                                    double *q, int32_t count, const int32_t *entries,
                                    double tolerance, int max_iterations, double *gaps,
                                    double *q_tmp, int *projected) {
    *projected = 0;
    if (count <= 0 || max_iterations <= 0) {
        return NSCD_OK;
    }
    model_projection mp = {model, work, t, q, q_tmp, gaps, count, entries, NULL};
    nscd__projection_ops ops = {&mp, model_gather, model_delassus, NULL, model_apply, 0, 0};
    double residual = 0.0;
    nscd_status rc = nscd__project(&ops, tolerance, max_iterations, &residual, projected);
    if (rc == NSCD_OK && residual > tolerance) { /* never a silent drift */
        rc = nscd__fail(model->diag, NSCD_ERR_NOT_CONVERGED,
                        "projection of %d closed entries: |g| %.3g after %d steps (tolerance %.3g; "
                        "dependent rows whose gaps no motion closes?)",
                        (int)count, residual, max_iterations, tolerance);
    }
    return rc;
}
