/* Routh's planar frictional impact (seed 000, Sects. 3.3-3.4) and the Poisson
 * and Routh contact laws.
 *
 * The reference for the impact is an independent, fine integration of the
 * impulse ODE du/dF = G (dT/dF, 1) with Coulomb's law as a differential
 * inclusion, dT in -mu dF Sign(s), by the implicit (catching-up) Euler scheme
 * in the normal impulse F. It knows nothing of Fig. 4's cases: sticking and
 * reversal simply come out of the inclusion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "assert_near.h"

#include <math.h>
#include <string.h>

#include "core/law.h"
#include "nscd/nscd.h"

/* ------------------------------------------------------------------ helpers */

static double sgn(double x) { return (x > 0.0) - (x < 0.0); }

/* One implicit Euler step of length dF from (s, c): the tangential increment
 * makes the new sliding velocity zero when friction can, else is -mu dF
 * along the new sliding direction. */
static void reference_step(const double G[4], double mu, double s, double c, double dF, double *dT,
                           double *s_new, double *c_new) {
    double s_trial = s + G[1] * dF;
    if (fabs(s_trial) <= mu * G[0] * dF) {
        *dT = -s_trial / G[0];
    } else {
        *dT = -mu * dF * sgn(s_trial);
    }
    *s_new = s_trial + G[0] * *dT;
    *c_new = c + G[2] * *dT + G[3] * dF;
}

/* Integrates the impact with steps of h in F; returns the number of steps. */
static long reference_impact(const double G[4], const double u0[2], double mu, double e, double h,
                             double P[2]) {
    double T = 0.0, F = 0.0, s = u0[0], c = u0[1];
    double F_end = INFINITY;
    long steps = 0;
    while (F < F_end && steps < 50000000L) {
        double dF = fmin(h, F_end - F);
        double dT, s_new, c_new;
        reference_step(G, mu, s, c, dF, &dT, &s_new, &c_new);
        if (isinf(F_end) && c_new >= 0.0) {
            /* maximum compression inside this step: shorten it to reach c = 0 */
            dF *= -c / (c_new - c);
            reference_step(G, mu, s, c, dF, &dT, &s_new, &c_new);
            F_end = (1.0 + e) * (F + dF);
        }
        T += dT;
        F += dF;
        s = s_new;
        c = c_new;
        ++steps;
    }
    P[0] = T;
    P[1] = F;
    return steps;
}

/* Deterministic xorshift64* generator: uniform in [lo, hi). */
typedef struct rng {
    uint64_t x;
} rng;
static double uniform(rng *r, double lo, double hi) {
    r->x ^= r->x >> 12;
    r->x ^= r->x << 25;
    r->x ^= r->x >> 27;
    uint64_t y = r->x * 2685821657736338717ULL;
    return lo + (hi - lo) * (double)(y >> 11) * 0x1.0p-53;
}

/* Random SPD G with eigenvalues in [0.05, 5] (condition number up to 100). */
static void random_G(rng *r, double G[4]) {
    double l1 = uniform(r, 0.05, 5.0), l2 = uniform(r, 0.05, 5.0);
    double th = uniform(r, 0.0, 3.141592653589793);
    double cs = cos(th), sn = sin(th);
    G[0] = l1 * cs * cs + l2 * sn * sn;
    G[1] = G[2] = (l1 - l2) * cs * sn;
    G[3] = l1 * sn * sn + l2 * cs * cs;
}

static void random_impact(rng *r, double G[4], double u0[2], double *mu, double *e) {
    random_G(r, G);
    /* one in ten starts exactly at rest: the s0 = 0 branch */
    u0[0] = uniform(r, 0.0, 1.0) < 0.1 ? 0.0 : uniform(r, -2.0, 2.0);
    u0[1] = uniform(r, -2.0, -0.01);
    *mu = uniform(r, 0.0, 1.0) < 0.1 ? 0.0 : uniform(r, 0.0, 1.5);
    *e = uniform(r, 0.0, 1.0) < 0.1 ? (uniform(r, 0.0, 1.0) < 0.5 ? 0.0 : 1.0)
                                    : uniform(r, 0.0, 1.0);
}

static nscd_routh_result solve_ex(const double G[4], const double u0[2], double mu, double e) {
    nscd_routh_result r;
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    assert_int_equal(nscd_routh_impact_ex(G, u0, mu, e, &r), NSCD_OK);
    return r;
}

/* Compares Routh with the reference; the implicit scheme is exact on each
 * straight piece, so its error is a few steps' worth at the switches. */
