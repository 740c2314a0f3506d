/* Routh's method for a planar frictional impact (seed 000, Sects. 3.3-3.4).
 *
 * The normal impulse F is the clock of the impact. With u = (s, c) and
 * P = (T, F), eqs. 34-35 read u = u0 + G P. Coulomb's law (eq. 30) makes the
 * path of P in the impulse plane piecewise straight:
 *   - sliding in direction d = sign(s):   dT/dF = -mu d      (line of friction, eq. 37)
 *   - sticking (s = 0, |eps| <= mu alpha): dT/dF = -eps/alpha (line of sticking, s = 0)
 * Compression ends on the line of maximum compression c = 0 at F = F_c, and
 * Poisson's hypothesis (eq. 28) ends the impact at F = (1 + e) F_c. We walk
 * from the origin along these lines, piece by piece, and stop a piece at the
 * first of: s reaching 0, c reaching 0 (during compression), F reaching its
 * final value. Each piece is exact, so the result is exact up to rounding.
 *
 * A slip that stops either sticks for good (s stays 0 on the line of
 * sticking) or reverses (when |eps| > mu alpha, Fig. 4c/4e) and then
 * accelerates in the direction sign(eps), so it never stops again: a walk
 * has at most three pieces. */
#include "nscd/routh.h"

#include <float.h>
#include <math.h>
#include <stddef.h>

#include "core/check.h"
#include "core/struct_sizes.h"

/* The state of the walk through the impulse plane. */
typedef struct routh_walk {
    double alpha, eps, gamma, mu, e;
    double T, F; /* impulse so far */
    double s, c; /* velocity so far */
    int32_t dir; /* -1/+1 sliding in that direction, 0 sticking */
    int compressing;
    double F_end; /* normal impulse at which the impact ends (known after compression) */
} routh_walk;

static int32_t sign_of(double x) { return (x > 0.0) - (x < 0.0); }

/* Mode of a contact at rest (s = 0): it sticks if friction can hold the
 * tangential impulse the sticking line needs, |dT/dF| = |eps|/alpha <= mu;
 * otherwise it slides the way the normal impulse pushes it, sign(eps). */
static int32_t mode_at_rest(const routh_walk *w) {
    return fabs(w->eps) <= w->mu * w->alpha ? 0 : sign_of(w->eps);
}

/* dT/dF along the current piece. */
static double tangential_slope(const routh_walk *w) {
    return w->dir == 0 ? -w->eps / w->alpha : -w->mu * (double)w->dir;
}

typedef enum piece_end { END_IMPACT, END_SLIP_STOPS, END_COMPRESSION } piece_end;

/* Advances the walk along one straight piece and says what ended it.
 * Returns -1 if no event lies ahead (only for a numerically singular G). */
static int advance_piece(routh_walk *w, piece_end *why) {
    double k = tangential_slope(w);
    double ds = w->alpha * k + w->eps; /* ds/dF, eq. 34 */
    double dc = w->eps * k + w->gamma; /* dc/dF, eq. 35 */

    double to_end = w->compressing ? INFINITY : w->F_end - w->F;
    double to_max_compression = (w->compressing && dc > 0.0) ? -w->c / dc : INFINITY;
    double to_rest = (w->dir != 0 && ds * (double)w->dir < 0.0) ? -w->s / ds : INFINITY;

    /* Ties: the end of the impact wins (a slip that stops exactly then
     * changes nothing), and a stopping slip is handled before the end of
     * compression (the next piece then has zero length). */
    double step;
    if (!w->compressing && to_end <= to_rest) {
        step = to_end;
        *why = END_IMPACT;
    } else if (to_rest <= to_max_compression) {
        step = to_rest;
        *why = END_SLIP_STOPS;
    } else {
        step = to_max_compression;
        *why = END_COMPRESSION;
    }
    if (!isfinite(step)) {
        return -1;
    }
    w->T += k * step;
    w->F += step;
    w->s += ds * step;
    w->c += dc * step;
    return 0;
}

/* Marks the state at the end of a piece exactly and updates the case. */
static void finish_piece(routh_walk *w, piece_end why, nscd_routh_result *r) {
    switch (why) {
    case END_IMPACT: w->F = w->F_end; break;
    case END_SLIP_STOPS:
        w->s = 0.0;
        r->transition_impulse[0] = w->T;
        r->transition_impulse[1] = w->F;
        w->dir = mode_at_rest(w);
        if (w->compressing) {
            r->impact_case =
                w->dir == 0 ? NSCD_ROUTH_STICK_IN_COMPRESSION : NSCD_ROUTH_REVERSAL_IN_COMPRESSION;
        } else {
            r->impact_case =
                w->dir == 0 ? NSCD_ROUTH_STICK_IN_RESTITUTION : NSCD_ROUTH_REVERSAL_IN_RESTITUTION;
        }
        break;
    case END_COMPRESSION:
        w->c = 0.0;
        w->compressing = 0;
        w->F_end = (1.0 + w->e) * w->F; /* eq. 28: F_II = e F_m */
        r->compression_impulse[0] = w->T;
        r->compression_impulse[1] = w->F;
        break;
    }
}

