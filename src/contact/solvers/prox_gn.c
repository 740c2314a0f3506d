/* Nonsmooth Gauss–Newton on the prox formulation of a local contact
 * problem (see prox_gn.h; seed 003, eqs. 42–45 and 51–54). */
#include "contact/solvers/prox_gn.h"

#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "core/check.h"
#include "core/dense_small.h"

_Static_assert(sizeof(lapack_int) == sizeof(int32_t), "LAPACKE with 32-bit integers");

/* Singular values of J below this fraction of the largest count as zero:
 * J's rows are r W rows (r ~ 1 / W_aa, so entries ~1) or unit rows, and
 * the rank deficiency of redundant contacts shows as values ~1e-16. */
#define RCOND 1e-10
/* Halvings of the line search before it gives up on the Gauss–Newton
 * direction. */
#define MAX_HALVINGS 30

/* The iteration's arrays (arena). J is column-major for LAPACK. */
typedef struct prox_work {
    double *u, *f, *J, *d, *P_try, *f_try, *singular, *work;
    int32_t *iwork;
    int32_t lwork;
} prox_work;

static nscd_status check_problem(const nscd__prox_problem *p) {
    if (p->m < 0 || p->m > NSCD__PROX_MAX_ROWS || p->max_iterations < 1 || !(p->tolerance > 0.0)) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    size_t m = (size_t)p->m;
    if (!nscd__all_finite(p->W, m * m) || !nscd__all_finite(p->c, m) ||
        !nscd__all_finite(p->r, m)) {
        return NSCD_ERR_NOT_FINITE;
    }
    for (int32_t a = 0; a < p->m; ++a) {
        if (!(p->r[a] > 0.0) || p->kind[a] < NSCD__PROX_NORMAL ||
            p->kind[a] > NSCD__PROX_EQUALITY) {
            return NSCD_ERR_INVALID_ARGUMENT;
        }
        if (p->kind[a] != NSCD__PROX_NORMAL) {
            continue;
        }
        int32_t k = p->n_tan[a];
        if (k < 0 || k > 2 || a + k >= p->m || !(p->mu[a] >= 0.0) || !isfinite(p->mu[a])) {
            return NSCD_ERR_INVALID_ARGUMENT;
        }
        for (int32_t j = 1; j <= k; ++j) {
            if (p->kind[a + j] != NSCD__PROX_TANGENT) {
                return NSCD_ERR_INVALID_ARGUMENT;
            }
        }
    }
    for (int32_t a = 0; a < p->m; ++a) { /* every tangent row belongs to a normal */
        int owned = 0;
        for (int32_t b = a - 1; p->kind[a] == NSCD__PROX_TANGENT && b >= 0 && b >= a - 2; --b) {
            owned |= p->kind[b] == NSCD__PROX_NORMAL && p->n_tan[b] >= a - b;
        }
        if (p->kind[a] == NSCD__PROX_TANGENT && !owned) {
            return NSCD_ERR_INVALID_ARGUMENT;
        }
    }
    return NSCD_OK;
}

static nscd_status allocate_work(const nscd__prox_problem *p, nscd__arena *arena, prox_work *w) {
    size_t m = (size_t)p->m;
    w->u = nscd__arena_array(arena, m, sizeof(double));
    w->f = nscd__arena_array(arena, m, sizeof(double));
    w->J = nscd__arena_array(arena, m * m, sizeof(double));
    w->d = nscd__arena_array(arena, m, sizeof(double));
    w->P_try = nscd__arena_array(arena, m, sizeof(double));
    w->f_try = nscd__arena_array(arena, m, sizeof(double));
    w->singular = nscd__arena_array(arena, m, sizeof(double));
    if (!w->u || !w->f || !w->J || !w->d || !w->P_try || !w->f_try || !w->singular) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    if (p->m <= NSCD__DENSE_SMALL) { /* the own SVD (core/dense_small.h) */
        w->lwork = (int32_t)NSCD__SMALL_LSTSQ_SCRATCH(p->m);
        w->work = nscd__arena_array(arena, (size_t)w->lwork, sizeof(double));
        w->iwork = NULL;
        return w->work ? NSCD_OK : NSCD_ERR_OUT_OF_MEMORY;
    }
    double query = 0.0;
    lapack_int iquery = 0, rank = 0, n = p->m;
    lapack_int info = LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, n, n, 1, w->J, n, w->d, n, w->singular,
                                          RCOND, &rank, &query, -1, &iquery);
    /* LAPACK's sizes are O(m^2) for m <= NSCD__PROX_MAX_ROWS: checked anyway */
    if (info != 0 || !(query >= 1.0) || query > 1e9 || iquery < 1) {
        return NSCD_ERR_SINGULAR;
    }
    w->lwork = (int32_t)query + 1;
    w->work = nscd__arena_array(arena, (size_t)w->lwork, sizeof(double));
    w->iwork = nscd__arena_array(arena, (size_t)iquery + 1, sizeof(int32_t));
    return w->work && w->iwork ? NSCD_OK : NSCD_ERR_OUT_OF_MEMORY;
}

