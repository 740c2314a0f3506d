/* fc3d sweeps with Anderson acceleration (nscd_fc3d_options.acceleration,
 * docs/fc3d.md "Acceleration") against the plain sweeps, on random granular
 * packings: spheres (and eccentric grains) on a jittered cubic lattice pressed
 * together and onto a floor, W = H M^-1 H' from the grains' masses and
 * inertias.
 *
 * Coulomb solutions are checked independently of the library by
 * E1 = ||r - P_K(r - u~)|| / (1 + ||q||) (u~ = De Saxce's modified velocity,
 * P_K the projection onto the friction cone), as in test_fc3d_nonsymmetric.c;
 * maximum dissipation by the cone and the non-penetration of the result. The
 * sweep counts are compared by a bound (accelerated at most twice plain plus a
 * few), never by an exact count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nscd/nscd.h"
#include "test_random.h"

#define LX 4
#define LY 4
#define LZ 3
#define NB (LX * LY * LZ)       /* grains */
#define NMAX (3 * NB + LX * LY) /* lattice neighbour pairs and floor contacts, at most */
#define MMAX (3 * NMAX)

/* Deterministic uniform numbers in [-1, 1). */
static void cross(const double a[3], const double b[3], double c[3]) {
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

typedef struct packing {
    int32_t n; /* contacts */
    double W[MMAX * MMAX], q[MMAX], mu[NMAX];
} packing;

/* Contact frame rows n, t, o from the unit normal n. */
static void frame(const double n[3], double F[9]) {
    double a[3] = {1.0, 0.0, 0.0}, t[3], o[3];
    if (fabs(n[0]) > 0.6) {
        a[0] = 0.0, a[1] = 1.0;
    }
    cross(n, a, t);
    double nt = norm(t, 3);
    for (int i = 0; i < 3; ++i) {
        t[i] /= nt;
    }
    cross(n, t, o);
    for (int i = 0; i < 3; ++i) {
        F[i] = n[i], F[3 + i] = t[i], F[6 + i] = o[i];
    }
}

/* Rows of contact c for one grain: J = sign F [I | -[rho]x], rho = point - com. */
static void jacobian(const double F[9], const double point[3], const double com[3], double sign,
                     double J[18]) {
    double rho[3] = {point[0] - com[0], point[1] - com[1], point[2] - com[2]};
    for (int row = 0; row < 3; ++row) {
        double fr[3];
        cross(rho, F + 3 * row, fr);
        for (int e = 0; e < 3; ++e) {
            J[6 * row + e] = sign * F[3 * row + e];
            J[6 * row + 3 + e] = sign * fr[e];
        }
    }
}

/* Unit spheres (diameter 1, mass 1) on a cubic lattice of spacing 1 jittered by
 * +-0.05; a contact for every lattice neighbour pair closer than 1.02 and for
 * every bottom grain on the floor z = 0. Eccentric grains (ecc > 0): the
 * centre of mass moved by ecc * 0.5 in a random direction, principal moments
 * varied by +-50 %. Velocities: random in [-1, 1] plus a compression towards
 * the centre and the floor. mu in [0.3, 0.5]. */
static void make_packing(uint64_t seed, double ecc, packing *p) {
    uint64_t s = seed;
    double x[NB][3], com[NB][3], iinv[NB][3], v[NB][6];
    for (int i = 0; i < LX; ++i) {
        for (int j = 0; j < LY; ++j) {
            for (int k = 0; k < LZ; ++k) {
                int b = (i * LY + j) * LZ + k;
                double c[3] = {i, j, k + 0.5};
                for (int e = 0; e < 3; ++e) {
                    x[b][e] = c[e] + 0.05 * rnd(&s);
                }
                double d[3] = {rnd(&s), rnd(&s), rnd(&s)}, nd = norm(d, 3) + 1e-300;
                for (int e = 0; e < 3; ++e) {
                    com[b][e] = x[b][e] + ecc * 0.5 * d[e] / nd;
                    double spread = ecc > 0.0 ? 1.0 + 0.5 * rnd(&s) : 1.0;
                    iinv[b][e] = 1.0 / (0.1 * spread);
                }
                double toward[3] = {0.5 * (LX - 1) - c[0], 0.5 * (LY - 1) - c[1], -1.0};
                for (int e = 0; e < 3; ++e) {
                    v[b][e] = rnd(&s) + 0.2 * toward[e];
                    v[b][3 + e] = rnd(&s);
                }
            }
        }
    }
    /* contacts: (a, b) with a = -1 for the floor */
    int32_t ca[NMAX], cb[NMAX];
    double F[NMAX][9], pt[NMAX][3];
    int32_t n = 0;
    for (int b = 0; b < NB; ++b) {
        int i = b / (LY * LZ), j = (b / LZ) % LY, k = b % LZ;
        const int nb_idx[3] = {i + 1 < LX ? b + LY * LZ : -1, j + 1 < LY ? b + LZ : -1,
                               k + 1 < LZ ? b + 1 : -1};
        for (int d = 0; d < 3; ++d) {
            int o = nb_idx[d];
            if (o < 0) {
                continue;
            }
            double nv[3] = {x[o][0] - x[b][0], x[o][1] - x[b][1], x[o][2] - x[b][2]};
            double dist = norm(nv, 3);
            if (dist > 1.02) {
                continue;
            }
            for (int e = 0; e < 3; ++e) {
                nv[e] /= dist;
                pt[n][e] = 0.5 * (x[o][e] + x[b][e]);
            }
            frame(nv, F[n]);
            ca[n] = b, cb[n] = o;
            ++n;
        }
        if (k == 0) {
            double up[3] = {0.0, 0.0, 1.0};
            frame(up, F[n]);
            pt[n][0] = x[b][0], pt[n][1] = x[b][1], pt[n][2] = x[b][2] - 0.5;
            ca[n] = -1, cb[n] = b;
            ++n;
        }
    }
    p->n = n;
    int32_t m = 3 * n;
    memset(p->W, 0, sizeof p->W);
    memset(p->q, 0, sizeof p->q);
    /* W_jk = sum over the grains g of both: J_jg M_g^-1 J_kg'; q_j = sum J_jg v_g */
    for (int32_t j = 0; j < n; ++j) {
        for (int sj = 0; sj < 2; ++sj) {
            int32_t g = sj == 0 ? ca[j] : cb[j];
            if (g < 0) {
                continue;
            }
            double Jj[18];
            jacobian(F[j], pt[j], com[g], sj == 0 ? -1.0 : 1.0, Jj);
            for (int row = 0; row < 3; ++row) {
                for (int e = 0; e < 6; ++e) {
                    p->q[3 * j + row] += Jj[6 * row + e] * v[g][e];
                }
            }
            for (int32_t k = 0; k < n; ++k) {
                int sk = ca[k] == g ? 0 : (cb[k] == g ? 1 : -1);
                if (sk < 0) {
                    continue;
                }
                double Jk[18];
                jacobian(F[k], pt[k], com[g], sk == 0 ? -1.0 : 1.0, Jk);
                for (int r = 0; r < 3; ++r) {
                    for (int c = 0; c < 3; ++c) {
                        double t = 0.0;
                        for (int e = 0; e < 6; ++e) {
                            t += Jj[6 * r + e] * Jk[6 * c + e] * (e < 3 ? 1.0 : iinv[g][e - 3]);
                        }
                        p->W[(size_t)(3 * j + r) * m + 3 * k + c] += t;
                    }
                }
            }
        }
        p->mu[j] = 0.4 + 0.1 * rnd(&s);
    }
}

/* Euclidean projection onto K_mu = { ||(y1, y2)|| <= mu y0 }. */
static void project_cone(const double y[3], double mu, double p[3]) {
    double t = hypot(y[1], y[2]);
    if (t <= mu * y[0]) {
        p[0] = y[0], p[1] = y[1], p[2] = y[2];
    } else if (mu * t <= -y[0]) {
        p[0] = p[1] = p[2] = 0.0;
    } else {
        double a = (mu * t + y[0]) / (mu * mu + 1.0);
        p[0] = a;
        p[1] = mu * a * y[1] / t;
        p[2] = mu * a * y[2] / t;
    }
}

static void velocity(const packing *p, const double *r, double *u) {
    int32_t m = 3 * p->n;
    for (int32_t i = 0; i < m; ++i) {
        u[i] = p->q[i];
        for (int32_t k = 0; k < m; ++k) {
            u[i] += p->W[(size_t)i * m + k] * r[k];
        }
    }
}

/* E1 = ||r - P_K(r - u~)|| / (1 + ||q||). */
static double coulomb_e1(const packing *p, const double *r) {
    static double u[MMAX];
    double e2 = 0.0;
    velocity(p, r, u);
    for (int32_t j = 0; j < p->n; ++j) {
        const double *rj = r + 3 * j, *uj = u + 3 * j;
        double ut = hypot(uj[1], uj[2]);
        double y[3] = {rj[0] - (uj[0] + p->mu[j] * ut), rj[1] - uj[1], rj[2] - uj[2]}, pr[3];
        project_cone(y, p->mu[j], pr);
        for (int i = 0; i < 3; ++i) {
            e2 += (rj[i] - pr[i]) * (rj[i] - pr[i]);
        }
    }
    return sqrt(e2) / (1.0 + norm(p->q, 3 * p->n));
}

/* Largest violation of the cone and of u_n >= 0 where r_n > 0 (maximum
 * dissipation), relative to the scale of r and of q. */
static double mdp_violation(const packing *p, const double *r) {
    static double u[MMAX];
    velocity(p, r, u);
    double rs = norm(r, 3 * p->n) + 1e-300, qs = norm(p->q, 3 * p->n), worst = 0.0;
    for (int32_t j = 0; j < p->n; ++j) {
        const double *rj = r + 3 * j;
        worst = fmax(worst, (hypot(rj[1], rj[2]) - p->mu[j] * rj[0]) / rs);
        worst = fmax(worst, -rj[0] / rs);
        worst = fmax(worst, -u[3 * j] / qs);
    }
    return worst;
}

static nscd_fc3d_options options(int32_t law, int32_t accel) {
    nscd_fc3d_options o;
    assert_int_equal(nscd_fc3d_options_init(&o, sizeof o), NSCD_OK);
    assert_int_equal(o.acceleration, NSCD_FC3D_ACCEL_NONE); /* the documented default */
    assert_int_equal(o.anderson_memory, 5);
    o.friction_law = law;
    o.acceleration = accel;
    o.tolerance = 1e-10;
    o.max_iterations = 20000;
    o.warm_start = 0;
    return o;
}

static int32_t solve(const packing *p, const nscd_fc3d_options *o, double *r,
                     nscd_fc3d_info *info) {
    static double u[MMAX];
    info->struct_size = sizeof *info;
    return nscd_fc3d_solve_dense(p->n, p->W, p->q, p->mu, o, r, u, info);
}

/* Both laws, spheres and eccentric grains: plain and accelerated sweeps reach
 * the tolerance, the Coulomb results pass E1, and the accelerated sweeps take
 * at most twice as many sweeps as the plain ones (plus 10). */
static void anderson_and_plain_solve_random_packings(void **state) {
    (void)state;
    static packing p;
    static double r0[MMAX], r1[MMAX];
    int32_t total_plain = 0, total_aa = 0;
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        for (int g = 0; g < 2; ++g) {
            make_packing(seed, g == 0 ? 0.0 : 0.3, &p);
            assert_true(p.n > NB);
            for (int law = 0; law < 2; ++law) {
                nscd_fc3d_options plain = options(law, NSCD_FC3D_ACCEL_NONE);
                nscd_fc3d_options aa = options(law, NSCD_FC3D_ACCEL_ANDERSON);
                nscd_fc3d_info i0, i1;
                assert_int_equal(solve(&p, &plain, r0, &i0), NSCD_OK);
                assert_int_equal(solve(&p, &aa, r1, &i1), NSCD_OK);
                assert_true(i1.merit <= aa.tolerance);
                if (law == NSCD_FC3D_COULOMB) {
                    double e0 = coulomb_e1(&p, r0), e1 = coulomb_e1(&p, r1);
                    if (!(e0 <= 1e-8 && e1 <= 1e-8)) {
                        fail_msg("seed %d grains %d: E1 plain %g, Anderson %g", (int)seed, g, e0,
                                 e1);
                    }
                } else {
                    double v0 = mdp_violation(&p, r0), v1 = mdp_violation(&p, r1);
                    if (!(v0 <= 1e-8 && v1 <= 1e-8)) {
                        fail_msg("seed %d grains %d: violation plain %g, Anderson %g", (int)seed, g,
                                 v0, v1);
                    }
                }
                assert_true(norm(r1, 3 * p.n) > 0.1); /* a loaded packing, not all take-off */
                if (!(i1.iterations <= 2 * i0.iterations + 10)) {
                    fail_msg("seed %d grains %d law %d: %d accelerated sweeps, %d plain", (int)seed,
                             g, law, i1.iterations, i0.iterations);
                }
                total_plain += i0.iterations;
                total_aa += i1.iterations;
            }
        }
    }
    /* on the whole set the acceleration pays (a bound, not a count) */
    assert_true(total_aa < total_plain);
}

