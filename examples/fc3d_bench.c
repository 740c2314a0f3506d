/* fc3d_bench: the multi-contact solver on granular-like impact problems.
 *
 * A packing of equal spheres (the grains of Sect. 4.3 of seed 002: diameter
 * 0.47 mm, density 2.65 g/cm^3) sits on a jittered face-centred cubic lattice
 * with random vacancies, in a channel with walls in y and z. Every pair closer
 * than a small detection envelope, and every sphere near a wall, is a contact
 * with the frame (n, t, o), n from the first body to the second. The Delassus
 * matrix W = H M^-1 H' is built in 3x3 blocks (block-CSR) from the contact
 * frames and the sphere masses and inertias; q = H v from the paper's inflow
 * velocity field (1 m/s along the channel plus uniform +-0.5 m/s across it).
 * For each size the impact problem is solved with Coulomb and with
 * maximum-dissipation friction (mu = 0.4 as in the paper) by the nonlinear block
 * Gauss-Seidel, and optionally by the Jacobi blend.
 *
 * Usage: fc3d_bench [--json] [--min-contacts 100] [--max-contacts 10000]
 *        [--mu 0.4] [--tolerance 1e-6] [--max-iterations 5000] [--seed 1]
 *        [--eccentricity 0.3] [--grains both|spheres|eccentric]
 *        [--jacobi]   (also run the Jacobi blend with its defaults: 8 groups, weight 0.5)
 *        [--anderson] (Anderson-accelerated sweeps, nscd_fc3d_options.acceleration)
 *        [--write-fclib DIR]  (write each problem to DIR/fc3d_bench-GRAINS-NC.hdf5, an FCLIB
 *                              local problem, instead of solving it; needs libnscd_fclib)
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "example_cli.h"
#include "nscd/nscd.h"
#ifdef NSCD_FC3D_BENCH_FCLIB
#include "nscd/fclib.h"
#endif

#define DIAMETER 0.47e-3 /* m */
#define DENSITY 2650.0   /* kg/m^3 */
#define ENVELOPE 0.0     /* contact detection envelope, fraction of the diameter */
#define JITTER 0.03      /* lattice jitter, fraction of the diameter */
#define VACANCY 0.1      /* fraction of empty lattice sites */
#define MAX_BODY_CONTACTS 24
#define PI 3.14159265358979323846
#define CONTACTS_PER_CELL 7.5 /* measured: ~2.8 spheres and ~7.5 contacts per FCC cell */

/* ------------------------------------------------------------ small helpers */

static uint64_t rng_state;
static double uniform(void) { /* [0, 1) */
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (p == NULL) {
        fprintf(stderr, "fc3d_bench: out of memory\n");
        exit(1);
    }
    return p;
}

