/* The granular channel of seed 002, Sect. 4.3, on the distributed world
 * (libnscd_mpi, docs/distributed.md): the scene of examples/granular_channel.c
 * (walls, obstacle, moving inflow plane, fill, inflow layers, open outlet),
 * built with the scene module's parameters, random stream and geometry, on
 * an nscd_world_mpi cut into subdomains along x (or --dims X Y Z), one per rank.
 *
 *   mpirun -np R granular_channel_mpi [--json] [--coarse-graining K]
 *          [--duration T] [--warmup T] [--law coulomb|max_dissipation]
 *          [--sweeps N] [--seed S] [--relaxation W] [--vtk PREFIX]
 *
 * With --json rank 0 prints the keys of the serial example's run that are
 * Table 2 figures (particles_avg, contacts_avg, contacts_per_particle,
 * contacts_detected_avg, contacts_active_avg, contacts_particle_particle_avg,
 * max_penetration, bed_height, solid_fraction, inflow_rate, outflow_rate),
 * reduced over the ranks, with the same definitions (granular_stats.h), and
 * the timings. One rank gives bitwise the serial example's figures.
 *
 * Exit status: 0; 1 when the library fails; 2 on bad arguments; 3 when a
 * body was lost or duplicated (global count or id checksum wrong at a step).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nscd/world_mpi.h>

#include "example_cli.h"
#include "granular_scene.h"

#define SAMPLE_INTERVAL 1e-3 /* s, as the serial example */

static const double sqrt_half = 0.70710678118654752440;
static const double bed_x0 = 0.08, bed_x1 = 0.14; /* granular_stats.c */

typedef struct scene {
    channel_params p;
    nscd_world_mpi *world;
    int rank, size;
    uint64_t plane;
    channel_rng rng;
    int32_t layer_ny, layer_nz;
    int64_t steps_per_layer, steps_since_reset, layers, spawned, skipped, removed;
    uint64_t next_user_id;
    int64_t count;     /* dynamic bodies the scene expects */
    uint64_t checksum; /* the sum of their global ids */
} scene;

typedef struct sums {
    int64_t samples;
    double particles, contacts, detected, active, particle_pairs, bed_count, bed_z_sum;
    double max_penetration, window_start, window_end, shadows;
    int64_t spawned_start, removed_start, spawned_end, removed_end;
} sums;

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------ the scene */

/* As granular_scene.c: a half-space through `point`, outward normal +-axis. */
static void half_space(nscd_shape_desc *s, int axis, double sign, const double point[3]) {
    nscd_shape_desc_init(s, sizeof *s);
    s->type = NSCD_SHAPE_HALF_SPACE;
    memcpy(s->position, point, sizeof s->position);
    static const double to_x[2][4] = {{sqrt_half, 0, -sqrt_half, 0}, {sqrt_half, 0, sqrt_half, 0}};
    static const double to_y[2][4] = {{sqrt_half, sqrt_half, 0, 0}, {sqrt_half, -sqrt_half, 0, 0}};
    static const double to_z[2][4] = {{0, 1, 0, 0}, {1, 0, 0, 0}};
    const double(*table)[4] = axis == 0 ? to_x : axis == 1 ? to_y : to_z;
    memcpy(s->orientation, table[sign > 0.0], sizeof s->orientation);
}

/* Replicated bodies: added on every rank in the same order. */
static nscd_status add_fixed(scene *s, int32_t type, const nscd_shape_desc *shapes, int32_t n,
                             uint64_t *id) {
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    b.type = type;
    uint64_t gid = 0;
    nscd_status st = nscd_world_mpi_add_body(s->world, &b, shapes, n, &gid);
    if (id != NULL) {
        *id = gid;
    }
    return st;
}

