/* Analytic maximum-dissipation single contact (seed 002, Sect. 3.2, Fig. 5):
 * brute force on random problems, every branch of the structogram, KKT
 * conditions, the appendix-A constants of eq. (8), Table 1, bad inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "contact/single/delassus3.h"
#include "contact/single/mdp_single.h"
#include "contact/single/polynomial.h"
#include "nscd/nscd.h"
#include "single_contact_reference.h"

/* Feasibility and KKT of the convex problem at x (b_n > 0, mu > 0):
 * u = A x - b = lambda a_n + z with z in the dual cone and z'x = 0. */
static void assert_kkt(const double A[9], const double b[3], double mu, const double x[3]) {
    double u[3], x0[3];
    ref_matvec(A, x, u);
    for (int i = 0; i < 3; ++i) {
        u[i] -= b[i];
    }
    ref_solve3(A, b, x0);
    double xs = sqrt(ref_dot3(x0, x0)) + sqrt(ref_dot3(x, x));
    double Ax[3];
    ref_matvec(A, x, Ax);
    double us = sqrt(ref_dot3(b, b)) + sqrt(ref_dot3(Ax, Ax));
    assert_true(x[0] >= 0.0);
    assert_true(hypot(x[1], x[2]) <= mu * x[0] * (1.0 + 1e-12) + 1e-14 * xs);
    assert_true(fabs(u[0]) <= 1e-11 * us); /* on the plane of maximum compression */
    if (sqrt(ref_dot3(u, u)) <= 1e-10 * us) {
        return; /* u = 0: sticking, KKT with zero multipliers */
    }
    double lambda = ref_dot3(u, x) / ref_dot3(A, x);
    double z[3] = {u[0] - lambda * A[0], u[1] - lambda * A[1], u[2] - lambda * A[2]};
    double zs = sqrt(ref_dot3(z, z)) + 1e-300;
    if (!(mu * hypot(z[1], z[2]) <= z[0] + 1e-7 * (1.0 + mu) * zs + 1e-12 * (1.0 + mu) * us)) {
        printf("KKT: z = %g %g %g, u = %g %g %g, x = %g %g %g, lambda %g, mu %g\n", z[0], z[1],
               z[2], u[0], u[1], u[2], x[0], x[1], x[2], lambda, mu);
    }
    /* dual cone of K_mu: mu ||z_to|| <= z_n */
    assert_true(mu * hypot(z[1], z[2]) <= z[0] + 1e-7 * (1.0 + mu) * zs + 1e-12 * (1.0 + mu) * us);
}

static void random_problem(double A[9], double b[3], double *mu) {
    double sa = pow(10.0, 6.0 * ref_uniform() - 3.0), sb = pow(10.0, 6.0 * ref_uniform() - 3.0);
    ref_random_spd(A, sa);
    for (int i = 0; i < 3; ++i) {
        b[i] = sb * ref_normal();
    }
    *mu = pow(10.0, 2.0 * ref_uniform() - 1.3); /* 0.05 .. 5 */
}

static const char *const method_names[3] = {"auto (Halley + certificate)", "quartic of eq. (8)",
                                            "sampling fallback"};

/* Relative excess of each internal method over the brute force (f_bf, f0 as above). */
static void check_methods(const double A[9], const double b[3], double mu, double fb, double f0,
                          bool kkt, double worst[3]) {
    double S[9], L[9];
    assert_int_equal(nscd__delassus3_factor(A, S, L), NSCD_OK);
    for (int m = 0; m < 3; ++m) {
        double x[3];
        nscd__mdp_solve_method(S, L, b, mu, m, x);
        double rel = (ref_objective(A, b, x) - fb) / fmax(fabs(fb), 1e-6 * fabs(f0));
        worst[m] = fmax(worst[m], rel);
        if (rel > 1e-12) {
            printf("method %d: relative excess %.3g (f_bf %.17g, mu %.17g, b_n %.3g)\n", m, rel, fb,
                   mu, b[0]);
        }
        assert_true(rel <= 1e-12);
        if (kkt && m != 2) { /* golden-section angles are only accurate to sqrt(eps) */
            assert_kkt(A, b, mu, x);
        }
    }
}