static void cross(const double a[3], const double b[3], double c[3]) {
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* ------------------------------------------------------------ the packing */

typedef struct contact {
    int32_t body[2]; /* body[0] = -1 for a wall */
    double frame[9]; /* rows n, t, o */
    double point[3];
} contact;

typedef struct packing {
    int32_t n_bodies, n_contacts;
    double *x;    /* 3 per body: geometric centre */
    double *com;  /* 3 per body: centre of mass */
    double *iinv; /* 3 per body: inverse principal moments (axes = world axes) */
    double *v;    /* 6 per body: linear, angular */
    contact *c;
    double mass;
} packing;

/* Completes a unit normal to an orthonormal frame (rows n, t, o). */
static void make_frame(const double n[3], double F[9]) {
    double a[3] = {1.0, 0.0, 0.0};
    if (fabs(n[0]) > 0.6) {
        a[0] = 0.0, a[1] = 1.0;
    }
    double t[3], o[3];
    cross(n, a, t);
    double nt = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    for (int i = 0; i < 3; ++i) {
        t[i] /= nt;
    }
    cross(n, t, o);
    for (int i = 0; i < 3; ++i) {
        F[i] = n[i], F[3 + i] = t[i], F[6 + i] = o[i];
    }
}

static void add_contact(packing *p, int32_t *cap, int32_t a, int32_t b, const double n[3],
                        const double point[3]) {
    if (p->n_contacts == *cap) {
        *cap *= 2;
        p->c = realloc(p->c, sizeof *p->c * (size_t)*cap);
        if (p->c == NULL) {
            fprintf(stderr, "fc3d_bench: out of memory\n");
            exit(1);
        }
    }
    contact *c = &p->c[p->n_contacts++];
    c->body[0] = a, c->body[1] = b;
    make_frame(n, c->frame);
    memcpy(c->point, point, sizeof c->point);
}

/* Jittered FCC lattice of nx x ny x nz cubic cells with vacancies, walls at the
 * extreme y and z planes; contacts found with a cell list. */
static void build_packing(int32_t nx, int32_t ny, int32_t nz, double eccentricity, packing *p) {
    const double d = DIAMETER, R = 0.5 * d, a = d * sqrt(2.0);
    const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    int32_t sites = 4 * nx * ny * nz;
    p->x = xcalloc((size_t)sites, 3 * sizeof *p->x);
    p->n_bodies = 0;
    for (int32_t i = 0; i < nx; ++i) {
        for (int32_t j = 0; j < ny; ++j) {
            for (int32_t k = 0; k < nz; ++k) {
                for (int b = 0; b < 4; ++b) {
                    if (uniform() < VACANCY) {
                        continue;
                    }
                    double *x = p->x + 3 * p->n_bodies++;
                    x[0] = a * (i + basis[b][0]) + JITTER * d * (2.0 * uniform() - 1.0);
                    x[1] = R + a * (j + basis[b][1]) + JITTER * d * (2.0 * uniform() - 1.0);
                    x[2] = R + a * (k + basis[b][2]) + JITTER * d * (2.0 * uniform() - 1.0);
                }
            }
        }
    }
    double ly = 2.0 * R + a * (ny - 0.5), lz = 2.0 * R + a * (nz - 0.5);
    /* Velocities as in the channel flow of Sect. 4.3. */
    p->v = xcalloc((size_t)p->n_bodies, 6 * sizeof *p->v);
    for (int32_t b = 0; b < p->n_bodies; ++b) {
        p->v[6 * b] = 1.0;
        p->v[6 * b + 1] = uniform() - 0.5;
        p->v[6 * b + 2] = uniform() - 0.5;
    }
    p->mass = DENSITY * PI * d * d * d / 6.0;
    /* Homogeneous spheres: centre of mass = centre, I = 2/5 m R^2. Eccentric
     * grains: the centre of mass is moved by eccentricity * R in a random
     * direction and the principal moments vary by +-50 %, which couples the
     * normal and tangential rows of W_jj (as for non-spherical particles). */
    p->com = xcalloc((size_t)p->n_bodies, 3 * sizeof *p->com);
    p->iinv = xcalloc((size_t)p->n_bodies, 3 * sizeof *p->iinv);
    for (int32_t b = 0; b < p->n_bodies; ++b) {
        double dir[3], nd = 0.0;
        for (int i = 0; i < 3; ++i) {
            dir[i] = 2.0 * uniform() - 1.0;
            nd += dir[i] * dir[i];
        }
        nd = sqrt(nd) + 1e-300;
        for (int i = 0; i < 3; ++i) {
            p->com[3 * b + i] = p->x[3 * b + i] + eccentricity * R * dir[i] / nd;
            double spread = eccentricity > 0.0 ? 1.0 + 0.5 * (2.0 * uniform() - 1.0) : 1.0;
            p->iinv[3 * b + i] = 1.0 / (0.1 * p->mass * d * d * spread);
        }
    }

    /* Cell list with cells of one contact distance. */
    const double reach = d * (1.0 + ENVELOPE);
    int32_t cx = (int32_t)(a * nx / reach) + 2, cy = (int32_t)(ly / reach) + 2,
            cz = (int32_t)(lz / reach) + 2;
    int32_t *head = xcalloc((size_t)cx * cy * cz, sizeof *head);
    int32_t *next = xcalloc((size_t)p->n_bodies, sizeof *next);
    for (int32_t i = 0; i < cx * cy * cz; ++i) {
        head[i] = -1;
    }
    int32_t *cell = xcalloc((size_t)p->n_bodies, 3 * sizeof *cell);
    for (int32_t b = 0; b < p->n_bodies; ++b) {
        for (int i = 0; i < 3; ++i) {
            cell[3 * b + i] = (int32_t)floor(p->x[3 * b + i] / reach) + 1;
        }
        int32_t id = (cell[3 * b] * cy + cell[3 * b + 1]) * cz + cell[3 * b + 2];
        next[b] = head[id];
        head[id] = b;
    }
    int32_t cap = 1024;
    p->c = xcalloc((size_t)cap, sizeof *p->c);
    p->n_contacts = 0;
    for (int32_t b = 0; b < p->n_bodies; ++b) {
        const double *xb = p->x + 3 * b;
        for (int32_t di = -1; di <= 1; ++di) {
            for (int32_t dj = -1; dj <= 1; ++dj) {
                for (int32_t dk = -1; dk <= 1; ++dk) {
                    int32_t i = cell[3 * b] + di, j = cell[3 * b + 1] + dj,
                            k = cell[3 * b + 2] + dk;
                    if (i < 0 || j < 0 || k < 0 || i >= cx || j >= cy || k >= cz) {
                        continue;
                    }
                    for (int32_t o = head[(i * cy + j) * cz + k]; o >= 0; o = next[o]) {
                        if (o <= b) {
                            continue;
                        }
                        const double *xo = p->x + 3 * o;
                        double n[3] = {xo[0] - xb[0], xo[1] - xb[1], xo[2] - xb[2]};
                        double dist = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
                        if (dist > reach) {
                            continue;
                        }
                        double pt[3];
                        for (int e = 0; e < 3; ++e) {
                            n[e] /= dist;
                            pt[e] = 0.5 * (xb[e] + xo[e]);
                        }
                        add_contact(p, &cap, b, o, n, pt);
                    }
                }
            }
        }
        /* walls y = 0, y = ly, z = 0, z = lz; normal from the wall into the sphere */
        const double walls[4][4] = {
            {0, 1, 0, 0.0}, {0, -1, 0, -ly}, {0, 0, 1, 0.0}, {0, 0, -1, -lz}};
        for (int w = 0; w < 4; ++w) {
            double gap =
                walls[w][0] * xb[0] + walls[w][1] * xb[1] + walls[w][2] * xb[2] - walls[w][3] - R;
            if (gap <= ENVELOPE * d) {
                double pt[3] = {xb[0] - R * walls[w][0], xb[1] - R * walls[w][1],
                                xb[2] - R * walls[w][2]};
                add_contact(p, &cap, -1, b, walls[w], pt);
            }
        }
    }
    free(cell);
    free(next);
    free(head);
}

static void free_packing(packing *p) {
    free(p->x);
    free(p->com);
    free(p->iinv);
    free(p->v);
    free(p->c);
}

/* ------------------------------------------------------------ W and q */

/* The 3x6 Jacobian block of contact c for body `side` (0 or 1):
 * u += sign F [v - [rho]x w], rho = point - x_body. */
static void jacobian(const packing *p, const contact *c, int side, double J[18]) {
    int32_t b = c->body[side];
    double sign = side == 1 ? 1.0 : -1.0;
    const double *x = p->com + 3 * b;
    double rho[3] = {c->point[0] - x[0], c->point[1] - x[1], c->point[2] - x[2]};
    for (int row = 0; row < 3; ++row) {
        const double *f = c->frame + 3 * row;
        double fr[3]; /* f . (w x rho) = w . (rho x f) */
        cross(rho, f, fr);
        for (int e = 0; e < 3; ++e) {
            J[6 * row + e] = sign * f[e];
            J[6 * row + 3 + e] = sign * fr[e];
        }
    }
}

typedef struct bsr {
    int32_t *row_ptr, *col;
    double *blk;
} bsr;

typedef struct entry {
    int32_t k;
    double B[9];
} entry;

static int entry_cmp(const void *a, const void *b) {
    int32_t x = ((const entry *)a)->k, y = ((const entry *)b)->k;
    return (x > y) - (x < y);
}

/* W = H M^-1 H' in block-CSR (columns ascending) and q = H v. */
static void build_problem(const packing *p, bsr *W, double *q) {
    int32_t nb = p->n_bodies, nc = p->n_contacts;
    int32_t *count = xcalloc((size_t)nb, sizeof *count);
    int32_t *list = xcalloc((size_t)nb * MAX_BODY_CONTACTS, sizeof *list);
    for (int32_t j = 0; j < nc; ++j) {
        for (int s = 0; s < 2; ++s) {
            int32_t b = p->c[j].body[s];
            if (b >= 0 && count[b] < MAX_BODY_CONTACTS) {
                list[b * MAX_BODY_CONTACTS + count[b]++] = j;
            }
        }
    }
    W->row_ptr = xcalloc((size_t)nc + 1, sizeof *W->row_ptr);
    size_t cap = 16 * (size_t)nc;
    W->col = xcalloc(cap, sizeof *W->col);
    W->blk = xcalloc(cap, 9 * sizeof *W->blk);
    entry buf[2 * MAX_BODY_CONTACTS];
    size_t nnz = 0;
    double minv = 1.0 / p->mass;
    for (int32_t j = 0; j < nc; ++j) {
        const contact *cj = &p->c[j];
        int n_buf = 0;
        q[3 * j] = q[3 * j + 1] = q[3 * j + 2] = 0.0;
        for (int s = 0; s < 2; ++s) {
            int32_t b = cj->body[s];
            if (b < 0) {
                continue;
            }
            double Jj[18];
            jacobian(p, cj, s, Jj);
            for (int row = 0; row < 3; ++row) {
                for (int e = 0; e < 6; ++e) {
                    q[3 * j + row] += Jj[6 * row + e] * p->v[6 * b + e];
                }
            }
            for (int32_t m = 0; m < count[b]; ++m) {
                int32_t k = list[b * MAX_BODY_CONTACTS + m];
                const contact *ck = &p->c[k];
                double Jk[18];
                jacobian(p, ck, ck->body[0] == b ? 0 : 1, Jk);
                entry *en = &buf[n_buf++];
                en->k = k;
                for (int r = 0; r < 3; ++r) {
                    for (int c = 0; c < 3; ++c) {
                        double s1 = 0.0;
                        for (int e = 0; e < 6; ++e) {
                            s1 += Jj[6 * r + e] * Jk[6 * c + e] *
                                  (e < 3 ? minv : p->iinv[3 * b + e - 3]);
                        }
                        en->B[3 * r + c] = s1;
                    }
                }
            }
        }
        qsort(buf, (size_t)n_buf, sizeof buf[0], entry_cmp);
        W->row_ptr[j] = (int32_t)nnz;
        for (int m = 0; m < n_buf; ++m) {
            if (nnz > (size_t)W->row_ptr[j] && W->col[nnz - 1] == buf[m].k) {
                for (int e = 0; e < 9; ++e) { /* same contact through both bodies */
                    W->blk[9 * (nnz - 1) + e] += buf[m].B[e];
                }
                continue;
            }
            if (nnz == cap) {
                cap *= 2;
                W->col = realloc(W->col, cap * sizeof *W->col);
                W->blk = realloc(W->blk, cap * 9 * sizeof *W->blk);
                if (W->col == NULL || W->blk == NULL) {
                    fprintf(stderr, "fc3d_bench: out of memory\n");
                    exit(1);
                }
            }
            W->col[nnz] = buf[m].k;
            memcpy(W->blk + 9 * nnz, buf[m].B, sizeof buf[m].B);
            ++nnz;
        }
    }
    W->row_ptr[nc] = (int32_t)nnz;
    free(list);
    free(count);
}

/* ------------------------------------------------------------ one run */

typedef struct run_result {
    int32_t status, iterations, converged;
    double merit, seconds, ns_per_contact_sweep;
    double dissipated; /* -(1/2 r'W r + r'q) = kinetic energy lost (J) */
    int32_t n_stick, n_slide, n_open;
} run_result;

static int32_t acceleration = NSCD_FC3D_ACCEL_NONE; /* --anderson */

static run_result solve(int32_t nc, const bsr *W, const double *q, const double *mu, int32_t law,
                        int32_t method, double tol, int32_t max_it) {
    nscd_fc3d_options o;
    nscd_fc3d_options_init(&o, sizeof o);
    o.friction_law = law;
    o.method = method;
    o.tolerance = tol;
    o.max_iterations = max_it;
    o.warm_start = 0;
    o.acceleration = acceleration;
    nscd_fc3d_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    double *r = xcalloc(3 * (size_t)nc, sizeof *r), *u = xcalloc(3 * (size_t)nc, sizeof *u);
    double t0 = now();
    nscd_status st = nscd_fc3d_solve_bsr(nc, W->row_ptr, W->col, W->blk, q, mu, &o, r, u, &info);
    double t1 = now();
    run_result res = {st, info.iterations, info.converged, info.merit, t1 - t0, 0, 0, 0, 0, 0};
    if (st != NSCD_OK && st != NSCD_ERR_NOT_CONVERGED) {
        fprintf(stderr, "fc3d_bench: solver failed: %s\n", nscd_status_string(st));
        exit(1);
    }
    res.ns_per_contact_sweep =
        1e9 * res.seconds / ((double)nc * (info.iterations > 0 ? info.iterations : 1));
    /* r'(W r + q) - 1/2 r'W r = 1/2 r'W r + r'q, with W r = u - q */
    double ru = 0.0, rq = 0.0, mass = 0.0;
    for (int32_t i = 0; i < 3 * nc; ++i) {
        ru += r[i] * u[i];
        rq += r[i] * q[i];
        mass += fabs(r[i]);
    }
    res.dissipated = -(0.5 * (ru - rq) + rq);
    for (int32_t j = 0; j < nc; ++j) {
        double *rj = r + 3 * j, *uj = u + 3 * j;
        double scale = 1e-6 * (fabs(q[3 * j]) + hypot(q[3 * j + 1], q[3 * j + 2]));
        double sj = 0.0; /* s_j r_j is a velocity (the merit's scaling) */
        for (int32_t k = W->row_ptr[j]; k < W->row_ptr[j + 1]; ++k) {
            if (W->col[k] == j) {
                sj = (W->blk[9 * k] + W->blk[9 * k + 4] + W->blk[9 * k + 8]) / 3.0;
            }
        }
        if (sj * rj[0] <= scale) {
            res.n_open++;
        } else if (hypot(uj[1], uj[2]) <= scale) {
            res.n_stick++;
        } else {
            res.n_slide++;
        }
    }
    (void)mass;
    free(r);
    free(u);
    return res;
}

static void print_result(FILE *out, const char *name, const run_result *r, int json) {
    if (json) {
        fprintf(out, "\"%s\":{\"status\":%d,\"converged\":%d,\"iterations\":%d,\"merit\":", name,
                (int)r->status, (int)r->converged, (int)r->iterations);
        json_number(out, r->merit);
        fputs(",\"seconds\":", out);
        json_number(out, r->seconds);
        fputs(",\"ns_per_contact_sweep\":", out);
        json_number(out, r->ns_per_contact_sweep);
        fputs(",\"dissipated_energy\":", out);
        json_number(out, r->dissipated);
        fprintf(out, ",\"sticking\":%d,\"sliding\":%d,\"open\":%d}", (int)r->n_stick,
                (int)r->n_slide, (int)r->n_open);
    } else {
        fprintf(out,
                "  %-22s %s it %5d  merit %.2e  time %8.4f s  %6.1f ns/(contact sweep)  "
                "dissipated %.4e J  stick/slide/open %d/%d/%d\n",
                name, r->converged ? "conv" : "NOT ", (int)r->iterations, r->merit, r->seconds,
                r->ns_per_contact_sweep, r->dissipated, (int)r->n_stick, (int)r->n_slide,
                (int)r->n_open);
    }
}

typedef struct bench_args {
    int json, jacobi;
    const char *fclib_dir; /* --write-fclib: write the problems there, do not solve */
    double mu, tol;
    int32_t max_it;
    uint64_t seed;
} bench_args;

/* --write-fclib: the problem as an FCLIB local file DIR/fc3d_bench-GRAINS-NC.hdf5. */
static void write_fclib(const char *dir, const char *grains, int32_t nc, const bsr *W,
                        const double *q, const double *mu) {
#ifdef NSCD_FC3D_BENCH_FCLIB
    char path[4096];
    snprintf(path, sizeof path, "%s/fc3d_bench-%s-%d.hdf5", dir, grains, (int)nc);
    nscd_fclib_problem *pb = NULL;
    nscd_status st = nscd_fclib_problem_create(NULL, &pb);
    if (st == NSCD_OK) {
        st = nscd_fclib_problem_set_bsr(pb, nc, W->row_ptr, W->col, W->blk, q, mu);
    }
    if (st == NSCD_OK) {
        st = nscd_fclib_write(pb, path);
    }
    if (st != NSCD_OK) {
        fprintf(stderr, "fc3d_bench: writing %s failed: %s\n", path, nscd_status_string(st));
        nscd_fclib_problem_destroy(pb);
        exit(1);
    }
    nscd_fclib_problem_destroy(pb);
    printf("%s\n", path);
#else
    (void)dir, (void)grains, (void)nc, (void)W, (void)q, (void)mu;
    fprintf(stderr, "fc3d_bench: --write-fclib needs libnscd_fclib (libfclib, HDF5)\n");
    exit(2);
#endif
}

/* Builds one packing, solves it with both laws and prints one record. */
static void run_case(const bench_args *a, int32_t nx, int32_t ny, int32_t nz, double ecc,
                     const char *grains, int first) {
    rng_state = a->seed * 2654435761ULL + 12345u + (uint64_t)nx; /* same lattice per size */
    packing p;
    build_packing(nx, ny, nz, ecc, &p);
    int32_t nc = p.n_contacts;
    bsr W;
    double *q = xcalloc(3 * (size_t)nc, sizeof *q), *mu = xcalloc((size_t)nc, sizeof *mu);
    build_problem(&p, &W, q);
    for (int32_t j = 0; j < nc; ++j) {
        mu[j] = a->mu;
    }
    if (a->fclib_dir != NULL) {
        write_fclib(a->fclib_dir, grains, nc, &W, q, mu);
        free(q);
        free(mu);
        free(W.row_ptr);
        free(W.col);
        free(W.blk);
        free_packing(&p);
        return;
    }
    const int32_t law[2] = {NSCD_FC3D_COULOMB, NSCD_FC3D_MAX_DISSIPATION};
    const char *json_name[4] = {"coulomb", "max_dissipation", "coulomb_jacobi",
                                "max_dissipation_jacobi"};
    const char *text_name[4] = {"Coulomb", "max. dissipation", "Coulomb, Jacobi blend",
                                "max. diss., Jacobi blend"};
    if (a->json) {
        fprintf(stdout, "%s{\"grains\":\"%s\",\"eccentricity\":", first ? "" : ",", grains);
        json_number(stdout, ecc);
        fprintf(stdout, ",\"contacts\":%d,\"bodies\":%d,\"blocks\":%d", (int)nc, (int)p.n_bodies,
                (int)W.row_ptr[nc]);
    } else {
        printf("%s: %d contacts, %d grains, %d blocks (%.2f contacts per grain)\n", grains, (int)nc,
               (int)p.n_bodies, (int)W.row_ptr[nc], (double)nc / p.n_bodies);
    }
    for (int m = 0; m < (a->jacobi ? 4 : 2); ++m) {
        int32_t method = m < 2 ? NSCD_FC3D_GAUSS_SEIDEL : NSCD_FC3D_JACOBI_BLEND;
        run_result res = solve(nc, &W, q, mu, law[m % 2], method, a->tol, a->max_it);
        if (a->json) {
            fputc(',', stdout);
        }
        print_result(stdout, a->json ? json_name[m] : text_name[m], &res, a->json);
    }
    if (a->json) {
        fputc('}', stdout);
    }
    free(q);
    free(mu);
    free(W.row_ptr);
    free(W.col);
    free(W.blk);
    free_packing(&p);
}

static const char usage_text[] =
    "usage: fc3d_bench [--json] [--jacobi] [--grains "
    "both|spheres|eccentric] [--min-contacts N] [--max-contacts N] "
    "[--eccentricity E] [--mu MU] [--tolerance TOL] [--max-iterations N] "
    "[--seed S] [--anderson] [--write-fclib DIR]";

int main(int argc, char **argv) {
    cli_check(argc, argv, usage_text);
    bench_args a;
    a.json = cli_has_flag(argc, argv, "--json");
    a.jacobi = cli_has_flag(argc, argv, "--jacobi");
    double min_c = cli_double(argc, argv, "--min-contacts", 100);
    double max_c = cli_double(argc, argv, "--max-contacts", 1e4);
    double ecc = cli_double(argc, argv, "--eccentricity", 0.3);
    const char *which = cli_string(argc, argv, "--grains", "both");
    int both = strcmp(which, "both") == 0;
    int spheres = both || strcmp(which, "spheres") == 0;
    int eccentric = both || strcmp(which, "eccentric") == 0;
    a.mu = cli_double(argc, argv, "--mu", 0.4);
    a.tol = cli_double(argc, argv, "--tolerance", 1e-6);
    a.max_it = (int32_t)cli_double(argc, argv, "--max-iterations", 5000);
    a.seed = (uint64_t)cli_double(argc, argv, "--seed", 1);
    a.fclib_dir = cli_string(argc, argv, "--write-fclib", NULL);
    if (cli_has_flag(argc, argv, "--anderson")) {
        acceleration = NSCD_FC3D_ACCEL_ANDERSON;
    }
    if (a.fclib_dir != NULL) {
        a.json = 0; /* prints the files written, one a line */
    }
    if (!(min_c >= 10 && max_c >= min_c && max_c <= 2e6 && a.mu >= 0 && a.tol > 0 &&
          a.max_it >= 1 && ecc >= 0 && ecc < 1 && (spheres || eccentric))) {
        fprintf(stderr, "fc3d_bench: bad arguments\n");
        return 2;
    }
    if (a.fclib_dir != NULL) {
        /* nothing before the file names */
    } else if (a.json) {
        printf("{\"mu\":");
        json_number(stdout, a.mu);
        fputs(",\"tolerance\":", stdout);
        json_number(stdout, a.tol);
        printf(",\"max_iterations\":%d,\"diameter\":", (int)a.max_it);
        json_number(stdout, DIAMETER);
        fputs(",\"density\":", stdout);
        json_number(stdout, DENSITY);
        fputs(",\"runs\":[", stdout);
    } else {
        printf("fc3d_bench: grain packings, mu = %g, tolerance %g\n", a.mu, a.tol);
    }
    /* Sizes: half decades from min to max contacts; a channel of nx : 2 nz : nz
     * FCC cells, nx about 4 nz. Each size: homogeneous spheres (the paper's
     * grains), then eccentric grains. */
    int first = 1;
    for (double target = min_c; target <= max_c * 1.0001; target *= sqrt(10.0)) {
        double cells = target / CONTACTS_PER_CELL;
        int32_t nz = (int32_t)fmax(1.0, floor(cbrt(cells / 8.0)));
        int32_t nx = (int32_t)fmax(1.0, round(cells / (2.0 * nz * nz)));
        if (spheres) {
            run_case(&a, nx, 2 * nz, nz, 0.0, "spheres", first);
            first = 0;
        }
        if (eccentric) {
            run_case(&a, nx, 2 * nz, nz, ecc, "eccentric", first);
            first = 0;
        }
    }
    if (a.json) {
        fputs("]}\n", stdout);
    }
    return 0;
}
