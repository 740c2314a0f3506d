/* The granular channel of seed 002, Sect. 4.3, on the distributed world
 * (libnscd_mpi, docs/distributed.md): the scene of examples/granular_channel.c
 * (granular_scene.c: walls, obstacle, moving inflow plane, fill, inflow layers,
 * open outlet) and its statistics (granular_stats.c), run on an nscd_world_mpi
 * (granular_world_mpi.c) cut into subdomains along x (or --dims-x/y/z), one per
 * rank.
 *
 *   mpirun -np R granular_channel_mpi [--json] [--coarse-graining K]
 *          [--duration T] [--warmup T] [--law coulomb|max_dissipation]
 *          [--sweeps N] [--seed S] [--relaxation W] [--inflow depth|volume]
 *          [--wall-friction MU] [--balance-every N] [--balance-contact-weight A]
 *          [--checkpoint PREFIX] [--checkpoint-at T] [--checkpoint-every T]
 *          [--restart PREFIX] [--vtk PREFIX]
 *
 * --balance-every N (default 100) moves the cuts to the quantiles of the
 * particles' x every N steps (nscd_world_mpi_desc.balance_every), so that
 * each rank has as much work: a particle weighs 1 plus A (default 1.5,
 * nscd_world_mpi_desc.balance_contact_weight; 0: by particle count) for each
 * contact it resolved in the last step; 0 keeps the equal cells of the
 * domain box.
 *
 * With --json rank 0 prints the keys of the serial example's run that are
 * Table 2 figures (particles_avg, contacts_avg, contacts_per_particle,
 * contacts_detected_avg, contacts_active_avg, contacts_particle_particle_avg,
 * max_penetration, bed_height, solid_fraction, speed_peak, inflow_rate,
 * outflow_rate), each rank's sums of granular_stats.c reduced over the ranks,
 * and the timings. One rank gives bitwise the serial example's figures.
 * The run also has `state_hash`, a hash of every body's global id, user id,
 * position, orientation, velocity and angular velocity bits summed over the
 * bodies of all ranks (channel_world_mpi_state_hash: the same whichever rank
 * owns a body), and `first_step`.
 *
 * --checkpoint PREFIX --checkpoint-at T saves the world after the step that
 * reaches T, as the serial example does (docs/checkpoint.md, "The granular
 * channel"): one file per rank, PREFIX.rank<r> (nscd_world_mpi_save), with
 * the scene's own state (inflow plane, random generator, counters) and the
 * count and id checksum of granular_world_mpi.h as user data.
 * --checkpoint-every T saves after every step that reaches a multiple of T,
 * overwriting the files: the ranks write PREFIX.tmp.rank<r> and rename them
 * once all are complete, so the files are always the last complete save.
 * --restart PREFIX loads them, on as many ranks with the same --dims, and
 * runs on to --duration: the final state_hash is that of the uninterrupted
 * run, bit for bit. A missing, truncated or damaged file (or a set whose
 * ranks hold different saves) is refused with the reason on stderr and
 * exit status 1; so is a checkpoint of another run (coarse graining, law,
 * sweeps, seed). The statistics of a restarted run cover its own steps only.
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
#include "granular_stats.h"
#include "granular_world_mpi.h"

#define SAMPLE_INTERVAL 1e-3 /* s, as the serial example */

static const char usage_text[] =
    "usage: granular_channel_mpi [--json] [--coarse-graining K] [--duration T] [--warmup T] "
    "[--law coulomb|max_dissipation] [--sweeps N] [--seed S] [--relaxation W] "
    "[--inflow depth|volume] [--wall-friction MU] [--dims-x N] [--dims-y N] [--dims-z N] "
    "[--balance-every N] [--balance-contact-weight A] [--checkpoint PREFIX] [--checkpoint-at T] "
    "[--checkpoint-every T] "
    "[--restart PREFIX] [--vtk PREFIX]";

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

/* ------------------------------------------------------------ statistics */

/* Each rank's sums of granular_stats.c cover its owned particles and the
 * contacts it resolved; every contact and particle is counted by exactly one
 * rank, so the sums over the ranks are the world's. The window, the spawned and
 * removed counts and the max penetration (of the step report) are already
 * global. Not reduced: the radial distribution (pairs across subdomain faces
 * would be missed, so it is not sampled here) and the time history (it counts
 * this rank's contacts only). */
