/* Fuzz target: nscd_fc3d_solve_dense() (include/nscd/fc3d.h), n = 1..8
 * contacts, both friction laws and all methods (sweeps, Newton, AUTO), checked against
 * nscd_fc3d_solve_bsr() on the same problem.
 *
 * Input (fuzz_common.h encoding; make_seeds.py writes it):
 *   u8   n - 1 (mod 8)
 *   u8   flags: bits 0-1 how W is built (0, 1: W = H M^-1 H' of n contacts
 *        between up to n rigid bodies and the ground; 2: W = J J' + d I with a
 *        random J of 3n x k; 3: random SPD diagonal blocks and random,
 *        unrelated off-diagonal blocks), bit 2 law (max dissipation), bit 3
 *        Jacobi blend, bit 4 warm start from a random r, bit 5 approaching
 *        normals (q_n <= 0), bit 6 one mu for all contacts, bit 7 use the
 *        checking allocator of fuzz_common.h
 *   u16  s_W = 10^[-6, 6], s_q = 10^[-6, 6]
 *   u16  tolerance 10^[-12, -5]; u16 max_iterations 1 + (mod 300);
 *   u16  relaxation: 1 if < 0.5, else in [0.2, 1]; u16 Jacobi weight [0.1, 1];
 *   u8   g: Jacobi groups 1 + g (mod 9); (g / 9) mod 4 = 1: Newton, 2: AUTO, 3: PROX
 *        (else the method of the flags); u8 allocator: fail after (mod 8) blocks, 255 never
 *   the model data: mode 0/1: u8 bodies - 1 (mod n); per body u16 mass
 *        10^[-1, 1], 3 x u16 inertia 10^[-1, 1]; per contact u8 bodies, 2 x u16
 *        normal angles, u16 tangent angle, 3 x u16 lever arm in [-1, 1]^3;
 *        mode 2: u8 k - 1 (mod 3n), 3n k x u16 J, u16 d 10^[-4, 0];
 *        mode 3: 9n^2 x u16 entries (diagonal blocks get L L' + I/10)
 *   3n x u16 q / s_q;  n (or 1) x u16 mu in [0, 1.5];  3n x u16 r0 (warm start)
 *   corruption selector over 12 + 9n^2 + 7n parameters: n, the law and method
 *        enums, tolerance, max_iterations, relaxation, Jacobi weight and
 *        groups, both struct sizes, a NULL pointer, a half-set allocator, then
 *        the entries of W, q, mu and r0.
 *   then (optional, 0 when the input ends: inputs that end after the selector keep their
 *   meaning) u8 extras: bit 0 Anderson acceleration with memory 1 + (bits 1-4) (mod 16),
 *        bit 5 non-symmetric diagonal blocks: a skew part of size 10^[-3, 0] x the
 *        block's scale (10^[-5, -2] for maximum dissipation) added to every W_jj (u16
 *        size, 3n x u16 entries; the symmetric part, hence the block's class, unchanged).
 *
 * Checks: the documented status of a corrupted parameter; OK or NOT_CONVERGED
 * for a valid problem; r, u, info unchanged on the argument errors; bitwise
 * the same status, r, u and info from the BSR solver; the checking allocator
 * sees matching sizes and no leak, and OUT_OF_MEMORY when it fails. On OK:
 * finite r, u; u = W r + q; info consistent; the merit recomputed here
 * (independent De Saxce residual for Coulomb, the fixed point of the block
 * MDP solver for maximum dissipation, on the blocks that solver accepts: a
 * corrupted diagonal block may be non-symmetric or semi-definite, which fc3d
 * accepts since 0.2) is below the tolerance; every impulse
 * is in its friction cone, u_n >= 0 and r_n u_n = 0 up to what that merit
 * allows; the impulses never create kinetic energy, r'q + r'W r/2 <= 0 for a
 * symmetric positive semi-definite W (= r'(u + q)/2), and maximum
 * dissipation also dissipates contact by contact (r_j'v_j + r_j'W_jj r_j/2 <= 0
 * with v_j the velocity without r_j). */
#include "fuzz_common.h"

enum { NC = 8, NR = 3 * NC, NB = NC };

