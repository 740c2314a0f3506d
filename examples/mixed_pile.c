/* A mixed pile in a container (issue 24): spheres, boxes, capsules and
 * cylinders of 1-3 cm, random sizes and orientations, dropped from a grid
 * into a 20 x 20 cm container (floor and four walls) at the default
 * settings of the world (dt 1e-3 s, 10 sweeps), the scene a new user builds
 * first. docs/world.md, "The mixed pile".
 *
 * Measured and printed: failed steps, bodies that left the container,
 * the mechanical energy E = KE + PE (gravity), whose largest rise over a
 * step after the release tells whether the step creates energy, the largest
 * penetration after `--settle` seconds, the steps reported not converged,
 * the kinetic energy and the fastest body at the end.
 *
 *   mixed_pile [--json] [--seed S] [--bodies N] [--t-end T] [--settle T]
 *              [--dt H] [--sweeps N] [--deep-sweeps N] [--deep-penetration D] [--vtk DIR]
 * [--vtk-every T] [--vtp PREFIX] [--rolling-friction L] [--spinning-friction L]
 * [--quiet-check T] [--sleep] [--sleep-speed V] [--sleep-time T] [--speed-stats] [--drop R]
 * [--drop-wake] [--convex] [--light-body-ratio R]
 *
 * --rolling-friction and --spinning-friction set the rolling and spinning
 * resistance lengths of every body and the container
 * (nscd_world_set_material_resistance(); default 0, none). --quiet-check T
 * runs T more seconds after --t-end and reports the largest displacement
 * of any body from its place at --t-end over them (the acceptance of issue
 * 24: every body at rest, less than 0.1 mm over 2 s), the fastest body at
 * the end and the largest penetration over them.
 *
 * --sleep turns sleeping on (nscd_world_desc::sleep; docs/world.md,
 * "Sleeping"), with --sleep-speed V (m/s) and --sleep-time T (s) instead of
 * the defaults; the bodies asleep at --t-end and at the end of the quiet
 * check are reported. --speed-stats reports, at --t-end, how many bodies
 * have a speed max(|v|, |omega| r) (r the bounding radius, as sleeping
 * measures it) above 0.1, 1, 5, 10 and 50 mm/s, and the median. --drop R
 * drops, at the end (after the quiet check), a steel ball of radius R onto
 * the highest body (from 5 cm above its centre) and runs 1 s more: the bodies asleep, the
 * ball's lowest and final bottom and the largest penetration; with
 * --drop-wake every body is woken first (the same drop on the awake pile).
 *
 * --light-body-ratio R sets nscd_world_desc::light_body_ratio (default 10;
 * 0: no light bodies, the step before that field; docs/world.md, "Light
 * bodies").
 *
 * --convex adds a fifth kind, the convex polyhedron (NSCD_SHAPE_CONVEX: the
 * hull of 12 random points on an ellipsoid of the same 1-3 cm), drawn as
 * often as each of the other four (the acceptance's pile "again with convex
 * polyhedra"); without it the bodies are those of before, bit for bit.
 *
 * --vtk writes legacy ASCII frames DIR/mixed_pile_NNNNN.vtk; --vtp writes
 * binary VTK XML frames PREFIX_NNNNNN.vtp (every shape with its type,
 * size and orientation) and PREFIX_contacts_NNNNNN.vtp with the
 * collections PREFIX.pvd and PREFIX_contacts.pvd (docs/paraview.md), every
 * --vtk-every seconds and at the end.
 *
 * Exit status: 0, 1 when the library fails, 2 on bad arguments, 3 when a
 * body escapes the container or a state is not finite. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_cli.h"
#include <nscd/nscd.h>

#define USAGE                                                                                      \
    "usage: mixed_pile [--json] [--seed S] [--bodies N] [--t-end T] [--settle T] [--dt H]\n"       \
    "                  [--sweeps N] [--deep-sweeps N] [--deep-penetration D] [--vtk DIR] "         \
    "[--vtk-every T] [--vtp PREFIX]\n"                                                             \
    "                  [--rolling-friction L] [--spinning-friction L] [--quiet-check T]\n"         \
    "                  [--sleep] [--sleep-speed V] [--sleep-time T] [--speed-stats] [--drop R]\n"  \
    "                  [--drop-wake] [--convex] [--light-body-ratio R]\n"

#define HALF_WIDTH 0.1 /* m: the container's inner half width */
#define WALL 0.02      /* m: half thickness of a wall */
#define WALL_HEIGHT 0.4
#define SPACING 0.05 /* m: the release grid (bodies up to 3 cm never touch) */
#define G 9.81