static void reduce_stats(channel_stats *st) {
    double sums[7] = {st->particles,      st->contacts,  st->detected, st->active,
                      st->particle_pairs, st->bed_count, st->bed_z_sum};
    int64_t seen[2] = {st->escaped_seen, st->not_finite_seen};
    MPI_Allreduce(MPI_IN_PLACE, sums, 7, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, seen, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    st->particles = sums[0];
    st->contacts = sums[1];
    st->detected = sums[2];
    st->active = sums[3];
    st->particle_pairs = sums[4];
    st->bed_count = sums[5];
    st->bed_z_sum = sums[6];
    st->escaped_seen = seen[0];
    st->not_finite_seen = seen[1];
    const int cells = CHANNEL_MAP_NX * CHANNEL_MAP_NY;
    MPI_Allreduce(MPI_IN_PLACE, st->speed_sum, cells, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, st->omega_sum, cells, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, st->map_count, cells, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, st->bed_profile, CHANNEL_PROFILE_BINS, MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
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

/* The outcome of one run, for the output. */
typedef struct result {
    const channel_scene *scene;
    const channel_stats *stats;
    channel_summary summary;
    double warmup, seconds, step_seconds_max_rank, cpu[2], shadows_avg, largest_share_avg;
    double largest_contact_share_avg;
    int32_t balance_every;
    double balance_contact_weight;
    int64_t steps, first_step; /* first_step: 1, or the step after the one restarted from */
    uint64_t state_hash;       /* channel_world_mpi_state_hash() at the end */
    int ranks, keep_volume_fraction;
} result;

static void print_json(const result *r) {
    const channel_scene *s = r->scene;
    const channel_params *p = &s->p;
    const channel_summary *m = &r->summary;
    double d = p->diameter;
    printf("{\"example\":\"granular_channel_mpi\",\"ranks\":%d", r->ranks);
    field("coarse_graining", p->k);
    field("duration", (double)r->steps * p->dt);
    printf(",\"steps\":%lld", (long long)r->steps);
    field("warmup", r->warmup);
    field("dt", p->dt);
    field("diameter", d);
    field("contact_threshold", CHANNEL_CONTACT_THRESHOLD * d);
    field("reset_distance", p->reset_distance);
    printf(",\"inflow\":\"%s\"", r->keep_volume_fraction ? "volume" : "depth");
    field("wall_friction", p->wall_friction);
    printf(",\"sweeps\":%d,\"seed\":%llu", p->sweeps, (unsigned long long)p->seed);
    field("seconds", r->seconds);
    print_paper();
    printf(",\"runs\":[{\"friction_law\":\"%s\"",
           p->law == NSCD_FRICTION_COULOMB ? "coulomb" : "max_dissipation");
    field("particles_avg", m->particles_avg);
    field("contacts_avg", m->contacts_avg);
    field("contacts_per_particle", m->contacts_per_particle);
    field("contacts_per_particle_force_carrying", m->contacts_per_particle_force_carrying);
    field("solid_fraction", m->solid_fraction);
    field("solid_fraction_core", m->solid_fraction_core);
    field("solid_fraction_channel", m->channel_fraction);
    field("max_penetration", r->stats->max_penetration);
    field("max_penetration_over_diameter", r->stats->max_penetration / d);
    field("speed_peak", m->speed_peak);
    field("inflow_rate", m->inflow_rate);
    field("outflow_rate", m->outflow_rate);
    field("seconds", r->seconds);
    field("seconds_per_step", r->seconds / (double)r->steps);
    field("step_seconds_max_rank", r->step_seconds_max_rank);
    field("cpu_seconds_max_rank", r->cpu[0]);
    field("cpu_seconds_all_ranks", r->cpu[1]);
    field("shadows_avg", r->shadows_avg);
    field("largest_share_avg", r->largest_share_avg);
    field("largest_contact_share_avg", r->largest_contact_share_avg);
    printf(",\"balance_every\":%d,\"balance_contact_weight\":%.17g", (int)r->balance_every,
           r->balance_contact_weight);
    field("contacts_detected_avg", m->detected_avg);
    field("contacts_active_avg", m->active_avg);
    field("contacts_particle_particle_avg", m->particle_pairs_avg);
    field("bed_height", m->bed_height);
    field("bed_height_over_diameter", m->bed_height / d);
    field("speed_peak_x", m->speed_peak_x);
    field("speed_peak_y", m->speed_peak_y);
    field("window_start", r->stats->window_start);
    field("window_end", r->stats->window_end);
    printf(",\"state_hash\":\"%016llx\",\"first_step\":%lld", (unsigned long long)r->state_hash,
           (long long)r->first_step);
    printf(",\"samples\":%lld,\"spawned\":%lld,\"removed\":%lld,\"skipped\":%lld,"
           "\"escaped_seen\":%lld,\"not_finite_seen\":%lld}]}\n",
           (long long)r->stats->samples, (long long)s->spawned, (long long)s->removed,
           (long long)s->skipped, (long long)r->stats->escaped_seen,
           (long long)r->stats->not_finite_seen);
}

/* ------------------------------------------------------------ main */

/* Steps `first` to `last`, samples and checkpoints; `shadows` sums the
 * shadow copies at the samples, share[0] the largest rank's share of the
 * particles and share[1] of the contacts resolved. */
static nscd_status run_loop(channel_scene *s, channel_stats *stats, int64_t first, int64_t last,
                            const channel_checkpoint_options *checkpoint, double *in_step,
                            double *shadows, double share[2], int *lost) {
    channel_world_mpi *w = s->world;
    int64_t sample_every = (int64_t)fmax(1.0, round(SAMPLE_INTERVAL / s->p.dt));
    nscd_status st = NSCD_OK;
    for (int64_t step = first; step <= last && st == NSCD_OK; ++step) {
        nscd_world_step_report r = {.struct_size = sizeof r};
        double t0 = now();
        st = channel_scene_step(s, &r);
        *in_step += now() - t0;
        if (st != NSCD_OK) {
            break;
        }
        *lost += !channel_world_mpi_conserved(w, r.bodies_removed);
        channel_stats_step(stats, s, &r);
        if (step % sample_every == 0 && nscd_world_mpi_time(w->world) >= stats->warmup) {
            st = channel_stats_sample(stats, s, 0);
            int64_t n_shadows = 0;
            nscd_world_mpi_global_count(w->world, NULL, NULL, &n_shadows);
            *shadows += (double)n_shadows;
            int32_t resolved = 0; /* the count, written whatever the capacity */
            nscd_world_mpi_get_contacts(w->world, 0, &resolved, NULL, NULL, NULL, NULL, NULL, NULL);
            int64_t mine[2] = {nscd_world_mpi_body_count(w->world), resolved}, largest[2], all[2];
            MPI_Allreduce(mine, largest, 2, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
            MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
            for (int k = 0; k < 2; ++k) {
                share[k] += all[k] > 0 ? (double)largest[k] / (double)all[k] : 0.0;
            }
        }
        if (st == NSCD_OK && channel_checkpoint_due(checkpoint, step)) {
            st = channel_scene_save(s, checkpoint->checkpoint, step); /* collective */
        }
    }
    return st;
}

static int parse(int argc, char **argv, channel_params *p, channel_world_mpi_config *config,
                 int64_t *steps, double *warmup, int *keep_volume_fraction) {
    double k = cli_double(argc, argv, "--coarse-graining", 5.0);
    double dt = k * CHANNEL_DT;
    double duration = cli_double(argc, argv, "--duration", 1.0);
    *steps = (int64_t)llround(duration / dt);
    *warmup = cli_double(argc, argv, "--warmup", 0.5 * (double)*steps * dt);
    const char *law_name = cli_string(argc, argv, "--law", "coulomb");
    int32_t law = !strcmp(law_name, "max_dissipation") ? NSCD_FRICTION_MAX_DISSIPATION
                                                       : NSCD_FRICTION_COULOMB;
    int32_t sweeps = (int32_t)cli_double(argc, argv, "--sweeps", 10.0);
    const char *inflow = cli_string(argc, argv, "--inflow", "depth");
    *keep_volume_fraction = strcmp(inflow, "volume") == 0;
    config->relaxation = cli_double(argc, argv, "--relaxation", 1.0);
    config->dims[0] = (int32_t)cli_double(argc, argv, "--dims-x", 0.0);
    config->dims[1] = (int32_t)cli_double(argc, argv, "--dims-y", 1.0);
    config->dims[2] = (int32_t)cli_double(argc, argv, "--dims-z", 1.0);
    double balance_every = cli_double(argc, argv, "--balance-every", 100.0);
    config->balance_every = (int32_t)balance_every;
    config->balance_contact_weight = cli_double(argc, argv, "--balance-contact-weight", 1.5);
    if (!(k >= 1.0 && k <= 20.0) || *steps < 1 || sweeps < 1 || !(*warmup >= 0.0) ||
        !(balance_every >= 0.0 && balance_every <= 1e9) ||
        !(config->balance_contact_weight >= 0.0 && config->balance_contact_weight <= 1e6) ||
        (strcmp(law_name, "coulomb") && strcmp(law_name, "max_dissipation")) ||
        (!*keep_volume_fraction && strcmp(inflow, "depth"))) {
        return 0;
    }
    channel_params_init(p, k, sweeps, law, (uint64_t)cli_double(argc, argv, "--seed", 1.0));
    if (*keep_volume_fraction) {
        channel_params_keep_volume_fraction(p);
    }
    p->wall_friction = cli_double(argc, argv, "--wall-friction", CHANNEL_WALL_FRICTION);
    return p->wall_friction >= 0.0;
}

static void report(int argc, char **argv, nscd_status st, result *r, channel_stats *stats) {
    channel_world_mpi *w = r->scene->world;
    if (st != NSCD_OK) {
        fprintf(stderr, "granular_channel_mpi (rank %d): %s (%s)\n", w ? w->rank : -1,
                nscd_status_string(st), w ? channel_world_mpi_ops.last_error(w) : "create");
        return;
    }
    reduce_stats(stats);
    channel_stats_summary(stats, r->scene, &r->summary);
    if (w->rank == 0 && cli_has_flag(argc, argv, "--json")) {
        print_json(r);
    } else if (w->rank == 0) {
        printf("granular_channel_mpi: %d ranks, %lld steps, %.1f s; particles %.1f, contacts per "
               "particle %.4f\n",
               r->ranks, (long long)r->steps, r->seconds, r->summary.particles_avg,
               r->summary.contacts_per_particle);
    }
}

static int run(int argc, char **argv, int rank) {
    channel_params p;
    channel_world_mpi_config config;
    result r;
    memset(&r, 0, sizeof r);
    channel_checkpoint_options checkpoint;
    const char *bad = NULL;
    if (!parse(argc, argv, &p, &config, &r.steps, &r.warmup, &r.keep_volume_fraction) ||
        (bad = channel_checkpoint_parse(argc, argv, p.dt, r.steps, &checkpoint)) != NULL) {
        if (rank == 0 && bad != NULL) {
            fprintf(stderr, "granular_channel_mpi: %s\n", bad);
        } else if (rank == 0) {
            fprintf(stderr, "%s\n", usage_text);
        }
        return 2;
    }
    channel_scene s;
    channel_stats *stats = calloc(1, sizeof *stats);
    if (stats == NULL) {
        return 1; /* every rank alike: the same allocation everywhere */
    }
    channel_stats_init(stats, r.warmup);
    double start = now(), in_step = 0.0, shadows = 0.0, share[2] = {0.0, 0.0},
           cpu_start = cpu_now();
    nscd_status st = channel_scene_create_on(&s, &p, &channel_world_mpi_ops, &config);
    r.first_step = 1;
    if (st == NSCD_OK && checkpoint.restart != NULL) { /* collective */
        char why[240];
        int64_t saved = 0;
        st = channel_scene_load(&s, &config, checkpoint.restart, &saved, why, sizeof why);
        if (st != NSCD_OK) {
            fprintf(stderr, "granular_channel_mpi (rank %d): restart: %s\n", rank, why);
            channel_scene_destroy(&s);
            channel_stats_free(stats);
            free(stats);
            return 1;
        }
        r.first_step = saved + 1;
    }
    int lost = 0;
    st = st == NSCD_OK ? run_loop(&s, stats, r.first_step, r.steps, &checkpoint, &in_step, &shadows,
                                  share, &lost)
                       : st;
    if (st == NSCD_OK) {
        r.state_hash = channel_world_mpi_state_hash(s.world); /* collective */
    }
    const char *vtk = cli_string(argc, argv, "--vtk", NULL);
    if (st == NSCD_OK && vtk != NULL) {
        st = nscd_world_mpi_write_vtk(((channel_world_mpi *)s.world)->world, vtk);
    }
    r.seconds = now() - start;
    double cpu = cpu_now() - cpu_start;
    MPI_Allreduce(&in_step, &r.step_seconds_max_rank, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&cpu, &r.cpu[0], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&cpu, &r.cpu[1], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_size(MPI_COMM_WORLD, &r.ranks);
    r.scene = &s;
    r.stats = stats;
    r.shadows_avg = shadows / (double)stats->samples;
    r.largest_share_avg = share[0] / (double)stats->samples;
    r.largest_contact_share_avg = share[1] / (double)stats->samples;
    r.balance_every = config.balance_every;
    r.balance_contact_weight = config.balance_contact_weight;
    report(argc, argv, st, &r, stats);
    channel_scene_destroy(&s);
    channel_stats_free(stats);
    free(stats);
    if (lost && rank == 0) {
        fprintf(stderr, "granular_channel_mpi: bodies lost or duplicated at %d steps\n", lost);
    }
    return st != NSCD_OK ? 1 : lost ? 3 : 0;
}

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