static void check_against_reference(const double G[4], const double u0[2], double mu, double e) {
    nscd_routh_result r = solve_ex(G, u0, mu, e);
    double h = -u0[1] / G[3] * 1e-5; /* 1e-5 of the frictionless compression impulse */
    double P_ref[2];
    reference_impact(G, u0, mu, e, h, P_ref);
    double scale = fabs(r.impulse[1]) + fabs(r.impulse[0]);
    double tol = 2e-5 * scale; /* first order at the switches: O(h) */
    if (fabs(r.impulse[0] - P_ref[0]) > tol || fabs(r.impulse[1] - P_ref[1]) > tol) {
        fail_msg("G=[%g %g %g] u0=(%g,%g) mu=%g e=%g: routh P=(%.12g, %.12g) case %s, "
                 "reference P=(%.12g, %.12g)",
                 G[0], G[1], G[3], u0[0], u0[1], mu, e, r.impulse[0], r.impulse[1],
                 nscd_routh_case_name(r.impact_case), P_ref[0], P_ref[1]);
    }
}

/* --------------------------------------------------- the cases of Fig. 4 */

typedef struct fig4_case {
    double eps, s0, mu, e;
    int32_t expected;
} fig4_case;

/* alpha = gamma = 1, c0 = -1. With eps = 0.5:
 *  mu = 0.8 >= |eps|/alpha: a stopping slip sticks; F_c = 1/(1 - 0.4) = 5/3
 *    while sliding forward (s > 0), slip stops at F_s = s0 / 0.3;
 *  mu = 0.2 <  |eps|/alpha: a stopping slip reverses; sliding backward (s < 0)
 *    F_c = 1/1.1, and slip stops at F_s = |s0| / 0.7. */
static const fig4_case fig4_cases[] = {
    {0.5, 10.0, 0.2, 0.9, NSCD_ROUTH_SLIP},                    /* 4a: slip accelerates */
    {0.5, 0.3, 0.8, 0.9, NSCD_ROUTH_STICK_IN_COMPRESSION},     /* 4b: F_s = 1 < 5/3 */
    {0.5, -0.3, 0.2, 0.9, NSCD_ROUTH_REVERSAL_IN_COMPRESSION}, /* 4c: F_s = 0.43 < 0.91 */
    {0.5, 0.6, 0.8, 0.9, NSCD_ROUTH_STICK_IN_RESTITUTION},     /* 4d: 5/3 < F_s = 2 < 3.17 */
    {0.5, -0.9, 0.2, 0.9, NSCD_ROUTH_REVERSAL_IN_RESTITUTION}, /* 4e: 0.91 < 1.29 < 1.73 */
    {0.5, 0.0, 0.8, 0.9, NSCD_ROUTH_STICK},
    {0.5, 0.0, 0.2, 0.9, NSCD_ROUTH_SLIP_FROM_REST},
    {0.5, 2.0, 0.8, 0.5, NSCD_ROUTH_SLIP}, /* decelerating slip that never stops: F_s = 6.7 > 2.5 */
    {0.0, 1.0, 0.0, 1.0, NSCD_ROUTH_SLIP}, /* frictionless */
};

static void every_case_of_fig4_and_its_mirror(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof fig4_cases / sizeof fig4_cases[0]; ++i) {
        const fig4_case *k = &fig4_cases[i];
        for (int mirror = 0; mirror < 2; ++mirror) {
            double m = mirror ? -1.0 : 1.0;
            double G[4] = {1.0, m * k->eps, m * k->eps, 1.0};
            double u0[2] = {m * k->s0, -1.0};
            nscd_routh_result r = solve_ex(G, u0, k->mu, k->e);
            if (r.impact_case != k->expected) {
                fail_msg("case %zu mirror %d: got %s, expected %s", i, mirror,
                         nscd_routh_case_name(r.impact_case), nscd_routh_case_name(k->expected));
            }
            check_against_reference(G, u0, k->mu, k->e);
            /* the mirror image is exact: T changes sign, F does not */
            G[1] = G[2] = -G[1];
            u0[0] = -u0[0];
            nscd_routh_result rm = solve_ex(G, u0, k->mu, k->e);
            assert_true(rm.impulse[0] == -r.impulse[0]);
            assert_true(rm.impulse[1] == r.impulse[1]);
            assert_int_equal(rm.impact_case, r.impact_case);
            assert_int_equal(rm.slip_after, -r.slip_after);
        }
    }
}

