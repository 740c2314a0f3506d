/* One solution of the impulsive Coulomb law of a single contact by a damped
 * nonsmooth Newton method on the Alart–Curnier function.
 *
 * With u = A x - b, xi_n = x_n - rho_n u_n, xi_t = x_to - rho_t u_to and the disc
 * radius R = mu max(0, xi_n):
 *   Phi_n  = x_n - max(0, xi_n),
 *   Phi_to = x_to - P_{B(R)}(xi_t),
 * and Phi(x) = 0 exactly at the Coulomb solutions. Newton uses an element of the
 * generalized Jacobian and an Armijo backtracking on 1/2 ||Phi||^2. Convergence is
 * judged by the De Saxcé natural-map residual documented in single_contact.h. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "contact/single/delassus3.h"
#include "contact/single/mdp_single.h"
#include "core/struct_sizes.h"
#include "nscd/single_contact.h"

/* The documented defaults, in a complete struct of the current size. */
static void option_defaults(nscd_coulomb_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->tolerance = 1e-12;
    opts->max_iterations = 50;
    opts->enumeration_safeguard = 1;
}

nscd_status nscd_coulomb_options_init(nscd_coulomb_options *opts, size_t struct_size) {
    nscd_coulomb_options defaults;
    option_defaults(&defaults);
    return nscd__struct_init(opts, struct_size, &defaults, sizeof defaults,
                             NSCD__COULOMB_OPTIONS_SIZE_0_1);
}

static void velocity(const double A[9], const double b[3], const double x[3], double u[3]) {
    for (int i = 0; i < 3; ++i) {
        u[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2] - b[i];
    }
}

/* Projection onto the friction cone K_mu. */
static void project_cone(double mu, const double z[3], double p[3]) {
    double zt = nscd__norm2(z[1], z[2]);
    if (zt <= mu * z[0]) {
        memcpy(p, z, 3 * sizeof *z);
    } else if (mu * zt <= -z[0]) {
        p[0] = p[1] = p[2] = 0.0;
    } else {
        double a = (z[0] + mu * zt) / (1.0 + mu * mu);
        p[0] = a;
        p[1] = mu * a * z[1] / zt;
        p[2] = mu * a * z[2] / zt;
    }
}

/* De Saxcé natural map ||x - P_K(x - rho (u + mu ||u_to|| e_n))||, rho = 1/A_nn. */
static double natural_residual(const double A[9], const double b[3], double mu, const double x[3]) {
    double u[3], z[3], p[3];
    velocity(A, b, x, u);
    double rho = 1.0 / A[0];
    double un_mod = u[0] + mu * nscd__norm2(u[1], u[2]);
    z[0] = x[0] - rho * un_mod;
    z[1] = x[1] - rho * u[1];
    z[2] = x[2] - rho * u[2];
    project_cone(mu, z, p);
    return nscd__norm3(x[0] - p[0], x[1] - p[1], x[2] - p[2]);
}

static double relative_residual(const double A[9], const double b[3], double mu, const double x[3],
                                double scale) {
    double sc = fmax(scale, nscd__norm3(x[0], x[1], x[2]));
    return sc > 0.0 ? natural_residual(A, b, mu, x) / sc : 0.0;
}

/* Replaces y by the closest solution listed by nscd_coulomb_single_contact_all(). */
static void nearest_enumerated_solution(const double A[9], const double b[3], double mu,
                                        double y[3]) {
    double sol[18], best = INFINITY, z[3] = {y[0], y[1], y[2]};
    int32_t n = 0;
    if (nscd_coulomb_single_contact_all(A, b, mu, sol, 6, &n) != NSCD_OK) {
        return;
    }
    for (int i = 0; i < n; ++i) {
        const double *s = sol + 3 * i;
        double d = nscd__norm3(s[0] - z[0], s[1] - z[1], s[2] - z[2]);
        if (d < best) {
            best = d;
            y[0] = s[0], y[1] = s[1], y[2] = s[2];
        }
    }
}

typedef struct ac_problem {
    const double *A, *b;
    double mu, rho_n, rho_t;
} ac_problem;

