/* The 3-dof chain of seed 003 (eq. 91) and its exact modal solution. */
#include "chain_model.h"

#include <math.h>
#include <string.h>

int chain_model_init(chain_model *c, char model) {
    if (model != 'a' && model != 'b') {
        return -1;
    }
    memset(c, 0, sizeof *c);
    c->model = model;
    for (int i = 0; i < 3; ++i) {
        c->mass[i] = 1.0;
        c->k[i + 1] = 1.0;
    }
    c->k[0] = model == 'a' ? 1e7 : 0.0;
    c->gravity = 9.81;
    const double *k = c->k;
    const double K[9] = {k[1] + k[2], -k[2], 0.0,   -k[2],      k[2] + k[3],
                         -k[3],       0.0,   -k[3], k[3] + k[0]};
    memcpy(c->K, K, sizeof K);
    return 0;
}

static nscd_status chain_mass(void *user, const double *q, double *m) {
    (void)q;
    const chain_model *c = user;
    memset(m, 0, 9 * sizeof *m);
    for (int i = 0; i < 3; ++i) {
        m[4 * i] = c->mass[i];
    }
    return NSCD_OK;
}

static nscd_status chain_forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)t, (void)v;
    const chain_model *c = user;
    for (int i = 0; i < 3; ++i) {
        h[i] = c->mass[i] * c->gravity;
        for (int j = 0; j < 3; ++j) {
            h[i] -= c->K[3 * i + j] * q[j];
        }
    }
    return NSCD_OK;
}

/* K = -dh/dq, constant. */
static nscd_status chain_stiffness(void *user, double t, const double *q, const double *v,
                                   double *K) {
    (void)t, (void)q, (void)v;
    memcpy(K, ((const chain_model *)user)->K, 9 * sizeof *K);
    return NSCD_OK;
}

/* Model (b): g_B = q3 = 0, a distance. */
static nscd_status chain_hold_mass3(void *user, int32_t index, double t, const double *q, double *g,
                                    double *w) {
    (void)user, (void)index, (void)t;
    *g = q[2];
    w[0] = 0.0;
    w[1] = 0.0;
    w[2] = 1.0;
    return NSCD_OK;
}

nscd_status chain_model_create(const chain_model *c, nscd_system **system) {
    nscd_system_desc desc;
    nscd_system_desc_init(&desc, sizeof desc);
    desc.n_dof = 3;
    desc.user = (void *)c; /* the callbacks only read it */
    desc.mass = chain_mass;
    desc.forces = chain_forces;
    desc.stiffness = chain_stiffness;
    if (c->model == 'b') {
        desc.n_equalities = 1;
        desc.equality = chain_hold_mass3;
    }
    return nscd_system_create(&desc, system);
}

/* ------------------------------------------------------------ exact solution */

/* Eigen-decomposition of a symmetric n x n matrix A (n <= 3, row-major,
 * destroyed) by cyclic Jacobi rotations: eigenvalues on the diagonal of A,
 * eigenvectors in the columns of V. Converges to rounding in a few sweeps. */
static void jacobi_eigen(int n, double *A, double *V) {
    for (int i = 0; i < n * n; ++i) {
        V[i] = (i % (n + 1)) == 0 ? 1.0 : 0.0;
    }
    for (int sweep = 0; sweep < 50; ++sweep) {
        double off = 0.0;
        for (int p = 0; p < n; ++p) {
            for (int r = p + 1; r < n; ++r) {
                off += A[n * p + r] * A[n * p + r];
            }
        }
        if (off == 0.0) {
            return;
        }
        for (int p = 0; p < n; ++p) {
            for (int r = p + 1; r < n; ++r) {
                double apr = A[n * p + r];
                if (apr == 0.0) {
                    continue;
                }
                /* the rotation that zeroes A[p][r] (Golub and Van Loan, 8.5.2) */
                double tau = (A[n * r + r] - A[n * p + p]) / (2.0 * apr);
                double t = (tau >= 0.0 ? 1.0 : -1.0) / (fabs(tau) + sqrt(1.0 + tau * tau));
                double cs = 1.0 / sqrt(1.0 + t * t), sn = t * cs;
                for (int k = 0; k < n; ++k) { /* A <- A J */
                    double akp = A[n * k + p], akr = A[n * k + r];
                    A[n * k + p] = cs * akp - sn * akr;
                    A[n * k + r] = sn * akp + cs * akr;
                }
                for (int k = 0; k < n; ++k) { /* A <- J' A */
                    double apk = A[n * p + k], ark = A[n * r + k];
                    A[n * p + k] = cs * apk - sn * ark;
                    A[n * r + k] = sn * apk + cs * ark;
                }
                for (int k = 0; k < n; ++k) { /* V <- V J */
                    double vkp = V[n * k + p], vkr = V[n * k + r];
                    V[n * k + p] = cs * vkp - sn * vkr;
                    V[n * k + r] = sn * vkp + cs * vkr;
                }
            }
        }
    }
}

