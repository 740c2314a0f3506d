/* Dimensionless direct central impact, x'' = -f(x, x'), integrated with an
 * embedded Dormand-Prince 5(4) pair. Events (maximum compression x' = 0 and
 * separation, eq. 20) are located by re-stepping from the last accepted
 * state: a single step of any length h' <= h is as accurate as the accepted
 * one, so the event time is found to rounding without an interpolant. */
#include "contact/compliant/impact_ode.h"
#include "core/bracket.h"

#include <float.h>
#include <math.h>
#include <stddef.h>

enum { MAX_STEPS = 200000, MAX_ROOT_ITERATIONS = 200 };

typedef struct state {
    double x, p;
} state;

typedef struct problem {
    nscd__impact_force_fn force;
    void *ctx;
    double threshold; /* force counted as zero at separation */
} problem;

/* Force of the law; no contact (zero force) at negative penetration. */
static double force_at(const problem *pb, state y) {
    return y.x >= 0.0 ? pb->force(pb->ctx, y.x, y.p) : 0.0;
}

static state rate(const problem *pb, state y) {
    state d = {y.p, -force_at(pb, y)};
    return d;
}

static state axpy(state y, double h, double a1, state k1, double a2, state k2, double a3, state k3,
                  double a4, state k4, double a5, state k5) {
    state r;
    r.x = y.x + h * (a1 * k1.x + a2 * k2.x + a3 * k3.x + a4 * k4.x + a5 * k5.x);
    r.p = y.p + h * (a1 * k1.p + a2 * k2.p + a3 * k3.p + a4 * k4.p + a5 * k5.p);
    return r;
}

/* One Dormand-Prince step from y (with k1 = rate(y)) of length h: the 5th
 * order solution, the rate there (FSAL) and the embedded error estimate. */
static state dopri_step(const problem *pb, state y, state k1, double h, state *k7, state *err) {
    static const state zero = {0.0, 0.0};
    state k2 = rate(pb, axpy(y, h, 1.0 / 5.0, k1, 0, zero, 0, zero, 0, zero, 0, zero));
    state k3 = rate(pb, axpy(y, h, 3.0 / 40.0, k1, 9.0 / 40.0, k2, 0, zero, 0, zero, 0, zero));
    state k4 =
        rate(pb, axpy(y, h, 44.0 / 45.0, k1, -56.0 / 15.0, k2, 32.0 / 9.0, k3, 0, zero, 0, zero));
    state k5 = rate(pb, axpy(y, h, 19372.0 / 6561.0, k1, -25360.0 / 2187.0, k2, 64448.0 / 6561.0,
                             k3, -212.0 / 729.0, k4, 0, zero));
    state y6 = axpy(y, h, 9017.0 / 3168.0, k1, -355.0 / 33.0, k2, 46732.0 / 5247.0, k3,
                    49.0 / 176.0, k4, -5103.0 / 18656.0, k5);
    state k6 = rate(pb, y6);
    state y5 = axpy(y, h, 35.0 / 384.0, k1, 500.0 / 1113.0, k3, 125.0 / 192.0, k4, -2187.0 / 6784.0,
                    k5, 11.0 / 84.0, k6);
    if (k7 != NULL) {
        *k7 = rate(pb, y5);
        /* error = difference of the 5th and embedded 4th order solutions */
        state e = axpy(zero, h, 71.0 / 57600.0, k1, -71.0 / 16695.0, k3, 71.0 / 1920.0, k4,
                       -17253.0 / 339200.0, k5, 22.0 / 525.0, k6);
        e.x += h * (-1.0 / 40.0) * k7->x;
        e.p += h * (-1.0 / 40.0) * k7->p;
        *err = e;
    }
    return y5;
}

/* Event functions, positive before the event and <= 0 after it. */
enum event { EVENT_MAX_COMPRESSION, EVENT_SEPARATION };

static double event_value(const problem *pb, enum event ev, state y) {
    if (ev == EVENT_MAX_COMPRESSION) {
        return y.p;
    }
    /* Separation: the force vanishes (eq. 20) or the penetration does; the
     * two branches meet at x = 0 where every law of the family has f = 0 or
     * f < 0. A force below `threshold` (10 tol times the viscous scale) counts
     * as zero: with strong damping the force creeps towards zero along the
     * slow manifold x' ~ -x^n/zeta and crosses it only at a level far below
     * rounding, while x' (hence e_out) no longer changes there. */
    return y.x > 0.0 ? pb->force(pb->ctx, y.x, y.p) - pb->threshold : y.x;
}

/* Step length h* in (0, h] where the event function crosses zero, by the
 * Illinois variant of regula falsi on g(h') = event(step(y, h')). */
static double locate(const problem *pb, enum event ev, state y, state k1, double h) {
    nscd__bracket br = nscd__bracket_make(
        0.0, event_value(pb, ev, y), h, event_value(pb, ev, dopri_step(pb, y, k1, h, NULL, NULL)));
    for (int it = 0; it < MAX_ROOT_ITERATIONS && br.fb != 0.0; ++it) {
        if (br.b - br.a <= 4.0 * DBL_EPSILON * br.b) {
            break;
        }
        double c = nscd__bracket_trial(&br);
        double fc = event_value(pb, ev, dopri_step(pb, y, k1, c, NULL, NULL));
        nscd__bracket_update(&br, c, fc, fc > 0.0);
    }
    return br.b;
}

