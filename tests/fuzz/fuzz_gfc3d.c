/* Fuzz target: nscd_gfc3d_solve() (include/nscd/gfc3d.h), 1..4 rigid bodies
 * (6 dofs each) and 1..6 contacts, each between a body and the ground or two
 * bodies, M block diagonal or coupled between neighbouring bodies, both ways
 * of condensation and both friction laws.
 *
 * Input (fuzz_common.h encoding):
 *   u8   bodies - 1 (mod 4); u8 contacts - 1 (mod 6)
 *   u8   flags: bit 0 coupled M, bits 1-2 condensation (0 auto, 1 sparse,
 *        2 dense, 3 auto), bit 3 maximum dissipation, bit 4 checking
 *        allocator, bit 5 warm start, bit 6 the own LDL' forced
 *   u8   allocator: fail after (mod 16) blocks, 255 never
 *   u16  tolerance 10^[-10, -6]; u16 max_iterations 1 + (mod 300)
 *   per body u16 mass 10^[-1, 1], 3 x u16 inertia 10^[-1, 1];
 *        coupled: u16 coupling in [-0.3, 0.3] (relative to the diagonals)
 *   per contact u8 body a, u8 body b (b == a: the ground); 18 (or 36) x u16 H
 *   n x u16 f in [-1, 1]; 3nc x u16 w in [-1, 1]; nc x u16 mu in [0, 1.5];
 *   3nc x u16 r0 in [-1, 1]
 *   corruption selector over 9 parameters: a diagonal of M, an entry of H,
 *        of f, of w, a mu, a NULL pointer, a row index of H out of range,
 *        n_contacts = 0, the info's struct_size.
 *
 * Checks: the documented status of each corruption; v, r, u, info unchanged
 * on every error but NOT_CONVERGED; the checking allocator sees matching
 * sizes, no leak, and OUT_OF_MEMORY only when it failed; on OK: finite
 * results, M v = H r + f and u = H'v + w recomputed here, and the fc3d merit
 * recomputed here from W = H' M^-1 H formed densely by a Cholesky factor
 * written here below the tolerance (up to the round-off of W r). */
#include "fuzz_common.h"

enum { NBODY = 4, NDOF = 6 * NBODY, NCON = 6, NROW = 3 * NCON };

typedef struct problem {
    int32_t n, nc;
    double M[NDOF * NDOF], H[NDOF * NROW], f[NDOF], w[NROW], mu[NCON], r0[NROW];
    int32_t Mp[NDOF + 1], Mi[NDOF * NDOF], Hp[NROW + 1], Hi[NDOF * NROW];
    double Mx[NDOF * NDOF], Hx[NDOF * NROW];
    nscd_gfc3d_options go;
    nscd_fc3d_options lo;
    int heap_on;
    fz_heap heap;
} problem;

static void to_csc(int32_t rows, int32_t cols, const double *A, int32_t *cp, int32_t *ri,
                   double *x) {
    int32_t k = 0;
    cp[0] = 0;
    for (int32_t c = 0; c < cols; ++c) {
        for (int32_t i = 0; i < rows; ++i) {
            if (A[i * cols + c] != 0.0) {
                ri[k] = i;
                x[k++] = A[i * cols + c];
            }
        }
        cp[c + 1] = k;
    }
}