/* Solves the n x n system A x = b (n <= 3) by Gaussian elimination with
 * partial pivoting; A and b are destroyed. */
static void solve_small(int n, double *A, double *b, double *x) {
    for (int col = 0; col < n; ++col) {
        int piv = col;
        for (int r = col + 1; r < n; ++r) {
            if (fabs(A[n * r + col]) > fabs(A[n * piv + col])) {
                piv = r;
            }
        }
        for (int k = 0; k < n; ++k) {
            double tmp = A[n * col + k];
            A[n * col + k] = A[n * piv + k];
            A[n * piv + k] = tmp;
        }
        double tmp = b[col];
        b[col] = b[piv];
        b[piv] = tmp;
        for (int r = col + 1; r < n; ++r) {
            double f = A[n * r + col] / A[n * col + col];
            for (int k = col; k < n; ++k) {
                A[n * r + k] -= f * A[n * col + k];
            }
            b[r] -= f * b[col];
        }
    }
    for (int r = n - 1; r >= 0; --r) {
        double s = b[r];
        for (int k = r + 1; k < n; ++k) {
            s -= A[n * r + k] * x[k];
        }
        x[r] = s / A[n * r + r];
    }
}

void chain_exact_init(const chain_model *c, chain_exact *e) {
    memset(e, 0, sizeof *e);
    e->c = c;
    int n = c->model == 'a' ? 3 : 2; /* model (b): q3 = 0, the first two dofs */
    e->n = n;
    double A[9], K[9], f[3];
    for (int i = 0; i < n; ++i) { /* M^-1/2 K M^-1/2 and the static solution K q = M gamma */
        f[i] = c->mass[i] * c->gravity;
        for (int j = 0; j < n; ++j) {
            K[n * i + j] = c->K[3 * i + j];
            A[n * i + j] = c->K[3 * i + j] / sqrt(c->mass[i] * c->mass[j]);
        }
    }
    solve_small(n, K, f, e->q_static);
    double V[9];
    jacobi_eigen(n, A, V);
    for (int j = 0; j < n; ++j) {
        e->omega[j] = sqrt(A[n * j + j]);
        double modal = 0.0; /* phi_j' M q_static with phi_j = M^-1/2 V_j */
        for (int i = 0; i < n; ++i) {
            e->shape[3 * i + j] = V[n * i + j] / sqrt(c->mass[i]);
            modal += V[n * i + j] * sqrt(c->mass[i]) * e->q_static[i];
        }
        e->modal[j] = modal;
    }
}

void chain_exact_state(const chain_exact *e, double t, double *q, double *v, double *a) {
    /* q = q_static - sum_j phi_j modal_j cos(omega_j t): at rest at q = 0 at t = 0 */
    double qq[3] = {0.0, 0.0, 0.0}, vv[3] = {0.0, 0.0, 0.0}, aa[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < e->n; ++i) {
        qq[i] = e->q_static[i];
        for (int j = 0; j < e->n; ++j) {
            double w = e->omega[j], amp = e->shape[3 * i + j] * e->modal[j];
            qq[i] -= amp * cos(w * t);
            vv[i] += amp * w * sin(w * t);
            aa[i] += amp * w * w * cos(w * t);
        }
    }
    for (int i = 0; i < 3; ++i) {
        if (q != NULL) {
            q[i] = qq[i];
        }
        if (v != NULL) {
            v[i] = vv[i];
        }
        if (a != NULL) {
            a[i] = aa[i];
        }
    }
}

double chain_exact_lambda(const chain_exact *e, double t) {
    double q[3];
    chain_exact_state(e, t, q, NULL, NULL);
    const chain_model *c = e->c;
    return -(c->mass[2] * c->gravity + c->k[3] * (q[1] - q[2]));
}