typedef struct problem {
    int32_t n;
    int mode;
    int psd; /* W symmetric positive semi-definite by construction */
    double W[NR * NR], q[NR], mu[NC], r0[NR];
    nscd_fc3d_options opts;
    int use_opts, heap_on;
    fz_heap heap;
    int null_arg; /* 0 none, 1 W, 2 q, 3 mu, 4 r, 5 u */
    int asym;     /* skew parts added to the diagonal blocks */
    int bad_info_size;
} problem;

/* Orthonormal contact frame (rows: normal, tangent, other tangent) from angles. */
static void frame(double a, double b, double c, double F[9]) {
    double n[3] = {sin(a) * cos(b), sin(a) * sin(b), cos(a)};
    double h[3] = {fabs(n[0]) < 0.9 ? 1.0 : 0.0, fabs(n[0]) < 0.9 ? 0.0 : 1.0, 0.0};
    double d = h[0] * n[0] + h[1] * n[1] + h[2] * n[2];
    double t[3] = {h[0] - d * n[0], h[1] - d * n[1], h[2] - d * n[2]};
    double nt = fz_norm(t, 3);
    for (int i = 0; i < 3; ++i) {
        t[i] /= nt;
    }
    double o[3] = {n[1] * t[2] - n[2] * t[1], n[2] * t[0] - n[0] * t[2], n[0] * t[1] - n[1] * t[0]};
    double cc = cos(c), sc = sin(c);
    for (int i = 0; i < 3; ++i) {
        F[i] = n[i];
        F[3 + i] = cc * t[i] + sc * o[i];
        F[6 + i] = -sc * t[i] + cc * o[i];
    }
}

/* W = H M^-1 H' for contacts between rigid bodies (6 velocities each) and the ground. */
static void build_mechanical(fz_reader *r, problem *p) {
    int n = p->n, nb = 1 + fz_u8(r) % n;
    double minv[NB][6];
    for (int k = 0; k < nb; ++k) {
        double m = fz_decade(r, -1.0, 1.0);
        minv[k][0] = minv[k][1] = minv[k][2] = 1.0 / m;
        for (int i = 0; i < 3; ++i) {
            minv[k][3 + i] = 1.0 / (m * fz_decade(r, -1.0, 1.0));
        }
    }
    /* H: 3n x 6nb */
    static double H[NR][6 * NB];
    memset(H, 0, sizeof H);
    for (int j = 0; j < n; ++j) {
        int sel = fz_u8(r);
        int b = sel % nb, a = (sel / nb) % (nb + 1) - 1; /* a = -1: the ground */
        if (a == b) {
            a = -1;
        }
        double F[9], arm[3];
        double t1 = fz_range(r, 0.0, 3.14159265358979), t2 = fz_range(r, 0.0, 6.2831853071796);
        frame(t1, t2, fz_range(r, 0.0, 6.2831853071796), F);
        for (int i = 0; i < 3; ++i) {
            arm[i] = fz_sym(r);
        }
        /* u = F (v_b + w_b x arm - v_a - w_a x arm'), arm' = -arm for body a */
        for (int side = 0; side < 2; ++side) {
            int body = side == 0 ? b : a;
            if (body < 0) {
                continue;
            }
            double sign = side == 0 ? 1.0 : -1.0, l[3];
            for (int i = 0; i < 3; ++i) {
                l[i] = side == 0 ? arm[i] : -arm[i];
            }
            for (int row = 0; row < 3; ++row) {
                const double *f = F + 3 * row;
                double *h = H[3 * j + row] + 6 * body;
                /* f . (v + w x l) = f . v + w . (l x f) */
                h[0] += sign * f[0], h[1] += sign * f[1], h[2] += sign * f[2];
                h[3] += sign * (l[1] * f[2] - l[2] * f[1]);
                h[4] += sign * (l[2] * f[0] - l[0] * f[2]);
                h[5] += sign * (l[0] * f[1] - l[1] * f[0]);
            }
        }
    }
    int m = 3 * n, cols = 6 * nb;
    for (int i = 0; i < m; ++i) {
        for (int k = 0; k <= i; ++k) {
            double sum = 0.0;
            for (int c = 0; c < cols; ++c) {
                sum += H[i][c] * minv[c / 6][c % 6] * H[k][c];
            }
            p->W[i * m + k] = p->W[k * m + i] = sum;
        }
    }
    p->psd = 1;
}

