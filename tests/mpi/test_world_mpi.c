/* Tests of the distributed world (libnscd_mpi), run under mpirun with 1, 2
 * or more ranks (tests/mpi.cmake). Every rank runs every check; a failure
 * anywhere fails the program on every rank (an Allreduce of the failures).
 *
 *  one_rank_is_serial       (1 rank only) a pile with adds, removes and the
 *                           domain outlet: positions, orientations, velocities
 *                           bitwise those of the serial world, with 1 and 3
 *                           Jacobi groups
 *  bodies_conserved         a pile falling across the subdomain boundary,
 *                           bodies added on the last rank, removed by their
 *                           owner and at the outlet: the global count and the
 *                           sum of global ids every step equal the expected
 *  rerun_is_bitwise         the same run twice: every body bitwise equal
 *  pile_matches_serial      the pile after 1.5 s: mean height (2 %) and
 *                           contacts per body (5 %) against the serial world
 *  boxes_rest              a brick wall of boxes across the subdomain boundary
 *                           (general contacts, whose rows a rank must keep with
 *                           the contacts it resolves): every box at rest, level
 *                           and at its height after 0.4 s, as in the serial world
 *  vtk_pieces               the parallel VTK: an index naming one piece per rank,
 *                           the pieces' points adding up to the global count
 *  weighted_cuts            cuts by work: the weighted quantiles of the bodies' x
 *                           (1 + 3 per contact resolved), against a reference
 *  bad_input                NULL handles, a bad decomposition, a remove of a
 *                           body this rank does not own */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nscd/world.h"
#include "nscd/world_mpi.h"

static int failures = 0;
static int rank_ = 0, size_ = 1;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d: %s:%d: CHECK(%s) failed\n", rank_, __FILE__, __LINE__,       \
                    #cond);                                                                        \
            ++failures;                                                                            \
        }                                                                                          \
    } while (0)

/* ------------------------------------------------------------ the scene */

#define RADIUS 0.05

static void scene_desc(nscd_world_desc *d, int groups, int use_domain) {
    nscd_world_desc_init(d, sizeof *d);
    d->dt = 1e-3;
    d->max_sweeps = 10;
    d->jacobi_groups = groups;
    d->relaxation = groups > 1 ? 0.7 : 1.0;
    d->use_domain = use_domain;
    double lo[3] = {-0.5, -0.5, -0.2}, hi[3] = {0.5, 0.5, 3.0};
    memcpy(d->domain_min, lo, sizeof lo);
    memcpy(d->domain_max, hi, sizeof hi);
}

/* A static half-space with outward normal n through point p. */
static void wall_body(nscd_body_desc *b, nscd_shape_desc *s, const double p[3], const double n[3]) {
    nscd_body_desc_init(b, sizeof *b);
    nscd_shape_desc_init(s, sizeof *s);
    b->type = NSCD_BODY_STATIC;
    memcpy(b->position, p, 3 * sizeof(double));
    /* rotate +z onto n: q = (1 + z·n, z × n) normalised (n != -z here) */
    double w = 1.0 + n[2], x = -n[1], y = n[0], norm = sqrt(w * w + x * x + y * y);
    b->orientation[0] = w / norm, b->orientation[1] = x / norm, b->orientation[2] = y / norm;
    b->orientation[3] = 0.0;
    s->type = NSCD_SHAPE_HALF_SPACE;
}

/* Floor and the four walls of a 1 m x 1 m box; x = 0.3 wall open when the
 * outlet is used (bodies pushed through leave the domain at x > 0.5). */
static const double wall_points[5][3] = {
    {0, 0, 0}, {-0.5, 0, 0}, {0.5, 0, 0}, {0, -0.5, 0}, {0, 0.5, 0}};
static const double wall_normals[5][3] = {{0, 0, 1}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};

/* The i-th sphere of the pile: a jittered lattice 6 x 6 x layers over the
 * box, so that it straddles x = 0 (the boundary of two ranks). */
static void sphere_body(int i, nscd_body_desc *b, nscd_shape_desc *s) {
    nscd_body_desc_init(b, sizeof *b);
    nscd_shape_desc_init(s, sizeof *s);
    int ix = i % 6, iy = (i / 6) % 6, iz = i / 36;
    double jitter = 0.01 * sin(1.7 * i + 0.3);
    b->position[0] = -0.375 + 0.15 * ix + jitter;
    b->position[1] = -0.375 + 0.15 * iy - jitter;
    b->position[2] = 0.1 + 0.13 * iz;
    b->velocity[0] = 0.2 * cos(0.9 * i);
    b->user_id = 1000 + (uint64_t)i;
    s->type = NSCD_SHAPE_SPHERE;
    s->radius = RADIUS * (1.0 + 0.1 * sin(2.3 * i));
}

static void add_walls_serial(nscd_world *w) {
    for (int k = 0; k < 5; ++k) {
        nscd_body_desc b;
        nscd_shape_desc s;
        nscd_body_id id;
        wall_body(&b, &s, wall_points[k], wall_normals[k]);
        CHECK(nscd_world_add_body(w, &b, &s, 1, &id) == NSCD_OK);
    }
}

static void add_walls_mpi(nscd_world_mpi *w) {
    for (int k = 0; k < 5; ++k) {
        nscd_body_desc b;
        nscd_shape_desc s;
        uint64_t id;
        wall_body(&b, &s, wall_points[k], wall_normals[k]);
        CHECK(nscd_world_mpi_add_body(w, &b, &s, 1, &id) == NSCD_OK);
    }
}

/* Steps between balanced cuts of the worlds created (0: equal cells), and
 * a contact's weight in the balance (0: by body count). */