/* Closed forms of the three straight-line cases. */
static void closed_forms(void **state) {
    (void)state;
    double G[4] = {2.0, 0.6, 0.6, 0.8};
    double det = G[0] * G[3] - G[1] * G[1];
    double P[2], u1[2];

    /* frictionless: F = -(1+e) c0 / gamma, T = 0 */
    double u0[2] = {0.7, -1.5};
    assert_int_equal(nscd_routh_impact(G, u0, 0.0, 0.6, P, u1), NSCD_OK);
    assert_near(P[0], 0.0, 1e-15);
    assert_near(P[1], 1.6 * 1.5 / 0.8, 1e-14);
    assert_near(u1[1], 0.6 * 1.5, 1e-14); /* c1 = -e c0 for a single frictionless contact */

    /* sticking throughout (s0 = 0, |eps| <= mu alpha): T = -eps/alpha F,
     * c slope det/alpha, so F = -(1+e) c0 alpha / det */
    u0[0] = 0.0;
    assert_int_equal(nscd_routh_impact(G, u0, 0.5, 0.6, P, u1), NSCD_OK);
    assert_near(P[1], 1.6 * 1.5 * G[0] / det, 1e-13);
    assert_near(P[0], -G[1] / G[0] * P[1], 1e-13);
    assert_near(u1[0], 0.0, 1e-14);

    /* slip throughout: T = -mu F, F_c = -c0 / (gamma - mu eps) */
    u0[0] = 5.0;
    double mu = 0.1;
    nscd_routh_result r = solve_ex(G, u0, mu, 0.6);
    assert_int_equal(r.impact_case, NSCD_ROUTH_SLIP);
    double F_c = 1.5 / (G[3] - mu * G[1]);
    assert_near(r.compression_impulse[1], F_c, 1e-14);
    assert_near(r.impulse[1], 1.6 * F_c, 1e-13);
    assert_near(r.impulse[0], -mu * 1.6 * F_c, 1e-13);
    assert_int_equal(r.slip_before, 1);
    assert_int_equal(r.slip_after, 1);
}

/* A stopping slip at max compression exactly, and e = 0 (no restitution). */
static void coinciding_events_and_plastic_impact(void **state) {
    (void)state;
    /* alpha = gamma = 1, eps = 0.5, mu = 0.8, s0 = 0.5: F_s = 5/3 = F_c */
    double G[4] = {1.0, 0.5, 0.5, 1.0};
    double u0[2] = {0.5, -1.0};
    for (int i = 0; i < 2; ++i) {
        double e = i == 0 ? 0.0 : 0.7;
        nscd_routh_result r = solve_ex(G, u0, 0.8, e);
        check_against_reference(G, u0, 0.8, e);
        assert_int_equal(r.impact_case, NSCD_ROUTH_STICK_IN_COMPRESSION);
        assert_near(r.velocity[0], 0.0, 1e-13);
        if (e == 0.0) {
            assert_near(r.velocity[1], 0.0, 1e-14); /* plastic: ends at max compression */
        } else {
            assert_true(r.velocity[1] > 0.0);
        }
    }
}

/* ----------------------------------------------- random impacts */

/* Random impacts, stratified by case: the first 25 of each case of Fig. 4
 * (rarer ones like a reversal in restitution need a few thousand draws) are
 * compared with the reference integration. */
static void random_impacts_match_the_reference(void **state) {
    (void)state;
    rng r = {0x9E3779B97F4A7C15ULL};
    int checked[7] = {0};
    for (int i = 0; i < 5000; ++i) {
        double G[4], u0[2], mu, e;
        random_impact(&r, G, u0, &mu, &e);
        int32_t k = solve_ex(G, u0, mu, e).impact_case;
        if (checked[k] < 25) {
            check_against_reference(G, u0, mu, e);
            checked[k] += 1;
        }
    }
    for (int k = 0; k < 7; ++k) {
        if (checked[k] < 25) {
            fail_msg("random impacts met case %s only %d times", nscd_routh_case_name(k),
                     checked[k]);
        }
    }
}

/* Energy never grows, Coulomb's cone holds, the contact separates, and the
 * bookkeeping agrees with u1 = u0 + G P. */
