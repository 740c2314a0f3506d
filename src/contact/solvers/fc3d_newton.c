/* fc3d: semismooth Newton on the Alart–Curnier function (NSCD_FC3D_NEWTON),
 * its proximal-point outer loop (NSCD_FC3D_PROX, prox_phase below)
 * and the Gauss–Seidel/Newton switch (NSCD_FC3D_AUTO); docs/fc3d.md.
 *
 * For contact j with the impulse scale s_j = trace(W_jj)/3 (so that s_j r_j
 * is a velocity) and u = W r + q:
 *
 *   x_j   = s_j r_j - u_j                       (3 velocities)
 *   Phi_j = s_j r_j - P_j(x_j),  P_j(x) = (max(0, x_n), P_{D(mu_j max(0, x_n))}(x_t))
 *
 * with P_D(R) the projection onto the disc of radius R: Alart–Curnier's
 * function with rho_j = 1 / s_j, scaled to a velocity. Phi = 0 exactly when
 * r solves Coulomb's law. A generalized Jacobian is
 *
 *   J = S - D (S - W) = (I - D) S + D W,   D = blockdiag(dP_j/dx),
 *
 * and a step solves (J + lambda S) d = -Phi, lambda >= 0 a regularisation
 * (lambda = min(c, ||Phi|| / ||q||) with c in [1e-8, 1e-2], divided by 10
 * after a full step and multiplied by 10 after a damped one, like the
 * damping of Levenberg–Marquardt; raised by 100x when the factorisation
 * fails or no step length decreases the merit), then
 * backtracks on psi = ||Phi||^2 / 2 until the non-monotone Armijo condition
 * psi(r + t d) <= max(psi of the last 10 iterates) - 2 sigma t psi(r) holds.
 * The solve stops on the fc3d merit of fc3d.h, as Gauss–Seidel does. */

#include <math.h>
#include <string.h>

#include "contact/solvers/fc3d_newton.h"
#include "contact/single/friction_cone.h"
#include "core/dense.h"
#include "core/memory.h"
#include "core/struct_sizes.h"

#ifdef NSCD_HAVE_UMFPACK
#include <umfpack.h>
#endif

#define ARMIJO_SIGMA 1e-4
#define LINE_SEARCH_HALVINGS 40 /* smallest step 2^-40 */
#define LAMBDA_CAP 1e-2         /* largest factor c of lambda = min(c, ||Phi|| / ||q||) */
#define LAMBDA_CAP_MIN 1e-8     /* smallest c, reached by full steps */
#define LAMBDA_FLOOR 1e-10      /* first regularisation after a failure at lambda = 0 */
#define LAMBDA_GROWTH 100.0     /* regularisation increase after a failure */
#define LAMBDA_LIMIT 1e2        /* no larger regularisation is tried */
#define NONMONOTONE_MEMORY 10   /* the line search compares with the largest of the last 10 */
#define AUTO_NEWTON_STEPS 100   /* Newton steps per AUTO Newton phase (and max_iterations) */
#define AUTO_NEWTON_ATTEMPTS 4  /* Newton phases per AUTO solve: 1 Newton, then proximal */
#define AUTO_PROX_STEPS 300 /* Newton steps of an AUTO proximal phase (all: <= max_iterations) */
#define PROX_RHO0 1e-2      /* first proximal weight, relative to s_j */
#define PROX_RHO_MIN 1e-8   /* smallest proximal weight */
#define PROX_RHO_MAX 1e4    /* the proximal loop gives up above this weight */
#define PROX_RHO_STEP 10.0  /* factor of a change of the weight */
#define PROX_FAST 2.0       /* an outer step dividing the merit by this lowers the weight */
#define PROX_ETA 0.1        /* inner tolerance relative to the outer merit */
#define PROX_INNER_STEPS 50 /* Newton steps per outer step */

/* With UMFPACK, problems of more than this many contacts use the sparse LU;
 * smaller ones (and all without UMFPACK) the dense LU of core/dense.h (the
 * library's own kernel up to 64 unknowns, so bitwise portable, LAPACK above). */
#define SPARSE_FROM_CONTACTS 100