static int32_t balance_every_ = 0;
static double contact_weight_ = 0.0;

static nscd_world_mpi *create_mpi(const nscd_world_desc *d) {
    nscd_world_mpi_desc md;
    nscd_world_mpi_desc_init(&md, sizeof md);
    md.balance_every = balance_every_;
    md.balance_contact_weight = contact_weight_;
    if (balance_every_ > 0 || contact_weight_ > 0.0) { /* slabs along x */
        md.dims[0] = size_, md.dims[1] = md.dims[2] = 1;
    }
    nscd_world_mpi *w = NULL;
    CHECK(nscd_world_mpi_create((int32_t)MPI_Comm_c2f(MPI_COMM_WORLD), d, &md, &w) == NSCD_OK);
    if (w == NULL) {
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return w;
}

/* ------------------------------------------------------------ gathering */

/* Every body of the distributed world on every rank, sorted by global id:
 * 13 doubles per body (x, q, v, ω) and the ids. */
typedef struct gathered {
    int n;
    uint64_t *ids;
    double *state;
} gathered;

typedef struct row {
    uint64_t id;
    double s[13];
} row;

static int compare_rows(const void *a, const void *b) {
    uint64_t x = ((const row *)a)->id, y = ((const row *)b)->id;
    return x < y ? -1 : x > y;
}

static gathered gather_all(nscd_world_mpi *w) {
    int n = nscd_world_mpi_body_count(w), count = 0;
    row *mine = calloc((size_t)n + 1, sizeof *mine);
    uint64_t *ids = calloc((size_t)n + 1, sizeof *ids);
    double *x = calloc(3 * (size_t)n + 1, sizeof *x), *q = calloc(4 * (size_t)n + 1, sizeof *q);
    double *v = calloc(3 * (size_t)n + 1, sizeof *v), *om = calloc(3 * (size_t)n + 1, sizeof *om);
    CHECK(nscd_world_mpi_get_bodies(w, n, &count, ids, NULL, x, q, v, om) == NSCD_OK);
    for (int i = 0; i < count; ++i) {
        mine[i].id = ids[i];
        memcpy(mine[i].s, x + 3 * i, 3 * sizeof(double));
        memcpy(mine[i].s + 3, q + 4 * i, 4 * sizeof(double));
        memcpy(mine[i].s + 7, v + 3 * i, 3 * sizeof(double));
        memcpy(mine[i].s + 10, om + 3 * i, 3 * sizeof(double));
    }
    int *counts = calloc((size_t)size_, sizeof *counts),
        *displs = calloc((size_t)size_, sizeof *displs);
    int bytes = count * (int)sizeof(row), total = 0;
    MPI_Allgather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size_; ++r) {
        displs[r] = total;
        total += counts[r];
    }
    row *all = calloc((size_t)total / sizeof(row) + 1, sizeof *all);
    MPI_Allgatherv(mine, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
    gathered g = {total / (int)sizeof(row), NULL, NULL};
    qsort(all, (size_t)g.n, sizeof *all, compare_rows);
    g.ids = calloc((size_t)g.n + 1, sizeof *g.ids);
    g.state = calloc(13 * (size_t)g.n + 1, sizeof *g.state);
    for (int i = 0; i < g.n; ++i) {
        g.ids[i] = all[i].id;
        memcpy(g.state + 13 * i, all[i].s, sizeof all[i].s);
    }
    free(all), free(counts), free(displs), free(mine), free(ids), free(x), free(q), free(v),
        free(om);
    return g;
}

static void gathered_free(gathered *g) { free(g->ids), free(g->state); }

/* ------------------------------------------------------------ tests */

/* Serial world and 1-rank distributed world, the same history: adds, a
 * removal between steps, the outlet (a body thrown out of the domain). */
static void one_rank_is_serial(int groups, int threads) {
    if (size_ != 1) {
        return;
    }
    nscd_world_desc d;
    scene_desc(&d, groups, 1);
    d.threads = threads; /* the rank's local world runs the same threaded stages */
    nscd_world *s = NULL;
    CHECK(nscd_world_create(&d, &s) == NSCD_OK);
    nscd_world_mpi *m = create_mpi(&d);
    add_walls_serial(s);
    add_walls_mpi(m);
    nscd_body_id sid[200];
    uint64_t mid[200];
    for (int i = 0; i < 120; ++i) {
        nscd_body_desc b;
        nscd_shape_desc sh;
        sphere_body(i, &b, &sh);
        if (i == 115) {
            b.velocity[2] = 40.0; /* a top-layer sphere thrown out of the domain's top */
        }
        CHECK(nscd_world_add_body(s, &b, &sh, 1, &sid[i]) == NSCD_OK);
        CHECK(nscd_world_mpi_add_body(m, &b, &sh, 1, &mid[i]) == NSCD_OK);
    }
    int removed_s = 0, removed_m = 0;
    for (int step = 0; step < 300; ++step) {
        if (step == 100) { /* remove two, add three: slots reused in the same order */
            CHECK(nscd_world_remove_body(s, sid[3]) == NSCD_OK);
            CHECK(nscd_world_mpi_remove_body(m, mid[3]) == NSCD_OK);
            CHECK(nscd_world_remove_body(s, sid[50]) == NSCD_OK);
            CHECK(nscd_world_mpi_remove_body(m, mid[50]) == NSCD_OK);
            for (int i = 120; i < 123; ++i) {
                nscd_body_desc b;
                nscd_shape_desc sh;
                sphere_body(i, &b, &sh);
                b.position[2] = 1.6 + 0.2 * (i - 120);
                CHECK(nscd_world_add_body(s, &b, &sh, 1, &sid[i]) == NSCD_OK);
                CHECK(nscd_world_mpi_add_body(m, &b, &sh, 1, &mid[i]) == NSCD_OK);
            }
        }
        nscd_world_step_report rs = {.struct_size = sizeof rs}, rm = {.struct_size = sizeof rm};
        CHECK(nscd_world_step(s, &rs) == NSCD_OK);
        CHECK(nscd_world_mpi_step(m, &rm) == NSCD_OK);
        CHECK(rs.contacts == rm.contacts && rs.sweeps == rm.sweeps && rs.merit == rm.merit);
        removed_s += rs.bodies_removed;
        removed_m += rm.bodies_removed;
    }
    CHECK(removed_s == 1 && removed_m == 1);
    int n = 0;
    nscd_world_get_bodies(s, 0, &n, NULL, NULL, NULL, NULL, NULL, NULL);
    double *state = calloc(13 * (size_t)n, sizeof *state);
    uint64_t *users = calloc((size_t)n, sizeof *users);
    double *x = state, *q = state + 3 * n, *v = state + 7 * n, *om = state + 10 * n;
    CHECK(nscd_world_get_bodies(s, n, &n, NULL, users, x, q, v, om) == NSCD_OK);
    gathered g = gather_all(m);
    CHECK(g.n == n - 5); /* the serial copy-out has the five walls too */
    int k = 0, differ = 0;
    for (int i = 0; i < n; ++i) {
        if (users[i] == 0) {
            continue; /* a wall */
        }
        const double *r = g.state + 13 * k++;
        differ += memcmp(r, x + 3 * i, 3 * sizeof(double)) != 0;
        differ += memcmp(r + 3, q + 4 * i, 4 * sizeof(double)) != 0;
        differ += memcmp(r + 7, v + 3 * i, 3 * sizeof(double)) != 0;
        differ += memcmp(r + 10, om + 3 * i, 3 * sizeof(double)) != 0;
    }
    CHECK(differ == 0);
    printf(
        "one_rank_is_serial(groups %d, threads %d): %d bodies, %d differ bitwise, time %g = %g\n",
        groups, threads, g.n, differ, nscd_world_time(s), nscd_world_mpi_time(m));
    CHECK(nscd_world_time(s) == nscd_world_mpi_time(m));
    gathered_free(&g);
    free(state), free(users);
    nscd_world_destroy(s);
    nscd_world_mpi_destroy(m);
}

/* The pile under the distributed world; returns its gathered final state,
 * checking the count and the id checksum every step. */
static gathered run_pile(int steps, int use_domain, double *contacts_per_body, int64_t *shadows,
                         int threads) {
    nscd_world_desc d;
    scene_desc(&d, 1, use_domain);
    d.relaxation = 0.7;
    d.threads = threads;
    nscd_world_mpi *m = create_mpi(&d);
    add_walls_mpi(m);
    int64_t expected = 0;
    uint64_t checksum = 0;
    uint64_t ids[200];
    /* the pile is added on the last rank, wherever it lies: the first
     * step sends each body to its owner */
    for (int i = 0; i < 150; ++i) {
        nscd_body_desc b;
        nscd_shape_desc sh;
        sphere_body(i, &b, &sh);
        if (rank_ == size_ - 1) {
            CHECK(nscd_world_mpi_add_body(m, &b, &sh, 1, &ids[i]) == NSCD_OK);
        }
    }
    if (rank_ == size_ - 1) {
        for (int i = 0; i < 150; ++i) {
            checksum += ids[i];
        }
    }
    expected = 150;
    MPI_Bcast(&checksum, 1, MPI_UINT64_T, size_ - 1, MPI_COMM_WORLD);
    int bad_steps = 0;
    double contacts = 0.0;
    for (int step = 0; step < steps; ++step) {
        nscd_world_step_report r = {.struct_size = sizeof r};
        CHECK(nscd_world_mpi_step(m, &r) == NSCD_OK);
        if (step == steps / 2) { /* the owner of the body with id ids[10] removes it */
            uint64_t victim = 0;
            if (rank_ == size_ - 1) {
                victim = ids[10];
            }
            MPI_Bcast(&victim, 1, MPI_UINT64_T, size_ - 1, MPI_COMM_WORLD);
            int mine = nscd_world_mpi_remove_body(m, victim) == NSCD_OK, all = 0;
            MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            CHECK(all == 1); /* exactly one owner */
            expected -= 1;
            checksum -= victim;
        }
        int64_t count = 0;
        uint64_t sum = 0;
        CHECK(nscd_world_mpi_global_count(m, &count, &sum, shadows) == NSCD_OK);
        expected -= r.bodies_removed;
        if (r.bodies_removed == 0 && (count != expected || sum != checksum)) {
            ++bad_steps;
        }
        if (r.bodies_removed != 0) { /* the outlet: ids leave, count and sum follow */
            expected = count;
            checksum = sum;
        }
        contacts = r.contacts;
    }
    CHECK(bad_steps == 0);
    gathered g = gather_all(m);
    *contacts_per_body = contacts / g.n;
    nscd_world_mpi_destroy(m);
    return g;
}

static void bodies_conserved_and_rerun(void) {
    double cpb1 = 0.0, cpb2 = 0.0;
    int64_t shadows = 0;
    gathered a = run_pile(400, 0, &cpb1, &shadows, 0);
    gathered b = run_pile(400, 0, &cpb2, &shadows, 0);
    CHECK(a.n == 149 && b.n == 149);
    CHECK(a.n == b.n && memcmp(a.ids, b.ids, (size_t)a.n * sizeof *a.ids) == 0);
    CHECK(memcmp(a.state, b.state, 13 * (size_t)a.n * sizeof *a.state) == 0);
    CHECK(cpb1 == cpb2);
    if (size_ > 1) {
        CHECK(shadows > 0); /* the pile does straddle the boundary */
    }
    if (rank_ == 0) {
        printf("bodies_conserved, rerun_is_bitwise: %d bodies, %lld shadows, rerun %s\n", a.n,
               (long long)shadows,
               memcmp(a.state, b.state, 13 * (size_t)a.n * sizeof *a.state) == 0 ? "bitwise equal"
                                                                                 : "DIFFERS");
    }
    gathered_free(&a);
    gathered_free(&b);
    /* threads inside each rank: 1 and 2 give the same bits */
    gathered c = run_pile(400, 0, &cpb1, &shadows, 1);
    gathered e = run_pile(400, 0, &cpb2, &shadows, 2);
    CHECK(c.n == e.n && memcmp(c.ids, e.ids, (size_t)c.n * sizeof *c.ids) == 0);
    CHECK(memcmp(c.state, e.state, 13 * (size_t)c.n * sizeof *c.state) == 0);
    if (rank_ == 0) {
        printf("threads 1 and 2 in each rank: %d bodies, %s\n", c.n,
               memcmp(c.state, e.state, 13 * (size_t)c.n * sizeof *c.state) == 0 ? "bitwise equal"
                                                                                 : "DIFFER");
    }
    gathered_free(&c);
    gathered_free(&e);
}

/* Cuts by particle count (nscd_world_mpi_desc.balance_every): the pile
 * conserved and bitwise equal on a rerun with cuts moved every 25 steps;
 * then, after one more balance and step, every rank owns its share of the
 * bodies (the quantiles of a histogram of 4096 bins: off by at most the
 * bodies of one bin, a few here) and the subdomains tile the box (each
 * rank's upper x face is the next one's lower). The same pile with equal
 * cells is far from balanced with 4 ranks (its walls at x = +-0.5 leave the
 * outer cells half empty). */
static void balanced_cuts(void) {
    balance_every_ = 25;
    double cpb1 = 0.0, cpb2 = 0.0;
    int64_t shadows = 0;
    gathered a = run_pile(400, 0, &cpb1, &shadows, 0);
    gathered b = run_pile(400, 0, &cpb2, &shadows, 0);
    CHECK(a.n == 149 && b.n == 149);
    CHECK(a.n == b.n && memcmp(a.ids, b.ids, (size_t)a.n * sizeof *a.ids) == 0);
    int same = a.n == b.n && memcmp(a.state, b.state, 13 * (size_t)a.n * sizeof *a.state) == 0;
    CHECK(same);
    gathered_free(&b);

    /* a fresh pile, balanced once at rest */
    nscd_world_desc d;
    scene_desc(&d, 1, 0);
    nscd_world_mpi *m = create_mpi(&d);
    add_walls_mpi(m);
    for (int i = 0; i < 150 && rank_ == 0; ++i) {
        nscd_body_desc body;
        nscd_shape_desc sh;
        uint64_t id;
        sphere_body(i, &body, &sh);
        body.velocity[0] = 0.0;
        CHECK(nscd_world_mpi_add_body(m, &body, &sh, 1, &id) == NSCD_OK);
    }
    CHECK(nscd_world_mpi_balance(NULL) == NSCD_ERR_NULL_POINTER);
    CHECK(nscd_world_mpi_step(m, NULL) == NSCD_OK); /* balanced at step 0, then moved */
    CHECK(nscd_world_mpi_balance(m) == NSCD_OK);
    CHECK(nscd_world_mpi_step(m, NULL) == NSCD_OK); /* the owners of the new cuts */
    int owned = nscd_world_mpi_body_count(m), most = 0, least = 0;
    MPI_Allreduce(&owned, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&owned, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    double lo[3], hi[3], faces[2 * 8];
    CHECK(nscd_world_mpi_subdomain(m, NULL, NULL, lo, hi) == NSCD_OK);
    double mine[2] = {lo[0], hi[0]};
    CHECK(size_ <= 8);
    MPI_Allgather(mine, 2, MPI_DOUBLE, faces, 2, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int r = 0; r + 1 < size_ && size_ <= 8; ++r) {
        CHECK(faces[2 * r + 1] == faces[2 * r + 2]); /* contiguous slabs along x */
        CHECK(faces[2 * r] < faces[2 * r + 1]);
    }
    if (size_ <= 8) {
        CHECK(faces[0] == -0.5 && faces[2 * size_ - 1] == 0.5);
    }
    if (rank_ == 0) {
        printf("balanced_cuts: rerun %s; owned per rank %d..%d of 150 (ideal %.1f); first cut %.4f "
               "m\n",
               same ? "bitwise equal" : "DIFFERS", least, most, 150.0 / size_,
               size_ > 1 ? faces[1] : 0.0);
    }
    CHECK(most - least <= 6);
    gathered_free(&a);
    nscd_world_mpi_destroy(m);
    balance_every_ = 0;
}

/* Cuts by work (nscd_world_mpi_desc.balance_contact_weight = 3): a bed of
 * spheres touching each other and the floor at x < 0 and as many spheres
 * in flight, apart, at x > 0. After one step every body weighs 1 + 3 per
 * contact it resolved (the one with the smaller global id; walls never);
 * the reference is the weighted quantile of all bodies' x, from
 * nscd_world_mpi_get_contacts and get_bodies gathered over the ranks: the
 * weight below each cut is c / P of the total up to the bodies within one
 * histogram bin of it. The cuts lie left of the body-count quantiles. */
static void weighted_cuts(void) {
    contact_weight_ = 3.0;
    nscd_world_desc d;
    scene_desc(&d, 1, 0);
    d.gravity[2] = 0.0;
    nscd_world_mpi *m = create_mpi(&d);
    add_walls_mpi(m);
    for (int i = 0; i < 200 && rank_ == 0; ++i) {
        nscd_body_desc body;
        nscd_shape_desc sh;
        uint64_t id;
        sphere_body(i, &body, &sh);
        sh.radius = RADIUS;
        memset(body.velocity, 0, sizeof body.velocity);
        if (i < 100) { /* the bed: 5 x 10 x 2, spacing 2 r less 1 mm, rows shifted */
            body.position[0] = -0.45 + 0.099 * (i % 5) + 0.004 * ((i / 5) % 10) + 0.002 * (i / 50);
            body.position[1] = -0.45 + 0.099 * ((i / 5) % 10);
            body.position[2] = RADIUS - 1e-4 + 0.099 * (i / 50);
        } else { /* in flight, apart */
            int j = i - 100;
            body.position[0] = 0.05 + 0.04 * (j % 10);
            body.position[1] = -0.45 + 0.1 * (j / 10);
            body.position[2] = 1.0 + 0.3 * (j % 3);
        }
        CHECK(nscd_world_mpi_add_body(m, &body, &sh, 1, &id) == NSCD_OK);
    }
    CHECK(nscd_world_mpi_step(m, NULL) == NSCD_OK);
    int n = nscd_world_mpi_body_count(m), nc = 0, got = 0;
    nscd_world_mpi_get_contacts(m, 0, &nc, NULL, NULL, NULL, NULL, NULL, NULL);
    uint64_t *ids = calloc((size_t)n + 1, sizeof *ids), *a = calloc((size_t)nc + 1, sizeof *a),
             *b = calloc((size_t)nc + 1, sizeof *b);
    double *x = calloc(3 * (size_t)n + 1, sizeof *x),
           *mine = calloc(2 * (size_t)n + 1, sizeof *mine);
    CHECK(nscd_world_mpi_get_bodies(m, n, &got, ids, NULL, x, NULL, NULL, NULL) == NSCD_OK);
    CHECK(nscd_world_mpi_get_contacts(m, nc, &nc, a, b, NULL, NULL, NULL, NULL) == NSCD_OK);
    for (int i = 0; i < n; ++i) { /* x, weight in bodies */
        int resolved = 0;
        for (int j = 0; j < nc; ++j) { /* walls' ids have the top bit: larger */
            resolved += (a[j] < b[j] ? a[j] : b[j]) == ids[i];
        }
        mine[2 * i] = x[3 * i];
        mine[2 * i + 1] = 1.0 + contact_weight_ * resolved;
    }
    int total_n = 0, *counts = calloc((size_t)size_, sizeof *counts),
        *displs = calloc((size_t)size_, sizeof *displs), two_n = 2 * n;
    MPI_Allgather(&two_n, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size_; ++r) {
        displs[r] = total_n;
        total_n += counts[r];
    }
    double *all = calloc((size_t)total_n + 1, sizeof *all);
    MPI_Allgatherv(mine, two_n, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
    total_n /= 2;
    CHECK(total_n == 200);
    CHECK(nscd_world_mpi_balance(m) == NSCD_OK);
    double lo[3], hi[3], faces[8], total = 0.0, bin = 1.0 / 4096;
    CHECK(nscd_world_mpi_subdomain(m, NULL, NULL, lo, hi) == NSCD_OK);
    CHECK(size_ <= 8);
    MPI_Allgather(&hi[0], 1, MPI_DOUBLE, faces, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int i = 0; i < total_n; ++i) {
        total += all[2 * i + 1];
    }
    for (int c = 1; c < size_ && size_ <= 8; ++c) {
        double cut = faces[c - 1], below = 0.0, near = 0.0, heaviest = 0.0;
        int bodies_below = 0;
        for (int i = 0; i < total_n; ++i) {
            below += all[2 * i] < cut ? all[2 * i + 1] : 0.0;
            bodies_below += all[2 * i] < cut;
            near += fabs(all[2 * i] - cut) <= bin ? all[2 * i + 1] : 0.0;
            heaviest = all[2 * i + 1] > heaviest ? all[2 * i + 1] : heaviest;
        }
        double target = total * c / size_;
        CHECK(fabs(below - target) <= near + 1e-9);
        CHECK(bodies_below < total_n * c / size_); /* the bed is heavier */
        if (rank_ == 0) {
            printf("weighted_cuts: cut %d at x = %.4f m: weight below %.1f of %.1f (target %.1f, "
                   "within a bin %.1f); %d of %d bodies below\n",
                   c, cut, below, total, target, near, bodies_below, total_n);
        }
    }
    free(ids), free(a), free(b), free(x), free(mine), free(counts), free(displs), free(all);
    nscd_world_mpi_destroy(m);
    contact_weight_ = 0.0;
}

/* The serial world with the same scene (every rank runs it alone). */
static void serial_pile(int steps, double *mean_z, double *energy, double *cpb) {
    nscd_world_desc d;
    scene_desc(&d, 1, 0);
    nscd_world *s = NULL;
    CHECK(nscd_world_create(&d, &s) == NSCD_OK);
    add_walls_serial(s);
    nscd_body_id ids[150];
    for (int i = 0; i < 150; ++i) {
        nscd_body_desc b;
        nscd_shape_desc sh;
        sphere_body(i, &b, &sh);
        CHECK(nscd_world_add_body(s, &b, &sh, 1, &ids[i]) == NSCD_OK);
    }
    nscd_world_step_report r = {.struct_size = sizeof r};
    for (int step = 0; step < steps; ++step) {
        CHECK(nscd_world_step(s, &r) == NSCD_OK);
        if (step == steps / 2) { /* the body run_pile removes */
            CHECK(nscd_world_remove_body(s, ids[10]) == NSCD_OK);
        }
    }
    int n = 0;
    nscd_world_get_bodies(s, 0, &n, NULL, NULL, NULL, NULL, NULL, NULL);
    double *x = calloc(3 * (size_t)n, sizeof *x);
    uint64_t *users = calloc((size_t)n, sizeof *users);
    nscd_world_get_bodies(s, n, &n, NULL, users, x, NULL, NULL, NULL);
    double z = 0.0;
    int spheres = 0;
    for (int i = 0; i < n; ++i) {
        if (users[i] != 0) {
            z += x[3 * i + 2];
            ++spheres;
        }
    }
    *mean_z = z / spheres;
    nscd_world_kinetic_energy(s, energy);
    *cpb = (double)r.contacts / spheres;
    free(x), free(users);
    nscd_world_destroy(s);
}

static void pile_matches_serial(void) {
    double cpb = 0.0, z_serial = 0.0, e_serial = 0.0, cpb_serial = 0.0;
    int64_t shadows = 0;
    int steps = 1500;
    gathered g = run_pile(steps, 0, &cpb, &shadows, 0);
    serial_pile(steps, &z_serial, &e_serial, &cpb_serial);
    double z = 0.0, e = 0.0;
    for (int i = 0; i < g.n; ++i) {
        z += g.state[13 * i + 2];
        const double *v = g.state + 13 * i + 7;
        e += v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    }
    z /= g.n;
    if (rank_ == 0) {
        printf("pile_matches_serial: mean height %.6f m (serial %.6f), contacts per body %.4f "
               "(serial %.4f), sum |v|^2 %.3g m^2/s^2, serial kinetic energy %.3g J\n",
               z, z_serial, cpb, cpb_serial, e, e_serial);
    }
    if (size_ == 1) { /* the same computation */
        CHECK(z == z_serial && cpb == cpb_serial);
    }
    CHECK(fabs(z - z_serial) < 0.02 * z_serial);
    CHECK(fabs(cpb - cpb_serial) < 0.05 * cpb_serial);
    CHECK(e < 0.3); /* from 3.2 m^2/s^2 at the start: the pile has come to rest but for
                       spheres rolling on the floor (no rolling resistance) */
    gathered_free(&g);
}

/* NumberOfPoints of a .vtp piece, or -1. */
static long points_of(const char *path) {
    FILE *f = fopen(path, "r");
    char line[512];
    long n = -1;
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        const char *at = strstr(line, "NumberOfPoints=\"");
        if (at != NULL) {
            n = strtol(at + strlen("NumberOfPoints=\""), NULL, 10);
            break;
        }
    }
    if (f != NULL) {
        fclose(f);
    }
    return n;
}

static void vtk_pieces(void) {
    nscd_world_desc d;
    scene_desc(&d, 1, 0);
    nscd_world_mpi *m = create_mpi(&d);
    add_walls_mpi(m);
    for (int i = 0; rank_ == 0 && i < 60; ++i) {
        nscd_body_desc b;
        nscd_shape_desc sh;
        uint64_t id;
        sphere_body(i, &b, &sh);
        CHECK(nscd_world_mpi_add_body(m, &b, &sh, 1, &id) == NSCD_OK);
    }
    for (int step = 0; step < 5; ++step) {
        CHECK(nscd_world_mpi_step(m, NULL) == NSCD_OK);
    }
    char prefix[64];
    snprintf(prefix, sizeof prefix, "world_mpi_vtk_np%d", size_);
    CHECK(nscd_world_mpi_write_vtk(m, prefix) == NSCD_OK);
    CHECK(nscd_world_mpi_write_vtk(m, "/nonexistent/dir/x") == NSCD_ERR_IO);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_ == 0) {
        char path[128], line[512];
        snprintf(path, sizeof path, "%s.pvtp", prefix);
        FILE *f = fopen(path, "r");
        int pieces = 0;
        long points = 0;
        while (f != NULL && fgets(line, sizeof line, f) != NULL) {
            if (strstr(line, "<Piece Source=") != NULL) {
                snprintf(path, sizeof path, "%s_%d.vtp", prefix, pieces++);
                points += points_of(path);
            }
        }
        CHECK(f != NULL && pieces == size_ && points == 60);
        if (f != NULL) {
            fclose(f);
        }
        printf("vtk_pieces: %d pieces, %ld points\n", pieces, points);
    }
    /* the binary XML pieces (since 0.2): every owned body's shape once, the
     * five walls on rank 0; the series' collection lists each step's index */
    snprintf(prefix, sizeof prefix, "world_mpi_vtk_xml_np%d", size_);
    nscd_world_mpi_vtk_series *series = NULL;
    CHECK(nscd_world_mpi_vtk_series_create(m, prefix, NSCD_WORLD_VTK_SHAPES, &series) == NSCD_OK);
    for (int frame = 0; series != NULL && frame < 2; ++frame) {
        CHECK(nscd_world_mpi_vtk_series_write(series, m) == NSCD_OK);
        CHECK(nscd_world_mpi_step(m, NULL) == NSCD_OK);
    }
    nscd_world_mpi_vtk_series_destroy(series);
    CHECK(nscd_world_mpi_write_vtk_xml(m, prefix, NSCD_WORLD_VTK_CONTACTS) ==
          NSCD_ERR_INVALID_ARGUMENT);
    CHECK(nscd_world_mpi_write_vtk_xml(m, "/nonexistent/dir/x", NSCD_WORLD_VTK_SHAPES) ==
          NSCD_ERR_IO);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_ == 0) {
        char path[128], line[512];
        int frames = 0;
        snprintf(path, sizeof path, "%s.pvd", prefix);
        FILE *f = fopen(path, "r");
        while (f != NULL && fgets(line, sizeof line, f) != NULL) {
            frames += strstr(line, "<DataSet ") != NULL;
        }
        CHECK(f != NULL && frames == 2);
        if (f != NULL) {
            fclose(f);
        }
        snprintf(path, sizeof path, "%s_000001.pvtp", prefix);
        f = fopen(path, "r");
        int pieces = 0;
        long points = 0;
        while (f != NULL && fgets(line, sizeof line, f) != NULL) {
            if (strstr(line, "<Piece Source=") != NULL) {
                snprintf(path, sizeof path, "%s_000001_%d.vtp", prefix, pieces++);
                points += points_of(path);
            }
        }
        CHECK(f != NULL && pieces == size_ && points == 65);
        if (f != NULL) {
            fclose(f);
        }
        printf("vtk_xml_pieces: %d frames, %d pieces, %ld points\n", frames, pieces, points);
    }
    nscd_world_mpi_destroy(m);
}

