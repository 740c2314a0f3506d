/* Painlevé's paradox single-contact problem of seed 002, Sect. 4.2: a slender rod
 * grazes a plane at angle theta0 while sliding with speed v0. Below
 * mu*(theta0) = (cos theta0 + 1/(3 cos theta0)) / sin theta0 a non-impulsive solution
 * exists; at or above it an impact is needed. The maximum-dissipation impact model
 * picks Lambda_0 (slip-stick transition) when mu >= mu* and 0 otherwise, while the
 * Coulomb-like model admits both 0 and Lambda_0 (and possibly sliding impulses).
 *
 *   painleve_rod [--json] [--m M] [--l L] [--v0 V0]
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "example_cli.h"
#include "nscd/nscd.h"

static const double pi = 3.14159265358979323846;

static double mu_star(double th) { return (cos(th) + 1.0 / (3.0 * cos(th))) / sin(th); }

/* d mu* / d theta, up to the positive factor 1/sin^2: -4/3 + tan^2(theta)/3. */
static double mu_star_slope(double th) {
    double t = tan(th);
    return t * t / 3.0 - 4.0 / 3.0;
}

/* Minimum of mu* on ]0, pi/2[: bisection on the sign of its derivative (mu* is
 * unimodal there), independent of the closed form theta* = 1/2 acos(-3/5). */
static double minimise_mu_star(double *theta) {
    double a = 1e-3, c = pi / 2 - 1e-3;
    for (int it = 0; it < 200 && c - a > 0.0; ++it) {
        double mid = 0.5 * (a + c);
        if (mid == a || mid == c) {
            break;
        }
        if (mu_star_slope(mid) < 0.0) {
            a = mid;
        } else {
            c = mid;
        }
    }
    *theta = 0.5 * (a + c);
    return mu_star(*theta);
}

/* Delassus block of eq. (2) for the rod tip against the fixed half-space, in the
 * contact frame (n, t, o) = (e_y, e_x, e_z): A = m^-1 E - r^x I^-1 r^x with the rod
 * axis e = (cos, sin, 0), r = -(l/2) e and I^-1 = 12/(m l^2) (E - e e') (infinite
 * inertia about the axis, I_a0 = m l^2/12 diag(inf, 1, 1)). */
static void rod_delassus(double m, double l, double th, double A[9]) {
    double e[3] = {cos(th), sin(th), 0.0}, r[3] = {-0.5 * l * e[0], -0.5 * l * e[1], 0.0};
    double Iinv[9], rx[9] = {0, -r[2], r[1], r[2], 0, -r[0], -r[1], r[0], 0}, W[9], T[9];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            Iinv[3 * i + j] = 12.0 / (m * l * l) * ((i == j) - e[i] * e[j]);
        }
    }
    for (int i = 0; i < 3; ++i) { /* T = r^x I^-1, W = T r^x */
        for (int j = 0; j < 3; ++j) {
            T[3 * i + j] =
                rx[3 * i] * Iinv[j] + rx[3 * i + 1] * Iinv[3 + j] + rx[3 * i + 2] * Iinv[6 + j];
        }
    }
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            W[3 * i + j] = T[3 * i] * rx[j] + T[3 * i + 1] * rx[3 + j] + T[3 * i + 2] * rx[6 + j];
        }
    }
    static const int perm[3] = {1, 0, 2}; /* contact axis k is world axis perm[k] */
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            int a = perm[i], c = perm[j];
            A[3 * i + j] = (a == c) / m - W[3 * a + c];
        }
    }
}

/* Deviation of A from the paper's closed form (planar entries; the paper's A_oo
 * = 1 + 3 (cos^2 - sin^2)^2 is a misprint, eq. (2) gives 4/m, and it does not
 * influence the planar problem). */
static double closed_form_deviation(double m, double th, const double A[9]) {
    double s = sin(th), c = cos(th);
    double ref[4] = {(1 + 3 * c * c) / m, -3 * s * c / m, -3 * s * c / m, (1 + 3 * s * s) / m};
    double got[4] = {A[0], A[1], A[3], A[4]}, d = 0.0;
    for (int i = 0; i < 4; ++i) {
        d = fmax(d, fabs(got[i] - ref[i]));
    }
    return fmax(d, fabs(A[8] - 4.0 / m));
}