static void print_methods(const double worst[3]) {
    for (int m = 0; m < 3; ++m) {
        printf("    method %-30s worst relative excess %.3g\n", method_names[m], worst[m]);
    }
}

static void against_brute_force(void **state) {
    (void)state;
    ref_rng_state = 12345;
    double worst = 0.0, worst_m[3] = {0.0, 0.0, 0.0};
    int n_sliding = 0, n_stick = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        double A[9], b[3], mu, x[3], xb[3];
        random_problem(A, b, &mu);
        b[0] = fabs(b[0]);
        assert_int_equal(nscd_mdp_single_contact(A, b, mu, x), NSCD_OK);
        double f = ref_objective(A, b, x);
        double fb = ref_brute_force_mdp(A, b, mu, xb);
        double x0[3];
        ref_solve3(A, b, x0);
        double f0 = -0.5 * ref_dot3(x0, b); /* unconstrained minimum, a lower bound */
        double rel = (f - fb) / fmax(fabs(fb), 1e-6 * fabs(f0));
        worst = fmax(worst, rel);
        if (rel > 1e-12) {
            printf("trial %d: f = %.17g, brute force %.17g\n", trial, f, fb);
        }
        assert_true(rel <= 1e-12);
        assert_true(f >= f0 - 1e-12 * fabs(f0));
        assert_kkt(A, b, mu, x);
        check_methods(A, b, mu, fb, f0, true, worst_m);
        if (hypot(x0[1], x0[2]) <= mu * x0[0]) {
            ++n_stick;
        } else {
            ++n_sliding;
        }
    }
    printf("mdp vs brute force: worst relative objective excess %.3g (%d sliding, %d sticking)\n",
           worst, n_sliding, n_stick);
    print_methods(worst_m);
    assert_true(n_sliding > 1000);
}

/* Stress the root finder: hyperbolas close to their asymptotes, near-parabolas,
 * unconstrained minimum just outside the cone, tiny b_n. */
static void hard_cases_against_brute_force(void **state) {
    (void)state;
    ref_rng_state = 777;
    double worst = 0.0, worst_m[3] = {0.0, 0.0, 0.0};
    for (int trial = 0; trial < 2000; ++trial) {
        double A[9], b[3], mu, x[3], xb[3];
        random_problem(A, b, &mu);
        b[0] = fabs(b[0]);
        double s = hypot(A[1], A[2]);
        switch (trial % 4) {
        case 0: /* near-parabola */ mu = A[0] / s * (1.0 + 1e-6 * (ref_uniform() - 0.5)); break;
        case 1: /* tiny b_n: thin conic near the degenerate one */ b[0] *= 1e-6; break;
        case 2: { /* unconstrained minimum just outside the cone */
            double x0[3];
            ref_solve3(A, b, x0);
            if (x0[0] > 0.0) {
                mu = hypot(x0[1], x0[2]) / x0[0] * (1.0 - 1e-9);
            }
            break;
        }
        default: /* strong coupling: wide hyperbola */ mu = 5.0 * A[0] / (s + 1e-300); break;
        }
        if (!(mu > 0.0) || !isfinite(mu)) {
            continue;
        }
        assert_int_equal(nscd_mdp_single_contact(A, b, mu, x), NSCD_OK);
        double f = ref_objective(A, b, x);
        double fb = ref_brute_force_mdp(A, b, mu, xb);
        double x0[3];
        ref_solve3(A, b, x0);
        double f0 = -0.5 * ref_dot3(x0, b);
        double rel = (f - fb) / fmax(fabs(fb), 1e-6 * fabs(f0));
        worst = fmax(worst, rel);
        if (rel > 1e-12) {
            printf("hard trial %d (case %d): f = %.17g, brute force %.17g\n", trial, trial % 4, f,
                   fb);
        }
        assert_true(rel <= 1e-12);
        /* no KKT check here: with tiny b_n the multiplier split is ill-conditioned */
        check_methods(A, b, mu, fb, f0, false, worst_m);
    }
    printf("hard cases: worst relative objective excess %.3g\n", worst);
    print_methods(worst_m);
}