#define KINDS 5          /* sphere, box, capsule, cylinder, convex */
#define CONVEX_POINTS 12 /* points of a --convex polyhedron */

static const char *const KIND_NAMES[KINDS] = {"sphere", "box", "capsule", "cylinder", "convex"};

/* xorshift64*: a reproducible stream from the seed. */
static uint64_t rng_state;
static double uniform(double lo, double hi) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    uint64_t r = rng_state * 2685821657736338717ull;
    return lo + (hi - lo) * (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

static nscd_status add_static_box(nscd_world *w, double x, double y, double z, double hx, double hy,
                                  double hz) {
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.type = NSCD_BODY_STATIC;
    b.position[0] = x, b.position[1] = y, b.position[2] = z;
    nscd_shape_desc s;
    nscd_shape_desc_init(&s, sizeof s);
    s.type = NSCD_SHAPE_BOX;
    s.half_extents[0] = hx, s.half_extents[1] = hy, s.half_extents[2] = hz;
    nscd_body_id id = 0;
    return nscd_world_add_body(w, &b, &s, 1, &id);
}

static nscd_status add_container(nscd_world *w) {
    const double origin[3] = {0.0, 0.0, 0.0}, up[3] = {0.0, 0.0, 1.0};
    nscd_body_id id = 0;
    nscd_status st = nscd_world_add_half_space(w, origin, up, NULL, NULL, &id); /* the floor */
    const double c = HALF_WIDTH + WALL, h = 0.5 * WALL_HEIGHT, l = HALF_WIDTH + 2.0 * WALL;
    if (st == NSCD_OK) {
        st = add_static_box(w, c, 0.0, h, WALL, l, h);
    }
    if (st == NSCD_OK) {
        st = add_static_box(w, -c, 0.0, h, WALL, l, h);
    }
    if (st == NSCD_OK) {
        st = add_static_box(w, 0.0, c, h, l, WALL, h);
    }
    if (st == NSCD_OK) {
        st = add_static_box(w, 0.0, -c, h, l, WALL, h);
    }
    return st;
}

/* Body k of the grid: a random kind, size (1-3 cm across) and orientation. */
static nscd_status add_piece(nscd_world *w, int k, uint64_t user, int convex, nscd_body_id *id,
                             int *kind, double *radius) {
    const int per_row = (int)(2.0 * HALF_WIDTH / SPACING); /* 4 x 4 per layer */
    int layer = k / (per_row * per_row), cell = k % (per_row * per_row);
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.position[0] = -HALF_WIDTH + SPACING * (0.5 + cell % per_row);
    b.position[1] = -HALF_WIDTH + SPACING * (0.5 + cell / per_row);
    b.position[2] = 0.03 + SPACING * layer;
    double axis[3] = {uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)};
    double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]) + 1e-12;
    double angle = uniform(0.0, 3.14159265358979), s = sin(0.5 * angle) / n;
    b.orientation[0] = cos(0.5 * angle);
    b.orientation[1] = s * axis[0], b.orientation[2] = s * axis[1], b.orientation[3] = s * axis[2];
    b.user_id = user;
    nscd_shape_desc sh;
    nscd_shape_desc_init(&sh, sizeof sh);
    const int kinds = convex ? KINDS : 4;
    *kind = (int)uniform(0.0, kinds);
    *kind = *kind > kinds - 1 ? kinds - 1 : *kind;
    double size = uniform(0.01, 0.03); /* across, m */
    double points[3 * CONVEX_POINTS];
    switch (*kind) {
    case 0: sh.type = NSCD_SHAPE_SPHERE, sh.radius = 0.5 * size; break;
    case 1:
        sh.type = NSCD_SHAPE_BOX;
        for (int i = 0; i < 3; ++i) {
            sh.half_extents[i] = 0.5 * size * uniform(0.5, 1.0);
        }
        break;
    case 2:
        sh.type = NSCD_SHAPE_CAPSULE, sh.radius = 0.25 * size * uniform(0.6, 1.0);
        sh.half_height = 0.5 * size - sh.radius;
        break;
    case 3:
        sh.type = NSCD_SHAPE_CYLINDER, sh.radius = 0.5 * size * uniform(0.5, 1.0);
        sh.half_height = 0.5 * size * uniform(0.5, 1.0);
        break;
    default: { /* random directions on an ellipsoid of semi-axes 0.5 size (0.5..1) */
        double semi[3];
        for (int i = 0; i < 3; ++i) {
            semi[i] = 0.5 * size * uniform(0.5, 1.0);
        }
        for (int p = 0; p < CONVEX_POINTS; ++p) {
            double u[3] = {uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)};
            double l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) + 1e-12;
            for (int i = 0; i < 3; ++i) {
                points[3 * p + i] = semi[i] * u[i] / l;
            }
        }
        sh.type = NSCD_SHAPE_CONVEX, sh.points = points, sh.point_count = CONVEX_POINTS;
        break;
    }
    }
    b.density = 1000.0;
    /* its bounding radius about its centre */
    const double *e = sh.half_extents;
    *radius = *kind == 0   ? sh.radius
              : *kind == 1 ? sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2])
              : *kind == 2 ? sh.radius + sh.half_height
              : *kind == 3 ? hypot(sh.radius, sh.half_height)
                           : 0.0;
    for (int p = 0; *kind == 4 && p < CONVEX_POINTS; ++p) {
        const double *x = points + 3 * p;
        *radius = fmax(*radius, sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]));
    }
    return nscd_world_add_body(w, &b, &sh, 1, id);
}