/* Bitwise the same result run after run; the Jacobi blend accelerated too;
 * every memory from 1 to the largest converges. */
static void anderson_is_deterministic_and_takes_every_memory(void **state) {
    (void)state;
    static packing p;
    static double ra[MMAX], rb[MMAX];
    make_packing(7, 0.3, &p);
    nscd_fc3d_options o = options(NSCD_FC3D_COULOMB, NSCD_FC3D_ACCEL_ANDERSON);
    nscd_fc3d_info ia, ib;
    assert_int_equal(solve(&p, &o, ra, &ia), NSCD_OK);
    assert_int_equal(solve(&p, &o, rb, &ib), NSCD_OK);
    assert_memory_equal(ra, rb, 3 * (size_t)p.n * sizeof *ra);
    assert_int_equal(ia.iterations, ib.iterations);
    o.method = NSCD_FC3D_JACOBI_BLEND;
    assert_int_equal(solve(&p, &o, rb, &ib), NSCD_OK);
    assert_true(coulomb_e1(&p, rb) <= 1e-8);
    o.method = NSCD_FC3D_GAUSS_SEIDEL;
    for (int32_t mem = 1; mem <= NSCD_FC3D_ANDERSON_MAX_MEMORY; mem += 5) {
        o.anderson_memory = mem;
        assert_int_equal(solve(&p, &o, rb, &ib), NSCD_OK);
        assert_true(coulomb_e1(&p, rb) <= 1e-8);
    }
    /* warm start from the solution: one sweep */
    o.warm_start = 1;
    memcpy(rb, ra, sizeof ra);
    assert_int_equal(solve(&p, &o, rb, &ib), NSCD_OK);
    assert_int_equal(ib.iterations, 1);
}