static void separating_gives_zero(void **state) {
    (void)state;
    double A[9] = {2, 0.3, -0.2, 0.3, 1, 0.1, -0.2, 0.1, 1.5}, b[3] = {-1e-3, 5, -7},
           x[3] = {9, 9, 9};
    assert_int_equal(nscd_mdp_single_contact(A, b, 0.7, x), NSCD_OK);
    assert_true(x[0] == 0.0 && x[1] == 0.0 && x[2] == 0.0);
}

static void frictionless_gives_normal_impulse(void **state) {
    (void)state;
    double A[9] = {2, 0.3, -0.2, 0.3, 1, 0.1, -0.2, 0.1, 1.5}, b[3] = {3, 5, -7}, x[3];
    assert_int_equal(nscd_mdp_single_contact(A, b, 0.0, x), NSCD_OK);
    assert_close(x[0], 1.5, 1e-15);
    assert_true(x[1] == 0.0 && x[2] == 0.0);
}

static void sticking_gives_unconstrained_minimum(void **state) {
    (void)state;
    double A[9] = {2, 0.3, -0.2, 0.3, 1, 0.1, -0.2, 0.1, 1.5}, b[3] = {3, 0.2, -0.1}, x[3], x0[3];
    ref_solve3(A, b, x0);
    assert_int_equal(nscd_mdp_single_contact(A, b, 1.0, x), NSCD_OK);
    for (int i = 0; i < 3; ++i) {
        assert_close(x[i], x0[i], 1e-14);
    }
}

/* b_n = 0 with A_nn > mu ||a||: the plane meets the cone only at 0. */
static void grazing_degenerate_ellipse(void **state) {
    (void)state;
    double A[9] = {2, 0.3, -0.2, 0.3, 1, 0.1, -0.2, 0.1, 1.5}, b[3] = {0, 0.4, -0.3}, x[3];
    assert_int_equal(nscd_mdp_single_contact(A, b, 1.0, x), NSCD_OK);
    assert_true(x[0] == 0.0 && x[1] == 0.0 && x[2] == 0.0);
}

/* Independent minimum over the wedge {r1 v1 + r2 v2, r >= 0} (b_n = 0): the
 * cone-surface directions on the plane a_n'x = 0 by bisection, then the 2D QP
 * on the orthant by enumeration of its faces. */
static double wedge_brute_force(const double A[9], const double b[3], double mu) {
    double x0[3];
    ref_solve3(A, b, x0);
    if (x0[0] >= 0.0 && hypot(x0[1], x0[2]) <= mu * x0[0]) {
        return ref_objective(A, b, x0); /* unconstrained minimum inside the wedge */
    }
    double v[2][3];
    int nv = 0;
    enum { n = 20000 };
    const double h = 6.283185307179586 / n;
    for (int i = 0; i < n && nv < 2; ++i) {
        double t0 = i * h, t1 = (i + 1) * h;
        double w0[3] = {1, mu * cos(t0), mu * sin(t0)}, w1[3] = {1, mu * cos(t1), mu * sin(t1)};
        double g0 = ref_dot3(A, w0), g1 = ref_dot3(A, w1);
        if (g0 == 0.0 || g0 * g1 < 0.0) {
            for (int it = 0; it < 200; ++it) {
                double tm = 0.5 * (t0 + t1), wm[3] = {1, mu * cos(tm), mu * sin(tm)};
                if ((ref_dot3(A, wm) > 0.0) == (g0 > 0.0)) {
                    t0 = tm;
                } else {
                    t1 = tm;
                }
            }
            double t = 0.5 * (t0 + t1);
            v[nv][0] = 1, v[nv][1] = mu * cos(t), v[nv][2] = mu * sin(t);
            ++nv;
        }
    }
    if (nv == 1) {
        memcpy(v[1], v[0], sizeof v[0]);
    }
    assert_true(nv >= 1);
    double Av0[3], Av1[3];
    ref_matvec(A, v[0], Av0);
    ref_matvec(A, v[1], Av1);
    double H00 = ref_dot3(v[0], Av0), H01 = ref_dot3(v[0], Av1), H11 = ref_dot3(v[1], Av1);
    double g0 = ref_dot3(v[0], b), g1 = ref_dot3(v[1], b);
    double best = 0.0; /* x = 0 */
    double r0 = fmax(0.0, g0 / H00), r1 = fmax(0.0, g1 / H11);
    best = fmin(best, 0.5 * H00 * r0 * r0 - g0 * r0);
    best = fmin(best, 0.5 * H11 * r1 * r1 - g1 * r1);
    double det = H00 * H11 - H01 * H01;
    if (det > 1e-12 * H00 * H11) {
        double q0 = (H11 * g0 - H01 * g1) / det, q1 = (H00 * g1 - H01 * g0) / det;
        if (q0 >= 0.0 && q1 >= 0.0) {
            best = fmin(best, 0.5 * (H00 * q0 * q0 + 2 * H01 * q0 * q1 + H11 * q1 * q1) - g0 * q0 -
                                  g1 * q1);
        }
    }
    return best;
}