typedef struct result {
    int failed_step, escaped, not_converged, steps;
    /* --quiet-check: the largest displacement from the place at --t-end, the
     * fastest body at the end and the largest penetration over the check */
    double quiet_displacement, quiet_speed, quiet_penetration;
    /* and which body moved most (its index, its speed and spin at the end),
     * and how many moved more than 0.1 mm */
    int quiet_worst, quiet_moved, quiet_fastest; /* and the fastest body at the end */
    double quiet_worst_speed, quiet_worst_spin;
    int sleeping_end, sleeping_quiet; /* bodies asleep at --t-end, at the check's end */
    int above[5];                     /* --speed-stats: above 0.1, 1, 5, 10, 50 mm/s */
    /* --drop: the pile's top under the ball, the sleeping bodies before the
     * drop and the fewest after, the ball's lowest and final bottom, the
     * largest penetration, the bodies asleep at the end */
    double drop_top, drop_lowest, drop_final, drop_penetration;
    int drop_asleep_before, drop_asleep_fewest, drop_asleep_end;
    double median_speed;
    int speed_fastest;                                        /* and the fastest by that speed: */
    double speed_fastest_v, speed_fastest_w, speed_fastest_z; /* |v|, |omega|, height */
    double energy_rise, energy_scale, max_penetration, final_kinetic, final_speed;
    double mass, correction_work; /* kg; M g c_max dt, J: see main */
    char error[256];
} result;