/* J(a, :) = scale W(a, :) (column-major J). */
static void jacobian_row_of_W(const nscd__prox_problem *p, int32_t a, double scale, double *J) {
    int32_t m = p->m;
    for (int32_t b = 0; b < m; ++b) {
        J[a + (size_t)m * b] = scale * p->W[(size_t)a * m + b];
    }
}

/* Normal row a (eqs. 44, 53): z = P_a - r u_a; z >= 0: f = r u_a, else f = P_a. */
static void normal_row(const nscd__prox_problem *p, int32_t a, const double *P, const double *u,
                       double *f, double *J) {
    double r = p->r[a];
    if (P[a] - r * u[a] >= 0.0) {
        f[a] = r * u[a];
        if (J != NULL) {
            jacobian_row_of_W(p, a, r, J);
        }
    } else {
        f[a] = P[a];
        if (J != NULL) {
            J[a + (size_t)p->m * a] = 1.0;
        }
    }
}

/* Sliding rows of a contact: f_T = P_T - rho z / |z| and its exact derivative
 * E_T - (rho/|z|)(I - ẑẑ')(E_T - r W_T) - mu [P_N > 0] ẑ e_N'. The paper's
 * eqs. (45), (54) keep E_T alone (Θ_T = 0). */
static void sliding_rows(const nscd__prox_problem *p, int32_t a, const double *P, const double *z,
                         double nz, double *f, double *J) {
    int32_t k = p->n_tan[a], m = p->m;
    double r = p->r[a], mu = p->mu[a], rho = mu * fmax(P[a], 0.0), zh[2] = {0.0, 0.0};
    for (int32_t j = 0; j < k; ++j) {
        zh[j] = z[j] / nz;
        f[a + 1 + j] = P[a + 1 + j] - rho * zh[j];
    }
    for (int32_t j = 0; J != NULL && j < k; ++j) {
        int32_t row = a + 1 + j;
        for (int32_t b = 0; b < m; ++b) {
            double dz_proj = 0.0; /* ((I - ẑẑ') dz/dP)(j, b), dz/dP = E_T - r W_T */
            for (int32_t i = 0; i < k; ++i) {
                double dz = (b == a + 1 + i ? 1.0 : 0.0) - r * p->W[(size_t)(a + 1 + i) * m + b];
                dz_proj += ((i == j ? 1.0 : 0.0) - zh[j] * zh[i]) * dz;
            }
            double value = (b == row ? 1.0 : 0.0) - rho / nz * dz_proj;
            if (b == a && P[a] > 0.0) {
                value -= mu * zh[j];
            }
            J[row + (size_t)m * b] = value;
        }
    }
}

/* Tangent rows of the contact whose normal row is a (eqs. 45, 54):
 * z = P_T - r u_T; |z| <= mu P_N+ (sticking): f_T = r u_T; else sliding. */