static void grazing_degenerate_hyperbola(void **state) {
    (void)state;
    ref_rng_state = 99;
    int n_nonzero = 0;
    double worst = 0.0;
    for (int trial = 0; trial < 500; ++trial) {
        double A[9], b[3], x[3];
        ref_random_spd(A, 1.0);
        b[0] = 0.0;
        b[1] = ref_normal();
        b[2] = ref_normal();
        double s = hypot(A[1], A[2]);
        double mu = A[0] / s * (1.0 + 3.0 * ref_uniform()); /* A_nn < mu ||a||: hyperbola */
        assert_int_equal(nscd_mdp_single_contact(A, b, mu, x), NSCD_OK);
        double f = ref_objective(A, b, x), fb = wedge_brute_force(A, b, mu);
        double x0[3];
        ref_solve3(A, b, x0);
        double f0 = -0.5 * ref_dot3(x0, b); /* unconstrained minimum, the scale */
        double rel = (f - fb) / fmax(fabs(fb), 1e-6 * fabs(f0));
        worst = fmax(worst, rel);
        assert_true(rel <= 1e-12);
        assert_true(fb <= f + 1e-12 * fabs(f0)); /* and the brute force is not far off */
        assert_true(hypot(x[1], x[2]) <= mu * x[0] * (1 + 1e-12) + 1e-300);
        double an_x = ref_dot3(A, x);
        assert_true(fabs(an_x) <= 1e-12 * (fabs(A[0] * x[0]) + 1e-300));
        n_nonzero += x[0] > 0.0;
    }
    printf("degenerate hyperbolas: worst relative objective excess over the wedge brute force "
           "%.3g (%d nonzero)\n",
           worst, n_nonzero);
    assert_true(n_nonzero > 100);
}

/* A degenerate hyperbola where the ray chosen by the side test of eq. (9)
 * (alpha0 - dalpha iff (A_no, -A_nt)'x0_to >= 0, else alpha0 + dalpha) gives r = 0, i.e.
 * the objective 0, while the other ray reaches -0.0329551...: the minimum must be
 * taken over both rays. */
static void eq9_side_test_counterexample(void **state) {
    (void)state;
    double A[9] = {1.3493660918667691,  1.74825878986872,    -0.7061126856485436,
                   1.74825878986872,    2.975392239229673,   -0.2719192652301857,
                   -0.7061126856485436, -0.2719192652301857, 6.065797871623222};
    double b[3] = {0.0, 0.28695174717332306, -0.9761185998177859}, mu = 1.9643400550199703;
    double x[3], x0[3];
    ref_solve3(A, b, x0);
    double side = A[2] * x0[1] - A[1] * x0[2];
    assert_true(side < 0.0); /* eq. (9) would pick alpha0 + dalpha */
    assert_int_equal(nscd_mdp_single_contact(A, b, mu, x), NSCD_OK);
    double f = ref_objective(A, b, x);
    assert_close(f, wedge_brute_force(A, b, mu), 1e-12);
    assert_true(f < -0.01); /* the other ray: about -0.033, well below the side test's 0 */
    /* the optimum lies on the ray alpha0 - dalpha: x_to turned negatively from a */
    double cross = A[1] * x[2] - A[2] * x[1];
    assert_true(cross < 0.0);
}