/* E = KE + m g z over the dynamic bodies; the fastest body and escapes. */
static nscd_status measure(nscd_world *w, const nscd_body_id *ids, int n, double *energy,
                           double *fastest, int *escaped) {
    double ke = 0.0, pe = 0.0;
    nscd_status st = nscd_world_kinetic_energy(w, &ke);
    *fastest = 0.0;
    *escaped = 0;
    for (int k = 0; st == NSCD_OK && k < n; ++k) {
        double x[3], v[3], m = 0.0;
        st = nscd_world_get_body(w, ids[k], x, NULL, v, NULL);
        if (st == NSCD_OK) {
            st = nscd_world_get_body_mass(w, ids[k], &m, NULL);
        }
        pe += m * G * x[2];
        *fastest = fmax(*fastest, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
        *escaped += !(fabs(x[0]) < HALF_WIDTH && fabs(x[1]) < HALF_WIDTH && x[2] > 0.0 &&
                      isfinite(x[0] + x[1] + x[2]));
    }
    *energy = ke + pe;
    return st;
}

/* --quiet-check: `steps` more steps; the largest distance of any body from
 * where it was at their start, the fastest body at the end, the largest
 * penetration. */
static nscd_status quiet_check(nscd_world *w, const nscd_body_id *ids, int n, int steps,
                               result *r) {
    double *start = calloc(3 * (size_t)n, sizeof(double));
    double *moved_most = calloc((size_t)n + 1, sizeof(double));
    nscd_status st = start != NULL && moved_most != NULL ? NSCD_OK : NSCD_ERR_OUT_OF_MEMORY;
    r->quiet_worst = r->quiet_fastest = -1;
    for (int k = 0; st == NSCD_OK && k < n; ++k) {
        st = nscd_world_get_body(w, ids[k], start + 3 * k, NULL, NULL, NULL);
    }
    for (int s = 0; st == NSCD_OK && s < steps; ++s) {
        nscd_world_step_report rep = {.struct_size = sizeof rep};
        st = nscd_world_step(w, &rep);
        if (st != NSCD_OK) {
            r->failed_step = r->steps + s + 1;
            break;
        }
        r->quiet_penetration = fmax(r->quiet_penetration, rep.max_penetration);
        r->sleeping_quiet = rep.sleeping_bodies;
        for (int k = 0; st == NSCD_OK && k < n; ++k) {
            double x[3], v[3];
            st = nscd_world_get_body(w, ids[k], x, NULL, v, NULL);
            const double *x0 = start + 3 * k;
            double moved = sqrt((x[0] - x0[0]) * (x[0] - x0[0]) + (x[1] - x0[1]) * (x[1] - x0[1]) +
                                (x[2] - x0[2]) * (x[2] - x0[2]));
            moved_most[k] = fmax(moved_most[k], moved);
            if (moved > r->quiet_displacement) {
                r->quiet_displacement = moved;
                r->quiet_worst = k;
            }
            double speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            if (s + 1 == steps && speed > r->quiet_speed) {
                r->quiet_speed = speed;
                r->quiet_fastest = k;
            }
        }
    }
    for (int k = 0; st == NSCD_OK && k < n; ++k) {
        r->quiet_moved += moved_most[k] > 1e-4;
    }
    if (st == NSCD_OK && r->quiet_worst >= 0) {
        double v[3], om[3];
        st = nscd_world_get_body(w, ids[r->quiet_worst], NULL, NULL, v, om);
        r->quiet_worst_speed = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        r->quiet_worst_spin = sqrt(om[0] * om[0] + om[1] * om[1] + om[2] * om[2]);
    }
    free(start);
    free(moved_most);
    return st;
}

/* --drop R: a steel ball of radius R dropped onto the highest body (its
 * centre 5 cm above that body's centre), 1 s more: does the pile wake, where does
 * the ball stop. */
static nscd_status drop_ball(nscd_world *w, const nscd_body_id *ids, int n, double radius, int wake,
                             result *r) {
    double top = 0.0, above[2] = {0.0, 0.0};
    for (int k = 0; k < n; ++k) {
        double x[3];
        nscd_status st = nscd_world_get_body(w, ids[k], x, NULL, NULL, NULL);
        if (st != NSCD_OK) {
            return st;
        }
        if (x[2] > top) {
            top = x[2], above[0] = x[0], above[1] = x[1];
        }
    }
    r->drop_top = top;
    for (int k = 0; wake && k < n; ++k) { /* --drop-wake: the pile awake before the drop */
        nscd_status st = nscd_world_wake_body(w, ids[k]);
        if (st != NSCD_OK) {
            return st;
        }
    }
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.position[0] = above[0], b.position[1] = above[1];
    b.position[2] = top + 0.05 + radius;
    b.density = 7800.0;
    nscd_shape_desc sh;
    nscd_shape_desc_init(&sh, sizeof sh);
    sh.radius = radius;
    nscd_body_id ball = 0;
    nscd_status st = nscd_world_add_body(w, &b, &sh, 1, &ball);
    nscd_world_step_report rep = {.struct_size = sizeof rep};
    r->drop_asleep_fewest = n + 1;
    r->drop_lowest = INFINITY;
    for (int s = 0; st == NSCD_OK && s < 1000; ++s) {
        st = nscd_world_step(w, &rep);
        if (s == 0) {
            r->drop_asleep_before = rep.sleeping_bodies;
        }
        r->drop_asleep_fewest = rep.sleeping_bodies < r->drop_asleep_fewest ? rep.sleeping_bodies
                                                                            : r->drop_asleep_fewest;
        r->drop_penetration = fmax(r->drop_penetration, rep.max_penetration);
        double x[3];
        if (st == NSCD_OK) {
            st = nscd_world_get_body(w, ball, x, NULL, NULL, NULL);
        }
        r->drop_lowest = fmin(r->drop_lowest, x[2] - radius);
        r->drop_final = x[2] - radius;
    }
    r->drop_asleep_end = rep.sleeping_bodies;
    return st;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* --speed-stats: the speeds max(|v|, |omega| r) at this time. */
static nscd_status speed_statistics(nscd_world *w, const nscd_body_id *ids, const double *radius,
                                    int n, result *r) {
    double *speed = calloc((size_t)n, sizeof(double));
    nscd_status st = speed != NULL ? NSCD_OK : NSCD_ERR_OUT_OF_MEMORY;
    const double limits[5] = {1e-4, 1e-3, 5e-3, 1e-2, 5e-2};
    for (int k = 0; st == NSCD_OK && k < n; ++k) {
        double v[3], om[3];
        st = nscd_world_get_body(w, ids[k], NULL, NULL, v, om);
        speed[k] = fmax(sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]),
                        sqrt(om[0] * om[0] + om[1] * om[1] + om[2] * om[2]) * radius[k]);
        for (int l = 0; l < 5; ++l) {
            r->above[l] += speed[k] > limits[l];
        }
        if (k == 0 || speed[k] > speed[r->speed_fastest]) {
            double x[3];
            st = nscd_world_get_body(w, ids[k], x, NULL, NULL, NULL);
            r->speed_fastest = k;
            r->speed_fastest_v = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            r->speed_fastest_w = sqrt(om[0] * om[0] + om[1] * om[1] + om[2] * om[2]);
            r->speed_fastest_z = x[2];
        }
    }
    if (st == NSCD_OK) {
        qsort(speed, (size_t)n, sizeof(double), compare_doubles);
        r->median_speed = speed[n / 2];
    }
    free(speed);
    return st;
}