int main(int argc, char **argv) {
    bool json = cli_has_flag(argc, argv, "--json");
    double m = cli_double(argc, argv, "--m", 1.0), l = cli_double(argc, argv, "--l", 1.0);
    double v0 = cli_double(argc, argv, "--v0", 1.0);
    if (!(m > 0) || !(l > 0) || !(v0 > 0)) {
        fprintf(stderr, "m, l and v0 must be positive\n");
        return 2;
    }
    double theta_star, mu_min = minimise_mu_star(&theta_star);
    double theta_paper = 0.5 * acos(-0.6);

    static const double mus[] = {0.5, 1.0, 1.3, 1.4, 1.5, 2.0, 3.0, 5.0};
    enum { n_mu = sizeof mus / sizeof mus[0], n_theta = 29 };
    double max_error = 0.0, max_dev = 0.0;
    int n_impulsive = 0, n_cases = 0, n_ambiguous_coulomb = 0;
    if (json) {
        printf("{\"example\":\"painleve_rod\",\"m\":");
        json_number(stdout, m);
        printf(",\"l\":");
        json_number(stdout, l);
        printf(",\"v0\":");
        json_number(stdout, v0);
        printf(",\"mu_star_min\":");
        json_number(stdout, mu_min);
        printf(",\"theta_star\":");
        json_number(stdout, theta_star);
        printf(",\"paper_mu_star_min\":");
        json_number(stdout, 4.0 / 3.0);
        printf(",\"paper_theta_star\":");
        json_number(stdout, theta_paper);
        printf(",\"sweep\":[");
    } else {
        printf("mu* minimum %.15f at theta0 = %.15f (paper: 4/3 at 1/2 acos(-3/5) = %.15f)\n",
               mu_min, theta_star, theta_paper);
        printf("%8s %6s %8s %5s %30s %12s %s\n", "theta0", "mu", "mu*", "imp.",
               "maximum dissipation x", "|x - ref|", "Coulomb solutions");
    }
    for (int it = 0; it < n_theta; ++it) {
        double th = (it + 1) * (pi / 2) / (n_theta + 1);
        double A[9], b[3] = {0.0, v0, 0.0};
        rod_delassus(m, l, th, A);
        max_dev = fmax(max_dev, closed_form_deviation(m, th, A));
        /* Lambda_0 = m v0 / 8 (5 + 3 cos 2th, 3 sin 2th, 0) in world axes (x, y, z) */
        double lambda0[3] = {m * v0 / 8 * 3 * sin(2 * th), m * v0 / 8 * (5 + 3 * cos(2 * th)), 0.0};
        for (int im = 0; im < n_mu; ++im) {
            double mu = mus[im], ms = mu_star(th), x[3], sol[18];
            int32_t n_sol = 0;
            nscd_status st = nscd_mdp_single_contact(A, b, mu, x);
            if (st != NSCD_OK) {
                fprintf(stderr, "painleve_rod: %s\n", nscd_status_string(st));
                return 1;
            }
            nscd_status sc = nscd_coulomb_single_contact_all(A, b, mu, sol, 6, &n_sol);
            if (sc == NSCD_ERR_UNSUPPORTED) {
                n_sol = -1; /* a continuum of sliding solutions */
            } else if (sc != NSCD_OK) {
                fprintf(stderr, "painleve_rod: %s\n", nscd_status_string(sc));
                return 1;
            }
            bool impulsive = mu >= ms;
            double ref[3] = {0, 0, 0};
            if (impulsive) {
                memcpy(ref, lambda0, sizeof ref);
            }
            double err = hypot(hypot(x[0] - ref[0], x[1] - ref[1]), x[2] - ref[2]) /
                         hypot(lambda0[0], lambda0[1]);
            max_error = fmax(max_error, err);
            n_impulsive += impulsive;
            n_ambiguous_coulomb += (n_sol != 1);
            ++n_cases;
            if (json) {
                printf("%s{\"theta0\":", n_cases > 1 ? "," : "");
                json_number(stdout, th);
                printf(",\"mu\":");
                json_number(stdout, mu);
                printf(",\"mu_star\":");
                json_number(stdout, ms);
                printf(",\"impulsive\":%s,\"mdp\":", impulsive ? "true" : "false");
                json_array(stdout, x, 3);
                printf(",\"lambda0\":");
                json_array(stdout, lambda0, 3);
                printf(",\"error\":");
                json_number(stdout, err);
                printf(",\"n_coulomb\":%d}", n_sol);
            } else if (im % 3 == 0 && it % 4 == 0) {
                printf("%8.4f %6.2f %8.4f %5s (%8.5f, %8.5f, %8.5f) %12.3g %d\n", th, mu, ms,
                       impulsive ? "yes" : "no", x[0], x[1], x[2], err, n_sol);
            }
        }
    }
    if (json) {
        printf("],\"n_cases\":%d,\"n_impulsive\":%d,\"n_coulomb_non_unique\":%d,\"max_error\":",
               n_cases, n_impulsive, n_ambiguous_coulomb);
        json_number(stdout, max_error);
        printf(",\"delassus_closed_form_deviation\":");
        json_number(stdout, max_dev);
        printf("}\n");
    } else {
        printf("%d cases, %d impulsive; maximum-dissipation vs {Lambda_0 or 0}: max relative error "
               "%.3g\n",
               n_cases, n_impulsive, max_error);
        printf("Coulomb-like model non-unique in %d cases; A vs paper closed form: %.3g\n",
               n_ambiguous_coulomb, max_dev);
    }
    return 0;
}