static void decode(fz_reader *r, problem *p, int *flags) {
    memset(p, 0, sizeof *p);
    int nb = 1 + fz_u8(r) % NBODY;
    p->nc = 1 + fz_u8(r) % NCON;
    p->n = 6 * nb;
    *flags = fz_u8(r);
    int fail = fz_u8(r);
    nscd_gfc3d_options_init(&p->go, sizeof p->go);
    nscd_fc3d_options_init(&p->lo, sizeof p->lo);
    p->lo.tolerance = fz_decade(r, -10, -6);
    p->lo.max_iterations = 1 + fz_u16(r) % 300; /* as fuzz_fc3d: a bounded time per input */
    p->lo.friction_law = (*flags & 8) ? NSCD_FC3D_MAX_DISSIPATION : NSCD_FC3D_COULOMB;
    p->lo.warm_start = (*flags & 32) != 0;
    int way = (*flags >> 1) & 3;
    p->go.condensation = way == 3 ? NSCD_GFC3D_CONDENSE_AUTO : way;
    if (*flags & 64) {
        p->go.factorization = NSCD_GFC3D_FACTOR_LDL;
    }
    p->heap_on = (*flags & 16) != 0;
    p->heap.fail_after = fail == 255 ? -1 : fail % 16;
    int n = p->n, m = 3 * p->nc;
    for (int b = 0; b < nb; ++b) {
        double mass = fz_decade(r, -1, 1);
        for (int k = 0; k < 3; ++k) {
            p->M[(6 * b + k) * n + 6 * b + k] = mass;
            p->M[(6 * b + 3 + k) * n + 6 * b + 3 + k] = fz_decade(r, -1, 1);
        }
    }
    if (*flags & 1) { /* couple body b to b + 1, diagonally dominant: SPD */
        for (int b = 0; b + 1 < nb; ++b) {
            for (int k = 0; k < 6; ++k) {
                int i = 6 * b + k, j = 6 * (b + 1) + k;
                double c = fz_range(r, -0.3, 0.3) * sqrt(p->M[i * n + i] * p->M[j * n + j]);
                p->M[i * n + j] = p->M[j * n + i] = c;
            }
        }
    }
    for (int j = 0; j < p->nc; ++j) {
        int a = fz_u8(r) % nb, b = fz_u8(r) % nb;
        for (int k = 0; k < 3; ++k) {
            for (int i = 0; i < 6; ++i) {
                p->H[(6 * a + i) * m + 3 * j + k] = fz_sym(r);
                if (b != a) {
                    p->H[(6 * b + i) * m + 3 * j + k] = fz_sym(r);
                }
            }
        }
    }
    for (int i = 0; i < n; ++i) {
        p->f[i] = fz_sym(r);
    }
    for (int i = 0; i < m; ++i) {
        p->w[i] = fz_sym(r);
    }
    for (int j = 0; j < p->nc; ++j) {
        p->mu[j] = fz_range(r, 0.0, 1.5);
    }
    for (int i = 0; i < m; ++i) {
        p->r0[i] = fz_sym(r);
    }
    to_csc(n, n, p->M, p->Mp, p->Mi, p->Mx);
    to_csc(n, m, p->H, p->Hp, p->Hi, p->Hx);
}

/* Dense Cholesky of the SPD M (n <= 24) and W = H' M^-1 H, q = H' M^-1 f + w;
 * 0 when M is not numerically positive definite here. */
static int condense(const problem *p, double *W, double *q) {
    int n = p->n, m = 3 * p->nc;
    double L[NDOF * NDOF], X[NDOF * (NROW + 1)];
    memcpy(L, p->M, sizeof L);
    for (int j = 0; j < n; ++j) {
        double d = L[j * n + j];
        for (int k = 0; k < j; ++k) {
            d -= L[j * n + k] * L[j * n + k];
        }
        if (!(d > 0.0)) {
            return 0;
        }
        L[j * n + j] = sqrt(d);
        for (int i = j + 1; i < n; ++i) {
            double s = L[i * n + j];
            for (int k = 0; k < j; ++k) {
                s -= L[i * n + k] * L[j * n + k];
            }
            L[i * n + j] = s / L[j * n + j];
        }
    }
    for (int c = 0; c <= m; ++c) { /* X(:, c) = M^-1 (H(:, c) or f) */
        double y[NDOF];
        for (int i = 0; i < n; ++i) {
            double s = c < m ? p->H[i * m + c] : p->f[i];
            for (int k = 0; k < i; ++k) {
                s -= L[i * n + k] * y[k];
            }
            y[i] = s / L[i * n + i];
        }
        for (int i = n - 1; i >= 0; --i) {
            double s = y[i];
            for (int k = i + 1; k < n; ++k) {
                s -= L[k * n + i] * y[k];
            }
            y[i] = s / L[i * n + i];
        }
        for (int i = 0; i < n; ++i) {
            X[i * (m + 1) + c] = y[i];
        }
    }
    for (int a = 0; a < m; ++a) {
        for (int c = 0; c <= m; ++c) {
            double s = 0.0;
            for (int i = 0; i < n; ++i) {
                s += p->H[i * m + a] * X[i * (m + 1) + c];
            }
            if (c < m) {
                W[a * m + c] = s;
            } else {
                q[a] = s + p->w[a];
            }
        }
    }
    return 1;
}