#ifdef NSCD_HAVE_UMFPACK
int nscd__fc3d_newton_size_ok(int32_t n) {
    (void)n;
    return 1;
}
#else
int nscd__fc3d_newton_size_ok(int32_t n) { return n <= NSCD_FC3D_NEWTON_DENSE_MAX_CONTACTS; }
#endif

nscd_status nscd__fc3d_newton_check(int32_t n, const nscd_fc3d_options *opts) {
    if (opts->method != NSCD_FC3D_NEWTON && opts->method != NSCD_FC3D_PROX) {
        return NSCD_OK;
    }
    if (opts->friction_law != NSCD_FC3D_COULOMB || !nscd__fc3d_newton_size_ok(n)) {
        return NSCD_ERR_UNSUPPORTED;
    }
    return NSCD_OK;
}

/* ---------------------------------------------------------------- the function */

/* u = W r + q, each row's blocks in stored order. */
static void product(const nscd__fc3d_matrix *W, const double *q, const double *r, double *u) {
    for (int32_t j = 0; j < W->n; ++j) {
        double v[3] = {q[3 * j], q[3 * j + 1], q[3 * j + 2]};
        for (int32_t b = W->row_ptr[j]; b < W->row_ptr[j + 1]; ++b) {
            const double *B = W->blocks + 9 * (size_t)b, *x = r + 3 * (size_t)W->col_idx[b];
            v[0] += B[0] * x[0] + B[1] * x[1] + B[2] * x[2];
            v[1] += B[3] * x[0] + B[4] * x[1] + B[5] * x[2];
            v[2] += B[6] * x[0] + B[7] * x[1] + B[8] * x[2];
        }
        u[3 * j] = v[0], u[3 * j + 1] = v[1], u[3 * j + 2] = v[2];
    }
}

/* Phi_j and D_j = dP_j/dx (row-major 3x3) of one contact. */
static void ac_contact(const double r[3], const double u[3], double mu, double s, double phi[3],
                       double D[9]) {
    double xn = s * r[0] - u[0], x1 = s * r[1] - u[1], x2 = s * r[2] - u[2];
    double a = xn > 0.0 ? xn : 0.0, R = mu * a, t = hypot(x1, x2);
    double p1 = 0.0, p2 = 0.0;
    memset(D, 0, 9 * sizeof *D);
    D[0] = xn > 0.0 ? 1.0 : 0.0;
    if (R > 0.0 && t <= R) { /* inside the disc: sticking */
        p1 = x1, p2 = x2;
        D[4] = D[8] = 1.0;
    } else if (R > 0.0) { /* on the circle: sliding */
        double f = R / t, c = x1 / t, e = x2 / t;
        p1 = f * x1, p2 = f * x2;
        D[3] = mu * c, D[6] = mu * e;
        D[4] = f * (1.0 - c * c), D[5] = -f * c * e;
        D[7] = -f * c * e, D[8] = f * (1.0 - e * e);
    } /* else R = 0: the tangential projection is 0 with derivative 0 */
    phi[0] = s * r[0] - a;
    phi[1] = s * r[1] - p1;
    phi[2] = s * r[2] - p2;
}

/* The proximal regularisation of a Newton solve (docs/fc3d.md "PROX"): with
 * rk != NULL the problem solved is (W + rho S, q - rho S rk), S = diag(s_j),
 * i.e. u = W r + q + rho S (r - rk); rk == NULL: the problem as given. */
typedef struct prox_shift {
    double rho;
    const double *rk;
} prox_shift;

/* u, Phi and D of r (u of the regularised problem when px->rk != NULL);
 * returns ||Phi||^2. */
static double ac_eval(const nscd__fc3d_matrix *W, const double *q, const double *mu,
                      const double *s, const prox_shift *px, const double *r, double *u,
                      double *phi, double *D) {
    product(W, q, r, u);
    if (px->rk != NULL) {
        for (int32_t j = 0; j < W->n; ++j) {
            double f = px->rho * s[j];
            for (size_t i = 3 * (size_t)j; i < 3 * (size_t)j + 3; ++i) {
                u[i] += f * (r[i] - px->rk[i]);
            }
        }
    }
    double p2 = 0.0;
    for (int32_t j = 0; j < W->n; ++j) {
        size_t o = 3 * (size_t)j;
        ac_contact(r + o, u + o, mu[j], s[j], phi + o, D + 9 * (size_t)j);
        p2 += phi[o] * phi[o] + phi[o + 1] * phi[o + 1] + phi[o + 2] * phi[o + 2];
    }
    return p2;
}