static void random_impacts_never_create_energy(void **state) {
    (void)state;
    rng r = {12345};
    for (int i = 0; i < 20000; ++i) {
        double G[4], u0[2], mu, e;
        random_impact(&r, G, u0, &mu, &e);
        nscd_routh_result res = solve_ex(G, u0, mu, e);
        const double *P = res.impulse, *u1 = res.velocity;
        double Pu0 = P[0] * u0[0] + P[1] * u0[1];
        double PGP = P[0] * (G[0] * P[0] + G[1] * P[1]) + P[1] * (G[2] * P[0] + G[3] * P[1]);
        double dE = Pu0 + 0.5 * PGP; /* exact energy change of an impulse */
        double scale = fabs(Pu0) + 0.5 * fabs(PGP);
        if (dE > 1e-12 * scale) {
            fail_msg("energy created: dE = %g (scale %g), case %s", dE, scale,
                     nscd_routh_case_name(res.impact_case));
        }
        assert_near(res.energy_change, dE, 1e-12 * scale);
        assert_true(P[1] > 0.0);
        assert_true(fabs(P[0]) <= mu * P[1] * (1.0 + 1e-12));       /* eq. 30 integrated */
        assert_true(u1[1] >= -1e-12 * (fabs(u0[0]) + fabs(u0[1]))); /* separating */
        assert_near(P[1], (1.0 + e) * res.compression_impulse[1], 1e-12 * P[1]);
        /* c = 0 at max compression, eq. 35 */
        const double *Pc = res.compression_impulse;
        double c_max = u0[1] + G[2] * Pc[0] + G[3] * Pc[1];
        if (fabs(c_max) > 1e-12 * (fabs(u0[1]) + fabs(G[2] * Pc[0]) + fabs(G[3] * Pc[1]))) {
            fail_msg("c = %g at max compression, Pc = (%g, %g), case %s", c_max, Pc[0], Pc[1],
                     nscd_routh_case_name(res.impact_case));
        }
        if (res.slip_after == 0) {
            assert_near(u1[0], 0.0, 1e-12 * (fabs(u0[0]) + fabs(u0[1])));
        } else {
            assert_true(u1[0] * res.slip_after >= -1e-12 * (fabs(u0[0]) + fabs(u0[1])));
        }
    }
}

/* ------------------------------------ eq. 36 against G = W M^-1 W' */

/* The double pendulum of seed 000, Sect. 4. */
static const double m1 = 3.2, m2 = 3.8, l1 = 0.5, l2 = 0.6, rr = 0.05, lc = 0.3627, I1 = 6.76e-2,
                    I2 = 0.164;

/* alpha, eps, gamma of eq. 36 with the determinant of eq. 6. */
static void paper_eq36(double p1, double p2, double out[3]) {
    double det = I1 * (I2 + lc * lc * m2) +
                 0.25 * l1 * l1 * (I2 * m1 + 4 * I2 * m2 + lc * lc * m1 * m2) +
                 l1 * l1 * lc * lc * m2 * m2 * pow(sin(p1 - p2), 2);
    double K = 4 * I1 + l1 * l1 * (m1 + 4 * m2);
    double arm = rr + (l2 + rr) * cos(p2); /* horizontal lever of the contact point about A */
    double A =
        4 * l1 * l1 * cos(p1) * ((I2 + lc * lc * m2) * cos(p1) - lc * m2 * arm * cos(p1 - p2)) +
        K * arm * arm - 2 * l1 * l1 * lc * m2 * arm * (cos(2 * p1 - p2) + cos(p2));
    double Gam = K * pow((l2 + rr) * sin(p2), 2) +
                 4 * l1 * l1 * pow(sin(p1), 2) *
                     (I2 + lc * lc * m2 - lc * m2 * (l2 + rr) * pow(sin(p2), 2)) -
                 2 * l1 * l1 * lc * m2 * (l2 + rr) *
                     (2 * pow(sin(p1) * sin(p2), 2) + sin(2 * p1) * sin(2 * p2));
    double E =
        2 * l1 * l1 * (lc * m2 * (l2 + rr * (1 + cos(p2))) - I2 - lc * lc * m2) * sin(2 * p1) +
        rr * (4 * l1 * l1 * lc * m2 * pow(sin(p1), 2) - (l2 + rr) * K) * sin(p2) +
        (l2 + rr) * (2 * l1 * l1 * lc * m2 - 0.5 * (l2 + rr) * K) * sin(2 * p2);
    out[0] = A / (4 * det);
    out[1] = E / (4 * det);
    out[2] = Gam / (4 * det);
}

/* G = W M^-1 W' from the mass matrix of eq. 3 and the contact rows of
 * eqs. 32-33. The normal row is the gradient of the gap f of eq. 7; the
 * tangential row has the paper's sign: s = -(horizontal velocity of the
 * contact point M in the direction in which psi grows at the bottom). */
