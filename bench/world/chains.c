/* bench_world --scene chains and --scene stack: mechanisms in a granular
 * bed, stepped by nscd_world_step alone (joints and contacts in one
 * matrix-free Gauss–Seidel, issue 26; docs/benchmarks.md).
 *
 * chains: N spheres (radius 2 cm) poured into a box of five static
 *   half-spaces around 50 pendulum chains of five capsule links (revolute
 *   joints about y, the first to the ground) that hang from above into the
 *   pile (the spheres start on a jittered grid that leaves the chains'
 *   columns free, and fall around them). Run twice: with the chains and with "joints": 0 (the same
 *   spheres, no chains). Reported: steps per second of the timed steps (CPU
 *   time), the largest joint residual |Φ| seen after any timed step (m; the
 *   acceptance's "joint drift"), contacts and the largest speed at the end.
 * stack: N spheres in columns ten high on a floor, with one five-link chain
 *   hanging beside them (joints present in the world): the stack must come
 *   to rest (largest speed at the end below 1e-3 m/s) with every step OK.
 *
 * Only nscd: ODE's and Bullet's joints are not set up by bench/world's peers. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nscd/nscd.h"
#include "chains.h"

#define RADIUS 0.02
#define LINKS 5
#define LINK 0.06 /* joint spacing, m */
#define CHAINS 50

static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const double SQRT_HALF = 0.70710678118654752440;

/* Floor z >= 0 and four walls around [0, lx] x [0, ly]. */
static int add_box(nscd_world *w, double lx, double ly) {
    const double poses[5][7] = {
        {0, 0, 0, 1, 0, 0, 0},
        {0, 0, 0, SQRT_HALF, 0, SQRT_HALF, 0},
        {lx, 0, 0, SQRT_HALF, 0, -SQRT_HALF, 0},
        {0, 0, 0, SQRT_HALF, -SQRT_HALF, 0, 0},
        {0, ly, 0, SQRT_HALF, SQRT_HALF, 0, 0},
    };
    for (int k = 0; k < 5; ++k) {
        nscd_body_desc b;
        nscd_body_desc_init(&b, sizeof b);
        b.type = NSCD_BODY_STATIC;
        nscd_shape_desc s;
        nscd_shape_desc_init(&s, sizeof s);
        s.type = NSCD_SHAPE_HALF_SPACE;
        memcpy(s.position, poses[k], 3 * sizeof(double));
        memcpy(s.orientation, poses[k] + 3, 4 * sizeof(double));
        nscd_body_id id;
        if (nscd_world_add_body(w, &b, &s, 1, &id) != NSCD_OK) {
            return -1;
        }
    }
    return 0;
}

static int add_sphere(nscd_world *w, double x, double y, double z, nscd_body_id *id) {
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.position[0] = x, b.position[1] = y, b.position[2] = z;
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.type = NSCD_SHAPE_SPHERE;
    s.radius = RADIUS;
    return nscd_world_add_body(w, &b, &s, 1, id) == NSCD_OK ? 0 : -1;
}

/* A chain of LINKS capsules (radius 8 mm, ends 1.5 cm short of the joints)
 * hanging straight down from the ground point top; revolute axes along y. */
/* One chain of LINKS capsules hanging from `top`; with_joints 0 leaves the
 * links loose (the same bodies, no joint: they fall into the pile). */
