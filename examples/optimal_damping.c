/* Optimal damping of the Hertz spring + linear damper (seed 001, Sects. 4-5).
 *
 *  - Sect. 4.2: c_opt found by the optimisation of eq. 23, carried out on the
 *    library's impact simulator, while sweeping m, v and k: the slopes of
 *    ln c_opt are n/(n+1), (n-1)/(n+1) and 1/(n+1) (eqs. 38, 41, 44).
 *  - Figs. 6-7: c_opt(e) for m = v = k = 1 and the fit alpha (e^beta - 1)
 *    (eq. 45) for every n, against eqs. 46-47.
 *  - Sect. 5.1, Fig. 8: 300 random systems per e; max |e_out - e| of the
 *    closed form (eq. 49) and of the exact optimum (nscd_copt_exact).
 *  - Sect. 5.2, Fig. 9: n = 1, eq. 57 against the exact restitution (eq. 55).
 *
 * Usage: optimal_damping [--json] [--systems 300]                          */
#include <math.h>
#include <stdio.h>

#include "example_cli.h"
#include <nscd/nscd.h>

#define N_SLOPE_POINTS 12
#define N_FIT_N 21
#define N_FIT_E 56
#define N_FIG8_E 30
#define N_FIG9_E 200

static unsigned rng_state = 20190501u;

static double uniform(void) {
    rng_state = rng_state * 1664525u + 1013904223u;
    return (rng_state >> 8) / 16777216.0;
}

/* e_out of the spring-damper impact with damping c (0 on failure). */
static double restitution(double m, double k, double n, double v, double c) {
    nscd_contact_law *law = NULL;
    if (nscd_contact_law_create_spring_damper(k, n, c, NSCD_INDENTATION_TEMPORARY, NULL, &law) !=
        NSCD_OK) {
        return 0.0;
    }
    nscd_central_impact_result r = {.struct_size = sizeof r};
    nscd_status rc = nscd_central_impact(law, m, v, &r);
    nscd_contact_law_destroy(law);
    return rc == NSCD_OK ? r.e_out : 0.0;
}

/* eq. 23: the c with e_out(c) = e, by a bracketed secant (Illinois) on
 * ln e_out as a function of ln c, starting from the closed form's scale. */
static double optimise(double m, double k, double n, double v, double e) {
    double scale = pow(k * pow(v, n - 1.0) * pow(m, n), 1.0 / (n + 1.0));
    double a = log(0.5 * scale * (pow(e, -0.3) - 1.0) + 1e-300), b;
    double fa = log(restitution(m, k, n, v, exp(a))) - log(e), fb;
    double step = fa > 0.0 ? 0.5 : -0.5;
    for (;;) {
        b = a + step;
        fb = log(restitution(m, k, n, v, exp(b))) - log(e);
        if ((fa > 0.0) != (fb > 0.0)) {
            break;
        }
        a = b, fa = fb;
    }
    int side = 0;
    double c = b;
    for (int it = 0; it < 100 && fabs(b - a) > 1e-13; ++it) {
        c = (fa * b - fb * a) / (fa - fb);
        double fc = log(restitution(m, k, n, v, exp(c))) - log(e);
        if (fabs(fc) < 1e-13) {
            break;
        }
        if ((fc > 0.0) == (fb > 0.0)) {
            b = c, fb = fc;
            fa = side == -1 ? 0.5 * fa : fa;
            side = -1;
        } else {
            a = c, fa = fc;
            fb = side == 1 ? 0.5 * fb : fb;
            side = 1;
        }
    }
    return exp(c);
}

/* Least-squares slope of y against x. */
static double slope(const double *x, const double *y, int count) {
    double mx = 0.0, my = 0.0, sxy = 0.0, sxx = 0.0;
    for (int i = 0; i < count; ++i) {
        mx += x[i] / count;
        my += y[i] / count;
    }
    for (int i = 0; i < count; ++i) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    return sxy / sxx;
}

/* ------------------------------------------------------------ Sect. 4.2 */

typedef struct slope_result {
    char parameter;
    double n, slope, expected;
} slope_result;

static double worst_table_difference; /* optimisation vs nscd_copt_exact */