static void pendulum_G(double p1, double p2, double out[3]) {
    double a11 = I1 + l1 * l1 * (m1 / 4 + m2), a22 = I2 + lc * lc * m2;
    double a12 = l1 * lc * m2 * cos(p1 - p2);
    double det = a11 * a22 - a12 * a12;
    double Minv[2][2] = {{a22 / det, -a12 / det}, {-a12 / det, a11 / det}};
    double W[2][2] = {{-l1 * cos(p1), -(rr + (l2 + rr) * cos(p2))},
                      {l1 * sin(p1), (l2 + rr) * sin(p2)}};
    double G[2][2];
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 2; ++j) {
            G[i][j] = 0.0;
            for (int k = 0; k < 2; ++k) {
                for (int l = 0; l < 2; ++l) {
                    G[i][j] += W[i][k] * Minv[k][l] * W[j][l];
                }
            }
        }
    }
    out[0] = G[0][0];
    out[1] = G[0][1];
    out[2] = G[1][1];
}

static void eq36_matches_inverse_mass(void **state) {
    (void)state;
    rng r = {777};
    for (int i = 0; i < 1000; ++i) {
        double p1 = uniform(&r, -3.2, 3.2), p2 = uniform(&r, -3.2, 3.2);
        double paper[3], ours[3];
        paper_eq36(p1, p2, paper);
        pendulum_G(p1, p2, ours);
        for (int k = 0; k < 3; ++k) {
            assert_near(paper[k], ours[k], 1e-13 * (fabs(ours[0]) + fabs(ours[2])));
        }
    }
    /* the initial configuration of Sect. 4 */
    double ours[3];
    pendulum_G(140.0 * 3.141592653589793 / 180.0, -3.141592653589793 / 2, ours);
    assert_true(ours[0] > 0.0 && ours[2] > 0.0 && ours[0] * ours[2] > ours[1] * ours[1]);
}

/* ------------------------------------------------------------ bad inputs */

static void bad_inputs_leave_outputs_unchanged(void **state) {
    (void)state;
    const double G[4] = {1.0, 0.2, 0.2, 1.0};
    const double u0[2] = {0.5, -1.0};
    double P[2] = {42.0, 43.0}, u1[2] = {44.0, 45.0};
    struct {
        double G[4], u0[2], mu, e;
        nscd_status expected;
    } bad[] = {
        {{NAN, 0.2, 0.2, 1.0}, {0.5, -1.0}, 0.3, 0.5, NSCD_ERR_NOT_FINITE},
        {{1.0, 0.2, 0.2, INFINITY}, {0.5, -1.0}, 0.3, 0.5, NSCD_ERR_NOT_FINITE},
        {{1.0, 0.2, 0.2, 1.0}, {NAN, -1.0}, 0.3, 0.5, NSCD_ERR_NOT_FINITE},
        {{1.0, 0.2, 0.2, 1.0}, {0.5, -1.0}, NAN, 0.5, NSCD_ERR_NOT_FINITE},
        {{1.0, 0.2, 0.2, 1.0}, {0.5, -1.0}, 0.3, NAN, NSCD_ERR_NOT_FINITE},
        {{1.0, 0.2, 0.2, 1.0}, {0.5, -1.0}, -0.1, 0.5, NSCD_ERR_OUT_OF_RANGE},
        {{1.0, 0.2, 0.2, 1.0}, {0.5, -1.0}, 0.3, -0.01, NSCD_ERR_OUT_OF_RANGE},
        {{1.0, 0.2, 0.2, 1.0}, {0.5, -1.0}, 0.3, 1.01, NSCD_ERR_OUT_OF_RANGE},
        {{-1.0, 0.2, 0.2, 1.0}, {0.5, -1.0}, 0.3, 0.5, NSCD_ERR_NOT_SPD},
        {{1.0, 0.2, 0.2, 0.0}, {0.5, -1.0}, 0.3, 0.5, NSCD_ERR_NOT_SPD},
        {{1.0, 1.0, 1.0, 1.0}, {0.5, -1.0}, 0.3, 0.5, NSCD_ERR_NOT_SPD}, /* singular */
        {{1.0, 2.0, 2.0, 1.0}, {0.5, -1.0}, 0.3, 0.5, NSCD_ERR_NOT_SPD}, /* indefinite */
        {{1.0, 0.2, 0.3, 1.0}, {0.5, -1.0}, 0.3, 0.5, NSCD_ERR_NOT_SPD}, /* not symmetric */
        {{1.0, 0.2, 0.2, 1.0}, {0.5, 0.0}, 0.3, 0.5, NSCD_ERR_NOT_COLLIDING},
        {{1.0, 0.2, 0.2, 1.0}, {0.5, 0.1}, 0.3, 0.5, NSCD_ERR_NOT_COLLIDING},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        assert_int_equal(nscd_routh_impact(bad[i].G, bad[i].u0, bad[i].mu, bad[i].e, P, u1),
                         bad[i].expected);
        nscd_routh_result r;
        memset(&r, 0x5a, sizeof r);
        r.struct_size = sizeof r;
        nscd_routh_result copy = r;
        assert_int_equal(nscd_routh_impact_ex(bad[i].G, bad[i].u0, bad[i].mu, bad[i].e, &r),
                         bad[i].expected);
        assert_memory_equal(&r, &copy, sizeof r);
    }
    assert_int_equal(nscd_routh_impact(NULL, u0, 0.3, 0.5, P, u1), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_routh_impact(G, NULL, 0.3, 0.5, P, u1), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_routh_impact(G, u0, 0.3, 0.5, NULL, u1), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_routh_impact(G, u0, 0.3, 0.5, P, NULL), NSCD_ERR_NULL_POINTER);
    assert_true(P[0] == 42.0 && P[1] == 43.0 && u1[0] == 44.0 && u1[1] == 45.0);

    assert_int_equal(nscd_routh_impact_ex(G, u0, 0.3, 0.5, NULL), NSCD_ERR_NULL_POINTER);
    nscd_routh_result r;
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r - 1;
    assert_int_equal(nscd_routh_impact_ex(G, u0, 0.3, 0.5, &r), NSCD_ERR_STRUCT_SIZE);
    assert_string_equal(nscd_routh_case_name(99), "unknown");
    assert_string_equal(nscd_routh_case_name(NSCD_ROUTH_STICK_IN_RESTITUTION),
                        "stick_in_restitution");
}