/* The fc3d merit numerator squared (fc3d.h, Coulomb) of r with u = W r + q. */
static double merit2(int32_t n, const double *mu, const double *s, const double *r,
                     const double *u) {
    double e2 = 0.0;
    for (int32_t j = 0; j < n; ++j) {
        e2 += nscd__coulomb_residual2(r + 3 * (size_t)j, u + 3 * (size_t)j, mu[j], s[j]);
    }
    return e2;
}

/* ---------------------------------------------------------------- workspace */

typedef struct newton_ws {
    size_t m;                    /* 3 n */
    double *s;                   /* n scales */
    double *r, *u, *phi, *D;     /* current iterate: m, m, m, 9 n */
    double *rt, *ut, *phit, *Dt; /* trial iterate */
    double *d;                   /* direction, m */
    double *A;                   /* dense Jacobian, m x m row-major */
    int32_t *piv;                /* m pivots */
    double *gs, *rb, *ub;        /* AUTO: Gauss–Seidel work, backup r and u */
    double *rk;                  /* PROX: the proximal centre, m */
    prox_shift px;               /* the regularisation of the current Newton solve */
    size_t bytes;                /* of the one allocation */
    void *block;
#ifdef NSCD_HAVE_UMFPACK
    int sparse; /* 1: the Jacobian goes to UMFPACK (A, piv unused) */
    int32_t nz; /* 9 per stored block: triplets of the Jacobian */
    int *Ti, *Tj, *Map, *Ap, *Ai;
    double *Tx, *Ax, *rhs;
    size_t sparse_bytes;
    void *sparse_block;
    void *symbolic;
    double control[UMFPACK_CONTROL];
#endif
} newton_ws;

static size_t align8(size_t b) { return (b + 7u) & ~(size_t)7u; }