/* Not converged: the last sweep's result (in the cones), u consistent with it. */
static void anderson_not_converged_returns_a_sweep_result(void **state) {
    (void)state;
    static packing p;
    static double r[MMAX], u[MMAX], uu[MMAX];
    make_packing(3, 0.3, &p);
    nscd_fc3d_options o = options(NSCD_FC3D_COULOMB, NSCD_FC3D_ACCEL_ANDERSON);
    o.max_iterations = 4;
    nscd_fc3d_info info = {.struct_size = sizeof info};
    assert_int_equal(nscd_fc3d_solve_dense(p.n, p.W, p.q, p.mu, &o, r, u, &info),
                     NSCD_ERR_NOT_CONVERGED);
    assert_int_equal(info.iterations, 4);
    assert_true(info.merit > o.tolerance && isfinite(info.merit));
    velocity(&p, r, uu);
    for (int32_t j = 0; j < p.n; ++j) {
        assert_true(hypot(r[3 * j + 1], r[3 * j + 2]) <= p.mu[j] * r[3 * j] * (1 + 1e-12) + 1e-300);
        for (int i = 0; i < 3; ++i) {
            assert_true(fabs(u[3 * j + i] - uu[3 * j + i]) <= 1e-12 * (1.0 + fabs(uu[3 * j + i])));
        }
    }
}