static slope_result sweep(char parameter, double n) {
    double x[N_SLOPE_POINTS], y[N_SLOPE_POINTS];
    for (int i = 0; i < N_SLOPE_POINTS; ++i) {
        double u = (double)i / (N_SLOPE_POINTS - 1);
        double m = 1.0, v = 1.0, k = 1.0, e = 0.7, value;
        if (parameter == 'm') { /* Sect. 4.2.1 */
            value = m = pow(10.0, -5.0 + u * log10(5e6));
        } else if (parameter == 'v') { /* Sect. 4.2.2 */
            value = v = pow(10.0, -2.0 + u * log10(5e3));
        } else { /* Sect. 4.2.3 */
            value = k = pow(10.0, 5.0 + 5.0 * u);
        }
        double c = optimise(m, k, n, v, e);
        x[i] = log(value);
        y[i] = log(c);
        /* the table-based exact optimum, rescaled from k = 1e5 to this k */
        double c_table;
        if (nscd_copt_exact(1.0, 1e5, n, 1.0, e, &c_table) == NSCD_OK) {
            c_table *= pow(k / 1e5 * pow(v, n - 1.0) * pow(m, n), 1.0 / (n + 1.0));
            worst_table_difference = fmax(worst_table_difference, fabs(c_table / c - 1.0));
        }
    }
    slope_result r = {parameter, n, slope(x, y, N_SLOPE_POINTS), 0.0};
    r.expected = parameter == 'm' ? n / (n + 1.0)
                                  : (parameter == 'v' ? (n - 1.0) / (n + 1.0) : 1.0 / (n + 1.0));
    return r;
}

/* ------------------------------------------------------------ Figs. 6-7 */

/* Dimensionless c_opt (m = v = k = 1) from nscd_copt_exact by the exact
 * scaling c ~ k^(1/(n+1)) (the function accepts k >= 1e5 only). */
static double copt_unit(double n, double e) {
    double c = 0.0;
    nscd_copt_exact(1.0, 1e5, n, 1.0, e, &c);
    return c / pow(1e5, 1.0 / (n + 1.0));
}

/* Fit c = alpha (e^beta - 1) (eq. 45): alpha by linear least squares for a
 * given beta, beta by golden-section search. */
static double fit_residual(const double *e, const double *c, int count, double beta,
                           double *alpha) {
    double su = 0.0, sc = 0.0;
    for (int i = 0; i < count; ++i) {
        double u = pow(e[i], beta) - 1.0;
        su += u * u;
        sc += u * c[i];
    }
    *alpha = sc / su;
    double r = 0.0;
    for (int i = 0; i < count; ++i) {
        double d = c[i] - *alpha * (pow(e[i], beta) - 1.0);
        r += d * d;
    }
    return r;
}

static void fit(const double *e, const double *c, int count, double *alpha, double *beta) {
    const double g = 0.5 * (sqrt(5.0) - 1.0);
    double lo = -1.5, hi = -0.01, a1, a2;
    for (int it = 0; it < 100; ++it) {
        double b1 = hi - g * (hi - lo), b2 = lo + g * (hi - lo);
        if (fit_residual(e, c, count, b1, &a1) < fit_residual(e, c, count, b2, &a2)) {
            hi = b2;
        } else {
            lo = b1;
        }
    }
    *beta = 0.5 * (lo + hi);
    fit_residual(e, c, count, *beta, alpha);
}

static double alpha_eq46(double n) {
    return 0.3331 * pow(n, 4) - 1.48 * pow(n, 3) + 3.077 * n * n - 2.306 * n + 1.794;
}

static double beta_eq47(double n) { return 1.285 * pow(n, 0.2553) - 1.725; }

/* ------------------------------------------------------------ output */

static void json_key_array(const char *key, const double *x, int count, int comma) {
    printf("%s\"%s\":", comma ? "," : "", key);
    json_array(stdout, x, count);
}

static const char usage_text[] = "usage: optimal_damping [--json] [--systems N]";

