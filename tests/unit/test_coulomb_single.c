/* Impulsive Coulomb law of a single contact: enumeration of all solutions
 * (Table 1 of seed 002, random problems against a brute-force scan of the slip
 * angle), the Alart–Curnier Newton solver, non-convergence reporting, bad inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nscd/nscd.h"
#include "single_contact_reference.h"
#include "test_size.h"

static void table1_problem(double A[9], double b[3], double *mu) {
    double dx = 10, dy = 1, dz = 1, mx = 0.03, my = 65, mz = 50;
    double nh[3] = {0.25, 0.36, -0.9}, nn = sqrt(ref_dot3(nh, nh));
    double n[3] = {nh[0] / nn, nh[1] / nn, nh[2] / nn};
    double t[3] = {0, n[2], -n[1]}; /* n x e_x, not normalised */
    double o[3] = {n[1] * t[2] - n[2] * t[1], n[2] * t[0] - n[0] * t[2], n[0] * t[1] - n[1] * t[0]};
    double Iy = 2 * (mx * dx * dx + mz * dz * dz), Iz = 2 * (mx * dx * dx + my * dy * dy);
    double minv = 1.0 / (2 * (mx + my + mz));
    double Md[3] = {minv, minv + dx * dx / Iz, minv + dx * dx / Iy};
    const double *Q[3] = {n, t, o};
    double v[3] = {0.06, 0.7, 0.23};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            A[3 * i + j] =
                Q[i][0] * Md[0] * Q[j][0] + Q[i][1] * Md[1] * Q[j][1] + Q[i][2] * Md[2] * Q[j][2];
        }
        b[i] = ref_dot3(Q[i], v);
    }
    *mu = 3.7;
}