static void tangent_rows(const nscd__prox_problem *p, int32_t a, const double *P, const double *u,
                         double *f, double *J) {
    int32_t k = p->n_tan[a];
    double r = p->r[a], z[2] = {0.0, 0.0}, nz = 0.0;
    for (int32_t j = 0; j < k; ++j) {
        z[j] = P[a + 1 + j] - r * u[a + 1 + j];
        nz += z[j] * z[j];
    }
    nz = sqrt(nz);
    if (nz > p->mu[a] * fmax(P[a], 0.0)) {
        sliding_rows(p, a, P, z, nz, f, J);
        return;
    }
    for (int32_t j = 0; j < k; ++j) {
        f[a + 1 + j] = r * u[a + 1 + j];
        if (J != NULL) {
            jacobian_row_of_W(p, a + 1 + j, r, J);
        }
    }
}

/* f(P) and, when J != NULL, its generalized Jacobian; returns the
 * residual max_a |f_a| / r_a (see prox_gn.h). */
static double evaluate(const nscd__prox_problem *p, const double *P, double *u, double *f,
                       double *J) {
    int32_t m = p->m;
    for (int32_t a = 0; a < m; ++a) {
        double s = p->c[a];
        for (int32_t b = 0; b < m; ++b) {
            s += p->W[(size_t)a * m + b] * P[b];
        }
        u[a] = s;
    }
    if (J != NULL) {
        memset(J, 0, (size_t)m * (size_t)m * sizeof(double));
    }
    for (int32_t a = 0; a < m; ++a) {
        if (p->kind[a] == NSCD__PROX_EQUALITY) {
            f[a] = p->r[a] * u[a];
            if (J != NULL) {
                jacobian_row_of_W(p, a, p->r[a], J);
            }
        } else if (p->kind[a] == NSCD__PROX_NORMAL) {
            normal_row(p, a, P, u, f, J);
            tangent_rows(p, a, P, u, f, J);
        }
    }
    double worst = 0.0;
    for (int32_t a = 0; a < m; ++a) {
        worst = fmax(worst, fabs(f[a]) / p->r[a]);
    }
    return worst;
}

static double norm2(const double *x, int32_t m) {
    double s = 0.0;
    for (int32_t a = 0; a < m; ++a) {
        s += x[a] * x[a];
    }
    return sqrt(s);
}

/* d = -pinv(J) f: the minimum-norm least-squares solution of J d = -f (eq. 43).
 * J is destroyed. */
static nscd_status gauss_newton_direction(const nscd__prox_problem *p, prox_work *w) {
    lapack_int n = p->m, rank = 0;
    for (int32_t a = 0; a < p->m; ++a) {
        w->d[a] = -w->f[a];
    }
    if (p->m <= NSCD__DENSE_SMALL) {
        int32_t own_rank = 0;
        nscd_status rc = nscd__small_lstsq_cm(p->m, w->J, w->d, RCOND, &own_rank, w->work);
        return rc == NSCD_OK && nscd__all_finite(w->d, (size_t)p->m) ? NSCD_OK : NSCD_ERR_SINGULAR;
    }
    lapack_int info = LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, n, n, 1, w->J, n, w->d, n, w->singular,
                                          RCOND, &rank, w->work, w->lwork, (lapack_int *)w->iwork);
    return info == 0 && nscd__all_finite(w->d, (size_t)p->m) ? NSCD_OK : NSCD_ERR_SINGULAR;
}

/* P += t d with the largest t = 2^-j that decreases |f|_2 (Armijo, 1e-4);
 * returns 0 (P unchanged) when none does. */
static int line_search(const nscd__prox_problem *p, prox_work *w, double *P) {
    int32_t m = p->m;
    double f0 = norm2(w->f, m), t = 1.0;
    for (int32_t j = 0; j <= MAX_HALVINGS; ++j, t *= 0.5) {
        for (int32_t a = 0; a < m; ++a) {
            w->P_try[a] = P[a] + t * w->d[a];
        }
        evaluate(p, w->P_try, w->u, w->f_try, NULL);
        if (norm2(w->f_try, m) <= (1.0 - 1e-4 * t) * f0) {
            memcpy(P, w->P_try, (size_t)m * sizeof(double));
            return 1;
        }
    }
    return 0;
}