/* Alart–Curnier function, and (if J != NULL) a generalized Jacobian row-major. */
static void ac_function(const ac_problem *p, const double x[3], double phi[3], double *J) {
    const double *A = p->A;
    double u[3];
    velocity(A, p->b, x, u);
    double xin = x[0] - p->rho_n * u[0];
    double xit[2] = {x[1] - p->rho_t * u[1], x[2] - p->rho_t * u[2]};
    bool normal_active = xin > 0.0;
    double R = p->mu * (normal_active ? xin : 0.0);
    double nt = nscd__norm2(xit[0], xit[1]);
    bool inside = nt <= R;
    double proj[2];
    if (inside) {
        proj[0] = xit[0], proj[1] = xit[1];
    } else {
        proj[0] = R * xit[0] / nt, proj[1] = R * xit[1] / nt;
    }
    phi[0] = normal_active ? p->rho_n * u[0] : x[0];
    phi[1] = x[1] - proj[0];
    phi[2] = x[2] - proj[1];
    if (J == NULL) {
        return;
    }
    /* d xi_n / dx and d xi_t / dx */
    double dxin[3], dxit[2][3];
    for (int j = 0; j < 3; ++j) {
        dxin[j] = (j == 0) - p->rho_n * A[j];
        dxit[0][j] = (j == 1) - p->rho_t * A[3 + j];
        dxit[1][j] = (j == 2) - p->rho_t * A[6 + j];
        J[j] = normal_active ? p->rho_n * A[j] : (double)(j == 0);
    }
    /* d P / d xi_t (2x2) and d P / d R (2) */
    double dP[2][2], dPdR[2] = {0.0, 0.0};
    if (inside) {
        dP[0][0] = dP[1][1] = 1.0;
        dP[0][1] = dP[1][0] = 0.0;
    } else {
        double e0 = xit[0] / nt, e1 = xit[1] / nt, f = R / nt;
        dP[0][0] = f * (1.0 - e0 * e0);
        dP[1][1] = f * (1.0 - e1 * e1);
        dP[0][1] = dP[1][0] = -f * e0 * e1;
        dPdR[0] = e0, dPdR[1] = e1;
    }
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 3; ++j) {
            double dR = normal_active ? p->mu * dxin[j] : 0.0;
            double d = dP[i][0] * dxit[0][j] + dP[i][1] * dxit[1][j] + dPdR[i] * dR;
            J[3 * (i + 1) + j] = (double)(j == i + 1) - d;
        }
    }
}

/* Solves the 3x3 system J d = r by Gaussian elimination with partial pivoting. */
static bool solve3(double J[9], double r[3]) {
    for (int k = 0; k < 3; ++k) {
        int piv = k;
        for (int i = k + 1; i < 3; ++i) {
            if (fabs(J[3 * i + k]) > fabs(J[3 * piv + k])) {
                piv = i;
            }
        }
        if (J[3 * piv + k] == 0.0) {
            return false;
        }
        if (piv != k) {
            for (int j = 0; j < 3; ++j) {
                double t = J[3 * k + j];
                J[3 * k + j] = J[3 * piv + j];
                J[3 * piv + j] = t;
            }
            double t = r[k];
            r[k] = r[piv];
            r[piv] = t;
        }
        for (int i = k + 1; i < 3; ++i) {
            double f = J[3 * i + k] / J[3 * k + k];
            for (int j = k; j < 3; ++j) {
                J[3 * i + j] -= f * J[3 * k + j];
            }
            r[i] -= f * r[k];
        }
    }
    for (int k = 2; k >= 0; --k) {
        double s = r[k];
        for (int j = k + 1; j < 3; ++j) {
            s -= J[3 * k + j] * r[j];
        }
        r[k] = s / J[3 * k + k];
    }
    return isfinite(r[0]) && isfinite(r[1]) && isfinite(r[2]);
}

static double norm2_sq(const double v[3]) { return v[0] * v[0] + v[1] * v[1] + v[2] * v[2]; }

/* One damped Newton step; false when no descent was possible. */
static bool newton_step(const ac_problem *p, double x[3]) {
    double phi[3], J[9], d[3];
    ac_function(p, x, phi, J);
    d[0] = -phi[0], d[1] = -phi[1], d[2] = -phi[2];
    if (!solve3(J, d)) {
        return false;
    }
    double psi = 0.5 * norm2_sq(phi), t = 1.0;
    for (int k = 0; k < 40; ++k, t *= 0.5) {
        double xt[3] = {x[0] + t * d[0], x[1] + t * d[1], x[2] + t * d[2]}, pt[3];
        ac_function(p, xt, pt, NULL);
        if (0.5 * norm2_sq(pt) <= (1.0 - 1e-4 * t) * psi) {
            memcpy(x, xt, sizeof xt);
            return true;
        }
    }
    return false;
}