/* b_n = 0 and A_nn = mu ||a|| exactly: the feasible set is the ray
 * r (mu, -A_nt/||a||, -A_no/||a||) (the paper's eq. for the ray has the sign
 * of (A_nt, A_no) flipped; see docs/mdp_single_contact.md). */
static void grazing_degenerate_parabola(void **state) {
    (void)state;
    double A[9] = {2, 0.6, 0.8, 0.6, 1.5, 0.1, 0.8, 0.1, 1.2}, b[3] = {0, -1.0, -0.5}, x[3];
    double mu = 2.0; /* ||a|| = 1, mu ||a|| = A_nn */
    assert_int_equal(nscd_mdp_single_contact(A, b, mu, x), NSCD_OK);
    /* direction d = -(0.6, 0.8): x = r (1/mu, -0.6, -0.8) */
    double v[3] = {0.5, -0.6, -0.8}, Av[3];
    ref_matvec(A, v, Av);
    double r = fmax(0.0, ref_dot3(v, b) / ref_dot3(v, Av));
    assert_true(r > 0.0);
    for (int i = 0; i < 3; ++i) {
        assert_close(x[i], r * v[i], 1e-13);
    }
    /* no point of the ray does better */
    for (int i = 0; i <= 100; ++i) {
        double q = 2.0 * r * i / 100.0, y[3] = {q * v[0], q * v[1], q * v[2]};
        assert_true(ref_objective(A, b, x) <= ref_objective(A, b, y) + 1e-15);
    }
}

/* Eq. (8): our stationarity polynomial equals c0 + c1 cos(alpha + phi1)
 * + c2 cos(2 alpha + phi2) with the constants of appendix A. */
static void appendix_a_constants(void **state) {
    (void)state;
    ref_rng_state = 4242;
    for (int trial = 0; trial < 200; ++trial) {
        double A[9], b[3], mu, k[5], alpha0;
        random_problem(A, b, &mu);
        ref_random_spd(A, 1.0);
        for (int i = 0; i < 3; ++i) {
            b[i] = ref_normal();
        }
        nscd__mdp_eq8_coefficients(A, b, mu, k, &alpha0);
        double Ann = A[0], Ant = A[1], Ano = A[2], Att = A[4], Ato = A[5], Aoo = A[8];
        double bn = b[0], bt = b[1], bo = b[2], mu2 = mu * mu, mu4 = mu2 * mu2;
        double c0 = 1.5 * mu * Ann * (Ano * bt - Ant * bo);
        double D = Ant * bo - Ano * bt;
        double c1sq =
            mu4 * ((Ano * Ano * (Att * Att + Ato * Ato) - 2 * Ant * Ano * Ato * (Att + Aoo) +
                    Ant * Ant * (Ato * Ato + Aoo * Aoo)) *
                       bn * bn +
                   2 * D * (Ano * Ano * Ato + Ant * Ano * (Att - Aoo) - Ant * Ant * Ato) * bn +
                   (Ant * Ant + Ano * Ano) * D * D) +
            2 * mu2 * Ann *
                ((2 * Ant * Ano * Ato - Ano * Ano * Att - Ant * Ant * Aoo) * bn * bn +
                 Ann * (Ano * (Att * bo - Ato * bt) - Ant * (Ato * bo - Aoo * bt)) * bn +
                 Ann * D * D) +
            Ann * Ann *
                ((Ant * Ant + Ano * Ano) * bn * bn - 2 * Ann * (Ant * bt + Ano * bo) * bn +
                 Ann * Ann * (bt * bt + bo * bo));
        double c2sq =
            (0.25 * (Att * Att + Aoo * Aoo) + Ato * Ato - 0.5 * Att * Aoo) * bn * bn +
            (Ano * (0.5 * (Att - Aoo) * bo - Ato * bt) -
             Ant * (Ato * bo + 0.5 * (Att - Aoo) * bt)) *
                bn +
            0.25 * ((Ant * Ant + Ano * Ano) * bo * bo + (Ant * Ant + Ano * Ano) * bt * bt);
        double c1 = sqrt(c1sq), c2 = mu * Ann * sqrt(c2sq);
        double phi1 = atan2(mu2 * ((Ano * Ato - Ant * Aoo) * bn - Ano * Ano * bt + Ant * Ano * bo) -
                                Ann * Ann * bt + Ann * Ant * bn,
                            mu2 * ((Ant * Ato - Ano * Att) * bn + Ant * Ano * bt - Ant * Ant * bo) -
                                Ann * Ann * bo + Ann * Ano * bn);
        double phi2 =
            atan2((Att - Aoo) * bn - Ant * bt + Ano * bo, 2 * Ato * bn - Ano * bt - Ant * bo);
        double scale = fabs(c0) + c1 + c2;
        for (int j = 0; j < 16; ++j) {
            double alpha = 6.283185307179586 * ref_uniform(), beta = alpha - alpha0;
            double ours = nscd__trig2_eval(k, cos(beta), sin(beta), NULL);
            double paper = c0 + c1 * cos(alpha + phi1) + c2 * cos(2 * alpha + phi2);
            assert_true(fabs(ours - paper) <= 1e-11 * scale);
        }
    }
}