static nscd_status add_walls_obstacle_plane(scene *s) {
    static const double origin[3] = {0, 0, 0}, side[3] = {0, CHANNEL_WIDTH, 0},
                        top[3] = {0, 0, CHANNEL_HEIGHT};
    nscd_shape_desc walls[4], parts[2], plane;
    half_space(&walls[0], 2, +1.0, origin);
    half_space(&walls[1], 2, -1.0, top);
    half_space(&walls[2], 1, +1.0, origin);
    half_space(&walls[3], 1, -1.0, side);
    nscd_status st = NSCD_OK;
    for (int i = 0; i < 4 && st == NSCD_OK; ++i) {
        st = add_fixed(s, NSCD_BODY_STATIC, &walls[i], 1, NULL);
    }
    for (int k = 0; k < 2; ++k) {
        nscd_shape_desc_init(&parts[k], sizeof parts[k]);
        parts[k].position[2] = 0.5 * CHANNEL_HEIGHT;
    }
    parts[0].type = NSCD_SHAPE_CYLINDER;
    parts[0].radius = OBSTACLE_RADIUS;
    parts[0].half_height = 0.5 * CHANNEL_HEIGHT;
    parts[0].position[0] = OBSTACLE_X;
    parts[0].position[1] = OBSTACLE_Y;
    parts[1].type = NSCD_SHAPE_BOX;
    parts[1].half_extents[0] = 0.5 * OBSTACLE_RADIUS;
    parts[1].half_extents[1] = OBSTACLE_RADIUS;
    parts[1].half_extents[2] = 0.5 * CHANNEL_HEIGHT;
    parts[1].position[0] = OBSTACLE_X + 0.5 * OBSTACLE_RADIUS;
    parts[1].position[1] = OBSTACLE_Y;
    st = st == NSCD_OK ? add_fixed(s, NSCD_BODY_STATIC, parts, 2, NULL) : st;
    half_space(&plane, 0, +1.0, origin);
    st = st == NSCD_OK ? add_fixed(s, NSCD_BODY_KINEMATIC, &plane, 1, &s->plane) : st;
    static const double speed[3] = {CHANNEL_INFLOW_SPEED, 0.0, 0.0};
    return st == NSCD_OK ? nscd_world_mpi_set_body(s->world, s->plane, NULL, NULL, speed, NULL)
                         : st;
}

/* As granular_scene.c: every rank draws the perturbation (one random
 * stream on every rank), rank 0 creates the particle; the global ids are
 * rank 0's, 1, 2, ... as the serial user ids. */
static nscd_status add_particle(scene *s, const double x[3], int create) {
    nscd_body_desc b;
    nscd_body_desc_init(&b, sizeof b);
    memcpy(b.position, x, sizeof b.position);
    b.velocity[0] = CHANNEL_INFLOW_SPEED;
    b.velocity[1] = channel_rng_uniform(&s->rng, -CHANNEL_PERTURBATION, CHANNEL_PERTURBATION);
    b.velocity[2] = channel_rng_uniform(&s->rng, -CHANNEL_PERTURBATION, CHANNEL_PERTURBATION);
    b.density = CHANNEL_DENSITY;
    if (!create) {
        return NSCD_OK;
    }
    b.user_id = s->next_user_id++;
    s->spawned++;
    s->count++;
    s->checksum += b.user_id; /* rank 0's global ids are 1, 2, ... */
    if (s->rank != 0) {
        return NSCD_OK;
    }
    nscd_shape_desc sphere;
    nscd_shape_desc_init(&sphere, sizeof sphere);
    sphere.radius = 0.5 * s->p.diameter;
    uint64_t gid;
    return nscd_world_mpi_add_body(s->world, &b, &sphere, 1, &gid);
}

static double site(int32_t i, int32_t n, double grid, double extent) {
    return 0.5 * extent + ((double)i - 0.5 * (double)(n - 1)) * grid;
}

static void layer_shift(const scene *s, int64_t layer, double dx, double shift[2]) {
    static const double signs[4][2] = {{-1, -1}, {1, 1}, {-1, 1}, {1, -1}};
    int stagger = dx < 2.0 * s->p.diameter * (1.0 - 1e-9);
    shift[0] = stagger ? 0.25 * s->p.grid * signs[layer % 4][0] : 0.0;
    shift[1] = stagger ? 0.25 * s->p.grid * signs[layer % 4][1] : 0.0;
}

static nscd_status fill_channel(scene *s) {
    int32_t nx = (int32_t)floor(CHANNEL_LENGTH / CHANNEL_GRID + 1e-9);
    double r = 0.5 * s->p.diameter;
    nscd_status st = NSCD_OK;
    for (int32_t i = 0; i < nx && st == NSCD_OK; ++i) {
        double shift[2];
        layer_shift(s, i, CHANNEL_GRID, shift);
        for (int32_t j = 0; j < s->layer_ny && st == NSCD_OK; ++j) {
            for (int32_t l = 0; l < s->layer_nz && st == NSCD_OK; ++l) {
                double x[3] = {(i + 0.5) * CHANNEL_GRID,
                               site(j, s->layer_ny, s->p.grid, CHANNEL_WIDTH) + shift[0],
                               site(l, s->layer_nz, s->p.grid, CHANNEL_HEIGHT) + shift[1]};
                st = add_particle(s, x, x[0] > r && channel_obstacle_distance(x[0], x[1]) > r);
            }
        }
    }
    return st;
}