/* SPD test of a 2x2 matrix, tolerant to rounding in the off-diagonal
 * symmetry and strict (relative to the diagonal) on the determinant. */
static int spd_2x2(const double G[4]) {
    double alpha = G[0], gamma = G[3];
    if (!(alpha > 0.0 && gamma > 0.0)) {
        return 0;
    }
    double scale = sqrt(alpha * gamma);
    if (fabs(G[1] - G[2]) > 1e-12 * scale) {
        return 0;
    }
    double eps = 0.5 * (G[1] + G[2]);
    return alpha * gamma - eps * eps > 8.0 * DBL_EPSILON * alpha * gamma;
}

static nscd_status check_inputs(const double G[4], const double u0[2], double mu, double e) {
    if (!nscd__all_finite(G, 4) || !nscd__all_finite(u0, 2) || !isfinite(mu) || !isfinite(e)) {
        return NSCD_ERR_NOT_FINITE;
    }
    if (mu < 0.0 || e < 0.0 || e > 1.0) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    if (!spd_2x2(G)) {
        return NSCD_ERR_NOT_SPD;
    }
    if (!(u0[1] < 0.0)) {
        return NSCD_ERR_NOT_COLLIDING;
    }
    return NSCD_OK;
}

/* The walk itself; inputs are valid. */
static nscd_status solve(const double G[4], const double u0[2], double mu, double e,
                         nscd_routh_result *r) {
    routh_walk w = {0};
    w.alpha = G[0];
    w.eps = 0.5 * (G[1] + G[2]);
    w.gamma = G[3];
    w.mu = mu;
    w.e = e;
    w.s = u0[0];
    w.c = u0[1];
    w.compressing = 1;
    w.F_end = INFINITY;
    if (u0[0] != 0.0) {
        w.dir = sign_of(u0[0]);
        r->impact_case = NSCD_ROUTH_SLIP;
    } else {
        w.dir = mode_at_rest(&w);
        r->impact_case = w.dir == 0 ? NSCD_ROUTH_STICK : NSCD_ROUTH_SLIP_FROM_REST;
    }
    r->slip_before = w.dir;

    /* At most three pieces (see the top of the file); one spare for a
     * zero-length piece when two events coincide. */
    piece_end why = END_COMPRESSION;
    for (int piece = 0; piece < 5 && why != END_IMPACT; ++piece) {
        if (advance_piece(&w, &why) != 0) {
            return NSCD_ERR_NOT_SPD; /* G too close to singular for the impact to end */
        }
        finish_piece(&w, why, r);
    }
    if (why != END_IMPACT) {
        return NSCD_ERR_NOT_SPD;
    }
    r->slip_after = w.dir;
    r->impulse[0] = w.T;
    r->impulse[1] = w.F;
    r->velocity[0] = u0[0] + G[0] * w.T + G[1] * w.F;
    r->velocity[1] = u0[1] + G[2] * w.T + G[3] * w.F;
    /* dE = P'u0 + P'GP/2 = P'(u0 + u1)/2 */
    r->energy_change = 0.5 * (w.T * (u0[0] + r->velocity[0]) + w.F * (u0[1] + r->velocity[1]));
    return NSCD_OK;
}

nscd_status nscd_routh_impact_ex(const double G[4], const double u0[2], double mu, double e,
                                 nscd_routh_result *result) {
    if (G == NULL || u0 == NULL || result == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (!nscd__struct_size_ok(result->struct_size, NSCD__ROUTH_RESULT_SIZE_0_1, sizeof *result)) {
        return NSCD_ERR_STRUCT_SIZE;
    }
    nscd_status rc = check_inputs(G, u0, mu, e);
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd_routh_result r = {0};
    r.struct_size = sizeof r;
    rc = solve(G, u0, mu, e, &r);
    if (rc == NSCD_OK) { /* only the fields the caller's release has */
        nscd__struct_write(result, &r, sizeof r, NSCD__ROUTH_RESULT_SIZE_0_1);
    }
    return rc;
}

nscd_status nscd_routh_impact(const double G[4], const double u0[2], double mu, double e,
                              double P[2], double u1[2]) {
    if (P == NULL || u1 == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd_routh_result r = {0};
    r.struct_size = sizeof r;
    nscd_status rc = nscd_routh_impact_ex(G, u0, mu, e, &r);
    if (rc == NSCD_OK) {
        P[0] = r.impulse[0];
        P[1] = r.impulse[1];
        u1[0] = r.velocity[0];
        u1[1] = r.velocity[1];
    }
    return rc;
}

const char *nscd_routh_case_name(int32_t impact_case) {
    switch (impact_case) {
    case NSCD_ROUTH_SLIP: return "slip";
    case NSCD_ROUTH_STICK_IN_COMPRESSION: return "stick_in_compression";
    case NSCD_ROUTH_REVERSAL_IN_COMPRESSION: return "reversal_in_compression";
    case NSCD_ROUTH_STICK_IN_RESTITUTION: return "stick_in_restitution";
    case NSCD_ROUTH_REVERSAL_IN_RESTITUTION: return "reversal_in_restitution";
    case NSCD_ROUTH_STICK: return "stick";
    case NSCD_ROUTH_SLIP_FROM_REST: return "slip_from_rest";
    default: return "unknown";
    }
}
