/* The library's one projection onto the constraints (docs/joints.md,
 * "Drift and projection"; docs/architecture.md). Steppers that hold
 * constraints on the velocity level drift on the position level; after a
 * step the positions are moved back onto Φ(q) = 0 (equality rows: ideal
 * joints, closed persistent contacts) and g(q) >= -tolerance (gap rows:
 * clearance gaps) by mass-weighted Gauss–Newton steps
 *
 *     Δ = M^-1 H' p,   u = b + W p,   W = H M^-1 H' + δ I,
 *     u = 0 on equality rows,  0 <= p _|_ u >= 0 on gap rows,          (1)
 *
 * b the rows' values (Φ; g + tolerance), q <- q ⊕ Δ, until the largest
 * violation is <= tolerance; then, optionally, the velocities onto H v = 0
 * (gaps: H v >= 0) by the same problem with b = H v and v <- v + M^-1 H' p
 * (the coordinate projection of Hairer, Lubich and Wanner, Sect. VII.2).
 *
 * (1) is a small mixed LCP per stage, solved here: δ = NSCD__PROJECTION_DELTA
 * of the largest diagonal of H M^-1 H' keeps dependent rows (a prismatic
 * joint: 12 rows on 6 dofs; a box on four coplanar points) solvable, which is
 * core/redundant.h's rule of a regularisation relative to the problem's
 * scale; projected Gauss–Seidel from p = 0 finds the active set, whose
 * equations W_AA p_A = -b_A are then solved exactly by Cholesky and kept
 * when complementary to NSCD__REDUNDANT_CHECK of the problem's scale (not by
 * the sign of a round-off remainder). Equalities alone skip the sweeps
 * (every row is active), and may be factored on the envelope of W when the
 * caller knows its sparsity (a chain's W is block tridiagonal).
 *
 * The caller (an adapter: the world's joints per mechanism, the generic
 * model's closed entries) owns the rows, the mass metric and the update of
 * its state; this file owns the algebra. Nothing here knows a world. */
#ifndef NSCD_CONTACT_PROJECTION_H
#define NSCD_CONTACT_PROJECTION_H

#include <stddef.h>
#include <stdint.h>

#include "contact/impacts/impact.h"
#include "core/envelope.h"
#include "core/model.h"

/* δ of (1), relative to the largest diagonal of H M^-1 H'. */
#define NSCD__PROJECTION_DELTA 1e-12
/* Projected Gauss–Seidel sweeps that look for the active set. */
#define NSCD__PROJECTION_SWEEPS 200
/* Doubles of `work` for a stage of m rows (the last m of them hold ints). */
#define NSCD__PROJECTION_WORK(m) (2 * (size_t)(m) * (size_t)(m) + 2 * (size_t)(m))

/* The two stages. */
enum { NSCD__PROJECT_POSITIONS = 0, NSCD__PROJECT_VELOCITIES = 1 };

/* One stage's problem (1), as the adapter's gather fills it. */
typedef struct nscd__projection_system {
    int32_t m;
    const int32_t *gap; /* m flags, nonzero: a gap row (p >= 0); NULL: equalities only */
    double *b;          /* m: u = b + W p */
    double *W;          /* m x m row-major, filled by ops->delassus */
    double *p;          /* m: the solution */
    double *work;       /* NSCD__PROJECTION_WORK(m) doubles */
    double residual;    /* largest violation at the gathered state */
    int enveloped;      /* set by the solve: solved on the envelope, whose factor
                           is left in work (nscd__envelope's layout of m rows:
                           L, T at m (m + 1) / 2, the ints at m^2) */
} nscd__projection_system;

/* The adapter. Every callback returns NSCD_OK or the failure to report. */
typedef struct nscd__projection_ops {
    void *self;
    /* The rows of `stage` at the current state into *sys (every field;
     * b: the values, positions: Φ and g + tolerance, velocities: H v). */
    nscd_status (*gather)(void *self, int stage, nscd__projection_system *sys);
    /* sys->W := H M^-1 H' (m x m row-major, without δ). */
    nscd_status (*delassus)(void *self, const nscd__projection_system *sys);
    /* Optional (NULL: dense only): for equalities alone, e->start, then
     * nscd__envelope_layout(e), then the lower envelope of H M^-1 H' (without
     * δ) in e->L. The pointers of e are set (in sys->work). */
    void (*envelope)(void *self, const nscd__projection_system *sys, nscd__envelope *e);
    /* The state += M^-1 H' sys->p (positions: Δ, q <- q ⊕ Δ). */
    nscd_status (*apply)(void *self, int stage, const nscd__projection_system *sys);
    int velocities; /* whether a velocity stage follows the positions */
    /* Chord steps: the position iterations after the first solve with the
     * first one's factor of W (on the envelope; rows, Φ and the update at
     * the current positions) while each brings the violation below
     * NSCD__PROJECTION_CHORD of the last, else W again. At the end of a
     * step W moved by O(|Δ|) from the first iteration, so the chord step's
     * error is O(|Δ| |Φ|): the tolerance is met with one factorisation
     * instead of one per iteration. 0: Gauss–Newton (a factor per
     * iteration). */
    int chord;
} nscd__projection_ops;
/* The chord steps' required decrease of the violation per iteration. */
#define NSCD__PROJECTION_CHORD 0.01

/* The mixed LCP (1) of `sys` on its dense W (δ added: W is changed), p out:
 * the sweeps, then the exact solve of the active set. */
void nscd__projection_solve(nscd__projection_system *sys);

/* The projection: at most max_iterations Gauss–Newton steps on the
 * positions, while the violation exceeds tolerance, then the velocities when
 * ops->velocities. *residual: the largest violation at the final positions;
 * *projected: whether the positions moved. A failing callback stops it
 * (its status). */
nscd_status nscd__project(const nscd__projection_ops *ops, double tolerance, int max_iterations,
                          double *residual, int *projected);

/* The velocity stage alone (a stepper whose positions are held otherwise):
 * gather NSCD__PROJECT_VELOCITIES, solve (1), apply; nothing when the gather
 * finds no rows. */
nscd_status nscd__project_velocities(const nscd__projection_ops *ops);

/* The generic model's projection of closed constraint entries onto g = 0
 * (all equalities; the event-driven stepper after an event inside a step):
 * nscd__project with rows from nscd__gather_rows, W from
 * nscd__impact_delassus, Δ = work->response times p through model->displace.
 * q (n_q, in place). `work` lends its arena (reset at each gather), Delassus
 * matrix and dv; `gaps` has `count` entries; `q_tmp` n_q doubles.
 * *projected tells whether q moved. NSCD_ERR_NOT_CONVERGED when |g| still
 * exceeds tolerance after max_iterations steps (dependent rows whose gaps no
 * motion closes), q then holds the last step. */
nscd_status nscd__project_positions(nscd__model *model, nscd__impact_work *work, double t,
                                    double *q, int32_t count, const int32_t *entries,
                                    double tolerance, int max_iterations, double *gaps,
                                    double *q_tmp, int *projected);

#endif