static void table1_three_coulomb_solutions(void **state) {
    (void)state;
    double A[9], b[3], mu, sol[18];
    int32_t n = -1;
    table1_problem(A, b, &mu);
    assert_int_equal(nscd_coulomb_single_contact_all(A, b, mu, sol, 6, &n), NSCD_OK);
    assert_int_equal(n, 3);
    /* paper, Table 1, sorted by objective: x3, x2, x1 */
    const double paper[3][3] = {{1.56, -0.99, -5.7}, {0.29, -0.89, -0.62}, {0.12, -0.44, -0.065}};
    const double paper_obj[3] = {-0.631, -0.393, -0.252};
    for (int i = 0; i < 3; ++i) {
        const double *x = sol + 3 * i;
        assert_true(ref_is_coulomb_solution(A, b, mu, x, 1e-10));
        for (int j = 0; j < 3; ++j) {
            assert_close(x[j], paper[i][j], 0.006 + 0.01 * fabs(paper[i][j]));
        }
        assert_close(ref_objective(A, b, x), paper_obj[i], 0.0006);
    }
    /* the maximum-dissipation impulse dissipates more than every Coulomb solution */
    double xs[3];
    assert_int_equal(nscd_mdp_single_contact(A, b, mu, xs), NSCD_OK);
    for (int i = 0; i < 3; ++i) {
        assert_true(ref_objective(A, b, xs) < ref_objective(A, b, sol + 3 * i));
    }
    /* too small a buffer */
    int32_t m = -1;
    double few[6] = {7, 7, 7, 7, 7, 7};
    assert_int_equal(nscd_coulomb_single_contact_all(A, b, mu, few, 2, &m),
                     NSCD_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(m, 3);
    assert_true(few[0] == 7 && few[5] == 7);
}

/* Brute force: scan the slip angle th for sign changes of d x u_to at
 * x = (b_n / D)(1, -mu d), bisect, keep the points that are Coulomb solutions. */
static int brute_force_sliding(const double A[9], const double b[3], double mu, double out[][3]) {
    enum { n = 20000 };
    const double h = 6.283185307179586 / n;
    int found = 0;
    double prev = 0.0;
    for (int i = 0; i <= n && found < 8; ++i) {
        double th = i * h, c = cos(th), s = sin(th);
        double w[3] = {1, -mu * c, -mu * s}, Aw[3];
        ref_matvec(A, w, Aw);
        double v1 = b[0] * Aw[1] - Aw[0] * b[1], v2 = b[0] * Aw[2] - Aw[0] * b[2];
        double g = c * v2 - s * v1; /* D (d x u_to) */
        if (i > 0 && prev * g < 0.0) {
            double lo = th - h, hi = th, glo = prev;
            for (int it = 0; it < 100; ++it) {
                double tm = 0.5 * (lo + hi), cm = cos(tm), sm = sin(tm);
                double wm[3] = {1, -mu * cm, -mu * sm}, Awm[3];
                ref_matvec(A, wm, Awm);
                double gm =
                    cm * (b[0] * Awm[2] - Awm[0] * b[2]) - sm * (b[0] * Awm[1] - Awm[0] * b[1]);
                if ((gm < 0.0) == (glo < 0.0)) {
                    lo = tm, glo = gm;
                } else {
                    hi = tm;
                }
            }
            double tm = 0.5 * (lo + hi), cm = cos(tm), sm = sin(tm);
            double wm[3] = {1, -mu * cm, -mu * sm};
            double xn = b[0] / ref_dot3(A, wm);
            double x[3] = {xn * wm[0], xn * wm[1], xn * wm[2]};
            if (xn > 0.0 && ref_is_coulomb_solution(A, b, mu, x, 1e-7)) {
                memcpy(out[found++], x, sizeof x);
            }
        }
        prev = g;
    }
    return found;
}

static void random_problems_against_brute_force(void **state) {
    (void)state;
    ref_rng_state = 2024;
    int histogram[7] = {0};
    const int trials = NSCD_TEST_SIZE(400, 60); /* 60 under NSCD_TEST_SMALL (test_size.h) */
    for (int trial = 0; trial < trials; ++trial) {
        double A[9], b[3], sol[18];
        ref_random_spd(A, pow(10.0, 4.0 * ref_uniform() - 2.0));
        for (int i = 0; i < 3; ++i) {
            b[i] = ref_normal();
        }
        if (trial % 4 == 0) {
            b[0] = -fabs(b[0]); /* separating: x = 0 and maybe sliding solutions */
        }
        double mu = pow(10.0, 2.0 * ref_uniform() - 1.0);
        int32_t n = 0;
        assert_int_equal(nscd_coulomb_single_contact_all(A, b, mu, sol, 6, &n), NSCD_OK);
        assert_true(n >= 1); /* a solution always exists */
        histogram[n]++;
        for (int i = 0; i < n; ++i) {
            assert_true(ref_is_coulomb_solution(A, b, mu, sol + 3 * i, 1e-9));
        }
        double bf[8][3];
        int nb = brute_force_sliding(A, b, mu, bf);
        for (int k = 0; k < nb; ++k) { /* every brute-force solution is listed */
            int hit = 0;
            for (int i = 0; i < n; ++i) {
                double d = hypot(hypot(bf[k][0] - sol[3 * i], bf[k][1] - sol[3 * i + 1]),
                                 bf[k][2] - sol[3 * i + 2]);
                hit |= d <= 1e-6 * (1.0 + sqrt(ref_dot3(bf[k], bf[k])));
            }
            assert_true(hit);
        }
        /* the Newton solver returns one of them */
        double x[3];
        nscd_coulomb_info info;
        assert_int_equal(nscd_coulomb_single_contact(A, b, mu, NULL, x, &info), NSCD_OK);
        assert_true(info.converged == 1 && info.residual <= 1e-12);
        assert_true(ref_is_coulomb_solution(A, b, mu, x, 1e-9));
        int hit = 0;
        for (int i = 0; i < n; ++i) {
            double d =
                hypot(hypot(x[0] - sol[3 * i], x[1] - sol[3 * i + 1]), x[2] - sol[3 * i + 2]);
            hit |= d <= 1e-8 * (1.0 + sqrt(ref_dot3(x, x)));
        }
        assert_true(hit);
    }
    printf("number of Coulomb solutions over 400 random problems:");
    for (int i = 1; i < 7; ++i) {
        printf(" %d:%d", i, histogram[i]);
    }
    printf("\n");
    assert_true(histogram[2] + histogram[3] + histogram[4] + histogram[5] > 0); /* non-uniqueness */
}

static void newton_table1_and_sticking(void **state) {
    (void)state;
    double A[9], b[3], mu, x[3];
    table1_problem(A, b, &mu);
    nscd_coulomb_info info;
    assert_int_equal(nscd_coulomb_single_contact(A, b, mu, NULL, x, &info), NSCD_OK);
    assert_true(ref_is_coulomb_solution(A, b, mu, x, 1e-10));
    assert_true(info.iterations >= 1 && info.iterations <= 50);
    /* sticking problem: A^-1 b inside the cone, no iteration needed */
    double As[9] = {2, 0.3, -0.2, 0.3, 1, 0.1, -0.2, 0.1, 1.5}, bs[3] = {3, 0.2, -0.1}, x0[3];
    ref_solve3(As, bs, x0);
    assert_int_equal(nscd_coulomb_single_contact(As, bs, 1.0, NULL, x, &info), NSCD_OK);
    assert_int_equal(info.iterations, 0);
    for (int i = 0; i < 3; ++i) {
        assert_close(x[i], x0[i], 1e-14);
    }
    /* separating: x = 0 */
    double bsep[3] = {-1, 2, 3};
    assert_int_equal(nscd_coulomb_single_contact(As, bsep, 1.0, NULL, x, NULL), NSCD_OK);
    assert_true(x[0] == 0 && x[1] == 0 && x[2] == 0);
    /* frictionless: unique (b_n / A_nn, 0, 0) */
    int32_t n;
    double sol[18];
    assert_int_equal(nscd_coulomb_single_contact_all(As, bs, 0.0, sol, 6, &n), NSCD_OK);
    assert_int_equal(n, 1);
    assert_close(sol[0], 1.5, 1e-15);
    assert_int_equal(nscd_coulomb_single_contact(As, bs, 0.0, NULL, x, NULL), NSCD_OK);
    assert_close(x[0], 1.5, 1e-14);
    assert_close(x[1], 0.0, 1e-14);
}

static void non_convergence_is_reported(void **state) {
    (void)state;
    double A[9], b[3], mu, x[3] = {5, 6, 7};
    table1_problem(A, b, &mu);
    nscd_coulomb_options opts;
    assert_int_equal(nscd_coulomb_options_init(&opts, sizeof opts), NSCD_OK);
    assert_int_equal(opts.max_iterations, 50);
    assert_int_equal(opts.enumeration_safeguard, 1);
    assert_close(opts.tolerance, 1e-12, 0.0);
    opts.max_iterations = 0; /* the start (maximum dissipation) is not a Coulomb solution */
    nscd_coulomb_info info = {-1, -1, -1.0};
    assert_int_equal(nscd_coulomb_single_contact(A, b, mu, &opts, x, &info),
                     NSCD_ERR_NOT_CONVERGED);
    assert_int_equal(info.iterations, 0);
    assert_int_equal(info.converged, 0);
    assert_true(info.residual > 1e-6);
    assert_true(x[0] == 5 && x[1] == 6 && x[2] == 7);
    opts.max_iterations = 1;
    opts.tolerance = 0.0; /* unreachable in one step */
    assert_int_equal(nscd_coulomb_single_contact(A, b, mu, &opts, x, &info),
                     NSCD_ERR_NOT_CONVERGED);
    assert_int_equal(info.iterations, 1);
    assert_true(x[0] == 5);
}

/* A random problem on which the damped Newton method cycles (found by a scan of
 * 100 000 problems): without the safeguard it reports non-convergence after the cap;
 * with it (default) the nearest enumerated solution is returned. */
static void newton_stall_and_safeguard(void **state) {
    (void)state;
    double A[9] = {0.17268710246658509,  0.077818989329693555,  0.13769141381098352,
                   0.077818989329693555, 0.20708993209285317,   -0.049762182627916846,
                   0.13769141381098352,  -0.049762182627916846, 0.49831260567891034};
    double b[3] = {0.06935598262090048, -0.3654372719421225, 0.44797251324540588};
    double mu = 1.6659516563480496, x[3] = {-1, -1, -1}, sol[18];
    nscd_coulomb_options opts;
    nscd_coulomb_info info;
    nscd_coulomb_options_init(&opts, sizeof opts);
    opts.enumeration_safeguard = 0;
    assert_int_equal(nscd_coulomb_single_contact(A, b, mu, &opts, x, &info),
                     NSCD_ERR_NOT_CONVERGED);
    assert_int_equal(info.iterations, opts.max_iterations);
    assert_int_equal(info.converged, 0);
    assert_true(info.residual > 1e-3);
    assert_true(x[0] == -1 && x[1] == -1 && x[2] == -1);
    assert_int_equal(nscd_coulomb_single_contact(A, b, mu, NULL, x, &info), NSCD_OK);
    assert_int_equal(info.converged, 1);
    /* the stall is detected, and the safeguard used, before the cap */
    assert_true(info.iterations >= 1 && info.iterations < opts.max_iterations);
    assert_true(info.residual <= 1e-12);
    assert_true(ref_is_coulomb_solution(A, b, mu, x, 1e-10));
    int32_t n;
    assert_int_equal(nscd_coulomb_single_contact_all(A, b, mu, sol, 6, &n), NSCD_OK);
    assert_int_equal(n, 1);
    for (int j = 0; j < 3; ++j) {
        assert_close(x[j], sol[j], 1e-14 * (1.0 + fabs(sol[j])));
    }
}

static void bad_inputs(void **state) {
    (void)state;
    double A[9] = {2, 0.3, -0.2, 0.3, 1, 0.1, -0.2, 0.1, 1.5}, b[3] = {3, 5, -7};
    double x[3] = {1, 2, 3}, sol[18];
    int32_t n = 42;
    nscd_coulomb_options opts;
    assert_int_equal(nscd_coulomb_options_init(NULL, sizeof opts), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_coulomb_options_init(&opts, sizeof opts - 1), NSCD_ERR_STRUCT_SIZE);
    assert_int_equal(nscd_coulomb_options_init(&opts, sizeof opts), NSCD_OK);
    assert_int_equal(nscd_coulomb_single_contact(NULL, b, 1, NULL, x, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_coulomb_single_contact(A, b, 1, NULL, NULL, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_coulomb_single_contact(A, b, -1, NULL, x, NULL), NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_coulomb_single_contact(A, b, NAN, NULL, x, NULL), NSCD_ERR_NOT_FINITE);
    opts.struct_size = 3;
    assert_int_equal(nscd_coulomb_single_contact(A, b, 1, &opts, x, NULL), NSCD_ERR_STRUCT_SIZE);
    nscd_coulomb_options_init(&opts, sizeof opts);
    opts.max_iterations = -1;
    assert_int_equal(nscd_coulomb_single_contact(A, b, 1, &opts, x, NULL), NSCD_ERR_OUT_OF_RANGE);
    opts.max_iterations = 5;
    opts.tolerance = NAN;
    assert_int_equal(nscd_coulomb_single_contact(A, b, 1, &opts, x, NULL), NSCD_ERR_NOT_FINITE);
    double indefinite[9] = {1, 2, 0, 2, 1, 0, 0, 0, 1};
    assert_int_equal(nscd_coulomb_single_contact(indefinite, b, 1, NULL, x, NULL),
                     NSCD_ERR_NOT_SPD);
    assert_true(x[0] == 1 && x[1] == 2 && x[2] == 3);

    assert_int_equal(nscd_coulomb_single_contact_all(NULL, b, 1, sol, 6, &n),
                     NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_coulomb_single_contact_all(A, b, 1, NULL, 6, &n), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_coulomb_single_contact_all(A, b, 1, sol, 6, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_coulomb_single_contact_all(A, b, -1, sol, 6, &n), NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_coulomb_single_contact_all(A, b, 1, sol, -1, &n), NSCD_ERR_OUT_OF_RANGE);
    double bn[3] = {INFINITY, 0, 0};
    assert_int_equal(nscd_coulomb_single_contact_all(A, bn, 1, sol, 6, &n), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_coulomb_single_contact_all(indefinite, b, 1, sol, 6, &n),
                     NSCD_ERR_NOT_SPD);
    assert_int_equal(n, 42);
}

/* Painlevé's rod (Sect. 4.2) above mu*: no contact and the sticking impulse
 * Lambda_0 are both Coulomb solutions (b_n = 0: grazing contact). */
static void painleve_rod_non_uniqueness(void **state) {
    (void)state;
    double th = 0.5 * acos(-0.6), c = cos(th), s = sin(th);
    /* A (m = 1) in the contact frame (n, t, o) = (e_y, e_x, e_z); b = (0, v0, 0) */
    double A[9] = {1 + 3 * c * c, -3 * s * c, 0, -3 * s * c, 1 + 3 * s * s, 0, 0, 0, 4};
    double b[3] = {0, 1, 0}, sol[18];
    double mu_star = (c + 1 / (3 * c)) / s;
    assert_close(mu_star, 4.0 / 3.0, 1e-14);
    int32_t n;
    assert_int_equal(nscd_coulomb_single_contact_all(A, b, 1.5, sol, 6, &n), NSCD_OK);
    assert_true(n >= 2);
    assert_true(sol[0] == 0 && sol[1] == 0 && sol[2] == 0);
    double lambda0[3] = {3 * sin(2 * th) / 8, (5 + 3 * cos(2 * th)) / 8, 0};
    for (int j = 0; j < 3; ++j) {
        assert_close(sol[3 + j], lambda0[j], 1e-14);
    }
    for (int i = 0; i < n; ++i) {
        assert_true(ref_is_coulomb_solution(A, b, 1.5, sol + 3 * i, 1e-10));
    }
    /* below mu*, only the zero impulse */
    assert_int_equal(nscd_coulomb_single_contact_all(A, b, 1.2, sol, 6, &n), NSCD_OK);
    assert_int_equal(n, 1);
}

/* Issue 28: degenerate conics (hyperbolas, near-parabolas) and near grazing, the
 * fuzzer's reproducers (tests/fuzz/corpus/single_contact/regress-*; their solutions
 * are checked against an independent scan of 2e6 slip angles by
 * tests/fuzz/scan_single_contact.py). Here: the physics of every listed solution
 * (Coulomb's law to rounding of its own terms), at least one solution, and maximum
 * dissipation not worse than any admissible Coulomb solution. */
static double objective3(const double A[9], const double b[3], const double x[3]) {
    double f = 0.0;
    for (int i = 0; i < 3; ++i) {
        double Ax = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
        f += x[i] * (0.5 * Ax - b[i]);
    }
    return f;
}

static void degenerate_conics(void **state) {
    (void)state;
    static const struct {
        double A[9], b[3], mu;
    } cases[] = {
        /* regress-near-grazing-enumeration: b_n = 1e-300, none was listed */
        {{116.4031550094423, 2738.1245235473348, 2763.1933122921478, 2738.1245235473348,
          64522.775356215621, 67738.526402266318, 2763.1933122921478, 67738.526402266318,
          131310.24782349021},
         {1e-300, 22409.354714625544, -29563.939123423959},
         0.95292591744869148},
        /* regress-near-grazing-accuracy: a listed solution had residual 6e-7 */
        {{273.9520313459181, -8663.123886829444, 8629.5474243703829, -8663.123886829444,
          488972.01678188087, -504209.78282272484, 8629.5474243703829, -504209.78282272484,
          521928.71317564487},
         {4.7009298615353768e-11, -9.7878060647028414e-07, 2},
         1.0048065918974594},
        /* regress-hyperbola-mdp: MDP 1e-4 worse than a Coulomb solution */
        {{2.3714049503727833e-06, 3.618532006367246e-11, 2.3714049503727833e-06,
          3.618532006367246e-11, 2.3714049509249357e-06, -2.2601350911769898e-06,
          2.3714049503727833e-06, -2.2601350911769898e-06, 4.5873852339580481e-06},
         {15.259021896696368, 953154.80277714191, -937499.04631113145},
         1.0000152590218967},
        /* regress-parabola-enumeration: an ellipse 1.5e-5 from the parabola */
        {{2.3714049503727833e-06, 3.618532006367246e-11, 2.3713325797326557e-06,
          3.618532006367246e-11, 2.3714049509249357e-06, -2.260135092281295e-06,
          2.3713325797326557e-06, -2.260135092281295e-06, 4.5872535296884324e-06},
         {15.259021896696368, 953154.80277714191, -999816.89173723967},
         1.0000152590218967},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const double *A = cases[c].A, *b = cases[c].b, mu = cases[c].mu;
        double sol[18], xm[3];
        int32_t n = -1;
        assert_int_equal(nscd_coulomb_single_contact_all(A, b, mu, sol, 6, &n), NSCD_OK);
        assert_true(n >= 1);
        assert_int_equal(nscd_mdp_single_contact(A, b, mu, xm), NSCD_OK);
        double fm = objective3(A, b, xm);
        for (int i = 0; i < n; ++i) {
            const double *x = sol + 3 * i;
            double u[3], t[3] = {0, 0, 0}; /* t: size of the terms of u */
            for (int r = 0; r < 3; ++r) {
                u[r] = -b[r];
                t[r] = fabs(b[r]);
                for (int k = 0; k < 3; ++k) {
                    u[r] += A[3 * r + k] * x[k];
                    t[r] += fabs(A[3 * r + k] * x[k]);
                }
            }
            double xt = hypot(x[1], x[2]), ut = hypot(u[1], u[2]);
            assert_true(x[0] > 0.0);
            assert_true(xt <= mu * x[0] * (1.0 + 1e-12)); /* in the cone */
            assert_true(fabs(u[0]) <= 1e-10 * t[0]);      /* u_n = 0 */
            if (xt < mu * x[0] * (1.0 - 1e-12)) {         /* sticking: u = 0 */
                assert_true(fabs(u[1]) <= 1e-10 * t[1] && fabs(u[2]) <= 1e-10 * t[2]);
            } else { /* sliding: x_to = -mu x_n u_to / ||u_to|| (friction opposes slip) */
                assert_true(ut > 0.0);
                assert_true(fabs(x[1] + mu * x[0] * u[1] / ut) <= 1e-8 * xt);
                assert_true(fabs(x[2] + mu * x[0] * u[2] / ut) <= 1e-8 * xt);
            }
            /* maximum dissipation is at least as good as this admissible impulse */
            double f = objective3(A, b, x);
            assert_true(fm <= f + 1e-12 * fabs(f));
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table1_three_coulomb_solutions),
        cmocka_unit_test(random_problems_against_brute_force),
        cmocka_unit_test(newton_table1_and_sticking),
        cmocka_unit_test(non_convergence_is_reported),
        cmocka_unit_test(newton_stall_and_safeguard),
        cmocka_unit_test(bad_inputs),
        cmocka_unit_test(painleve_rod_non_uniqueness),
        cmocka_unit_test(degenerate_conics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