/* with_gs: AUTO's arrays; with_lu: the dense Jacobian (Newton can run). */
static nscd_status ws_create(const nscd_allocator *al, int32_t n, int with_gs, int with_lu,
                             newton_ws *w) {
    memset(w, 0, sizeof *w);
    size_t m = 3 * (size_t)n, nd = (size_t)n, mm = with_lu ? m * m : 0;
    size_t doubles = nd + 2 * (3 * m + 9 * nd) + 2 * m + mm;
    if (with_gs) {
        doubles += NSCD__FC3D_RUN_WORK(nd) + 2 * m;
    }
    w->bytes = align8(doubles * sizeof(double)) + (with_lu ? m : 1) * sizeof(int32_t);
    w->block = nscd__alloc(al, w->bytes);
    if (w->block == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    double *p = w->block;
    w->m = m;
    w->s = p, p += nd;
    w->r = p, p += m;
    w->u = p, p += m;
    w->phi = p, p += m;
    w->D = p, p += 9 * nd;
    w->rt = p, p += m;
    w->ut = p, p += m;
    w->phit = p, p += m;
    w->Dt = p, p += 9 * nd;
    w->d = p, p += m;
    w->rk = p, p += m;
    w->A = p, p += mm;
    if (with_gs) {
        w->gs = p, p += NSCD__FC3D_RUN_WORK(nd);
        w->rb = p, p += m;
        w->ub = p, p += m;
    }
    w->piv = (int32_t *)((char *)w->block + align8(doubles * sizeof(double)));
    return NSCD_OK;
}

static void swap(double **a, double **b) {
    double *t = *a;
    *a = *b;
    *b = t;
}

/* ---------------------------------------------------------------- the step */

#ifdef NSCD_HAVE_UMFPACK
/* The triplets of the Jacobian (every entry of every stored block, in block
 * order), their compressed-column form and UMFPACK's symbolic analysis. */
static nscd_status sparse_create(const nscd_allocator *al, const nscd__fc3d_matrix *W,
                                 newton_ws *w) {
    size_t nz = 9 * (size_t)W->row_ptr[W->n], m = w->m;
    w->nz = (int32_t)nz;
    w->sparse_bytes = align8((2 * nz + m) * sizeof(double)) + (4 * nz + m + 1) * sizeof(int);
    w->sparse_block = nscd__alloc(al, w->sparse_bytes);
    if (w->sparse_block == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    w->Tx = w->sparse_block;
    w->Ax = w->Tx + nz;
    w->rhs = w->Ax + nz;
    w->Ti = (int *)((char *)w->sparse_block + align8((2 * nz + m) * sizeof(double)));
    w->Tj = w->Ti + nz;
    w->Map = w->Tj + nz;
    w->Ai = w->Map + nz;
    w->Ap = w->Ai + nz;
    size_t t = 0;
    for (int32_t j = 0; j < W->n; ++j) {
        for (int32_t b = W->row_ptr[j]; b < W->row_ptr[j + 1]; ++b) {
            for (int a = 0; a < 3; ++a) {
                for (int c = 0; c < 3; ++c, ++t) {
                    w->Ti[t] = 3 * j + a;
                    w->Tj[t] = 3 * W->col_idx[b] + c;
                    w->Tx[t] = 1.0;
                }
            }
        }
    }
    umfpack_di_defaults(w->control);
    int rc = umfpack_di_triplet_to_col((int)m, (int)m, (int)nz, w->Ti, w->Tj, w->Tx, w->Ap, w->Ai,
                                       w->Ax, w->Map);
    if (rc == UMFPACK_OK) {
        rc = umfpack_di_symbolic((int)m, (int)m, w->Ap, w->Ai, w->Ax, &w->symbolic, w->control,
                                 NULL);
    }
    if (rc != UMFPACK_OK) {
        nscd__free(al, w->sparse_block, w->sparse_bytes);
        w->sparse_block = NULL;
        return NSCD_ERR_OUT_OF_MEMORY; /* the pattern is valid: only memory can fail */
    }
    w->sparse = 1;
    return NSCD_OK;
}

static void sparse_destroy(const nscd_allocator *al, newton_ws *w) {
    if (w->symbolic != NULL) {
        umfpack_di_free_symbolic(&w->symbolic);
    }
    if (w->sparse_block != NULL) {
        nscd__free(al, w->sparse_block, w->sparse_bytes);
    }
}

/* d = -(J + lambda S)^-1 Phi by UMFPACK. */
static nscd_status sparse_direction(const nscd__fc3d_matrix *W, newton_ws *w, double lambda) {
    size_t t = 0;
    double rho = w->px.rk != NULL ? w->px.rho : 0.0;
    for (int32_t j = 0; j < W->n; ++j) {
        const double *Dj = w->D + 9 * (size_t)j;
        double sj = w->s[j];
        for (int32_t b = W->row_ptr[j]; b < W->row_ptr[j + 1]; ++b) {
            const double *B = W->blocks + 9 * (size_t)b;
            int diag = W->col_idx[b] == j;
            for (int a = 0; a < 3; ++a) {
                for (int c = 0; c < 3; ++c, ++t) {
                    double v =
                        Dj[3 * a] * B[c] + Dj[3 * a + 1] * B[3 + c] + Dj[3 * a + 2] * B[6 + c];
                    if (diag) {
                        v += ((a == c ? 1.0 + lambda : 0.0) - (1.0 - rho) * Dj[3 * a + c]) * sj;
                    }
                    w->Tx[t] = v;
                }
            }
        }
    }
    memset(w->Ax, 0, (size_t)w->nz * sizeof *w->Ax);
    for (int32_t k = 0; k < w->nz; ++k) {
        w->Ax[w->Map[k]] += w->Tx[k];
    }
    for (size_t i = 0; i < w->m; ++i) {
        w->rhs[i] = -w->phi[i];
    }
    void *numeric = NULL;
    int rc = umfpack_di_numeric(w->Ap, w->Ai, w->Ax, w->symbolic, &numeric, w->control, NULL);
    if (rc == UMFPACK_OK) {
        rc = umfpack_di_solve(UMFPACK_A, w->Ap, w->Ai, w->Ax, w->d, w->rhs, numeric, w->control,
                              NULL);
    }
    if (numeric != NULL) {
        umfpack_di_free_numeric(&numeric);
    }
    return rc == UMFPACK_OK ? NSCD_OK : NSCD_ERR_SINGULAR;
}
#endif

/* d = -(J + lambda S)^-1 Phi at the current iterate, by dense LU. With the
 * proximal shift, J = (I - D) S + D (W + rho S). */
static nscd_status direction(const nscd__fc3d_matrix *W, newton_ws *w, double lambda) {
#ifdef NSCD_HAVE_UMFPACK
    if (w->sparse) {
        return sparse_direction(W, w, lambda);
    }
#endif
    size_t m = w->m;
    double *A = w->A, rho = w->px.rk != NULL ? w->px.rho : 0.0;
    memset(A, 0, m * m * sizeof *A);
    for (int32_t j = 0; j < W->n; ++j) {
        const double *Dj = w->D + 9 * (size_t)j;
        for (int32_t b = W->row_ptr[j]; b < W->row_ptr[j + 1]; ++b) {
            const double *B = W->blocks + 9 * (size_t)b;
            size_t k = (size_t)W->col_idx[b];
            for (int a = 0; a < 3; ++a) {
                double *row = A + (3 * (size_t)j + (size_t)a) * m + 3 * k;
                for (int c = 0; c < 3; ++c) {
                    row[c] +=
                        Dj[3 * a] * B[c] + Dj[3 * a + 1] * B[3 + c] + Dj[3 * a + 2] * B[6 + c];
                }
            }
        }
        double sj = w->s[j];
        for (int a = 0; a < 3; ++a) {
            double *row = A + (3 * (size_t)j + (size_t)a) * m + 3 * (size_t)j;
            for (int c = 0; c < 3; ++c) {
                row[c] += ((a == c ? 1.0 : 0.0) - (1.0 - rho) * Dj[3 * a + c]) * sj;
            }
            row[a] += lambda * sj;
        }
    }
    for (size_t i = 0; i < m; ++i) {
        w->d[i] = -w->phi[i];
    }
    return nscd__lu_solve((int32_t)m, A, w->piv, 1, w->d);
}

static int all_finite(const double *x, size_t m) {
    for (size_t i = 0; i < m; ++i) {
        if (!isfinite(x[i])) {
            return 0;
        }
    }
    return 1;
}

typedef struct newton_result {
    int32_t steps, failure, evaluations, converged;
    double merit, last_update;
} newton_result;

/* The checks that open every step of both Newton loops, in this order: a
 * non-finite iterate fails, a merit at the tolerance converges, the step
 * budget ends it. True when the loop must stop (o says why). */
static bool stops(bool finite, double merit, double tol, int32_t max_steps, newton_result *o) {
    if (!finite) {
        o->failure = NSCD_FC3D_NEWTON_NOT_FINITE;
        return true;
    }
    if (merit <= tol) {
        o->converged = 1;
        return true;
    }
    if (o->steps >= max_steps) {
        o->failure = NSCD_FC3D_NEWTON_MAX_ITERATIONS;
        return true;
    }
    return false;
}

/* Newton from w->r (u, Phi, D need not be set) for at most max_steps steps;
 * leaves the last accepted iterate in w->r, w->u. */
static void newton_phase(const nscd__fc3d_matrix *W, const double *q, const double *mu, double tol,
                         double qscale, int32_t max_steps, newton_ws *w, newton_result *out) {
    int32_t n = W->n;
    size_t m = w->m;
    double psi2 = ac_eval(W, q, mu, w->s, &w->px, w->r, w->u, w->phi, w->D);
    double merit = sqrt(merit2(n, mu, w->s, w->r, w->u)) / qscale;
    newton_result o = {0, NSCD_FC3D_NEWTON_NO_FAILURE, 1, 0, merit, 0.0};
    double history[NONMONOTONE_MEMORY];
    double cap = LAMBDA_CAP; /* adapted: /10 after a full step, x10 after a damped one */
    for (;;) {
        if (stops(isfinite(psi2) && isfinite(merit), merit, tol, max_steps, &o)) {
            break;
        }
        history[o.steps % NONMONOTONE_MEMORY] = psi2;
        double ref = psi2;
        for (int32_t h = 0; h < NONMONOTONE_MEMORY && h <= o.steps; ++h) {
            ref = fmax(ref, history[h]);
        }
        double lambda = fmin(cap, sqrt(psi2) / qscale), psit = INFINITY, t = 1.0;
        int accepted = 0, factored = 0;
        for (;;) {
            if (direction(W, w, lambda) == NSCD_OK && all_finite(w->d, m)) {
                factored = 1;
                t = 1.0;
                for (int h = 0; h <= LINE_SEARCH_HALVINGS; ++h, t *= 0.5) {
                    for (size_t i = 0; i < m; ++i) {
                        w->rt[i] = w->r[i] + t * w->d[i];
                    }
                    psit = ac_eval(W, q, mu, w->s, &w->px, w->rt, w->ut, w->phit, w->Dt);
                    if (psit <= ref - 2.0 * ARMIJO_SIGMA * t * psi2) {
                        accepted = 1;
                        break;
                    }
                }
            }
            if (accepted || lambda >= LAMBDA_LIMIT) {
                break;
            }
            lambda = lambda < LAMBDA_FLOOR ? LAMBDA_FLOOR : lambda * LAMBDA_GROWTH;
        }
        if (!accepted) {
            o.failure = factored ? NSCD_FC3D_NEWTON_LINE_SEARCH : NSCD_FC3D_NEWTON_SINGULAR;
            break;
        }
        double step2 = 0.0;
        for (int32_t j = 0; j < n; ++j) {
            for (int i = 0; i < 3; ++i) {
                double e = w->s[j] * t * w->d[3 * (size_t)j + (size_t)i];
                step2 += e * e;
            }
        }
        o.last_update = sqrt(step2) / qscale;
        swap(&w->r, &w->rt), swap(&w->u, &w->ut), swap(&w->phi, &w->phit), swap(&w->D, &w->Dt);
        psi2 = psit;
        cap = t == 1.0 ? fmax(cap * 0.1, LAMBDA_CAP_MIN) : fmin(cap * 10.0, LAMBDA_CAP);
        merit = sqrt(merit2(n, mu, w->s, w->r, w->u)) / qscale;
        ++o.steps, ++o.evaluations;
    }
    o.merit = merit;
    *out = o;
}

/* ---------------------------------------------------------------- the proximal loop */

/* The fc3d merit of w->r for the problem as given; sets w->u = W r + q. */
static double plain_merit(const nscd__fc3d_matrix *W, const double *q, const double *mu,
                          double qscale, newton_ws *w) {
    product(W, q, w->r, w->u);
    return sqrt(merit2(W->n, mu, w->s, w->r, w->u)) / qscale;
}

/* The proximal-point method (NSCD_FC3D_PROX; docs/fc3d.md "PROX") from w->r
 * for at most max_steps Newton steps in all. Outer step k solves the problem
 * (W + rho S, q - rho S r_k) by Newton from r_k to the merit
 * max(tol, PROX_ETA merit_k) (a regularised merit; merit_k that of r_k for the
 * problem as given), then r_{k+1} is its solution. rho: PROX_RHO0 at the start,
 * divided by PROX_RHO_STEP when an outer step divides the merit by PROX_FAST
 * or more, multiplied by it when the inner solve fails (then r_{k+1} = r_k)
 * or the merit grew; the loop gives up above PROX_RHO_MAX. Stops on the merit
 * of the problem as given. Leaves the best iterate in w->r, w->u. */
static void prox_phase(const nscd__fc3d_matrix *W, const double *q, const double *mu, double tol,
                       double qscale, int32_t max_steps, newton_ws *w, newton_result *out) {
    size_t m = w->m;
    double merit = plain_merit(W, q, mu, qscale, w), rho = PROX_RHO0;
    newton_result o = {0, NSCD_FC3D_NEWTON_NO_FAILURE, 1, 0, merit, 0.0};
    for (;;) {
        if (stops(isfinite(merit), merit, tol, max_steps, &o)) {
            break;
        }
        if (rho > PROX_RHO_MAX) {
            o.failure = NSCD_FC3D_NEWTON_LINE_SEARCH;
            break;
        }
        memcpy(w->rk, w->r, m * sizeof *w->rk);
        w->px.rho = rho, w->px.rk = w->rk;
        int32_t left = max_steps - o.steps;
        newton_result in;
        newton_phase(W, q, mu, fmax(tol, PROX_ETA * merit), qscale,
                     left < PROX_INNER_STEPS ? left : PROX_INNER_STEPS, w, &in);
        w->px.rk = NULL;
        o.steps += in.steps, o.evaluations += in.evaluations + 1;
        double next = in.converged ? plain_merit(W, q, mu, qscale, w) : INFINITY;
        if (!(next < INFINITY)) { /* the inner solve failed: back to r_k, more regularisation */
            memcpy(w->r, w->rk, m * sizeof *w->r);
            product(W, q, w->r, w->u);
            rho *= PROX_RHO_STEP;
            continue;
        }
        o.last_update = in.last_update;
        if (next * PROX_FAST <= merit) {
            rho = fmax(rho / PROX_RHO_STEP, PROX_RHO_MIN);
        }
        merit = next;
    }
    o.merit = merit;
    *out = o;
}

/* ---------------------------------------------------------------- the solvers */

static double norm2(const double *x, size_t m) {
    double s = 0.0;
    for (size_t i = 0; i < m; ++i) {
        s += x[i] * x[i];
    }
    return sqrt(s);
}

/* NSCD_FC3D_AUTO on w->r: Gauss–Seidel windows, Newton when a window stalls. */
static nscd_status auto_run(const nscd__fc3d_matrix *W, const double *q, const double *mu,
                            const nscd_fc3d_options *opts, double qscale, newton_ws *w,
                            nscd_fc3d_info *full) {
    size_t m = w->m;
    nscd_fc3d_options o = *opts;
    o.method = NSCD_FC3D_GAUSS_SEIDEL;
    o.acceleration = NSCD_FC3D_ACCEL_NONE; /* AUTO: plain windows (docs/fc3d.md "Acceleration") */
    o.warm_start = 1;
    int newton_ok = opts->friction_law == NSCD_FC3D_COULOMB && nscd__fc3d_newton_size_ok(W->n);
    int32_t attempts = 0;
    double prev = INFINITY;
    while (full->iterations < opts->max_iterations) {
        int32_t left = opts->max_iterations - full->iterations;
        o.max_iterations = left < NSCD_FC3D_AUTO_WINDOW ? left : NSCD_FC3D_AUTO_WINDOW;
        nscd_fc3d_info gi = {.struct_size = sizeof gi};
        nscd_status st = nscd__fc3d_run_work(W, q, mu, NULL, &o, w->r, w->u, &gi, w->gs);
        full->iterations += gi.iterations;
        full->merit_evaluations += gi.merit_evaluations;
        full->local_failures += gi.local_failures;
        full->merit = gi.merit;
        full->last_update = gi.last_update;
        if (st == NSCD_OK) {
            full->converged = 1;
            return NSCD_OK;
        }
        if (st != NSCD_ERR_NOT_CONVERGED) {
            return st;
        }
        int stalled = gi.merit * NSCD_FC3D_AUTO_FACTOR > prev;
        prev = gi.merit;
        if (!stalled || attempts >= AUTO_NEWTON_ATTEMPTS ||
            full->newton_iterations >= opts->max_iterations ||
            full->iterations >= opts->max_iterations) {
            continue;
        }
        if (!newton_ok) {
            full->newton_failure = opts->friction_law == NSCD_FC3D_COULOMB
                                       ? NSCD_FC3D_NEWTON_TOO_LARGE
                                       : NSCD_FC3D_NEWTON_UNSUPPORTED_LAW;
            continue;
        }
        ++attempts;
        memcpy(w->rb, w->r, m * sizeof *w->rb);
        memcpy(w->ub, w->u, m * sizeof *w->ub);
        int32_t steps =
            opts->max_iterations < AUTO_NEWTON_STEPS ? opts->max_iterations : AUTO_NEWTON_STEPS;
        newton_result nr;
        if (attempts == 1) {
            newton_phase(W, q, mu, opts->tolerance, qscale, steps, w, &nr);
        } else { /* the first Newton phase did not converge: the proximal loop */
            int32_t budget = opts->max_iterations - full->newton_iterations;
            prox_phase(W, q, mu, opts->tolerance, qscale,
                       budget < AUTO_PROX_STEPS ? budget : AUTO_PROX_STEPS, w, &nr);
        }
        full->newton_iterations += nr.steps;
        full->merit_evaluations += nr.evaluations;
        full->newton_failure = nr.failure;
        if (nr.converged) {
            full->merit = nr.merit;
            full->last_update = nr.last_update;
            full->converged = 1;
            return NSCD_OK;
        }
        if (!(nr.merit < gi.merit)) { /* Newton did not help: back to where Gauss–Seidel was */
            memcpy(w->r, w->rb, m * sizeof *w->r);
            memcpy(w->u, w->ub, m * sizeof *w->u);
        } else {
            full->merit = nr.merit;
            prev = nr.merit;
        }
    }
    return NSCD_ERR_NOT_CONVERGED;
}

nscd_status nscd__fc3d_newton_run(const nscd__fc3d_matrix *W, const double *q, const double *mu,
                                  const nscd_fc3d_options *opts, double *r, double *u,
                                  nscd_fc3d_info *info) {
    int32_t n = W->n;
    nscd_allocator al = nscd__allocator_resolve(&opts->allocator);
    newton_ws w;
    int is_auto = opts->method == NSCD_FC3D_AUTO;
    int newton_ok = opts->friction_law == NSCD_FC3D_COULOMB && nscd__fc3d_newton_size_ok(n);
    int dense = newton_ok && n <= NSCD_FC3D_NEWTON_DENSE_MAX_CONTACTS;
#ifdef NSCD_HAVE_UMFPACK
    dense = dense && n <= SPARSE_FROM_CONTACTS;
#endif
    nscd_status st = ws_create(&al, n, is_auto, dense, &w);
    if (st != NSCD_OK) {
        return st;
    }
#ifdef NSCD_HAVE_UMFPACK
    if (newton_ok && !dense && (st = sparse_create(&al, W, &w)) != NSCD_OK) {
        nscd__free(&al, w.block, w.bytes);
        return st;
    }
#endif
    size_t m = w.m;
    for (int32_t j = 0; j < n; ++j) {
        const double *A = W->blocks + 9 * (size_t)W->diag[j];
        w.s[j] = (A[0] + A[4] + A[8]) / 3.0;
    }
    if (opts->warm_start) {
        memcpy(w.r, r, m * sizeof *w.r);
    } else {
        memset(w.r, 0, m * sizeof *w.r);
    }
    double qn = norm2(q, m), qscale = qn > 0.0 ? qn : 1.0;
    nscd_fc3d_info full = {.struct_size = sizeof full};
    if (is_auto) {
        st = auto_run(W, q, mu, opts, qscale, &w, &full);
    } else {
        newton_result nr;
        if (opts->method == NSCD_FC3D_PROX) {
            prox_phase(W, q, mu, opts->tolerance, qscale, opts->max_iterations, &w, &nr);
        } else {
            newton_phase(W, q, mu, opts->tolerance, qscale, opts->max_iterations, &w, &nr);
        }
        full.newton_iterations = nr.steps;
        full.newton_failure = nr.failure;
        full.merit = nr.merit;
        full.converged = nr.converged;
        full.merit_evaluations = nr.evaluations;
        full.last_update = nr.last_update;
        st = nr.converged ? NSCD_OK : NSCD_ERR_NOT_CONVERGED;
    }
    if (st == NSCD_OK || st == NSCD_ERR_NOT_CONVERGED) {
        memcpy(r, w.r, m * sizeof *r);
        memcpy(u, w.u, m * sizeof *u);
        if (info != NULL) {
            nscd__struct_write(info, &full, sizeof full, NSCD__FC3D_INFO_SIZE_0_1);
        }
    }
#ifdef NSCD_HAVE_UMFPACK
    sparse_destroy(&al, &w);
#endif
    nscd__free(&al, w.block, w.bytes);
    return st;
}