/* The Coulomb merit of fc3d.h for (W, q, r): ||e|| / ||q||. */
static double coulomb_merit(int nc, const double *W, const double *q, const double *mu,
                            const double *r, double *slack) {
    int m = 3 * nc;
    double e2 = 0.0, big = 0.0;
    for (int j = 0; j < nc; ++j) {
        double s = (W[(3 * j) * m + 3 * j] + W[(3 * j + 1) * m + 3 * j + 1] +
                    W[(3 * j + 2) * m + 3 * j + 2]) /
                   3.0;
        double u[3];
        for (int k = 0; k < 3; ++k) {
            double acc = q[3 * j + k];
            for (int c = 0; c < m; ++c) {
                acc += W[(3 * j + k) * m + c] * r[c];
                big = fmax(big, fabs(W[(3 * j + k) * m + c] * r[c]));
            }
            u[k] = acc;
        }
        double ut = hypot(u[1], u[2]);
        double x[3] = {s * r[3 * j] - (u[0] + mu[j] * ut), s * r[3 * j + 1] - u[1],
                       s * r[3 * j + 2] - u[2]};
        double t = hypot(x[1], x[2]), pk[3];
        if (t <= mu[j] * x[0]) {
            pk[0] = x[0], pk[1] = x[1], pk[2] = x[2];
        } else if (mu[j] * t <= -x[0]) {
            pk[0] = pk[1] = pk[2] = 0.0;
        } else {
            double a = (x[0] + mu[j] * t) / (1.0 + mu[j] * mu[j]);
            pk[0] = a, pk[1] = mu[j] * a * x[1] / t, pk[2] = mu[j] * a * x[2] / t;
        }
        for (int k = 0; k < 3; ++k) {
            double e = s * r[3 * j + k] - pk[k];
            e2 += e * e;
        }
    }
    double qn = fz_norm(q, (size_t)m);
    double scale = qn > 0.0 ? qn : 1.0;
    *slack = 1e-9 * (1.0 + big) * m / scale;
    return sqrt(e2) / scale;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_reader rd = fz_make(data, size);
    problem p;
    int flags = 0;
    decode(&rd, &p, &flags);
    fz_corruption c = fz_read_corruption(&rd, 9);
    int n = p.n, m = 3 * p.nc, nc = p.nc;
    const double *f = p.f;
    int32_t *Hi = p.Hi;
    nscd_status expected = NSCD_OK; /* OK: any status of a valid problem */
    int value_corruption = 0;
    if (c.active) {
        double *target = NULL;
        switch (c.index) {
        case 0: target = &p.Mx[p.Mp[fz_choice(&rd, n)]]; break; /* first entry of a column */
        case 1: target = p.Hp[m] > 0 ? &p.Hx[fz_choice(&rd, p.Hp[m])] : NULL; break;
        case 2: target = &p.f[fz_choice(&rd, n)]; break;
        case 3: target = &p.w[fz_choice(&rd, m)]; break;
        case 4: target = &p.mu[fz_choice(&rd, nc)]; break;
        case 5: f = NULL, expected = NSCD_ERR_NULL_POINTER; break;
        case 6:
            if (p.Hp[m] > 0) {
                p.Hi[p.Hp[m] - 1] = n, expected = NSCD_ERR_INDEX;
            }
            break;
        case 7: nc = 0, expected = NSCD_ERR_INVALID_ARGUMENT; break;
        default: expected = NSCD_ERR_STRUCT_SIZE; break;
        }
        if (target != NULL) {
            *target = c.value;
            value_corruption = 1;
            if (!isfinite(c.value)) {
                expected = NSCD_ERR_NOT_FINITE;
            } else if (c.index == 4 && c.value < 0.0) {
                expected = NSCD_ERR_OUT_OF_RANGE;
            }
        }
        /* keep the dense copies in step with the CSC arrays */
        for (int col = 0; col < n; ++col) {
            for (int32_t q = p.Mp[col]; q < p.Mp[col + 1]; ++q) {
                p.M[p.Mi[q] * n + col] = p.Mx[q];
            }
        }
        for (int col = 0; col < m; ++col) {
            for (int32_t q = p.Hp[col]; q < p.Hp[col + 1]; ++q) {
                if (p.Hi[q] < n) {
                    p.H[p.Hi[q] * m + col] = p.Hx[q];
                }
            }
        }
    }
    if (p.heap_on) {
        p.go.allocator = fz_heap_allocator(&p.heap);
    }
    double v[NDOF], r[NROW], u[NROW];
    for (int i = 0; i < NDOF; ++i) {
        v[i] = 7.0;
    }
    for (int i = 0; i < NROW; ++i) {
        r[i] = p.r0[i], u[i] = 7.0;
    }
    nscd_gfc3d_info info;
    memset(&info, 0x5a, sizeof info);
    info.struct_size = expected == NSCD_ERR_STRUCT_SIZE ? 4 : (uint32_t)sizeof info;
    nscd_gfc3d_info info_before = info;
    nscd_status st = nscd_gfc3d_solve(n, nc, p.Mp, p.Mi, p.Mx, p.Hp, Hi, p.Hx, f, p.w, p.mu, &p.go,
                                      &p.lo, v, r, u, &info);
    FZ_REQUIRE(!p.heap_on || p.heap.live == 0, "%ld blocks leaked", p.heap.live);
    int heap_failed = p.heap_on && p.heap.failures > 0;
    if (expected != NSCD_OK && !value_corruption) {
        FZ_REQUIRE(st == expected, "status %d (%s), expected %d", FZ_STATUS_ARGS(st),
                   (int)expected);
    } else if (expected != NSCD_OK) {
        FZ_REQUIRE(st == expected, "value %g in parameter %d: status %d (%s), expected %d", c.value,
                   c.index, FZ_STATUS_ARGS(st), (int)expected);
    } else {
        /* valid, or a finite special value in M, H, f, w: any documented outcome */
        FZ_REQUIRE(st == NSCD_OK || st == NSCD_ERR_NOT_CONVERGED || st == NSCD_ERR_NOT_SPD ||
                       st == NSCD_ERR_NOT_FINITE || st == NSCD_ERR_OUT_OF_MEMORY,
                   "status %d (%s)", FZ_STATUS_ARGS(st));
        FZ_REQUIRE(st != NSCD_ERR_OUT_OF_MEMORY || heap_failed, "OUT_OF_MEMORY, allocator fine");
    }
    if (st != NSCD_OK && st != NSCD_ERR_NOT_CONVERGED) {
        for (int i = 0; i < NDOF; ++i) {
            FZ_REQUIRE(v[i] == 7.0, "v changed on status %d", (int)st);
        }
        for (int i = 0; i < NROW; ++i) {
            FZ_REQUIRE(r[i] == p.r0[i] && u[i] == 7.0, "r or u changed on status %d", (int)st);
        }
        FZ_REQUIRE(memcmp(&info, &info_before, sizeof info) == 0, "info changed");
        return 0;
    }
    FZ_REQUIRE(fz_all_finite(v, (size_t)n) && fz_all_finite(r, (size_t)m) &&
                   fz_all_finite(u, (size_t)m),
               "non-finite result, status %d (%s), corruption %d of parameter %d (%g)",
               FZ_STATUS_ARGS(st), c.active, c.index, c.value);
    double rmax = fz_max_abs(r, (size_t)m), fmax_ = fz_max_abs(p.f, (size_t)n);
    double hmax = fz_max_abs(p.Hx, (size_t)p.Hp[m]), mmax = fz_max_abs(p.Mx, (size_t)p.Mp[n]);
    double vmax = fz_max_abs(v, (size_t)n);
    for (int i = 0; i < n; ++i) { /* M v = H r + f */
        double s = -p.f[i];
        for (int k = 0; k < n; ++k) {
            s += p.M[i * n + k] * v[k];
        }
        for (int k = 0; k < m; ++k) {
            s -= p.H[i * m + k] * r[k];
        }
        double bound = 1e-11 * (1.0 + fmax_ + m * hmax * rmax + n * mmax * vmax);
        FZ_REQUIRE(fabs(s) <= bound, "equilibrium row %d: %g > %g", i, s, bound);
    }
    for (int k = 0; k < m; ++k) { /* u = H'v + w */
        double s = p.w[k];
        for (int i = 0; i < n; ++i) {
            s += p.H[i * m + k] * v[i];
        }
        FZ_REQUIRE(fabs(u[k] - s) <= 1e-12 * (1.0 + n * hmax * vmax + fabs(p.w[k])),
                   "u[%d] = %g != H'v + w = %g", k, u[k], s);
    }
    if (st == NSCD_OK && p.lo.friction_law == NSCD_FC3D_COULOMB && !value_corruption) {
        double W[NROW * NROW], q[NROW], slack = 0.0;
        if (condense(&p, W, q)) {
            double merit = coulomb_merit(nc, W, q, p.mu, r, &slack);
            FZ_REQUIRE(merit <= 10.0 * p.lo.tolerance + slack,
                       "merit %g recomputed here above 10 tolerance %g + %g", merit, p.lo.tolerance,
                       slack);
        }
    }
    return 0;
}