/* Largest force in [t0, t2] by the parabola through three samples. */
static double parabola_peak(double t0, double f0, double t1, double f1, double t2, double f2) {
    double d1 = (f1 - f0) / (t1 - t0);
    double d2 = (f2 - f1) / (t2 - t1);
    double a = (d2 - d1) / (t2 - t0);
    if (!(a < 0.0)) {
        return f1;
    }
    double t = 0.5 * (t0 + t1) - d1 / (2.0 * a);
    if (t < t0 || t > t2) {
        return f1;
    }
    return f0 + d1 * (t - t0) + a * (t - t0) * (t - t1);
}

typedef struct peak_tracker {
    double t[3], f[3];
    int n;
    double peak;
} peak_tracker;

static void track_peak(peak_tracker *pk, double t, double f) {
    if (pk->n == 3) {
        pk->t[0] = pk->t[1];
        pk->f[0] = pk->f[1];
        pk->t[1] = pk->t[2];
        pk->f[1] = pk->f[2];
        pk->n = 2;
    }
    pk->t[pk->n] = t;
    pk->f[pk->n] = f;
    pk->n++;
    if (f > pk->peak) {
        pk->peak = f;
    }
    if (pk->n == 3 && pk->f[1] >= pk->f[0] && pk->f[1] >= pk->f[2]) {
        double p = parabola_peak(pk->t[0], pk->f[0], pk->t[1], pk->f[1], pk->t[2], pk->f[2]);
        if (p > pk->peak) {
            pk->peak = p;
        }
    }
}

nscd_status nscd__impact_integrate(nscd__impact_force_fn force, void *ctx, double tol,
                                   nscd__impact_outcome *out) {
    problem pb = {force, ctx, 0.0};
    state y = {0.0, 1.0};
    state k1 = rate(&pb, y);
    double f_onset = -k1.p;
    double tau = 0.0;
    /* The damping sets the first time scale (x ~ 1/f(0,1) when it is large).
     * The first step is tiny: x^n is not smooth at x = 0, and the embedded
     * error estimate underrates the error of a step that starts there. */
    double h = 1e-6 / fmax(1.0, fabs(k1.p));
    double x_scale = 0.0;
    int restitution = 0;
    nscd__impact_outcome o = {0};
    peak_tracker pk = {{0}, {0}, 0, -INFINITY};
    track_peak(&pk, 0.0, -k1.p);

    for (int64_t steps = 0; steps < MAX_STEPS;) {
        if (!(h > 16.0 * DBL_EPSILON * fmax(tau, 1e-300))) {
            return NSCD_ERR_STEP_TOO_SMALL;
        }
        state k7, err;
        state y1 = dopri_step(&pb, y, k1, h, &k7, &err);
        /* Error relative to the penetration scale reached so far (x itself at
         * the start, where x ~ tau) and to the impact velocity (1). */
        double sx = tol * fmax(x_scale, fmax(fabs(y.x), fabs(y1.x)));
        double en = sqrt(0.5 * ((err.x / sx) * (err.x / sx) + (err.p / tol) * (err.p / tol)));
        if (!isfinite(y1.x) || !isfinite(y1.p) || !(en <= 1.0)) {
            h *= isfinite(en) ? fmax(0.2, 0.9 * pow(en, -0.2)) : 0.2;
            continue;
        }
        ++steps;
        double h_next = h * (en > 0.0 ? fmin(5.0, 0.9 * pow(en, -0.2)) : 5.0);
        if (!restitution && y1.p <= 0.0) {
            /* Maximum compression: stop the step there, switch to restitution. */
            double hm = locate(&pb, EVENT_MAX_COMPRESSION, y, k1, h);
            y = dopri_step(&pb, y, k1, hm, NULL, NULL);
            y.p = fmin(y.p, 0.0);
            tau += hm;
            o.max_penetration = y.x;
            restitution = 1;
            k1 = rate(&pb, y);
            /* The viscous force scale f(0, 1): x' is known to ~tol, so the
             * force to ~tol times it. Laws without a viscous term at x = 0
             * (Hertz, Hunt-Crossley) get no threshold: their force vanishes
             * with x, and x = 0 is located exactly. */
            pb.threshold = 10.0 * tol * fabs(f_onset);
            track_peak(&pk, tau, -k1.p);
            h = h_next;
            continue;
        }
        if (restitution && event_value(&pb, EVENT_SEPARATION, y1) <= 0.0) {
            double hs = locate(&pb, EVENT_SEPARATION, y, k1, h);
            state ys = dopri_step(&pb, y, k1, hs, NULL, NULL);
            o.e_out = -ys.p;
            o.duration = tau + hs;
            o.residual = fmax(ys.x, 0.0);
            o.peak_force = pk.peak;
            o.steps = steps;
            if (!isfinite(o.e_out) || !isfinite(o.duration)) {
                return NSCD_ERR_NOT_FINITE;
            }
            *out = o;
            return NSCD_OK;
        }
        y = y1;
        k1 = k7;
        tau += h;
        x_scale = fmax(x_scale, fabs(y.x));
        track_peak(&pk, tau, -k1.p);
        if (restitution && y.p < 0.0) {
            /* Approach x = 0 geometrically (as the first steps leave it):
             * x^n is not smooth there, and a long step ending at x = 0
             * carries an error its embedded estimate does not see. */
            h_next = fmin(h_next, fmax(0.5 * y.x / -y.p, 1e-7));
        }
        h = h_next;
    }
    return NSCD_ERR_MAX_STEPS;
}