int main(int argc, char **argv) {
    cli_check(argc, argv, USAGE);
    const int json = cli_has_flag(argc, argv, "--json");
    rng_state = (uint64_t)cli_double(argc, argv, "--seed", 1.0) * 0x9E3779B97F4A7C15ull + 1;
    const int n = (int)cli_double(argc, argv, "--bodies", 100.0);
    const double t_end = cli_double(argc, argv, "--t-end", 1.5);
    const double settle = cli_double(argc, argv, "--settle", 1.0);
    const char *vtk_dir = cli_string(argc, argv, "--vtk", NULL);
    const char *vtp_prefix = cli_string(argc, argv, "--vtp", NULL);
    const double vtk_every = cli_double(argc, argv, "--vtk-every", 0.05);
    if (n < 1 || n > 100000 || !(t_end > 0.0)) {
        fprintf(stderr, "mixed_pile: --bodies 1..100000 and --t-end > 0\n");
        return 2;
    }
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    d.dt = cli_double(argc, argv, "--dt", d.dt);
    d.max_sweeps = (int32_t)cli_double(argc, argv, "--sweeps", d.max_sweeps);
    d.deep_sweeps = (int32_t)cli_double(argc, argv, "--deep-sweeps", d.deep_sweeps);
    d.deep_penetration = cli_double(argc, argv, "--deep-penetration", d.deep_penetration);
    d.light_body_ratio = cli_double(argc, argv, "--light-body-ratio", d.light_body_ratio);
    const int sleep = cli_has_flag(argc, argv, "--sleep");
    const int speed_stats = cli_has_flag(argc, argv, "--speed-stats");
    d.sleep = sleep;
    d.sleep_speed = cli_double(argc, argv, "--sleep-speed", d.sleep_speed);
    d.sleep_time = cli_double(argc, argv, "--sleep-time", d.sleep_time);
    const double rolling = cli_double(argc, argv, "--rolling-friction", 0.0);
    const double spinning = cli_double(argc, argv, "--spinning-friction", 0.0);
    const double quiet = cli_double(argc, argv, "--quiet-check", 0.0);
    const double drop = cli_double(argc, argv, "--drop", 0.0);
    const int resistance = cli_string(argc, argv, "--rolling-friction", NULL) != NULL ||
                           cli_string(argc, argv, "--spinning-friction", NULL) != NULL;
    if (!(quiet >= 0.0)) {
        fprintf(stderr, "mixed_pile: --quiet-check >= 0\n");
        return 2;
    }
    nscd_world *w = NULL;
    nscd_status st = nscd_world_create(&d, &w);
    if (st == NSCD_OK && resistance) { /* material 0: every body and the container */
        st = nscd_world_set_material_resistance(w, 0, rolling, spinning);
        if (st != NSCD_OK) {
            fprintf(stderr, "mixed_pile: %s\n", nscd_world_last_error(w));
            nscd_world_destroy(w);
            return 2;
        }
    }
    if (st != NSCD_OK) {
        fprintf(stderr, "mixed_pile: nscd_world_create: %s\n", nscd_status_string(st));
        return st == NSCD_ERR_OUT_OF_RANGE || st == NSCD_ERR_NOT_FINITE ? 2 : 1;
    }
    nscd_body_id *ids = calloc((size_t)n, sizeof *ids);
    int *kinds = calloc((size_t)n, sizeof *kinds);
    double *radius = calloc((size_t)n, sizeof *radius);
    int counts[KINDS] = {0, 0, 0, 0, 0};
    const int convex = cli_has_flag(argc, argv, "--convex");
    st = ids != NULL && kinds != NULL && radius != NULL ? add_container(w) : NSCD_ERR_OUT_OF_MEMORY;
    for (int k = 0; st == NSCD_OK && k < n; ++k) {
        int kind = 0;
        st = add_piece(w, k, (uint64_t)k + 1, convex, &ids[k], &kind, &radius[k]);
        counts[kind]++;
        kinds[k] = kind;
    }
    result r;
    memset(&r, 0, sizeof r);
    r.failed_step = -1;
    r.energy_rise = -INFINITY;
    double energy = 0.0, fastest = 0.0;
    if (st == NSCD_OK) {
        st = measure(w, ids, n, &energy, &fastest, &r.escaped);
        r.energy_scale = fabs(energy);
    }
    for (int k = 0; st == NSCD_OK && k < n; ++k) {
        double m = 0.0;
        st = nscd_world_get_body_mass(w, ids[k], &m, NULL);
        r.mass += m;
    }
    /* The one source of energy a step may have: the penetration correction
     * lifts bodies (positions only) at max_correction_speed at most, which
     * is a potential energy of at most M g c_max dt per step. */
    r.correction_work = r.mass * G * d.max_correction_speed * d.dt;
    const int steps = (int)ceil(t_end / d.dt - 1e-9);
    const int settle_step = (int)ceil(settle / d.dt - 1e-9);
    const int vtk_stride = vtk_every > d.dt ? (int)floor(vtk_every / d.dt + 0.5) : 1;
    nscd_world_vtk_series *series = NULL;
    if (st == NSCD_OK && vtp_prefix != NULL) {
        st = nscd_world_vtk_series_create(vtp_prefix,
                                          NSCD_WORLD_VTK_SHAPES | NSCD_WORLD_VTK_CONTACTS, &series);
    }
    for (int s = 0; st == NSCD_OK && s < steps; ++s) {
        if (series != NULL && s % vtk_stride == 0) {
            st = nscd_world_vtk_series_write(series, w);
            if (st != NSCD_OK) {
                break;
            }
        }
        if (vtk_dir != NULL && s % vtk_stride == 0) {
            char path[1024];
            snprintf(path, sizeof path, "%s/mixed_pile_%05d.vtk", vtk_dir, s / vtk_stride);
            st = nscd_world_write(w, path, NSCD_WORLD_VTK);
            if (st != NSCD_OK) {
                break;
            }
        }
        nscd_world_step_report rep = {.struct_size = sizeof rep};
        st = nscd_world_step(w, &rep);
        if (st != NSCD_OK) {
            r.failed_step = s + 1;
            break;
        }
        r.steps = s + 1;
        r.not_converged += !rep.converged;
        r.sleeping_end = rep.sleeping_bodies;
        if (s + 1 >= settle_step) {
            r.max_penetration = fmax(r.max_penetration, rep.max_penetration);
        }
        double e = 0.0;
        int escaped = 0;
        st = measure(w, ids, n, &e, &fastest, &escaped);
        r.energy_rise = fmax(r.energy_rise, e - energy);
        energy = e;
        r.escaped = escaped > r.escaped ? escaped : r.escaped;
    }
    if (series != NULL && st == NSCD_OK) { /* the final state */
        st = nscd_world_vtk_series_write(series, w);
    }
    if (st == NSCD_OK && speed_stats) {
        st = speed_statistics(w, ids, radius, n, &r);
    }
    if (st == NSCD_OK && quiet > 0.0) {
        st = quiet_check(w, ids, n, (int)ceil(quiet / d.dt - 1e-9), &r);
    }
    if (st == NSCD_OK && drop > 0.0) {
        st = drop_ball(w, ids, n, drop, cli_has_flag(argc, argv, "--drop-wake"), &r);
    }
    nscd_world_vtk_series_destroy(series);
    if (st != NSCD_OK) {
        snprintf(r.error, sizeof r.error, "%s", nscd_world_last_error(w));
    }
    nscd_world_kinetic_energy(w, &r.final_kinetic);
    r.final_speed = fastest;
    if (json) {
        printf("{\"seed\":%.0f,\"bodies\":%d,\"spheres\":%d,\"boxes\":%d,\"capsules\":%d,"
               "\"cylinders\":%d,",
               cli_double(argc, argv, "--seed", 1.0), n, counts[0], counts[1], counts[2],
               counts[3]);
        if (convex) {
            printf("\"convex\":%d,", counts[4]);
        }
        printf("\"dt\":");
        json_number(stdout, d.dt);
        printf(",\"sweeps\":%d,\"steps\":%d,\"failed_step\":%d,\"escaped\":%d,"
               "\"not_converged_steps\":%d,\"energy_scale\":",
               (int)d.max_sweeps, r.steps, r.failed_step, r.escaped, r.not_converged);
        json_number(stdout, r.energy_scale);
        json_field(stdout, "energy_rise_max", r.energy_rise);
        json_field(stdout, "mass", r.mass);
        json_field(stdout, "correction_work_per_step", r.correction_work);
        json_field(stdout, "settle", settle);
        json_field(stdout, "max_penetration_after_settle", r.max_penetration);
        json_field(stdout, "final_kinetic_energy", r.final_kinetic);
        json_field(stdout, "final_fastest_speed", r.final_speed);
        if (resistance) { /* only when asked: the JSON of the default run is as before */
            json_field(stdout, "rolling_friction", rolling);
            json_field(stdout, "spinning_friction", spinning);
        }
        if (sleep) {
            json_field(stdout, "sleep_speed", d.sleep_speed);
            json_field(stdout, "sleep_time", d.sleep_time);
            printf(",\"sleeping_at_t_end\":%d", r.sleeping_end);
            if (quiet > 0.0) {
                printf(",\"sleeping_at_quiet_end\":%d", r.sleeping_quiet);
            }
        }
        if (drop > 0.0) {
            json_field(stdout, "drop_radius", drop);
            json_field(stdout, "drop_highest_centre", r.drop_top);
            json_field(stdout, "drop_ball_lowest_bottom", r.drop_lowest);
            json_field(stdout, "drop_ball_final_bottom", r.drop_final);
            json_field(stdout, "drop_max_penetration", r.drop_penetration);
            printf(",\"drop_asleep_first_step\":%d,\"drop_asleep_fewest\":%d,"
                   "\"drop_asleep_end\":%d",
                   r.drop_asleep_before, r.drop_asleep_fewest, r.drop_asleep_end);
        }
        if (speed_stats) {
            json_field(stdout, "speed_median", r.median_speed);
            printf(",\"speed_fastest\":{\"body\":%d,\"kind\":\"%s\",\"v\":%.4g,\"w\":%.4g,"
                   "\"z\":%.4g}",
                   r.speed_fastest, KIND_NAMES[kinds[r.speed_fastest]], r.speed_fastest_v,
                   r.speed_fastest_w, r.speed_fastest_z);
            printf(",\"speed_above_mm_s\":{\"0.1\":%d,\"1\":%d,\"5\":%d,\"10\":%d,\"50\":%d}",
                   r.above[0], r.above[1], r.above[2], r.above[3], r.above[4]);
        }
        if (quiet > 0.0) {
            json_field(stdout, "quiet_check", quiet);
            json_field(stdout, "quiet_max_displacement", r.quiet_displacement);
            json_field(stdout, "quiet_final_fastest_speed", r.quiet_speed);
            json_field(stdout, "quiet_max_penetration", r.quiet_penetration);
            printf(",\"quiet_bodies_moved_over_0.1mm\":%d,\"quiet_worst_body\":%d,"
                   "\"quiet_worst_kind\":\"%s\",\"quiet_worst_speed\":",
                   r.quiet_moved, r.quiet_worst,
                   r.quiet_worst >= 0 ? KIND_NAMES[kinds[r.quiet_worst]] : "");
            json_number(stdout, r.quiet_worst_speed);
            json_field(stdout, "quiet_worst_spin", r.quiet_worst_spin);
            printf(",\"quiet_fastest_body\":%d,\"quiet_fastest_kind\":\"%s\"", r.quiet_fastest,
                   r.quiet_fastest >= 0 ? KIND_NAMES[kinds[r.quiet_fastest]] : "");
        }
        printf(",\"error\":\"%s\"}\n", r.error[0] ? "see stderr" : "");
    } else {
        printf("mixed pile, seed %.0f: %d bodies (%d spheres, %d boxes, %d capsules, %d "
               "cylinders), %d steps of %g s\n",
               cli_double(argc, argv, "--seed", 1.0), n, counts[0], counts[1], counts[2], counts[3],
               r.steps, d.dt);
        printf("  failed step %d, escaped %d, not converged %d steps\n", r.failed_step, r.escaped,
               r.not_converged);
        printf("  largest energy rise over a step %.3g J (E scale %.3g J; the correction's "
               "bound M g c_max dt %.3g J)\n",
               r.energy_rise, r.energy_scale, r.correction_work);
        printf("  largest penetration after %g s: %.3g m\n", settle, r.max_penetration);
        printf("  at the end: kinetic energy %.3g J, fastest body %.3g m/s\n", r.final_kinetic,
               r.final_speed);
        if (resistance) {
            printf("  rolling resistance %g m, spinning resistance %g m\n", rolling, spinning);
        }
        if (sleep) {
            printf("  sleeping (below %g m/s for %g s): %d bodies asleep at t-end", d.sleep_speed,
                   d.sleep_time, r.sleeping_end);
            if (quiet > 0.0) {
                printf(", %d at the end of the quiet check", r.sleeping_quiet);
            }
            printf("\n");
        }
        if (drop > 0.0) {
            printf(
                "  a ball of %g m dropped on the highest body (its centre at %.3g m): asleep %d at "
                "its first step, fewest %d, %d after 1 s; its bottom lowest %.3g m, at the "
                "end %.3g m; largest penetration %.3g m\n",
                drop, r.drop_top, r.drop_asleep_before, r.drop_asleep_fewest, r.drop_asleep_end,
                r.drop_lowest, r.drop_final, r.drop_penetration);
        }
        if (speed_stats) {
            printf("  speeds at t-end: median %.3g m/s; above 0.1/1/5/10/50 mm/s: %d/%d/%d/%d/%d\n",
                   r.median_speed, r.above[0], r.above[1], r.above[2], r.above[3], r.above[4]);
        }
        if (quiet > 0.0) {
            printf("  over %g s more: largest displacement %.3g m, fastest body at the end %.3g "
                   "m/s, largest penetration %.3g m; %d bodies moved more than 0.1 mm, most "
                   "body %d (a %s: at the end %.3g m/s, %.3g rad/s)\n",
                   quiet, r.quiet_displacement, r.quiet_speed, r.quiet_penetration, r.quiet_moved,
                   r.quiet_worst, r.quiet_worst >= 0 ? KIND_NAMES[kinds[r.quiet_worst]] : "-",
                   r.quiet_worst_speed, r.quiet_worst_spin);
            printf("  the fastest at the end: body %d (a %s)\n", r.quiet_fastest,
                   r.quiet_fastest >= 0 ? KIND_NAMES[kinds[r.quiet_fastest]] : "-");
        }
    }
    if (r.error[0]) {
        fprintf(stderr, "mixed_pile: %s\n", r.error);
    }
    free(ids);
    free(kinds);
    free(radius);
    nscd_world_destroy(w);
    if (st != NSCD_OK) {
        return 1;
    }
    return r.escaped > 0 ? 3 : 0;
}
