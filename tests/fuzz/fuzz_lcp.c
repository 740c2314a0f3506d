/* Fuzz target: nscd_lcp_solve_dense() (include/nscd/lcp.h), Murty's
 * principal pivoting for  w = M z + q >= 0, z >= 0, z'w = 0.
 *
 * Input (fuzz_common.h encoding; make_seeds.py writes it):
 *   u8   flags: bits 0-1 the class of M: 0 symmetric positive definite
 *        B B' + d I, 1 positive definite non-symmetric B B' + d I + (K - K'),
 *        2 strictly row diagonally dominant with a positive diagonal (these
 *        three are P-matrices: the LCP has exactly one solution), 3 a random
 *        matrix (any status but a crash is allowed; only together with bit 3,
 *        else class 0); bit 2: pass w = NULL
 *   u8   n (mod 13, so 0..12; class 3: mod 4)
 *   u16  s_M = 10^[-8, 8], s_q = 10^[-8, 8]
 *   u16  d / s_M = 10^[-3, 0] (classes 0-2)
 *   n*n x u16  B, or the off-diagonal entries, or M / s_M, in [-1, 1]
 *   n(n-1)/2 x u16  K (class 1)
 *   n x u16  q / s_q in [-1, 1]
 *   corruption selector over 4 + n^2 + n parameters: n (-> -1 or 65), NULL
 *        M, q or z, then the entries of M and q.
 *
 * Checks: the documented status (OK for a P-matrix, NOT_FINITE for NaN/inf,
 * INVALID_ARGUMENT for a bad n, NULL_POINTER); z and w unchanged on failure;
 * on OK: z >= 0 and w >= 0 exactly, finite; w equals M z + q recomputed
 * here, which is >= 0 and complementary to z, to a rounding-level tolerance
 * per row; bitwise determinism (also with w = NULL); and for P-matrices,
 * whose solution is unique, covariance under M -> 4 M, q -> 16 q (z -> 4 z). */
#include "fuzz_common.h"

enum { N_MAX = 12, SIZE_MAX_LCP = NSCD_LCP_MAX_SIZE };

typedef struct problem {
    int32_t n;
    int cls;
    int w_null;
    double M[N_MAX * N_MAX], q[N_MAX];
    int null_M, null_q, null_z;
} problem;

static problem decode(fz_reader *r, fz_corruption *c) {
    problem p;
    memset(&p, 0, sizeof p);
    int flags = fz_u8(r);
    /* class 3 only with bit 3 too: its non-P matrices may each cost the whole pivot
     * budget (20000 LU solves), which would dominate the run time */
    p.cls = (flags & 3) == 3 && !(flags & 8) ? 0 : flags & 3;
    p.w_null = (flags >> 2) & 1;
    /* a random (class 3) M is often not a P-matrix, and the pivoting may then
     * run through its whole budget of 20000 pivots: keep those small */
    p.n = fz_u8(r) % ((p.cls == 3 ? 3 : N_MAX) + 1);
    int n = p.n;
    double sM = fz_decade(r, -8.0, 8.0), sq = fz_decade(r, -8.0, 8.0);
    double d = fz_decade(r, -3.0, 0.0);
    double B[N_MAX * N_MAX];
    for (int i = 0; i < n * n; ++i) {
        B[i] = fz_sym(r);
    }
    if (p.cls <= 1) {
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                double sum = i == j ? d : 0.0;
                for (int k = 0; k < n; ++k) {
                    sum += B[i * n + k] * B[j * n + k];
                }
                p.M[i * n + j] = sum;
            }
        }
        for (int i = 0; i < n; ++i) { /* exactly symmetric */
            for (int j = 0; j < i; ++j) {
                p.M[i * n + j] = p.M[j * n + i];
            }
        }
        if (p.cls == 1) {
            for (int i = 0; i < n; ++i) {
                for (int j = i + 1; j < n; ++j) {
                    double k = fz_sym(r);
                    p.M[i * n + j] += k;
                    p.M[j * n + i] -= k;
                }
            }
        }
    } else if (p.cls == 2) {
        for (int i = 0; i < n; ++i) {
            double row = 0.0;
            for (int j = 0; j < n; ++j) {
                if (j != i) {
                    p.M[i * n + j] = B[i * n + j];
                    row += fabs(B[i * n + j]);
                }
            }
            p.M[i * n + i] = row + d;
        }
    } else {
        memcpy(p.M, B, (size_t)(n * n) * sizeof *B);
    }
    for (int i = 0; i < n * n; ++i) {
        p.M[i] *= sM;
    }
    for (int i = 0; i < n; ++i) {
        p.q[i] = sq * fz_sym(r);
    }
    *c = fz_read_corruption(r, 4 + n * n + n);
    if (c->active) {
        switch (c->index) {
        case 0: p.n = c->value < 0.0 || isnan(c->value) ? -1 : SIZE_MAX_LCP + 1; break;
        case 1: p.null_M = 1; break;
        case 2: p.null_q = 1; break;
        case 3: p.null_z = 1; break;
        default:
            if (c->index - 4 < n * n) {
                p.M[c->index - 4] = c->value;
            } else {
                p.q[c->index - 4 - n * n] = c->value;
            }
        }
    }
    return p;
}

/* The status the library must return, or 1 when several are possible. */
static int expected_status(const problem *p, const fz_corruption *c) {
    int n = p->n;
    if (p->null_z) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (p->null_M || p->null_q) {
        return n == 0 ? 1 : NSCD_ERR_NULL_POINTER; /* n = 0 needs no data */
    }
    if (n < 0 || n > SIZE_MAX_LCP) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    if (!fz_all_finite(p->M, (size_t)(n * n)) || !fz_all_finite(p->q, (size_t)n)) {
        return NSCD_ERR_NOT_FINITE;
    }
    if (c->active || p->cls == 3) {
        return 1; /* maybe not a P-matrix any more */
    }
    return NSCD_OK;
}