/* Positions of the particles near the inflow on every rank (an Allgatherv
 * of each rank's owned ones): the free-site test sees them all. */
static double *particles_near_inflow(scene *s, double reach, int *n_near) {
    int n = nscd_world_mpi_body_count(s->world), count = 0;
    double *x = malloc((3 * (size_t)n + 3) * sizeof *x);
    int *counts = malloc((size_t)s->size * sizeof *counts);
    int *displs = malloc((size_t)s->size * sizeof *displs);
    double *all = NULL;
    if (x != NULL && counts != NULL && displs != NULL &&
        nscd_world_mpi_get_bodies(s->world, n, &count, NULL, NULL, x, NULL, NULL, NULL) ==
            NSCD_OK) {
        int near = 0;
        for (int i = 0; i < count; ++i) {
            if (x[3 * i] < reach) {
                memmove(&x[3 * near++], &x[3 * i], 3 * sizeof(double));
            }
        }
        int mine = 3 * near, total = 0;
        MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
        for (int r = 0; r < s->size; ++r) {
            displs[r] = total;
            total += counts[r];
        }
        all = malloc(((size_t)total + 3) * sizeof *all);
        if (all != NULL) {
            MPI_Allgatherv(x, mine, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
            *n_near = total / 3;
        }
    }
    free(x), free(counts), free(displs);
    return all;
}

static int site_is_free(const double *near, int n_near, const double x[3], double d) {
    for (int i = 0; i < n_near; ++i) {
        double dx = near[3 * i] - x[0], dy = near[3 * i + 1] - x[1], dz = near[3 * i + 2] - x[2];
        if (dx * dx + dy * dy + dz * dz < d * d) {
            return 0;
        }
    }
    return 1;
}

static nscd_status spawn_layer(scene *s) {
    double r = 0.5 * s->p.diameter, shift[2];
    int n_near = 0;
    double *near = particles_near_inflow(s, r + 2.0 * s->p.diameter, &n_near);
    if (near == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    layer_shift(s, s->layers, s->p.reset_distance, shift);
    nscd_status st = NSCD_OK;
    for (int32_t j = 0; j < s->layer_ny && st == NSCD_OK; ++j) {
        for (int32_t l = 0; l < s->layer_nz && st == NSCD_OK; ++l) {
            double x[3] = {r, site(j, s->layer_ny, s->p.grid, CHANNEL_WIDTH) + shift[0],
                           site(l, s->layer_nz, s->p.grid, CHANNEL_HEIGHT) + shift[1]};
            int free_site = site_is_free(near, n_near, x, s->p.diameter);
            s->skipped += !free_site;
            st = add_particle(s, x, free_site);
        }
    }
    free(near);
    ++s->layers;
    return st;
}

static nscd_status scene_create(scene *s, const channel_params *p, const int32_t dims[3],
                                double relaxation) {
    memset(s, 0, sizeof *s);
    MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s->size);
    s->p = *p;
    s->rng.state = p->seed;
    s->next_user_id = 1;
    s->layer_ny = (int32_t)floor(CHANNEL_WIDTH / p->grid + 1e-9);
    s->layer_nz = (int32_t)floor(CHANNEL_HEIGHT / p->grid + 1e-9);
    s->steps_per_layer = (int64_t)ceil(p->reset_distance / (CHANNEL_INFLOW_SPEED * p->dt) - 1e-9);
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    d.dt = p->dt;
    d.friction_law = p->law;
    d.max_sweeps = p->sweeps;
    d.error_reduction = p->error_reduction;
    d.contact_margin = p->margin;
    d.default_friction = CHANNEL_FRICTION;
    d.relaxation = relaxation;
    d.use_domain = 1;
    const double slack = 0.01;
    for (int k = 0; k < 3; ++k) {
        d.domain_min[k] = -slack;
    }
    d.domain_max[0] = CHANNEL_LENGTH;
    d.domain_max[1] = CHANNEL_WIDTH + slack;
    d.domain_max[2] = CHANNEL_HEIGHT + slack;
    nscd_world_mpi_desc md;
    nscd_world_mpi_desc_init(&md, sizeof md);
    memcpy(md.dims, dims, sizeof md.dims);
    nscd_status st =
        nscd_world_mpi_create((int32_t)MPI_Comm_c2f(MPI_COMM_WORLD), &d, &md, &s->world);
    st = st == NSCD_OK ? add_walls_obstacle_plane(s) : st;
    return st == NSCD_OK && p->fill ? fill_channel(s) : st;
}

static nscd_status scene_step(scene *s, nscd_world_step_report *report) {
    nscd_status st = nscd_world_mpi_step(s->world, report);
    if (st != NSCD_OK) {
        return st;
    }
    s->removed += report->bodies_removed;
    if (++s->steps_since_reset < s->steps_per_layer) {
        return NSCD_OK;
    }
    s->steps_since_reset = 0;
    static const double origin[3] = {0.0, 0.0, 0.0};
    st = nscd_world_mpi_set_body(s->world, s->plane, origin, NULL, NULL, NULL);
    return st == NSCD_OK ? spawn_layer(s) : st;
}

/* ------------------------------------------------------------ statistics */

/* One sample: this rank's owned particles and resolved contacts, summed
 * over the ranks (granular_stats.c's definitions). */
static nscd_status sample(scene *s, sums *m) {
    int n = nscd_world_mpi_body_count(s->world), nc = 0, count = 0;
    nscd_world_mpi_get_contacts(s->world, 0, &nc, NULL, NULL, NULL, NULL, NULL, NULL);
    double *x = malloc((3 * (size_t)n + 3) * sizeof *x), *gaps = malloc(((size_t)nc + 1) * 8);
    double *imp = malloc((3 * (size_t)nc + 3) * sizeof *imp);
    uint64_t *a = malloc(((size_t)nc + 1) * 8), *b = malloc(((size_t)nc + 1) * 8);
    nscd_status st = x && gaps && imp && a && b ? NSCD_OK : NSCD_ERR_OUT_OF_MEMORY;
    st = st == NSCD_OK
             ? nscd_world_mpi_get_bodies(s->world, n, &count, NULL, NULL, x, NULL, NULL, NULL)
             : st;
    st = st == NSCD_OK ? nscd_world_mpi_get_contacts(s->world, nc, &nc, a, b, NULL, NULL, gaps, imp)
                       : st;
    double local[6] = {0, 0, 0, 0, 0, 0}, total[6];
    double touching = 1e-6 * s->p.diameter;
    const uint64_t fixed = (uint64_t)1 << 63; /* replicated bodies' ids */
    for (int j = 0; st == NSCD_OK && j < nc; ++j) {
        local[0] += gaps[j] <= touching;
        local[1] += imp[3 * j] > 0.0;
        local[2] += !(a[j] & fixed) && !(b[j] & fixed);
    }
    local[3] = nc;
    for (int i = 0; st == NSCD_OK && i < count; ++i) {
        if (x[3 * i] >= bed_x0 && x[3 * i] < bed_x1) {
            local[4] += 1.0;
            local[5] += x[3 * i + 2];
        }
    }
    free(x), free(gaps), free(imp), free(a), free(b);
    MPI_Allreduce(local, total, 6, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int64_t particles = 0, shadows = 0;
    nscd_world_mpi_global_count(s->world, &particles, NULL, &shadows);
    m->shadows += (double)shadows;
    double t = nscd_world_mpi_time(s->world);
    m->particles += (double)particles;
    m->contacts += total[0];
    m->active += total[1];
    m->particle_pairs += total[2];
    m->detected += total[3];
    m->bed_count += total[4];
    m->bed_z_sum += total[5];
    if (m->samples == 0) {
        m->window_start = t;
        m->spawned_start = s->spawned;
        m->removed_start = s->removed;
    }
    m->window_end = t;
    m->spawned_end = s->spawned;
    m->removed_end = s->removed;
    ++m->samples;
    return st;
}

/* The scene's expected count and checksum against the world's (collective). */
static int conserved(scene *s, int64_t removed_now) {
    int64_t count = 0;
    uint64_t sum = 0;
    nscd_world_mpi_global_count(s->world, &count, &sum, NULL);
    if (removed_now > 0) { /* the outlet removes bodies the scene cannot name */
        s->count -= removed_now;
        s->checksum = sum;
        return count == s->count;
    }
    return count == s->count && sum == s->checksum;
}

static void field(const char *name, double x) {
    printf(isfinite(x) ? ",\"%s\":%.17g" : ",\"%s\":null", name, isfinite(x) ? x : 0.0);
}

/* Table 2 of the paper (Coulomb, maximum dissipation), as the serial example. */
static void print_paper(void) {
    printf(",\"paper\":{\"particles_avg\":[246992.2917082917,247005.05094905096],"
           "\"contacts_avg\":[320276.5074925075,320196.8191808192],"
           "\"contacts_per_particle\":[2.593412978820955,2.592633777734896],"
           "\"max_penetration\":[3.90600228e-05,4.649761679e-05],"
           "\"speed_peak\":[1.42,1.39],\"solid_fraction\":0.572,\"inflow_rate\":1400000}");
}

static void print_json(const scene *s, const sums *m, double warmup, int64_t steps, double seconds,
                       const double cpu[2], double mpi_seconds) {
    const channel_params *p = &s->p;
    double n = (double)m->samples, d = p->diameter;
    double particles = m->particles / n, contacts = m->contacts / n;
    double bed = m->bed_count > 0.0 ? 2.0 * m->bed_z_sum / m->bed_count : NAN;
    double bed_particles = m->bed_count / n;
    double span = m->window_end - m->window_start;
    printf("{\"example\":\"granular_channel_mpi\",\"ranks\":%d", s->size);
    field("coarse_graining", p->k);
    field("duration", (double)steps * p->dt);
    printf(",\"steps\":%lld", (long long)steps);
    field("warmup", warmup);
    field("dt", p->dt);
    field("diameter", d);
    printf(",\"sweeps\":%d,\"seed\":%llu", p->sweeps, (unsigned long long)p->seed);
    field("seconds", seconds);
    print_paper();
    printf(",\"runs\":[{\"friction_law\":\"%s\"",
           p->law == NSCD_FRICTION_COULOMB ? "coulomb" : "max_dissipation");
    field("particles_avg", particles);
    field("contacts_avg", contacts);
    field("contacts_per_particle", 2.0 * contacts / particles);
    field("solid_fraction",
          bed_particles * channel_particle_volume(p) / ((bed_x1 - bed_x0) * CHANNEL_WIDTH * bed));
    field("max_penetration", m->max_penetration);
    field("max_penetration_over_diameter", m->max_penetration / d);
    field("inflow_rate", span > 0 ? (double)(m->spawned_end - m->spawned_start) / span : NAN);
    field("outflow_rate", span > 0 ? (double)(m->removed_end - m->removed_start) / span : NAN);
    field("seconds", seconds);
    field("seconds_per_step", seconds / (double)steps);
    field("step_seconds_max_rank", mpi_seconds);
    field("cpu_seconds_max_rank", cpu[0]);
    field("cpu_seconds_all_ranks", cpu[1]);
    field("shadows_avg", m->shadows / n);
    field("contacts_detected_avg", m->detected / n);
    field("contacts_active_avg", m->active / n);
    field("contacts_particle_particle_avg", m->particle_pairs / n);
    field("bed_height", bed);
    field("bed_height_over_diameter", bed / d);
    field("window_start", m->window_start);
    field("window_end", m->window_end);
    printf(",\"samples\":%lld,\"spawned\":%lld,\"removed\":%lld,\"skipped\":%lld}]}\n",
           (long long)m->samples, (long long)s->spawned, (long long)s->removed,
           (long long)s->skipped);
}

/* ------------------------------------------------------------ main */

static int run(int argc, char **argv, int rank) {
    double k = cli_double(argc, argv, "--coarse-graining", 5.0);
    double dt = k * CHANNEL_DT;
    double duration = cli_double(argc, argv, "--duration", 1.0);
    int64_t steps = (int64_t)llround(duration / dt);
    double warmup = cli_double(argc, argv, "--warmup", 0.5 * (double)steps * dt);
    const char *law_name = cli_string(argc, argv, "--law", "coulomb");
    int32_t law = !strcmp(law_name, "max_dissipation") ? NSCD_FRICTION_MAX_DISSIPATION
                                                       : NSCD_FRICTION_COULOMB;
    int32_t sweeps = (int32_t)cli_double(argc, argv, "--sweeps", 10.0);
    double relaxation = cli_double(argc, argv, "--relaxation", 1.0);
    int32_t dims[3] = {(int32_t)cli_double(argc, argv, "--dims-x", 0.0),
                       (int32_t)cli_double(argc, argv, "--dims-y", 1.0),
                       (int32_t)cli_double(argc, argv, "--dims-z", 1.0)};
    if (!(k >= 1.0 && k <= 20.0) || steps < 1 || sweeps < 1 || !(warmup >= 0.0) ||
        (strcmp(law_name, "coulomb") && strcmp(law_name, "max_dissipation"))) {
        if (rank == 0) {
            fprintf(stderr, "usage: granular_channel_mpi [--json] [--coarse-graining K] "
                            "[--duration T] [--warmup T] [--law coulomb|max_dissipation] "
                            "[--sweeps N] [--seed S] [--relaxation W] [--dims-x N] "
                            "[--dims-y N] [--dims-z N] [--vtk PREFIX]\n");
        }
        return 2;
    }
    channel_params p;
    channel_params_init(&p, k, sweeps, law, (uint64_t)cli_double(argc, argv, "--seed", 1.0));
    scene s;
    double start = now(), in_step = 0.0, cpu_start = cpu_now();
    nscd_status st = scene_create(&s, &p, dims, relaxation);
    sums m;
    memset(&m, 0, sizeof m);
    int64_t sample_every = (int64_t)fmax(1.0, round(SAMPLE_INTERVAL / dt));
    int lost = 0;
    for (int64_t step = 1; step <= steps && st == NSCD_OK; ++step) {
        nscd_world_step_report r = {.struct_size = sizeof r};
        double t0 = now();
        st = scene_step(&s, &r);
        in_step += now() - t0;
        lost += st == NSCD_OK && !conserved(&s, r.bodies_removed);
        if (st == NSCD_OK && nscd_world_mpi_time(s.world) >= warmup) {
            m.max_penetration = fmax(m.max_penetration, r.max_penetration);
        }
        if (st == NSCD_OK && step % sample_every == 0 && nscd_world_mpi_time(s.world) >= warmup) {
            st = sample(&s, &m);
        }
    }
    const char *vtk = cli_string(argc, argv, "--vtk", NULL);
    if (st == NSCD_OK && vtk != NULL) {
        st = nscd_world_mpi_write_vtk(s.world, vtk);
    }
    double seconds = now() - start, slowest = 0.0, cpu = cpu_now() - cpu_start, cpus[2];
    MPI_Allreduce(&in_step, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&cpu, &cpus[0], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&cpu, &cpus[1], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (st != NSCD_OK) {
        fprintf(stderr, "granular_channel_mpi (rank %d): %s (%s)\n", rank, nscd_status_string(st),
                s.world ? nscd_world_mpi_last_error(s.world) : "create");
    } else if (rank == 0 && cli_has_flag(argc, argv, "--json")) {
        print_json(&s, &m, warmup, steps, seconds, cpus, slowest);
    } else if (rank == 0) {
        printf("granular_channel_mpi: %d ranks, %lld steps, %.1f s; particles %.1f, contacts per "
               "particle %.4f\n",
               s.size, (long long)steps, seconds, m.particles / (double)m.samples,
               2.0 * m.contacts / m.particles);
    }
    nscd_world_mpi_destroy(s.world);
    if (lost && rank == 0) {
        fprintf(stderr, "granular_channel_mpi: bodies lost or duplicated at %d steps\n", lost);
    }
    return st != NSCD_OK ? 1 : lost ? 3 : 0;
}

static const char usage_text[] =
    "usage: granular_channel_mpi [--json] [--coarse-graining K] [--duration T] [--warmup T] "
    "[--law coulomb|max_dissipation] [--sweeps N] [--seed S] [--relaxation W] [--dims-x N] "
    "[--dims-y N] [--dims-z N] [--vtk DIR]";

int main(int argc, char **argv) {
    cli_check(argc, argv, usage_text); /* before MPI_Init: every rank checks alike */
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int code = run(argc, argv, rank), worst = code;
    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
}