int main(int argc, char **argv) {
    cli_check(argc, argv, usage_text);
    int systems = (int)cli_double(argc, argv, "--systems", 300);
    int json = cli_has_flag(argc, argv, "--json");

    /* Sect. 4.2 */
    const double slope_n[5] = {1.0, 1.25, 1.5, 1.75, 2.0};
    slope_result slopes[15];
    double worst_slope = 0.0;
    for (int p = 0; p < 3; ++p) {
        for (int j = 0; j < 5; ++j) {
            slopes[5 * p + j] = sweep("mvk"[p], slope_n[j]);
            worst_slope =
                fmax(worst_slope, fabs(slopes[5 * p + j].slope - slopes[5 * p + j].expected));
        }
    }

    /* Figs. 6-7 */
    static double fit_e[N_FIT_E], fit_c[N_FIT_N][N_FIT_E], fit_nv[N_FIT_N];
    static double alpha[N_FIT_N], beta[N_FIT_N], alpha46[N_FIT_N], beta47[N_FIT_N];
    static double misfit[N_FIT_N], misfit46[N_FIT_N]; /* max |fit - c_opt| over e */
    for (int i = 0; i < N_FIT_E; ++i) {
        fit_e[i] = 0.45 + 0.55 * i / (N_FIT_E - 1);
    }
    for (int j = 0; j < N_FIT_N; ++j) {
        double n = fit_nv[j] = 1.0 + (double)j / (N_FIT_N - 1);
        for (int i = 0; i < N_FIT_E; ++i) {
            fit_c[j][i] = copt_unit(n, fit_e[i]);
        }
        fit(fit_e, fit_c[j], N_FIT_E, &alpha[j], &beta[j]);
        alpha46[j] = alpha_eq46(n);
        beta47[j] = beta_eq47(n);
        for (int i = 0; i < N_FIT_E; ++i) {
            double c = fit_c[j][i];
            misfit[j] = fmax(misfit[j], fabs(alpha[j] * (pow(fit_e[i], beta[j]) - 1.0) - c));
            misfit46[j] =
                fmax(misfit46[j], fabs(alpha46[j] * (pow(fit_e[i], beta47[j]) - 1.0) - c));
        }
    }
    const double fig6_n[2] = {1.2, 1.8};
    static double fig6_c[2][N_FIT_E], fig6_alpha[2], fig6_beta[2];
    for (int j = 0; j < 2; ++j) {
        for (int i = 0; i < N_FIT_E; ++i) {
            fig6_c[j][i] = copt_unit(fig6_n[j], fit_e[i]);
        }
        fit(fit_e, fig6_c[j], N_FIT_E, &fig6_alpha[j], &fig6_beta[j]);
    }

    /* Sect. 5.1, Fig. 8: the same random systems for every e */
    static double fig8_e[N_FIG8_E], err_cf[N_FIG8_E], err_ex[N_FIG8_E];
    double worst_cf = 0.0, worst_ex = 0.0;
    for (int i = 0; i < N_FIG8_E; ++i) {
        fig8_e[i] = pow(10.0, -4.0 + 4.0 * i / (N_FIG8_E - 1));
        rng_state = 20190501u;
        for (int s = 0; s < systems; ++s) {
            double m = pow(10.0, -5.0 + 7.0 * uniform());
            double k = pow(10.0, 5.0 + 5.0 * uniform());
            double v = pow(10.0, -3.0 + 5.0 * uniform());
            double n = 1.0 + uniform();
            double c_cf = 0.0, c_ex = 0.0;
            nscd_copt_closed_form(m, k, n, v, fig8_e[i], &c_cf);
            nscd_copt_exact(m, k, n, v, fig8_e[i], &c_ex);
            err_cf[i] = fmax(err_cf[i], fabs(restitution(m, k, n, v, c_cf) - fig8_e[i]));
            err_ex[i] = fmax(err_ex[i], fabs(restitution(m, k, n, v, c_ex) - fig8_e[i]));
        }
        worst_cf = fmax(worst_cf, err_cf[i]);
        worst_ex = fmax(worst_ex, err_ex[i]);
    }

    /* Sect. 5.2, Fig. 9: n = 1, xi = c / (2 sqrt(k m)) into eq. 55 */
    static double fig9_e[N_FIG9_E], e57[N_FIG9_E], err57[N_FIG9_E], err_exact[N_FIG9_E];
    double worst57 = 0.0, worst_exact1 = 0.0;
    for (int i = 0; i < N_FIG9_E; ++i) {
        double e = fig9_e[i] = pow(10.0, -4.0 + 4.0 * i / (N_FIG9_E - 1));
        double m = 1.0, k = 1e6, c = 0.0, ee = 0.0;
        nscd_copt_closed_form(m, k, 1.0, 1.0, e, &c); /* eq. 57 */
        nscd_kelvin_voigt_restitution(c / (2.0 * sqrt(k * m)), &e57[i]);
        err57[i] = fabs(e57[i] - e);
        nscd_copt_exact(m, k, 1.0, 1.0, e, &c);
        nscd_kelvin_voigt_restitution(c / (2.0 * sqrt(k * m)), &ee);
        err_exact[i] = fabs(ee - e);
        worst57 = fmax(worst57, err57[i]);
        worst_exact1 = fmax(worst_exact1, err_exact[i]);
    }

    if (!json) {
        printf("Sect. 4.2: largest |slope - expected| = %.2e; optimisation vs table: %.2e\n",
               worst_slope, worst_table_difference);
        for (int j = 0; j < N_FIT_N; j += 5) {
            printf("n = %.2f: alpha %.4f (eq. 46 %.4f), beta %.4f (eq. 47 %.4f); max misfit of "
                   "c_opt %.1e (eqs. 46-47: %.1e)\n",
                   fit_nv[j], alpha[j], alpha46[j], beta[j], beta47[j], misfit[j], misfit46[j]);
        }
        printf("Sect. 5.1 (%d systems): max |e_out - e| closed form %.3e, exact %.3e\n", systems,
               worst_cf, worst_ex);
        printf("Sect. 5.2 (n = 1): max |e_exact - e| eq. 57 %.3e, exact %.3e\n", worst57,
               worst_exact1);
        return 0;
    }
    printf("{\"slopes\":[");
    for (int i = 0; i < 15; ++i) {
        printf("%s{\"parameter\":\"%c\",\"n\":%.17g,\"slope\":%.17g,\"expected\":%.17g}",
               i ? "," : "", slopes[i].parameter, slopes[i].n, slopes[i].slope, slopes[i].expected);
    }
    printf("],\"slope_max_deviation\":%.17g,\"optimisation_vs_table_max_relative\":%.17g",
           worst_slope, worst_table_difference);
    printf(",\"fig6\":{");
    json_key_array("e", fit_e, N_FIT_E, 0);
    printf(",\"curves\":[");
    for (int j = 0; j < 2; ++j) {
        printf("%s{\"n\":%.17g,\"alpha\":%.17g,\"beta\":%.17g", j ? "," : "", fig6_n[j],
               fig6_alpha[j], fig6_beta[j]);
        json_key_array("c_opt", fig6_c[j], N_FIT_E, 1);
        printf("}");
    }
    printf("]},\"fig7\":{");
    json_key_array("n", fit_nv, N_FIT_N, 0);
    json_key_array("alpha", alpha, N_FIT_N, 1);
    json_key_array("beta", beta, N_FIT_N, 1);
    json_key_array("alpha_eq46", alpha46, N_FIT_N, 1);
    json_key_array("beta_eq47", beta47, N_FIT_N, 1);
    json_key_array("max_misfit", misfit, N_FIT_N, 1);
    json_key_array("max_misfit_eq46_47", misfit46, N_FIT_N, 1);
    printf("},\"fig8\":{\"systems\":%d", systems);
    json_key_array("e", fig8_e, N_FIG8_E, 1);
    json_key_array("max_error_closed_form", err_cf, N_FIG8_E, 1);
    json_key_array("max_error_exact", err_ex, N_FIG8_E, 1);
    printf("},\"fig9\":{");
    json_key_array("e", fig9_e, N_FIG9_E, 0);
    json_key_array("e_exact_eq57", e57, N_FIG9_E, 1);
    json_key_array("error_eq57", err57, N_FIG9_E, 1);
    json_key_array("error_exact", err_exact, N_FIG9_E, 1);
    printf("},\"summary\":{\"max_error_closed_form\":%.17g,\"max_error_exact\":%.17g,"
           "\"max_error_eq57\":%.17g,\"max_error_exact_n1\":%.17g}}\n",
           worst_cf, worst_ex, worst57, worst_exact1);
    return 0;
}