/* Checks a solution z (and w, if not NULL) of the LCP. */
static void check_solution(const problem *p, const double *z, const double *w) {
    int n = p->n;
    for (int i = 0; i < n; ++i) {
        FZ_REQUIRE(isfinite(z[i]) && z[i] >= 0.0, "z[%d] = %.17g", i, z[i]);
        if (w != NULL) {
            /* w may overflow to +inf for finite M and q near DBL_MAX */
            FZ_REQUIRE(w[i] >= 0.0, "w[%d] = %.17g", i, w[i]);
        }
    }
    double qmax = fz_max_abs(p->q, (size_t)n), mmax = fz_max_abs(p->M, (size_t)(n * n));
    double zsum = 0.0;
    for (int i = 0; i < n; ++i) {
        zsum += z[i];
    }
    /* backward error of the LU solve of a basis block: of the order of
     * n eps max|M| sum|z| (in every row, not only in rows with large entries) */
    double lu_error = 1e-13 * n * mmax * zsum;
    for (int i = 0; i < n; ++i) {
        double wi = p->q[i], scale = qmax, mrow = 0.0;
        for (int j = 0; j < n; ++j) {
            wi += p->M[i * n + j] * z[j];
            scale += fabs(p->M[i * n + j] * z[j]);
            mrow += fabs(p->M[i * n + j]);
        }
        if (!isfinite(scale) || !isfinite(mrow) || !isfinite(lu_error)) {
            continue; /* extreme corrupted data */
        }
        FZ_REQUIRE(w == NULL || isfinite(w[i]), "w[%d] = %.17g", i, w[i]);
        /* relative to the row and to q (as the library's sign tests), plus the
         * absolute quantum of a subnormal z */
        double tol = 1e-9 * scale + lu_error + 4.0 * mrow * DBL_TRUE_MIN;
        FZ_REQUIRE(wi >= -tol, "w[%d] = (M z + q)[%d] = %.17g < 0 (tolerance %g)", i, i, wi, tol);
        FZ_REQUIRE(z[i] == 0.0 || fabs(wi) <= tol,
                   "not complementary: z[%d] = %.17g but w[%d] = %.17g (tolerance %g)", i, z[i], i,
                   wi, tol);
        if (w != NULL) {
            FZ_REQUIRE(fabs(w[i] - wi) <= tol,
                       "returned w[%d] = %.17g, but M z + q = %.17g (tolerance %g)", i, w[i], wi,
                       tol);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_reader r = fz_make(data, size);
    fz_corruption c;
    problem p = decode(&r, &c);
    int n = p.n > 0 && p.n <= N_MAX ? p.n : 0;
    if (fz_verbose()) {
        fprintf(stderr, "n = %d, class %d, w %s\n", (int)p.n, p.cls, p.w_null ? "NULL" : "given");
        fz_print("M", p.M, (size_t)(n * n));
        fz_print("q", p.q, (size_t)n);
    }
    const double sentinel = -12345.0;
    double z[N_MAX], w[N_MAX];
    for (int i = 0; i < N_MAX; ++i) {
        z[i] = w[i] = sentinel;
    }
    double *wp = p.w_null ? NULL : w;
    nscd_status st = nscd_lcp_solve_dense(p.n, p.null_M ? NULL : p.M, p.null_q ? NULL : p.q,
                                          p.null_z ? NULL : z, wp);
    int want = expected_status(&p, &c);
    if (want != 1) {
        FZ_REQUIRE(st == want, "status %d (%s), expected %d", FZ_STATUS_ARGS(st), want);
    } else {
        FZ_REQUIRE(st == NSCD_OK || st == NSCD_ERR_SINGULAR || st == NSCD_ERR_NOT_CONVERGED,
                   "status %d (%s)", FZ_STATUS_ARGS(st));
    }
    if (st != NSCD_OK) {
        for (int i = 0; i < N_MAX; ++i) {
            FZ_REQUIRE(z[i] == sentinel && w[i] == sentinel, "z or w written on failure");
        }
        return 0;
    }
    if (p.null_M || p.null_q) {
        return 0; /* n = 0 */
    }
    check_solution(&p, z, wp);

    /* determinism, with and without w */
    double z2[N_MAX], w2[N_MAX];
    FZ_REQUIRE(nscd_lcp_solve_dense(p.n, p.M, p.q, z2, p.w_null ? w2 : NULL) == NSCD_OK,
               "second call failed");
    FZ_REQUIRE(fz_same_bits(z, z2, (size_t)n), "not deterministic");

    /* scale covariance of the unique solution of a P-matrix problem */
    if (!c.active && p.cls != 3) {
        problem s = p;
        for (int i = 0; i < n * n; ++i) {
            s.M[i] *= 4.0;
        }
        for (int i = 0; i < n; ++i) {
            s.q[i] *= 16.0;
        }
        FZ_REQUIRE(nscd_lcp_solve_dense(s.n, s.M, s.q, z2, NULL) == NSCD_OK, "scaled call failed");
        double zmax = fz_max_abs(z, (size_t)n);
        for (int i = 0; i < n; ++i) {
            FZ_REQUIRE(fabs(z2[i] - 4.0 * z[i]) <= 1e-9 * 4.0 * zmax,
                       "not scale covariant: z[%d] = %.17g, scaled problem gives %.17g / 4", i,
                       z[i], z2[i]);
        }
    }
    return 0;
}