/* ------------------------------------------------------- the laws */

static void *never_allocate(void *user, size_t size) {
    (void)user;
    (void)size;
    return NULL;
}

static void poisson_and_routh_laws(void **state) {
    (void)state;
    typedef nscd_status (*create_fn)(double, const nscd_allocator *, nscd_contact_law **);
    const create_fn create[2] = {nscd_contact_law_create_poisson, nscd_contact_law_create_routh};
    const char *names[2] = {"poisson", "routh"};
    const int32_t rules[2] = {NSCD__IMPACT_POISSON, NSCD__IMPACT_ROUTH};
    for (int i = 0; i < 2; ++i) {
        nscd_contact_law *law = NULL;
        assert_int_equal(create[i](0.9, NULL, &law), NSCD_OK);
        assert_string_equal(nscd_contact_law_name(law), names[i]);
        int32_t kind = 0;
        assert_int_equal(nscd_contact_law_get_kind(law, &kind), NSCD_OK);
        assert_int_equal(kind, NSCD_LAW_IMPULSIVE);
        assert_int_equal(law->ops->impact_rule, rules[i]);
        assert_true(law->ops->restitution(law) == 0.9);
        nscd_contact_law_destroy(law);

        nscd_contact_law *untouched = (nscd_contact_law *)&law;
        law = untouched;
        assert_int_equal(create[i](1.5, NULL, &law), NSCD_ERR_OUT_OF_RANGE);
        assert_int_equal(create[i](-0.5, NULL, &law), NSCD_ERR_OUT_OF_RANGE);
        assert_int_equal(create[i](NAN, NULL, &law), NSCD_ERR_NOT_FINITE);
        assert_int_equal(create[i](0.5, NULL, NULL), NSCD_ERR_NULL_POINTER);
        nscd_allocator half = {never_allocate, NULL, NULL}; /* release missing */
        assert_int_equal(create[i](0.5, &half, &law), NSCD_ERR_INVALID_ARGUMENT);
        assert_true(law == untouched);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_case_of_fig4_and_its_mirror),
        cmocka_unit_test(closed_forms),
        cmocka_unit_test(coinciding_events_and_plastic_impact),
        cmocka_unit_test(random_impacts_match_the_reference),
        cmocka_unit_test(random_impacts_never_create_energy),
        cmocka_unit_test(eq36_matches_inverse_mass),
        cmocka_unit_test(bad_inputs_leave_outputs_unchanged),
        cmocka_unit_test(poisson_and_routh_laws),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