static int add_chain(nscd_world *w, const double top[3], int with_joints, nscd_joint_id *joints) {
    nscd_body_id prev = NSCD_BODY_NULL;
    for (int k = 0; k < LINKS; ++k) {
        nscd_body_desc b;
        nscd_body_desc_init(&b, sizeof b);
        b.position[0] = top[0], b.position[1] = top[1];
        b.position[2] = top[2] - (k + 0.5) * LINK;
        b.density = 3000.0;
        nscd_shape_desc s;
        nscd_shape_desc_init(&s, sizeof s);
        s.type = NSCD_SHAPE_CAPSULE;
        s.radius = 0.008;
        s.half_height = 0.5 * LINK - 0.015 - 0.008;
        nscd_body_id id;
        if (nscd_world_add_body(w, &b, &s, 1, &id) != NSCD_OK) {
            return -1;
        }
        if (!with_joints) {
            continue;
        }
        nscd_joint_desc j;
        nscd_joint_desc_init(&j, sizeof j);
        j.type = NSCD_JOINT_REVOLUTE;
        j.body_a = prev;
        j.body_b = id;
        if (prev == NSCD_BODY_NULL) {
            memcpy(j.position_a, top, sizeof j.position_a);
        } else {
            j.position_a[2] = -0.5 * LINK;
        }
        j.orientation_a[0] = SQRT_HALF, j.orientation_a[1] = -SQRT_HALF; /* frame z = y */
        j.position_b[2] = 0.5 * LINK;
        j.orientation_b[0] = SQRT_HALF, j.orientation_b[1] = -SQRT_HALF;
        if (nscd_world_add_joint(w, &j, &joints[k]) != NSCD_OK) {
            return -1;
        }
        prev = id;
    }
    return 0;
}

static double worst_residual(const nscd_world *w, const nscd_joint_id *joints, int n) {
    double worst = 0.0;
    for (int k = 0; k < n; ++k) {
        double values[8];
        int32_t count = 0;
        if (nscd_world_joint_residual(w, joints[k], 8, &count, values) != NSCD_OK) {
            return INFINITY;
        }
        for (int32_t r = 0; r < count; ++r) {
            worst = fmax(worst, fabs(values[r]));
        }
    }
    return worst;
}