/* Table 1 of Sect. 4.1 (t = n x e_x, o = n x t unnormalised, as written). */
static void table1_maximum_dissipation(void **state) {
    (void)state;
    double dx = 10, dy = 1, dz = 1, mx = 0.03, my = 65, mz = 50, mu = 3.7;
    double nh[3] = {0.25, 0.36, -0.9}, nn = sqrt(ref_dot3(nh, nh));
    double n[3] = {nh[0] / nn, nh[1] / nn, nh[2] / nn};
    double t[3] = {0, n[2], -n[1]}; /* n x e_x */
    double o[3] = {n[1] * t[2] - n[2] * t[1], n[2] * t[0] - n[0] * t[2], n[0] * t[1] - n[1] * t[0]};
    double Ix = 2 * (my * dy * dy + mz * dz * dz), Iy = 2 * (mx * dx * dx + mz * dz * dz),
           Iz = 2 * (mx * dx * dx + my * dy * dy);
    (void)Ix;
    /* M = m^-1 E - dx^2 ex^x I^-1 ex^x = diag(m^-1, m^-1 + dx^2/Iz, m^-1 + dx^2/Iy) */
    double minv = 1.0 / (2 * (mx + my + mz));
    double Md[3] = {minv, minv + dx * dx / Iz, minv + dx * dx / Iy};
    const double *Q[3] = {n, t, o};
    double A[9], b[3], v[3] = {0.06, 0.7, 0.23}, x[3];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            A[3 * i + j] =
                Q[i][0] * Md[0] * Q[j][0] + Q[i][1] * Md[1] * Q[j][1] + Q[i][2] * Md[2] * Q[j][2];
        }
        b[i] = ref_dot3(Q[i], v);
    }
    assert_int_equal(nscd_mdp_single_contact(A, b, mu, x), NSCD_OK);
    assert_close(x[0], 1.6, 0.05);
    assert_close(x[1], -1.1, 0.05);
    assert_close(x[2], -5.8, 0.05);
    double u[3];
    ref_matvec(A, x, u);
    printf("Table 1: x* = (%.6f, %.6f, %.6f), u_n = %.3g\n", x[0], x[1], x[2], u[0] - b[0]);
    assert_close(u[0] - b[0], 0.0, 1e-13);
    assert_close(u[1] - b[1], -0.057, 0.0005);
    assert_close(u[2] - b[2], 0.034, 0.0005);
    assert_close(ref_objective(A, b, x), -0.634, 0.0005);
}