static void build_random_gram(fz_reader *r, problem *p) {
    int m = 3 * p->n, k = 1 + fz_u8(r) % m;
    static double J[NR * NR];
    for (int i = 0; i < m * k; ++i) {
        J[i] = fz_sym(r);
    }
    double d = fz_decade(r, -4.0, 0.0);
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j <= i; ++j) {
            double sum = i == j ? d : 0.0;
            for (int c = 0; c < k; ++c) {
                sum += J[i * k + c] * J[j * k + c];
            }
            p->W[i * m + j] = p->W[j * m + i] = sum;
        }
    }
    p->psd = 1;
}

static void build_random_blocks(fz_reader *r, problem *p) {
    int m = 3 * p->n;
    for (int i = 0; i < m * m; ++i) {
        p->W[i] = fz_sym(r);
    }
    for (int j = 0; j < p->n; ++j) { /* SPD diagonal blocks L L' + I/10 */
        double L[9], *D = p->W + (3 * j) * m + 3 * j;
        for (int a = 0; a < 3; ++a) {
            for (int b = 0; b < 3; ++b) {
                L[3 * a + b] = b <= a ? D[a * m + b] : 0.0;
            }
        }
        for (int a = 0; a < 3; ++a) {
            for (int b = 0; b < 3; ++b) {
                double sum = a == b ? 0.1 : 0.0;
                for (int c = 0; c < 3; ++c) {
                    sum += L[3 * a + c] * L[3 * b + c];
                }
                D[a * m + b] = sum;
            }
        }
        for (int a = 0; a < 3; ++a) { /* exactly symmetric */
            for (int b = 0; b < a; ++b) {
                D[a * m + b] = D[b * m + a];
            }
        }
    }
    p->psd = 0;
}

enum {
    P_N,
    P_LAW,
    P_METHOD,
    P_TOL,
    P_MAXIT,
    P_RELAX,
    P_WEIGHT,
    P_GROUPS,
    P_OPTS_SIZE,
    P_INFO_SIZE,
    P_NULL,
    P_ALLOCATOR,
    P_DATA
};