/* Bad acceleration options are refused and change nothing; a 0.1-sized
 * options struct gets the plain sweeps. */
static void acceleration_options_are_checked(void **state) {
    (void)state;
    static packing p;
    static double r[MMAX], u[MMAX], ra[MMAX];
    make_packing(2, 0.0, &p);
    nscd_fc3d_options o = options(NSCD_FC3D_COULOMB, 2);
    for (int32_t i = 0; i < 3 * p.n; ++i) {
        r[i] = 7.0, u[i] = 8.0;
    }
    assert_int_equal(nscd_fc3d_solve_dense(p.n, p.W, p.q, p.mu, &o, r, u, NULL),
                     NSCD_ERR_INVALID_ARGUMENT);
    o.acceleration = NSCD_FC3D_ACCEL_ANDERSON;
    const int32_t bad_memory[3] = {0, -1, NSCD_FC3D_ANDERSON_MAX_MEMORY + 1};
    for (int k = 0; k < 3; ++k) {
        o.anderson_memory = bad_memory[k];
        assert_int_equal(nscd_fc3d_solve_dense(p.n, p.W, p.q, p.mu, &o, r, u, NULL),
                         NSCD_ERR_OUT_OF_RANGE);
    }
    for (int32_t i = 0; i < 3 * p.n; ++i) {
        assert_true(r[i] == 7.0 && u[i] == 8.0);
    }
    /* the 0.1 prefix (up to the allocator) with garbage after it: plain sweeps */
    nscd_fc3d_options old = options(NSCD_FC3D_COULOMB, NSCD_FC3D_ACCEL_NONE);
    nscd_fc3d_info ia, ib;
    assert_int_equal(solve(&p, &old, ra, &ia), NSCD_OK);
    old.struct_size = (uint32_t)(offsetof(nscd_fc3d_options, allocator) + sizeof old.allocator);
    old.acceleration = 99;
    old.anderson_memory = -5;
    assert_int_equal(solve(&p, &old, r, &ib), NSCD_OK);
    assert_memory_equal(r, ra, 3 * (size_t)p.n * sizeof *r);
}