static void bad_input(void) {
    nscd_world_desc d;
    scene_desc(&d, 1, 0);
    nscd_world_mpi *m = NULL;
    nscd_world_mpi_desc md;
    CHECK(nscd_world_mpi_desc_init(&md, sizeof md) == NSCD_OK);
    md.dims[0] = size_ + 1; /* product is not the number of ranks */
    CHECK(nscd_world_mpi_create((int32_t)MPI_Comm_c2f(MPI_COMM_WORLD), &d, &md, &m) ==
          NSCD_ERR_INVALID_ARGUMENT);
    CHECK(m == NULL);
    md.dims[0] = 0;
    md.halo = -1.0;
    CHECK(nscd_world_mpi_create((int32_t)MPI_Comm_c2f(MPI_COMM_WORLD), &d, &md, &m) ==
          NSCD_ERR_OUT_OF_RANGE);
    md.halo = 0.0;
    md.balance_every = -1;
    CHECK(nscd_world_mpi_create((int32_t)MPI_Comm_c2f(MPI_COMM_WORLD), &d, &md, &m) ==
          NSCD_ERR_OUT_OF_RANGE);
    CHECK(m == NULL);
    md.balance_every = 0;
    double weights[3] = {-1.0, NAN, 2e6}; /* a contact's weight in the balance */
    for (int k = 0; k < 3; ++k) {
        md.balance_contact_weight = weights[k];
        CHECK(nscd_world_mpi_create((int32_t)MPI_Comm_c2f(MPI_COMM_WORLD), &d, &md, &m) ==
              NSCD_ERR_OUT_OF_RANGE);
        CHECK(m == NULL);
    }
    md.balance_contact_weight = 1.5;
    d.domain_max[2] = d.domain_min[2]; /* an empty box cannot be decomposed */
    md.halo = 0.0;
    CHECK(nscd_world_mpi_create((int32_t)MPI_Comm_c2f(MPI_COMM_WORLD), &d, &md, &m) ==
          NSCD_ERR_OUT_OF_RANGE);
    scene_desc(&d, 1, 0);
    m = create_mpi(&d);
    CHECK(nscd_world_mpi_remove_body(m, 12345) == NSCD_ERR_STALE_HANDLE);
    CHECK(nscd_world_mpi_add_body(m, NULL, NULL, 0, NULL) == NSCD_ERR_NULL_POINTER);
    nscd_body_desc b;
    nscd_shape_desc s;
    uint64_t id = 0;
    sphere_body(0, &b, &s);
    s.radius = -1.0;
    CHECK(nscd_world_mpi_add_body(m, &b, &s, 1, &id) == NSCD_ERR_OUT_OF_RANGE);
    CHECK(nscd_world_mpi_body_count(m) == 0 && id == 0);
    nscd_world_step_report r = {.struct_size = 3};
    CHECK(nscd_world_mpi_step(m, &r) == NSCD_ERR_STRUCT_SIZE);
    CHECK(nscd_world_mpi_step(NULL, NULL) == NSCD_ERR_NULL_POINTER);
    CHECK(nscd_world_mpi_get_bodies(m, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
          NSCD_ERR_NULL_POINTER);
    nscd_world_mpi_destroy(m);
    nscd_world_mpi_destroy(NULL);
    /* sleeping is not distributed yet: refused at the step */
    scene_desc(&d, 1, 0);
    d.sleep = 1;
    m = create_mpi(&d);
    nscd_world_step_report sr = {.struct_size = sizeof sr};
    CHECK(nscd_world_mpi_step(m, &sr) == NSCD_ERR_UNSUPPORTED);
    nscd_world_mpi_destroy(m);
}

/* ------------------------------------------------------------ boxes */

#define BRICK 0.05 /* half side of the cubes */

/* Brick i of a wall on the floor across x = 0: 6 cubes in a row touching
 * their neighbours and 5 on top, each on two below (a running bond). */
/* The corners of a brick, for the bricks that are convex polyhedra. */
static const double brick_corners[24] = {
    -BRICK, -BRICK, -BRICK, BRICK, -BRICK, -BRICK, -BRICK, BRICK, -BRICK, BRICK, BRICK, -BRICK,
    -BRICK, -BRICK, BRICK,  BRICK, -BRICK, BRICK,  -BRICK, BRICK, BRICK,  BRICK, BRICK, BRICK};

static void brick_body(int i, int convex, nscd_body_desc *b, nscd_shape_desc *s) {
    nscd_body_desc_init(b, sizeof *b);
    nscd_shape_desc_init(s, sizeof *s);
    int top = i >= 6, k = top ? i - 6 : i;
    b->position[0] = -0.25 + 2.0 * BRICK * k + (top ? BRICK : 0.0);
    b->position[2] = top ? 3.0 * BRICK : BRICK;
    b->user_id = 2000 + (uint64_t)(11 - i); /* the resolver rule sees both orders */
    s->type = NSCD_SHAPE_BOX;
    s->half_extents[0] = s->half_extents[1] = s->half_extents[2] = BRICK;
    if (convex) { /* the same cube as the hull of its corners (migrates with its points) */
        s->type = NSCD_SHAPE_CONVEX;
        s->points = brick_corners;
        s->point_count = 8;
    }
}

/* Largest speed (of the centre and of the corners' rotation), height error
 * and tilt (1 - |q0|) over the bricks among n bodies (user ids 2000 on). */
static void brick_errors(const double *x, const double *q, const double *v, const double *om,
                         const uint64_t *user_ids, int n, double err[3]) {
    err[0] = err[1] = err[2] = 0.0;
    for (int i = 0; i < n; ++i) {
        if (user_ids[i] < 2000) {
            continue; /* a wall */
        }
        int top = 2011 - (int)user_ids[i] >= 6;
        const double *vi = v + 3 * i, *wi = om + 3 * i;
        double speed = sqrt(vi[0] * vi[0] + vi[1] * vi[1] + vi[2] * vi[2]) +
                       BRICK * sqrt(wi[0] * wi[0] + wi[1] * wi[1] + wi[2] * wi[2]);
        err[0] = fmax(err[0], speed);
        err[1] = fmax(err[1], fabs(x[3 * i + 2] - (top ? 3.0 : 1.0) * BRICK));
        err[2] = fmax(err[2], 1.0 - fabs(q[4 * i]));
    }
}

static void boxes_rest(int convex) {
    enum { N = 11, ROWS = N + 5, STEPS = 400 };
    nscd_world_desc d;
    scene_desc(&d, 1, 0);
    d.relaxation = size_ > 1 ? 0.7 : 1.0;
    nscd_world_mpi *m = create_mpi(&d);
    nscd_world *s = NULL;
    CHECK(nscd_world_create(&d, &s) == NSCD_OK);
    add_walls_mpi(m);
    add_walls_serial(s);
    for (int i = 0; i < N; ++i) {
        nscd_body_desc b;
        nscd_shape_desc sh;
        uint64_t gid;
        nscd_body_id sid;
        brick_body(i, convex, &b, &sh);
        if (rank_ == 0) {
            CHECK(nscd_world_mpi_add_body(m, &b, &sh, 1, &gid) == NSCD_OK);
        }
        CHECK(nscd_world_add_body(s, &b, &sh, 1, &sid) == NSCD_OK);
    }
    for (int k = 0; k < STEPS; ++k) {
        CHECK(nscd_world_mpi_step(m, NULL) == NSCD_OK);
        CHECK(nscd_world_step(s, NULL) == NSCD_OK);
    }
    double x[3 * ROWS], q[4 * ROWS], v[3 * ROWS], om[3 * ROWS], err[3], worst[3], serial[3];
    uint64_t user_ids[ROWS];
    int32_t count = 0;
    CHECK(nscd_world_mpi_get_bodies(m, ROWS, &count, NULL, user_ids, x, q, v, om) == NSCD_OK);
    int total = 0;
    MPI_Allreduce(&count, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total == N);
    brick_errors(x, q, v, om, user_ids, count, err);
    MPI_Allreduce(err, worst, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CHECK(nscd_world_get_bodies(s, ROWS, &count, NULL, user_ids, x, q, v, om) == NSCD_OK);
    CHECK(count == ROWS);
    brick_errors(x, q, v, om, user_ids, count, serial);
    if (rank_ == 0) {
        printf("boxes_rest%s: speed %.3g m/s, height error %.3g m, tilt %.3g (serial %.3g, "
               "%.3g, %.3g)\n",
               convex ? " (convex)" : "", worst[0], worst[1], worst[2], serial[0], serial[1],
               serial[2]);
    }
    /* at rest: micrometres per second and of settling, no tilt */
    CHECK(worst[0] < 1e-3 && worst[1] < 1e-4 && worst[2] < 1e-6);
    CHECK(serial[0] < 1e-3 && serial[1] < 1e-4 && serial[2] < 1e-6);
    nscd_world_mpi_destroy(m);
    nscd_world_destroy(s);
}

/* Whether the test list of the command line ("all", or names separated by
 * commas) names `name`. */
static int wants(const char *only, const char *name) {
    return !strcmp(only, "all") || strstr(only, name) != NULL;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    const char *only = argc > 1 ? argv[1] : "all";
    if (wants(only, "serial")) {
        one_rank_is_serial(1, 0);
        one_rank_is_serial(3, 0);
        one_rank_is_serial(1, 2);
    }
    if (wants(only, "conserved")) {
        bodies_conserved_and_rerun();
    }
    if (wants(only, "balance")) {
        balanced_cuts();
        weighted_cuts();
        balance_every_ = 7; /* one rank: the cuts never move, still the serial world */
        one_rank_is_serial(1, 0);
        balance_every_ = 0;
    }
    if (wants(only, "statistics")) {
        pile_matches_serial();
    }
    if (wants(only, "boxes")) {
        boxes_rest(0);
        boxes_rest(1);
    }
    if (wants(only, "vtk")) {
        vtk_pieces();
    }
    if (wants(only, "bad")) {
        bad_input();
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank_ == 0) {
        printf("%s: %d failure(s) over %d rank(s)\n", all ? "FAIL" : "OK", all, size_);
    }
    MPI_Finalize();
    return all ? 1 : 0;
}