static void decode(fz_reader *r, fz_corruption *c, problem *out) {
    problem p;
    memset(&p, 0, sizeof p);
    p.n = 1 + fz_u8(r) % NC;
    int n = p.n, m = 3 * n;
    int flags = fz_u8(r);
    p.mode = flags & 3;
    double sW = fz_decade(r, -6.0, 6.0), sq = fz_decade(r, -6.0, 6.0);
    nscd_fc3d_options_init(&p.opts, sizeof p.opts);
    p.use_opts = 1;
    p.opts.friction_law = (flags & 4) ? NSCD_FC3D_MAX_DISSIPATION : NSCD_FC3D_COULOMB;
    p.opts.method = (flags & 8) ? NSCD_FC3D_JACOBI_BLEND : NSCD_FC3D_GAUSS_SEIDEL;
    p.opts.warm_start = (flags & 16) != 0;
    p.opts.tolerance = fz_decade(r, -12.0, -5.0);
    p.opts.max_iterations = 1 + fz_u16(r) % 300;
    double relax = fz_unit(r);
    p.opts.relaxation = relax < 0.5 ? 1.0 : 0.2 + 1.6 * (relax - 0.5);
    p.opts.jacobi_weight = fz_range(r, 0.1, 1.0);
    int groups = fz_u8(r);
    p.opts.jacobi_groups = 1 + groups % 9;
    if ((groups / 9) % 4 == 1) {
        p.opts.method = NSCD_FC3D_NEWTON;
    } else if ((groups / 9) % 4 == 2) {
        p.opts.method = NSCD_FC3D_AUTO;
    } else if ((groups / 9) % 4 == 3) {
        p.opts.method = NSCD_FC3D_PROX;
    }
    int fail = fz_u8(r);
    p.heap_on = (flags & 128) != 0;
    p.heap.fail_after = fail == 255 ? -1 : fail % 8;
    if (p.heap_on) {
        p.opts.allocator = fz_heap_allocator(&p.heap);
    }
    if (p.mode <= 1) {
        build_mechanical(r, &p);
    } else if (p.mode == 2) {
        build_random_gram(r, &p);
    } else {
        build_random_blocks(r, &p);
    }
    for (int i = 0; i < m * m; ++i) {
        p.W[i] *= sW;
    }
    for (int i = 0; i < m; ++i) {
        p.q[i] = sq * fz_sym(r);
        if ((flags & 32) && i % 3 == 0) {
            p.q[i] = -fabs(p.q[i]);
        }
    }
    for (int j = 0; j < n; ++j) {
        p.mu[j] = (j > 0 && (flags & 64)) ? p.mu[0] : fz_range(r, 0.0, 1.5);
    }
    for (int i = 0; i < m; ++i) {
        p.r0[i] = p.opts.warm_start ? sq / sW * fz_sym(r) : 0.0;
    }
    *c = fz_read_corruption(r, P_DATA + m * m + m + n + m);
    int extras = fz_u8(r);
    if (extras & 1) {
        p.opts.acceleration = NSCD_FC3D_ACCEL_ANDERSON;
        p.opts.anderson_memory = 1 + (extras >> 1) % 16;
    }
    if (extras & 32) { /* W_jj += K_j, K_j' = -K_j: lambda_min of the symmetric part kept */
        double size = fz_decade(r, -3.0, 0.0);
        if (p.opts.friction_law == NSCD_FC3D_MAX_DISSIPATION) {
            /* the MDP block of a skew part of relative size k is a fixed-point iteration
             * contracting by ~k (fc3d_block.c, up to NSCD__FC3D_MDP_STEPS = 2000 single-contact
             * solves per block solve): k near 1 costs ~50 ms a block, seconds an input */
            size *= 1e-2;
        }
        for (int j = 0; j < n; ++j) {
            double *D = p.W + (3 * j) * m + 3 * j;
            double sj = fabs(D[0] + D[m + 1] + D[2 * m + 2]) / 3.0;
            double k[3] = {fz_sym(r), fz_sym(r), fz_sym(r)};
            D[1] += size * sj * k[0], D[m] -= size * sj * k[0];
            D[2] += size * sj * k[1], D[2 * m] -= size * sj * k[1];
            D[m + 2] += size * sj * k[2], D[2 * m + 1] -= size * sj * k[2];
        }
        p.asym = 1;
        p.psd = 0;
    }
    if (!c->active) {
        *out = p;
        return;
    }
    double v = c->value;
    int neg = v < 0.0 || isnan(v), zero = v == 0.0;
    switch (c->index) {
    case P_N: p.n = neg ? -1 : (zero ? 0 : INT32_MIN); break;
    case P_LAW: p.opts.friction_law = neg ? -1 : 2; break;
    case P_METHOD: p.opts.method = neg ? -1 : 7; break;
    case P_TOL: p.opts.tolerance = v; break;
    case P_MAXIT: p.opts.max_iterations = neg ? -1 : (zero ? 0 : 500); break;
    case P_RELAX: p.opts.relaxation = v; break;
    case P_WEIGHT: p.opts.jacobi_weight = v; break;
    case P_GROUPS: p.opts.jacobi_groups = neg ? -1 : (zero ? 0 : 1000); break;
    case P_OPTS_SIZE: p.opts.struct_size = (uint32_t)sizeof p.opts + 8u; break;
    case P_INFO_SIZE: p.bad_info_size = 1; break;
    case P_NULL: p.null_arg = 1 + c->special % 5; break;
    case P_ALLOCATOR:
        p.opts.allocator.release = NULL, p.opts.allocator.allocate = fz_heap_allocate;
        break;
    default: {
        int k = c->index - P_DATA;
        if (k < m * m) {
            p.W[k] = v;
            p.psd = 0;
        } else if ((k -= m * m) < m) {
            p.q[k] = v;
        } else if ((k -= m) < n) {
            p.mu[k] = v;
        } else {
            p.r0[k - n] = v;
        }
    }
    }
    *out = p;
}