static double largest_speed(const nscd_world *w, const nscd_body_id *ids, int n) {
    double top = 0.0;
    for (int k = 0; k < n; ++k) {
        double v[3];
        nscd_world_get_body(w, ids[k], NULL, NULL, v, NULL);
        top = fmax(top, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
    }
    return top;
}

/* FNV-1a 64 of every body's x, q, v, ω in storage order (0 when the copy fails). */
static unsigned long long state_hash(const nscd_world *w) {
    int32_t n = 0;
    nscd_world_get_bodies(w, 0, &n, NULL, NULL, NULL, NULL, NULL, NULL);
    double *x = malloc(13 * (size_t)(n > 0 ? n : 1) * sizeof *x);
    if (x == NULL || nscd_world_get_bodies(w, n, &n, NULL, NULL, x, x + 3 * (size_t)n,
                                           x + 7 * (size_t)n, x + 10 * (size_t)n) != NSCD_OK) {
        free(x);
        return 0;
    }
    unsigned long long hash = 14695981039346656037ull;
    const unsigned char *bytes = (const unsigned char *)x;
    for (size_t k = 0; k < 13 * (size_t)n * sizeof *x; ++k) {
        hash = (hash ^ bytes[k]) * 1099511628211ull;
    }
    free(x);
    return hash;
}

static nscd_world *make_world(double dt, int32_t sweeps) {
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    d.dt = dt;
    d.max_sweeps = sweeps;
    d.tolerance = 0.0; /* a fixed sweep count, as the other scenes */
    d.default_friction = 0.4;
    nscd_world *w = NULL;
    return nscd_world_create(&d, &w) == NSCD_OK ? w : NULL;
}

/* One chains run: the pile of `spheres`, with CHAINS chains (with_chains
 * 1), their links without joints (2) or none (0). */
static int chains_run(int32_t spheres, int with_chains, int32_t warmup, int32_t steps, double dt,
                      int32_t sweeps, bw_chains_result *r) {
    memset(r, 0, sizeof *r);
    r->bodies = spheres;
    nscd_world *w = make_world(dt, sweeps);
    const int nx = 20, ny = 10;
    const double lx = nx * 2.2 * RADIUS, ly = ny * 2.2 * RADIUS;
    nscd_body_id *ids = malloc((size_t)spheres * sizeof *ids);
    nscd_joint_id *joints = malloc((size_t)CHAINS * LINKS * sizeof *joints);
    int failed = w == NULL || ids == NULL || joints == NULL || add_box(w, lx, ly) != 0;
    uint32_t seed = 12345u; /* a loose grid, jittered, that falls into a pile */
    for (int32_t k = 0, cell = 0; k < spheres && !failed; ++cell) {
        int col = cell % nx, row = (cell / nx) % ny, layer = cell / (nx * ny);
        if (with_chains >= 0 && col % 2 == 0 && row % 2 == 0) {
            continue; /* the chains' columns stay free (in both runs: the same pile) */
        }
        double jitter[2];
        for (int c = 0; c < 2; ++c) {
            seed = seed * 1664525u + 1013904223u;
            jitter[c] = 0.08 * RADIUS * ((double)(seed >> 8) / 16777216.0 - 0.5);
        }
        double x = (col + 0.5) * 2.2 * RADIUS + jitter[0];
        double y = (row + 0.5) * 2.2 * RADIUS + jitter[1];
        double z = RADIUS + layer * 2.4 * RADIUS;
        failed = add_sphere(w, x, y, z, &ids[k++]) != 0;
    }
    int32_t n_joints = 0;
    for (int c = 0; c < CHAINS && with_chains && !failed; ++c) {
        /* tops on a 10 x 5 grid; the lowest link reaches into the pile */
        double top[3] = {(2 * (c % 10) + 0.5) * 2.2 * RADIUS, (2 * (c / 10) + 0.5) * 2.2 * RADIUS,
                         0.08 + LINKS * LINK};
        failed = add_chain(w, top, with_chains == 1, &joints[n_joints]) != 0;
        n_joints += with_chains == 1 ? LINKS : 0;
        r->links += LINKS;
    }
    r->joints = n_joints;
    for (int32_t s = 0; s < warmup && !failed; ++s) {
        failed = nscd_world_step(w, NULL) != NSCD_OK;
    }
    /* only the steps are timed, not the drift measured after each */
    double seconds = 0.0, contacts = 0.0;
    for (int32_t s = 0; s < steps && !failed; ++s) {
        nscd_world_step_report rep;
        rep.struct_size = sizeof rep;
        double start = cpu_seconds();
        failed = nscd_world_step(w, &rep) != NSCD_OK;
        seconds += cpu_seconds() - start;
        contacts += rep.contacts;
        r->max_joint_drift = fmax(r->max_joint_drift, worst_residual(w, joints, n_joints));
    }
    if (failed && w != NULL) {
        snprintf(r->error, sizeof r->error, "%s", nscd_world_last_error(w));
    }
    r->ok = !failed;
    r->steps = steps;
    r->steps_per_second = seconds > 0.0 ? steps / seconds : 0.0;
    r->contacts_avg = steps > 0 ? contacts / steps : 0.0;
    r->max_speed = failed ? 0.0 : largest_speed(w, ids, spheres);
    r->state_hash = failed ? 0 : state_hash(w);
    nscd_world_destroy(w);
    free(ids);
    free(joints);
    return failed ? -1 : 0;
}

/* The stack: columns of ten spheres on the floor, one chain beside them. */
static int stack_run(int32_t spheres, int32_t steps, double dt, int32_t sweeps,
                     bw_chains_result *r) {
    memset(r, 0, sizeof *r);
    r->bodies = spheres;
    nscd_world *w = make_world(dt, sweeps);
    const int columns = spheres / 10, side = (int)ceil(sqrt((double)columns));
    const double pitch = 2.0 * RADIUS + 0.002;
    const double lx = side * pitch + 0.2, ly = side * pitch + 0.05;
    nscd_body_id *ids = malloc((size_t)spheres * sizeof *ids);
    nscd_joint_id joints[LINKS];
    int failed = w == NULL || ids == NULL || add_box(w, lx, ly) != 0;
    for (int32_t k = 0; k < spheres && !failed; ++k) {
        int column = k / 10, level = k % 10;
        double x = (column % side + 0.5) * pitch, y = (column / side + 0.5) * pitch;
        failed = add_sphere(w, x, y, RADIUS + level * 2.0 * RADIUS, &ids[k]) != 0;
    }
    const double top[3] = {lx - 0.1, 0.5 * ly, 0.5};
    failed = failed || add_chain(w, top, 1, joints) != 0;
    r->links = r->joints = LINKS;
    double start = cpu_seconds(), contacts = 0.0;
    for (int32_t s = 0; s < steps && !failed; ++s) {
        nscd_world_step_report rep;
        rep.struct_size = sizeof rep;
        failed = nscd_world_step(w, &rep) != NSCD_OK;
        contacts += rep.contacts;
        if (!failed) {
            r->max_joint_drift = fmax(r->max_joint_drift, worst_residual(w, joints, LINKS));
        }
    }
    double seconds = cpu_seconds() - start;
    if (failed && w != NULL) {
        snprintf(r->error, sizeof r->error, "%s", nscd_world_last_error(w));
    }
    r->ok = !failed;
    r->steps = steps;
    r->steps_per_second = seconds > 0.0 ? steps / seconds : 0.0;
    r->contacts_avg = steps > 0 ? contacts / steps : 0.0;
    r->max_speed = failed ? 0.0 : largest_speed(w, ids, spheres);
    r->state_hash = failed ? 0 : state_hash(w);
    nscd_world_destroy(w);
    free(ids);
    return failed ? -1 : 0;
}

static void print_result(const char *scene, const bw_chains_result *r, int last) {
    printf("    {\"engine\": \"nscd\", \"scene\": \"%s\", \"bodies\": %d, \"links\": %d, "
           "\"joints\": %d, \"ok\": %s, \"steps\": %d, \"steps_per_second\": %.6g, "
           "\"max_joint_drift\": %.3g, \"contacts_avg\": %.6g, \"max_speed\": %.3g, "
           "\"state_hash\": \"%016llx\"",
           scene, (int)r->bodies, (int)r->links, (int)r->joints, r->ok ? "true" : "false",
           (int)r->steps, r->steps_per_second, r->max_joint_drift, r->contacts_avg, r->max_speed,
           r->state_hash);
    if (!r->ok) {
        printf(", \"error\": \"%s\"", r->error);
    }
    printf("}%s\n", last ? "" : ",");
}

int bw_chains_main(const char *scene, int32_t spheres, int32_t warmup, int32_t steps, double dt,
                   int32_t sweeps, const char *variant) {
    bw_chains_result runs[3];
    int failed = 0, n = 0;
    if (strcmp(scene, "chains") == 0) {
        static const char *const names[3] = {"with", "without", "loose"};
        static const int kinds[3] = {1, 0, 2}; /* chains_run's with_chains */
        for (int k = 0; k < 3; ++k) {
            if (variant == NULL || strcmp(variant, names[k]) == 0) {
                failed |= chains_run(spheres, kinds[k], warmup, steps, dt, sweeps, &runs[n++]) != 0;
            }
        }
    } else {
        failed |= stack_run(spheres, warmup + steps, dt, sweeps, &runs[n++]) != 0;
        failed |= !(runs[0].max_speed < 1e-3);
    }
    printf("{\"benchmark\": \"bench_world\", \"scene\": \"%s\", \"nscd_version\": \"%s\", "
           "\"dt\": %g, \"sweeps\": %d,\n \"runs\": [\n",
           scene, nscd_version_string(), dt, (int)sweeps);
    for (int k = 0; k < n; ++k) {
        print_result(scene, &runs[k], k + 1 == n);
    }
    /* joints_cost: the pile alone over the pile with the chains (issue 26's
     * figure: it includes the 250 links as bodies); joints_cost_same_bodies:
     * the pile with the loose links over the pile with the chains (the
     * joints' own cost) */
    if (n == 3 && runs[1].steps_per_second > 0.0) {
        double chains = fmax(runs[0].steps_per_second, 1e-300);
        printf(" ],\n \"joints_cost\": %.4g, \"joints_cost_same_bodies\": %.4g}\n",
               runs[1].steps_per_second / chains, runs[2].steps_per_second / chains);
    } else {
        printf(" ]}\n");
    }
    return failed ? 1 : 0;
}