/* Newton iterations after which a non-converged run counts as stalled. */
enum { stall_iterations = 10 };

static nscd_status read_options(const nscd_coulomb_options *opts, double *tol, int32_t *max_it,
                                bool *safeguard) {
    nscd_coulomb_options given;
    option_defaults(&given);
    /* an older, shorter struct: defaults for the rest */
    if (opts != NULL &&
        nscd__struct_read(&given, sizeof given, opts, NSCD__COULOMB_OPTIONS_SIZE_0_1) != NSCD_OK) {
        return NSCD_ERR_STRUCT_SIZE;
    }
    opts = &given;
    if (!isfinite(opts->tolerance)) {
        return NSCD_ERR_NOT_FINITE;
    }
    if (opts->tolerance < 0.0 || opts->max_iterations < 0) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    *tol = opts->tolerance;
    *max_it = opts->max_iterations;
    *safeguard = opts->enumeration_safeguard != 0;
    return NSCD_OK;
}

nscd_status nscd_coulomb_single_contact(const double A[9], const double b[3], double mu,
                                        const nscd_coulomb_options *opts, double x[3],
                                        nscd_coulomb_info *info) {
    nscd_status st = nscd__single_contact_args(A, b, mu, x);
    if (st != NSCD_OK) {
        return st;
    }
    double tol;
    int32_t max_it;
    bool safeguard;
    st = read_options(opts, &tol, &max_it, &safeguard);
    if (st != NSCD_OK) {
        return st;
    }
    double S[9], L[9], y[3] = {0.0, 0.0, 0.0};
    st = nscd__delassus3_factor(A, S, L);
    if (st != NSCD_OK) {
        return st;
    }
    if (b[0] > 0.0) {
        /* colliding: start from the maximum-dissipation impulse, which is the
         * sticking solution whenever there is one (x = 0 otherwise solves it) */
        nscd__mdp_solve_factored(S, L, b, mu, y);
    }
    /* the residual's scale: max(||x||, ||b|| / A_nn), which does not grow with the
     * unconstrained solution A^-1 b (that one may exceed every solution by cond(A)) */
    double scale = fmin(nscd__norm3(b[0], b[1], b[2]) / S[0], DBL_MAX);
    ac_problem p = {S, b, mu, 1.0 / S[0], 2.0 / (S[4] + S[8])};
    int32_t it = 0;
    double res = relative_residual(S, b, mu, y, scale);
    while (res > tol && it < max_it) {
        ++it;
        bool progressed = newton_step(&p, y);
        res = relative_residual(S, b, mu, y, scale);
        if (res > tol && safeguard && (!progressed || it >= stall_iterations)) {
            /* the damped Newton method stalled or cycles (rare, about 1e-3 of random
             * sliding problems): take the enumerated Coulomb solution nearest to it */
            nearest_enumerated_solution(A, b, mu, y);
            res = relative_residual(S, b, mu, y, scale);
            break;
        }
    }
    if (res <= tol && res > 1e-14 && safeguard && b[0] > 0.0 &&
        mu * nscd__norm2(S[1], S[2]) > 0.9 * S[0]) {
        /* a degenerate conic (a hyperbola, or within 10 % of the parabola): the residual is
         * flat along it, and a point far from every solution may pass a loose tolerance;
         * the nearest enumerated solution (exact to rounding) replaces the iterate when
         * its residual is not larger (not needed at a residual of rounding level) */
        double z[3] = {y[0], y[1], y[2]};
        nearest_enumerated_solution(A, b, mu, z);
        double rz = relative_residual(S, b, mu, z, scale);
        if (rz <= res) {
            memcpy(y, z, sizeof z);
            res = rz;
        }
    }
    bool converged = res <= tol;
    if (info != NULL) {
        info->iterations = it;
        info->converged = converged ? 1 : 0;
        info->residual = res;
    }
    if (!converged) {
        return NSCD_ERR_NOT_CONVERGED;
    }
    memcpy(x, y, sizeof y);
    return NSCD_OK;
}