/* The documented status for an argument error, or NSCD_OK when none. */
static nscd_status expected_status(const problem *p) {
    const nscd_fc3d_options *o = &p->opts;
    int n = p->n;
    if (p->null_arg) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (n <= 0) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    int m = 3 * n;
    if (p->bad_info_size || o->struct_size != sizeof *o) {
        return NSCD_ERR_STRUCT_SIZE;
    }
    if ((o->friction_law != NSCD_FC3D_COULOMB && o->friction_law != NSCD_FC3D_MAX_DISSIPATION) ||
        o->method < NSCD_FC3D_GAUSS_SEIDEL || o->method > NSCD_FC3D_PROX ||
        (o->allocator.allocate == NULL) != (o->allocator.release == NULL)) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    if (!isfinite(o->tolerance) || !isfinite(o->relaxation) || !isfinite(o->jacobi_weight)) {
        return NSCD_ERR_NOT_FINITE;
    }
    if (!(o->tolerance > 0.0) || o->max_iterations < 1 || !(o->relaxation > 0.0) ||
        o->relaxation > 1.0 || !(o->jacobi_weight > 0.0) || o->jacobi_weight > 1.0 ||
        o->jacobi_groups < 1) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    if ((o->method == NSCD_FC3D_NEWTON || o->method == NSCD_FC3D_PROX) &&
        o->friction_law != NSCD_FC3D_COULOMB) {
        return NSCD_ERR_UNSUPPORTED; /* Newton and PROX are Coulomb only */
    }
    if (!fz_all_finite(p->q, (size_t)m) || !fz_all_finite(p->mu, (size_t)n) ||
        (o->warm_start && !fz_all_finite(p->r0, (size_t)m))) {
        return NSCD_ERR_NOT_FINITE;
    }
    for (int j = 0; j < n; ++j) {
        if (p->mu[j] < 0.0) {
            return NSCD_ERR_OUT_OF_RANGE;
        }
    }
    if (!fz_all_finite(p->W, (size_t)m * (size_t)m)) {
        return NSCD_ERR_NOT_FINITE;
    }
    return NSCD_OK;
}

/* Converts the dense W to 3x3 block CSR: the non-zero blocks of each row in
 * ascending column order, the diagonal always (see fc3d.h, determinism). */
static int to_bsr(const problem *p, int32_t *row_ptr, int32_t *col, double *blocks) {
    int n = p->n, m = 3 * n, nb = 0;
    for (int j = 0; j < n; ++j) {
        row_ptr[j] = nb;
        for (int k = 0; k < n; ++k) {
            int zero = 1;
            for (int a = 0; a < 3; ++a) {
                for (int b = 0; b < 3; ++b) {
                    zero &= p->W[(3 * j + a) * m + 3 * k + b] == 0.0;
                }
            }
            if (zero && k != j) {
                continue;
            }
            col[nb] = k;
            for (int a = 0; a < 3; ++a) {
                for (int b = 0; b < 3; ++b) {
                    blocks[9 * nb + 3 * a + b] = p->W[(3 * j + a) * m + 3 * k + b];
                }
            }
            ++nb;
        }
    }
    row_ptr[n] = nb;
    return nb;
}

/* Local velocity without contact j's own impulse, v_j = q_j + sum_{k != j} W_jk r_k,
 * summed in the order of the library's sweeps (ascending k, row by row), so
 * that the block map of an ill-conditioned W_jj sees the same v_j. */
static void local_free_velocity(const problem *p, const double *r, int j, double v[3]) {
    int m = 3 * p->n;
    v[0] = p->q[3 * j], v[1] = p->q[3 * j + 1], v[2] = p->q[3 * j + 2];
    for (int k = 0; k < p->n; ++k) {
        if (k == j) {
            continue;
        }
        const double *x = r + 3 * k;
        for (int a = 0; a < 3; ++a) {
            const double *B = p->W + (3 * j + a) * m + 3 * k;
            v[a] += B[0] * x[0] + B[1] * x[1] + B[2] * x[2];
        }
    }
}