/* The Gauss–Newton step failed to decrease |f|: P sits at the
 * least-squares minimum of a smooth piece of f that holds no root. With
 * friction on redundant rows this is common (a box sliding flat on four
 * corners over three dofs: the all-closed piece is inconsistent by ~1e-6
 * m/s, the root has the inner corners open). The contacts that carry
 * P_N > 0 while separating (u_N > 0) in the closed branch are opened: their
 * rows take the branch f = P (J row e_a, tangents too) and the Gauss–Newton
 * step of that piece is taken in full, an active-set move. Without such a
 * contact, one step of the prox fixed point P <- prox(P - r u) = P - f
 * (eqs. 39-40). */
static nscd_status escape_step(const nscd__prox_problem *p, prox_work *w, double *P) {
    int32_t m = p->m, opened = 0;
    evaluate(p, P, w->u, w->f, w->J);
    for (int32_t a = 0; a < m; ++a) {
        int open = p->kind[a] == NSCD__PROX_NORMAL && P[a] > 0.0 && w->u[a] > 0.0 &&
                   P[a] - p->r[a] * w->u[a] >= 0.0;
        for (int32_t j = 0; open && j <= p->n_tan[a]; ++j) {
            for (int32_t b = 0; b < m; ++b) {
                w->J[(a + j) + (size_t)m * b] = b == a + j ? 1.0 : 0.0;
            }
            w->f[a + j] = P[a + j];
        }
        opened += open;
    }
    if (opened == 0) {
        for (int32_t a = 0; a < m; ++a) {
            P[a] -= w->f[a];
        }
        return NSCD_OK;
    }
    nscd_status rc = gauss_newton_direction(p, w);
    for (int32_t a = 0; rc == NSCD_OK && a < m; ++a) {
        P[a] += w->d[a];
    }
    return rc;
}

/* P_N onto R+, P_T onto the disk |P_T| <= mu P_N: a converged P may hold
 * P_N = -1e-17 (f = P_N is within the tolerance), which the caller must
 * never see. */
static void project(const nscd__prox_problem *p, double *P) {
    for (int32_t a = 0; a < p->m; ++a) {
        if (p->kind[a] != NSCD__PROX_NORMAL) {
            continue;
        }
        P[a] = fmax(P[a], 0.0);
        double norm = 0.0, radius = p->mu[a] * P[a];
        for (int32_t j = 1; j <= p->n_tan[a]; ++j) {
            norm += P[a + j] * P[a + j];
        }
        norm = sqrt(norm);
        for (int32_t j = 1; norm > radius && j <= p->n_tan[a]; ++j) {
            P[a + j] *= radius / norm;
        }
    }
}

nscd_status nscd__prox_gauss_newton(const nscd__prox_problem *p, nscd__arena *arena, double *P,
                                    nscd__prox_info *info) {
    memset(info, 0, sizeof *info);
    nscd_status rc = check_problem(p);
    if (rc != NSCD_OK) {
        return rc;
    }
    if (!nscd__all_finite(P, (size_t)p->m)) {
        return NSCD_ERR_NOT_FINITE;
    }
    if (p->m == 0) {
        info->converged = 1;
        return NSCD_OK;
    }
    prox_work w;
    rc = allocate_work(p, arena, &w);
    if (rc != NSCD_OK) {
        return rc;
    }
    double residual = evaluate(p, P, w.u, w.f, NULL);
    /* at least one step: a warm start within the tolerance is polished to
     * the root of its piece (exact when that piece is linear, as for
     * resting contacts), so that errors of 1e-11 do not pile up over steps */
    while ((residual > p->tolerance || info->iterations == 0) &&
           info->iterations < p->max_iterations) {
        evaluate(p, P, w.u, w.f, w.J);
        rc = gauss_newton_direction(p, &w);
        if (rc == NSCD_OK && !line_search(p, &w, P)) {
            rc = escape_step(p, &w, P);
        }
        if (rc != NSCD_OK) {
            info->residual = residual;
            return rc;
        }
        residual = evaluate(p, P, w.u, w.f, NULL);
        info->iterations++;
    }
    info->converged = residual <= p->tolerance;
    if (info->converged) { /* within the tolerance; now exactly admissible */
        project(p, P);
        residual = evaluate(p, P, w.u, w.f, NULL);
    }
    info->residual = residual;
    return info->converged ? NSCD_OK : NSCD_ERR_NOT_CONVERGED;
}