/* A column of CN point masses on a floor (contact 0 with the floor, contact i
 * between masses i - 1 and i; W block-tridiagonal, block-CSR), each mass with
 * its own tangential velocity. */
#define CN 100
typedef struct chain {
    int32_t row_ptr[CN + 1], col_idx[3 * CN];
    double blocks[27 * CN], q[3 * CN], mu[CN];
} chain;

static void make_chain(uint64_t seed, chain *c) {
    uint64_t s = seed;
    double v[CN][3];
    for (int32_t b = 0; b < CN; ++b) {
        v[b][0] = -1.0, v[b][1] = 0.3 * rnd(&s), v[b][2] = 0.3 * rnd(&s);
    }
    int32_t nb = 0;
    for (int32_t i = 0; i < CN; ++i) {
        c->row_ptr[i] = nb;
        for (int32_t k = i - 1; k <= i + 1; ++k) {
            if (k < 0 || k >= CN) {
                continue;
            }
            double d = k == i ? (i == 0 ? 1.0 : 2.0) : -1.0;
            double *B = c->blocks + 9 * nb;
            memset(B, 0, 9 * sizeof *B);
            B[0] = B[4] = B[8] = d;
            c->col_idx[nb++] = k;
        }
        for (int e = 0; e < 3; ++e) {
            c->q[3 * i + e] = i == 0 ? v[0][e] : v[i][e] - v[i - 1][e];
        }
        c->mu[i] = 0.5;
    }
    c->row_ptr[CN] = nb;
}