static void check_solution(const problem *p, const double *r, const double *u,
                           const nscd_fc3d_info *info) {
    int n = p->n, m = 3 * n;
    const nscd_fc3d_options *o = &p->opts;
    FZ_REQUIRE(fz_all_finite(r, (size_t)m), "r not finite");
    if (!(o->tolerance < 1e-3)) {
        return; /* a corrupted, huge tolerance accepts (almost) anything */
    }
    int newton = o->method == NSCD_FC3D_NEWTON || o->method == NSCD_FC3D_PROX;
    FZ_REQUIRE(info->converged == 1 && info->merit <= o->tolerance &&
                   (newton ? info->iterations == 0 : info->iterations >= 1) &&
                   info->iterations <= o->max_iterations && info->merit_evaluations >= 1 &&
                   info->local_failures >= 0 && info->newton_iterations >= 0 &&
                   info->newton_iterations <= (newton ? 1 : 2) * o->max_iterations &&
                   (newton || o->method == NSCD_FC3D_AUTO || info->newton_iterations == 0) &&
                   (!newton || info->newton_failure == NSCD_FC3D_NEWTON_NO_FAILURE),
               "info inconsistent: converged %d merit %g iterations %d evaluations %d failures %d",
               (int)info->converged, info->merit, (int)info->iterations,
               (int)info->merit_evaluations, (int)info->local_failures);
    /* u = W r + q, recomputed */
    double uu[NR], wmax = fz_max_abs(p->W, (size_t)m * (size_t)m);
    fz_gemv((size_t)m, (size_t)m, p->W, r, p->q, uu);
    double rnorm = fz_norm(r, (size_t)m), qnorm = fz_norm(p->q, (size_t)m);
    if (!(wmax * rnorm * m + qnorm < 1e150) || !(wmax < 1e150)) {
        return; /* extreme corrupted data: u may overflow, the tolerances below would */
    }
    FZ_REQUIRE(fz_all_finite(u, (size_t)m), "u not finite");
    double round_u = 1e-11 * (wmax * rnorm * m + qnorm);
    for (int i = 0; i < m; ++i) {
        FZ_REQUIRE(fabs(uu[i] - u[i]) <= round_u, "u[%d] = %.17g but W r + q = %.17g", i, u[i],
                   uu[i]);
    }
    /* the merit, recomputed */
    double qscale = qnorm > 0.0 ? qnorm : 1.0, e2 = 0.0;
    double s[NC];
    int general[NC] = {0}; /* maximum dissipation on a block the analytic solver refuses */
    for (int j = 0; j < n; ++j) {
        const double *D = p->W + (3 * j) * m + 3 * j;
        s[j] = (D[0] + D[m + 1] + D[2 * m + 2]) / 3.0;
        const double *rj = r + 3 * j;
        if (o->friction_law == NSCD_FC3D_COULOMB) {
            double res = fz_coulomb_residual(rj, uu + 3 * j, p->mu[j], s[j]);
            e2 += res * res;
        } else {
            double A[9], v[3], b[3], x[3];
            for (int a = 0; a < 3; ++a) {
                for (int c = 0; c < 3; ++c) {
                    A[3 * a + c] = D[a * m + c];
                }
            }
            local_free_velocity(p, r, j, v);
            b[0] = -v[0], b[1] = -v[1], b[2] = -v[2];
            if (p->asym || nscd_mdp_single_contact(A, b, p->mu[j], x) != NSCD_OK) {
                /* a corrupted block, not symmetric positive definite: fc3d solves
                 * the variational inequality of the block as given, or proximal
                 * steps (src/contact/solvers/fc3d_block.c), which the analytic solver
                 * cannot check; test_fc3d_nonsymmetric.c checks that law. Here
                 * only the cone, Signorini and complementarity (below). */
                general[j] = 1;
                continue;
            }
            for (int a = 0; a < 3; ++a) {
                double d = s[j] * (rj[a] - x[a]);
                e2 += d * d;
            }
        }
    }
    /* the library's merit uses its own u; allow for the rounding of u */
    double mu_max = fz_max_abs(p->mu, (size_t)n);
    double slack = 4.0 * (1.0 + mu_max) * round_u * sqrt((double)m) / qscale;
    double merit = sqrt(e2) / qscale;
    FZ_REQUIRE(merit <= o->tolerance * 1.000001 + slack,
               "merit recomputed %.17g > tolerance %g (library: %g, slack %g)", merit, o->tolerance,
               info->merit, slack);
    /* per contact: cone, Signorini, complementarity, up to what the merit allows */
    double E = (o->tolerance * 1.000001 + slack) * qscale + round_u; /* bound of ||e_j|| */
    double dissipation_tol = 0.0;
    for (int j = 0; j < n; ++j) {
        const double *rj = r + 3 * j, *uj = uu + 3 * j;
        double mu = p->mu[j], k = sqrt(1.0 + mu * mu);
        double rt = hypot(rj[1], rj[2]), ut = hypot(uj[1], uj[2]);
        double tr = k * E / s[j] + 1e-12 * fz_norm(rj, 3);
        FZ_REQUIRE(rt <= mu * rj[0] + tr && rj[0] >= -tr,
                   "contact %d outside its cone: r = (%g, %g, %g), mu = %g (tolerance %g)", j,
                   rj[0], rj[1], rj[2], mu, tr);
        FZ_REQUIRE(uj[0] >= -3.0 * k * E, "contact %d: u_n = %.17g < 0 (tolerance %g)", j, uj[0],
                   3.0 * k * E);
        double tc =
            3.0 * (1.0 + mu) * E * (s[j] * fz_norm(rj, 3) + fz_norm(uj, 3) + mu * ut + E) / s[j];
        FZ_REQUIRE(fabs(rj[0] * uj[0]) <= tc, "contact %d: r_n u_n = %.17g (tolerance %g)", j,
                   rj[0] * uj[0], tc);
        dissipation_tol += tc + (1.0 + mu) * tr * fz_norm(uj, 3);
    }
    if (p->psd) {
        /* kinetic energy change r'q + r'W r / 2 = r'(u + q) / 2; for Coulomb it is
         * r'u - r'W r / 2 <= 0 contact by contact; maximum dissipation only makes
         * each block's change <= 0 with the others fixed (checked below), but the
         * fixed point has never been seen to create energy either */
        double dT = 0.0;
        for (int i = 0; i < m; ++i) {
            dT += 0.5 * r[i] * (uu[i] + p->q[i]);
        }
        double tol = dissipation_tol + 1e-10 * rnorm * (wmax * rnorm * m + qnorm);
        FZ_REQUIRE(dT <= tol, "the impulses create kinetic energy: %.17g (tolerance %g)", dT, tol);
    }
    if (o->friction_law == NSCD_FC3D_MAX_DISSIPATION) {
        for (int j = 0; j < n; ++j) {
            if (general[j]) {
                continue; /* no energy for a non-symmetric block */
            }
            const double *rj = r + 3 * j, *D = p->W + (3 * j) * m + 3 * j;
            double v[3];
            local_free_velocity(p, r, j, v);
            double f = 0.0;
            for (int a = 0; a < 3; ++a) {
                double Dr = D[a * m] * rj[0] + D[a * m + 1] * rj[1] + D[a * m + 2] * rj[2];
                f += rj[a] * (v[a] + 0.5 * Dr);
            }
            double tol = fz_norm(uu + 3 * j, 3) * E / s[j] + 2.0 * E * E / s[j] +
                         1e-10 * fz_norm(rj, 3) * (wmax * rnorm * m + qnorm);
            FZ_REQUIRE(f <= tol, "contact %d: MDP impulse creates energy %.17g (tolerance %g)", j,
                       f, tol);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_reader rd = fz_make(data, size);
    fz_corruption c;
    static problem storage;
    problem *p = &storage;
    decode(&rd, &c, p);
    if (p->heap_on) {
        p->opts.allocator.user = &p->heap;
    }
    int n = p->n > 0 ? p->n : 0, m = 3 * n;
    if (fz_verbose()) {
        fprintf(stderr,
                "n = %d mode %d law %d method %d warm %d tol %g maxit %d relax %g w %g "
                "groups %d heap %d fail_after %ld accel %d memory %d asym %d\n",
                (int)p->n, p->mode, (int)p->opts.friction_law, (int)p->opts.method,
                (int)p->opts.warm_start, p->opts.tolerance, (int)p->opts.max_iterations,
                p->opts.relaxation, p->opts.jacobi_weight, (int)p->opts.jacobi_groups, p->heap_on,
                p->heap.fail_after, (int)p->opts.acceleration, (int)p->opts.anderson_memory,
                p->asym);
        fz_print("W", p->W, (size_t)(m * m));
        fz_print("q", p->q, (size_t)m);
        fz_print("mu", p->mu, (size_t)n);
        fz_print("r0", p->r0, (size_t)m);
    }
    const double sentinel = 777.0;
    double r[NR], u[NR], r2[NR], u2[NR];
    for (int i = 0; i < NR; ++i) {
        r[i] = r2[i] = p->r0[i];
        u[i] = u2[i] = sentinel;
    }
    nscd_fc3d_info info, info2;
    memset(&info, 0x5a, sizeof info);
    info.struct_size = (uint32_t)sizeof info + (p->bad_info_size ? 4u : 0u);
    info2 = info;
    nscd_status st =
        nscd_fc3d_solve_dense(p->n, p->null_arg == 1 ? NULL : p->W, p->null_arg == 2 ? NULL : p->q,
                              p->null_arg == 3 ? NULL : p->mu, &p->opts,
                              p->null_arg == 4 ? NULL : r, p->null_arg == 5 ? NULL : u, &info);
    FZ_REQUIRE(!p->heap_on || p->heap.live == 0, "%ld blocks leaked", p->heap.live);
    if (fz_verbose()) {
        fprintf(stderr, "status %d (%s), %d iterations, merit %g\n", FZ_STATUS_ARGS(st),
                (int)info.iterations, info.merit);
    }

    nscd_status want = expected_status(p);
    int heap_failed = p->heap_on && p->heap.failures > 0;
    if (want != NSCD_OK) {
        FZ_REQUIRE(st == want, "status %d (%s), expected %d", FZ_STATUS_ARGS(st), (int)want);
    } else {
        FZ_REQUIRE(st == NSCD_OK || st == NSCD_ERR_NOT_CONVERGED || st == NSCD_ERR_NOT_SPD ||
                       st == NSCD_ERR_OUT_OF_MEMORY,
                   "status %d (%s)", FZ_STATUS_ARGS(st));
        if (st == NSCD_ERR_NOT_SPD) {
            /* only a corrupted diagonal block may be rejected */
            FZ_REQUIRE(c.active && c.index >= P_DATA, "valid diagonal blocks rejected (NOT_SPD)");
        }
        FZ_REQUIRE((st == NSCD_ERR_OUT_OF_MEMORY) == (heap_failed && st != NSCD_ERR_NOT_SPD),
                   "status %d (%s) but the allocator %s", FZ_STATUS_ARGS(st),
                   heap_failed ? "failed" : "never failed");
    }
    if (st != NSCD_OK && st != NSCD_ERR_NOT_CONVERGED) {
        for (int i = 0; i < NR; ++i) {
            FZ_REQUIRE(fz_same_bits(&r[i], &p->r0[i], 1) && u[i] == sentinel,
                       "r or u written on failure");
        }
        FZ_REQUIRE(info.iterations == info2.iterations &&
                       info.local_failures == info2.local_failures,
                   "info written on failure");
        return 0;
    }

    /* the BSR solver on the same problem: bitwise the same */
    int32_t row_ptr[NC + 1], col[NC * NC];
    static double blocks[9 * NC * NC];
    to_bsr(p, row_ptr, col, blocks);
    p->heap.count = 0;
    p->heap.fail_after = -1;
    nscd_status st2 =
        nscd_fc3d_solve_bsr(p->n, row_ptr, col, blocks, p->q, p->mu, &p->opts, r2, u2, &info2);
    FZ_REQUIRE(!p->heap_on || p->heap.live == 0, "BSR: %ld blocks leaked", p->heap.live);
    FZ_REQUIRE(st2 == st, "BSR status %d (%s), dense %d", FZ_STATUS_ARGS(st2), (int)st);
    FZ_REQUIRE(fz_same_bits(r, r2, (size_t)m) && fz_same_bits(u, u2, (size_t)m) &&
                   info.iterations == info2.iterations &&
                   info.newton_iterations == info2.newton_iterations &&
                   info.newton_failure == info2.newton_failure &&
                   fz_same_bits(&info.merit, &info2.merit, 1) &&
                   info.local_failures == info2.local_failures,
               "dense and BSR solvers differ");

    if (st == NSCD_ERR_NOT_CONVERGED) {
        FZ_REQUIRE(info.converged == 0 && !(info.merit <= p->opts.tolerance),
                   "NOT_CONVERGED with converged = %d, merit %g", (int)info.converged, info.merit);
        FZ_REQUIRE(fz_all_finite(r, (size_t)m) || !fz_all_finite(&info.merit, 1),
                   "NOT_CONVERGED with a finite merit %g but r not finite", info.merit);
        return 0;
    }
    check_solution(p, r, u, &info);
    return 0;
}