static void scaling_invariance(void **state) {
    (void)state;
    /* x(c A, d b) = (d / c) x(A, b) */
    double A[9] = {0.9, 0.5, -0.4, 0.5, 1, 0.1, -0.4, 0.1, 0.6}, b[3] = {0.3, -0.8, 0.5};
    double Ac[9], bc[3], x[3], xc[3], c = 1e4, d = 1e-3;
    for (int i = 0; i < 9; ++i) {
        Ac[i] = c * A[i];
    }
    for (int i = 0; i < 3; ++i) {
        bc[i] = d * b[i];
    }
    assert_int_equal(nscd_mdp_single_contact(A, b, 2.5, x), NSCD_OK);
    assert_int_equal(nscd_mdp_single_contact(Ac, bc, 2.5, xc), NSCD_OK);
    for (int i = 0; i < 3; ++i) {
        assert_close(xc[i], d / c * x[i], 1e-12 * d / c * (fabs(x[i]) + 1.0));
    }
}

static void bad_inputs_leave_output_unchanged(void **state) {
    (void)state;
    double A[9] = {2, 0.3, -0.2, 0.3, 1, 0.1, -0.2, 0.1, 1.5}, b[3] = {3, 5, -7};
    double x[3] = {11, 12, 13};
    assert_int_equal(nscd_mdp_single_contact(NULL, b, 1, x), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_mdp_single_contact(A, NULL, 1, x), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_mdp_single_contact(A, b, 1, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_mdp_single_contact(A, b, -0.1, x), NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_mdp_single_contact(A, b, NAN, x), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_mdp_single_contact(A, b, INFINITY, x), NSCD_ERR_NOT_FINITE);
    double bn[3] = {3, NAN, 1};
    assert_int_equal(nscd_mdp_single_contact(A, bn, 1, x), NSCD_ERR_NOT_FINITE);
    double An[9];
    memcpy(An, A, sizeof An);
    An[4] = INFINITY;
    assert_int_equal(nscd_mdp_single_contact(An, b, 1, x), NSCD_ERR_NOT_FINITE);
    double indefinite[9] = {1, 2, 0, 2, 1, 0, 0, 0, 1};
    assert_int_equal(nscd_mdp_single_contact(indefinite, b, 1, x), NSCD_ERR_NOT_SPD);
    double unsymmetric[9] = {2, 0.3, -0.2, 0.4, 1, 0.1, -0.2, 0.1, 1.5};
    assert_int_equal(nscd_mdp_single_contact(unsymmetric, b, 1, x), NSCD_ERR_NOT_SPD);
    double singular[9] = {1, 1, 0, 1, 1, 0, 0, 0, 1};
    assert_int_equal(nscd_mdp_single_contact(singular, b, 1, x), NSCD_ERR_NOT_SPD);
    double zero[9] = {0};
    assert_int_equal(nscd_mdp_single_contact(zero, b, 1, x), NSCD_ERR_NOT_SPD);
    double negative[9] = {-2, 0, 0, 0, -1, 0, 0, 0, -1};
    assert_int_equal(nscd_mdp_single_contact(negative, b, 1, x), NSCD_ERR_NOT_SPD);
    assert_true(x[0] == 11 && x[1] == 12 && x[2] == 13);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(against_brute_force),
        cmocka_unit_test(hard_cases_against_brute_force),
        cmocka_unit_test(separating_gives_zero),
        cmocka_unit_test(frictionless_gives_normal_impulse),
        cmocka_unit_test(sticking_gives_unconstrained_minimum),
        cmocka_unit_test(grazing_degenerate_ellipse),
        cmocka_unit_test(grazing_degenerate_hyperbola),
        cmocka_unit_test(grazing_degenerate_parabola),
        cmocka_unit_test(eq9_side_test_counterexample),
        cmocka_unit_test(appendix_a_constants),
        cmocka_unit_test(table1_maximum_dissipation),
        cmocka_unit_test(scaling_invariance),
        cmocka_unit_test(bad_inputs_leave_output_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