/* E1 of the chain, u = W r + q from the tridiagonal structure itself. */
static double chain_e1(const chain *c, const double *r) {
    double e2 = 0.0;
    for (int32_t j = 0; j < CN; ++j) {
        double u[3];
        for (int e = 0; e < 3; ++e) {
            double below = j > 0 ? r[3 * (j - 1) + e] : 0.0;
            double above = j + 1 < CN ? r[3 * (j + 1) + e] : 0.0;
            u[e] = c->q[3 * j + e] + (j == 0 ? 1.0 : 2.0) * r[3 * j + e] - below - above;
        }
        const double *rj = r + 3 * j;
        double ut = hypot(u[1], u[2]);
        double y[3] = {rj[0] - (u[0] + c->mu[j] * ut), rj[1] - u[1], rj[2] - u[2]}, pr[3];
        project_cone(y, c->mu[j], pr);
        for (int i = 0; i < 3; ++i) {
            e2 += (rj[i] - pr[i]) * (rj[i] - pr[i]);
        }
    }
    return sqrt(e2) / (1.0 + norm(c->q, 3 * CN));
}

/* A residual held by a few contacts (a solution with one contact disturbed):
 * the accelerated sweeps run their local sweeps there (docs/fc3d.md "Local
 * sweeps") and still return a solution of the whole problem, checked by E1,
 * the same bits run after run. */
static void local_sweeps_keep_the_solution_exact(void **state) {
    (void)state;
    static chain c;
    static double r0[3 * CN], r[3 * CN], rb[3 * CN], u[3 * CN];
    make_chain(11, &c);
    nscd_fc3d_options o = options(NSCD_FC3D_COULOMB, NSCD_FC3D_ACCEL_ANDERSON);
    o.max_iterations = 200000;
    o.tolerance = 1e-12;
    nscd_fc3d_info info = {.struct_size = sizeof info};
    assert_int_equal(
        nscd_fc3d_solve_bsr(CN, c.row_ptr, c.col_idx, c.blocks, c.q, c.mu, &o, r0, u, &info),
        NSCD_OK);
    assert_true(chain_e1(&c, r0) <= 1e-10);
    /* the normal impulses carry the masses above: CN - j for contact j */
    assert_true(fabs(r0[3 * (CN / 2)] - (CN - CN / 2)) <= 1e-6 * CN);
    o.tolerance = 1e-10;
    o.warm_start = 1;
    memcpy(r, r0, sizeof r);
    for (int e = 0; e < 3; ++e) {
        r[3 * (CN - 1) + e] *= 1.25; /* still in the cone */
    }
    assert_int_equal(
        nscd_fc3d_solve_bsr(CN, c.row_ptr, c.col_idx, c.blocks, c.q, c.mu, &o, r, u, &info),
        NSCD_OK);
    if (!(chain_e1(&c, r) <= 1e-8)) {
        fail_msg("E1 %g", chain_e1(&c, r));
    }
    memcpy(rb, r0, sizeof rb);
    for (int e = 0; e < 3; ++e) {
        rb[3 * (CN - 1) + e] *= 1.25;
    }
    assert_int_equal(
        nscd_fc3d_solve_bsr(CN, c.row_ptr, c.col_idx, c.blocks, c.q, c.mu, &o, rb, u, &info),
        NSCD_OK);
    assert_memory_equal(r, rb, sizeof r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(anderson_and_plain_solve_random_packings),
        cmocka_unit_test(anderson_is_deterministic_and_takes_every_memory),
        cmocka_unit_test(anderson_not_converged_returns_a_sweep_result),
        cmocka_unit_test(acceleration_options_are_checked),
        cmocka_unit_test(local_sweeps_keep_the_solution_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
