/* Granular channel flow past an obstacle, seed 002, Sect. 4.3 (Table 2, Figs. 9-12):
 * spheres pushed into a 15 x 6.5 x 2 cm channel by a moving inflow plane flow past a
 * half-cylinder-and-box obstacle to an open outlet, once with Coulomb friction (De
 * Saxce's modified velocity) and once with maximum dissipation, mu = 0.4. The two
 * laws run on two threads, one world each (two worlds on two threads are safe).
 *
 * By default the channel is coarse-grained by k = 5 (granular_scene.h and
 * docs/granular_channel.md): same geometry, particle diameter, grid and time step
 * times k, an inflow that keeps the bed about five diameters deep. --full is k = 1,
 * the paper's run (about 2.5e5 particles; measure a few steps with --steps).
 *
 *   granular_channel [--json] [--coarse-graining K] [--full] [--duration T]
 *                    [--warmup T] [--steps N] [--law coulomb|max_dissipation|both]
 *                    [--sweeps N] [--seed S] [--vtk DIR] [--vtk-every T]
 *                    [--inflow depth|volume] [--wall-friction MU]
 *                    [--checkpoint FILE] [--checkpoint-at T] [--checkpoint-every T]
 *                    [--restart FILE]
 *                    [--threads N]
 *
 * --threads N sets nscd_world_desc::threads (docs/world.md, "Threads"): 0,
 * the default, is the serial step; any N >= 1 sweeps the contacts in colour
 * order on N workers and prints the same numbers for every N >= 1 (not
 * those of 0: the sweep order differs).
 *
 * --checkpoint FILE --checkpoint-at T saves each world after the step that
 * reaches T (nscd_world_save, docs/checkpoint.md; FILE.coulomb and
 * FILE.max_dissipation with both laws), with the scene's own state (inflow
 * generator, counters) as the checkpoint's user data (channel_scene_save,
 * granular_scene.h); --checkpoint-every T (with or instead of -at) saves
 * after every step that reaches a multiple of T, overwriting FILE: each save
 * is written to FILE.tmp and renamed to FILE when complete, so FILE is always
 * the last complete save, also when the run is killed mid-save. --restart
 * FILE loads it and runs on to --duration: the final state_hash (--json) is
 * that of the uninterrupted run, bit for bit, and first_step the step after
 * the saved one. The statistics of a restarted run cover its own steps only.
 *
 * Exit status: 0, 1 when the library fails, 2 on bad arguments, 3 when an
 * invariant is violated (a NaN, a particle outside the channel, particles not
 * conserved: live particles = spawned - removed).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, getrusage */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "example_cli.h"
#include "granular_scene.h"
#include "granular_stats.h"

/* Default coarse graining, duration and warm-up (docs/granular_channel.md). */
#define DEFAULT_K 5.0
#define DEFAULT_DURATION 0.8
#define DEFAULT_SWEEPS 10
#define SAMPLE_INTERVAL 1e-3 /* s: one statistics sample per simulated ms */
#define RDF_EVERY 10         /* samples: g(r) every 10 ms, as the paper's Table 2 */
#define HISTORY_EVERY 5      /* samples */
/* Table 2 of the paper (Coulomb, maximum dissipation). */
static const double paper_particles[2] = {246992.2917082917, 247005.05094905096};
static const double paper_contacts[2] = {320276.5074925075, 320196.8191808192};
static const double paper_contacts_per_particle[2] = {2.593412978820955, 2.592633777734896};
static const double paper_max_penetration[2] = {39.0600228e-6, 46.49761679e-6};
static const double paper_speed_peak[2] = {1.42, 1.39};
static const double paper_solid_fraction = 0.572;
/* 2.47e5 spheres of diameter d over the free channel volume (187.9 cm^3): the
 * volume fraction the paper's 57.2 % stands for (docs/granular_channel.md). */
static const double paper_channel_fraction = 0.0715;
static const double paper_inflow_rate = 1.4e6;

typedef struct run_config {
    double k, duration, warmup, vtk_every, wall_friction;
    int keep_volume_fraction; /* --inflow volume */
    int64_t steps;
    int32_t sweeps;
    int32_t threads; /* --threads N: nscd_world_desc::threads */
    uint64_t seed;
    const char *vtk_dir;
    channel_checkpoint_options checkpoint; /* --checkpoint, --restart (granular_scene.h) */
    int both_laws;                         /* two runs: checkpoint files FILE.law */
} run_config;

typedef struct run {
    const run_config *config;
    int32_t law;
    nscd_status status;
    char error[256];
    double seconds, seconds_per_step;         /* wall clock */
    double cpu_seconds, cpu_seconds_per_step; /* this thread's CPU time: robust to load */
    channel_scene scene;
    channel_stats *stats;
    channel_summary summary;
    int32_t bodies_final;
    int64_t first_step; /* 1, or the step after the one a restart loaded */
    uint64_t state_hash;
} run;

static const char *law_name(int32_t law) {
    return law == NSCD_FRICTION_COULOMB ? "coulomb" : "max_dissipation";
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fail(run *r, nscd_status st, const char *where) {
    r->status = st;
    const char *msg = r->scene.world ? nscd_world_last_error(r->scene.world) : "";
    snprintf(r->error, sizeof r->error, "%s: %s (%s)", where, nscd_status_string(st), msg);
}

static nscd_status write_frame(run *r, int64_t frame) {
    char path[1024];
    snprintf(path, sizeof path, "%s/granular_channel_%s_%05lld.vtk", r->config->vtk_dir,
             law_name(r->law), (long long)frame);
    return nscd_world_write(r->scene.world, path, NSCD_WORLD_VTK);
}

/* The checkpoint file of a run: FILE, or FILE.law when both laws run. */
static void checkpoint_path(const run *r, const char *file, char *path, size_t size) {
    if (r->config->both_laws) {
        snprintf(path, size, "%s.%s", file, law_name(r->law));
    } else {
        snprintf(path, size, "%s", file);
    }
}

static nscd_status save_checkpoint(run *r, int64_t step) {
    char path[1024];
    checkpoint_path(r, r->config->checkpoint.checkpoint, path, sizeof path);
    return channel_scene_save(&r->scene, path, step);
}

/* Replaces the scene's world and state by the checkpoint's. */
static nscd_status load_checkpoint(run *r) {
    char path[1024], why[240];
    checkpoint_path(r, r->config->checkpoint.restart, path, sizeof path);
    int64_t step = 0;
    r->status = channel_scene_load(&r->scene, NULL, path, &step, why, sizeof why);
    if (r->status != NSCD_OK) {
        snprintf(r->error, sizeof r->error, "restart: %s", why);
        return r->status;
    }
    r->first_step = step + 1;
    return NSCD_OK;
}

/* FNV-1a 64 of every body's id, user id, position, orientation, velocity
 * and angular velocity (their bytes, in storage order): equal hashes are
 * equal states, bit for bit. */
static uint64_t state_hash(const nscd_world *w) {
    int32_t n = nscd_world_body_count(w), count = 0;
    size_t m = (size_t)n + 1;
    uint64_t *ids = malloc(2 * m * sizeof *ids);
    double *x = malloc(13 * m * sizeof *x);
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    if (ids == NULL || x == NULL ||
        nscd_world_get_bodies(w, n, &count, ids, ids + m, x, x + 3 * m, x + 7 * m, x + 10 * m) !=
            NSCD_OK) {
        free(ids);
        free(x);
        return 0;
    }
    const unsigned char *parts[6] = {
        (const unsigned char *)ids,         (const unsigned char *)(ids + m),
        (const unsigned char *)x,           (const unsigned char *)(x + 3 * m),
        (const unsigned char *)(x + 7 * m), (const unsigned char *)(x + 10 * m)};
    size_t bytes[6] = {8, 8, 24, 32, 24, 24};
    for (int k = 0; k < 6; ++k) {
        for (size_t i = 0; i < bytes[k] * (size_t)count; ++i) {
            h = (h ^ parts[k][i]) * UINT64_C(0x100000001b3);
        }
    }
    free(ids);
    free(x);
    return h;
}

/* Steps, samples and frames of one run; the scene exists. */
static nscd_status run_loop(run *r) {
    const run_config *c = r->config;
    double dt = r->scene.p.dt;
    int64_t sample_every = (int64_t)fmax(1.0, round(SAMPLE_INTERVAL / dt));
    int64_t vtk_every = (int64_t)fmax(1.0, round(c->vtk_every / dt));
    nscd_status st = NSCD_OK;
    for (int64_t step = r->first_step; step <= c->steps && st == NSCD_OK; ++step) {
        nscd_world_step_report rep;
        memset(&rep, 0, sizeof rep);
        rep.struct_size = sizeof rep;
        st = channel_scene_step(&r->scene, &rep);
        if (st != NSCD_OK) {
            fail(r, st, "step");
            return st;
        }
        channel_stats_step(r->stats, &r->scene, &rep);
        if (step % sample_every == 0) {
            int64_t sample = step / sample_every;
            st = channel_stats_sample(r->stats, &r->scene, sample % RDF_EVERY == 0);
            if (st == NSCD_OK && sample % HISTORY_EVERY == 0) {
                st = channel_stats_history(r->stats, &r->scene);
            }
        }
        if (st == NSCD_OK && c->vtk_dir != NULL && step % vtk_every == 0) {
            st = write_frame(r, step / vtk_every);
        }
        if (st != NSCD_OK) {
            fail(r, st, "sample");
        } else if (channel_checkpoint_due(&c->checkpoint, step)) {
            st = save_checkpoint(r, step);
            if (st != NSCD_OK) {
                fail(r, st, "checkpoint");
            }
        }
    }
    return st;
}

static void *run_law(void *arg) {
    run *r = arg;
    const run_config *c = r->config;
    double start = now(), cpu_start = cpu_now();
    channel_params p;
    channel_params_init(&p, c->k, c->sweeps, r->law, c->seed);
    if (c->keep_volume_fraction) {
        channel_params_keep_volume_fraction(&p);
    }
    p.wall_friction = c->wall_friction;
    p.threads = c->threads;
    r->stats = calloc(1, sizeof *r->stats);
    if (r->stats == NULL) {
        fail(r, NSCD_ERR_OUT_OF_MEMORY, "stats");
        return NULL;
    }
    channel_stats_init(r->stats, c->warmup);
    nscd_status st = channel_scene_create(&r->scene, &p);
    if (st != NSCD_OK) {
        fail(r, st, "scene");
        return NULL;
    }
    r->first_step = 1;
    if (c->checkpoint.restart != NULL && load_checkpoint(r) != NSCD_OK) {
        return NULL;
    }
    double loop_start = now(), cpu_loop_start = cpu_now();
    if (run_loop(r) == NSCD_OK) {
        r->state_hash = state_hash(r->scene.world);
        r->seconds_per_step = (now() - loop_start) / (double)c->steps;
        r->cpu_seconds_per_step = (cpu_now() - cpu_loop_start) / (double)c->steps;
        channel_stats_summary(r->stats, &r->scene, &r->summary);
        r->bodies_final = nscd_world_body_count(r->scene.world);
    }
    r->seconds = now() - start;
    r->cpu_seconds = cpu_now() - cpu_start;
    return NULL;
}

/* --- output ----------------------------------------------------------------- */

static void json_short(FILE *out, double x) {
    if (isfinite(x)) {
        fprintf(out, "%.6g", x);
    } else {
        fputs("null", out);
    }
}

static void json_map(FILE *out, const channel_stats *st, const double *sum) {
    fputc('[', out);
    for (int32_t ix = 0; ix < CHANNEL_MAP_NX; ++ix) {
        fputs(ix ? ",[" : "[", out);
        for (int32_t iy = 0; iy < CHANNEL_MAP_NY; ++iy) {
            if (iy) {
                fputc(',', out);
            }
            json_short(out, channel_map_mean(st, sum, ix, iy));
        }
        fputc(']', out);
    }
    fputc(']', out);
}

static void json_rdf(FILE *out, const run *r) {
    double rs[CHANNEL_RDF_BINS], gs[CHANNEL_RDF_BINS];
    for (int32_t b = 0; b < CHANNEL_RDF_BINS; ++b) {
        rs[b] = (b + 0.5) * CHANNEL_RDF_RANGE / CHANNEL_RDF_BINS;
        gs[b] = channel_rdf(r->stats, &r->summary, &r->scene, b);
    }
    fputs("{\"r_over_diameter\":", out);
    json_array(out, rs, CHANNEL_RDF_BINS);
    fputs(",\"g\":", out);
    json_array(out, gs, CHANNEL_RDF_BINS);
    fprintf(out, ",\"samples\":%lld,\"density\":", (long long)r->stats->rdf_samples);
    json_number(out, r->summary.rdf_density);
    fputc('}', out);
}

static void json_profile(FILE *out, const channel_stats *st) {
    double zs[CHANNEL_PROFILE_BINS], phis[CHANNEL_PROFILE_BINS];
    for (int32_t b = 0; b < CHANNEL_PROFILE_BINS; ++b) {
        zs[b] = (b + 0.5) * CHANNEL_HEIGHT / CHANNEL_PROFILE_BINS;
        phis[b] = channel_profile(st, b);
    }
    fputs("{\"z\":", out);
    json_array(out, zs, CHANNEL_PROFILE_BINS);
    fputs(",\"solid_fraction\":", out);
    json_array(out, phis, CHANNEL_PROFILE_BINS);
    fputc('}', out);
}

static void json_history(FILE *out, const channel_history *h) {
    fputs("{\"t\":", out);
    json_array(out, h->t, h->n);
    fputs(",\"particles\":", out);
    json_array(out, h->particles, h->n);
    fputs(",\"contacts\":", out);
    json_array(out, h->contacts, h->n);
    fputs(",\"spawned\":", out);
    json_array(out, h->spawned, h->n);
    fputs(",\"removed\":", out);
    json_array(out, h->removed, h->n);
    fputc('}', out);
}

static void json_run(FILE *out, const run *r) {
    const channel_summary *s = &r->summary;
    const channel_scene *sc = &r->scene;
    double d = sc->p.diameter;
    fprintf(out, "{\"friction_law\":\"%s\"", law_name(r->law));
    json_field(out, "particles_avg", s->particles_avg);
    json_field(out, "contacts_avg", s->contacts_avg);
    json_field(out, "contacts_per_particle", s->contacts_per_particle);
    json_field(out, "contacts_per_particle_force_carrying",
               s->contacts_per_particle_force_carrying);
    json_field(out, "solid_fraction", s->solid_fraction);
    json_field(out, "solid_fraction_core", s->solid_fraction_core);
    json_field(out, "solid_fraction_channel", s->channel_fraction);
    json_field(out, "solid_fraction_paper_formula", 8.0 * s->channel_fraction);
    json_field(out, "max_penetration", r->stats->max_penetration);
    json_field(out, "max_penetration_over_diameter", r->stats->max_penetration / d);
    json_field(out, "speed_peak", s->speed_peak);
    json_field(out, "inflow_rate", s->inflow_rate);
    json_field(out, "outflow_rate", s->outflow_rate);
    json_field(out, "seconds", r->seconds);
    json_field(out, "seconds_per_step", r->seconds_per_step);
    json_field(out, "cpu_seconds", r->cpu_seconds);
    json_field(out, "cpu_seconds_per_step", r->cpu_seconds_per_step);
    json_field(out, "contacts_detected_avg", s->detected_avg);
    json_field(out, "contacts_active_avg", s->active_avg);
    json_field(out, "contacts_particle_particle_avg", s->particle_pairs_avg);
    json_field(out, "bed_height", s->bed_height);
    json_field(out, "bed_height_over_diameter", s->bed_height / d);
    json_field(out, "max_penetration_run", r->stats->max_penetration_run);
    json_field(out, "speed_peak_x", s->speed_peak_x);
    json_field(out, "speed_peak_y", s->speed_peak_y);
    json_field(out, "particles_drift", s->particles_drift);
    json_field(out, "window_start", r->stats->window_start);
    json_field(out, "window_end", r->stats->window_end);
    fprintf(out, ",\"state_hash\":\"%016llx\",\"first_step\":%lld",
            (unsigned long long)r->state_hash, (long long)r->first_step);
    fprintf(out,
            ",\"samples\":%lld,\"spawned\":%lld,\"removed\":%lld,\"skipped_sites\":%lld,"
            "\"layers\":%lld,\"particles_final\":%lld,\"bodies_final\":%d,\"fixed_bodies\":%d,"
            "\"escaped_seen\":%lld,\"not_finite_seen\":%lld",
            (long long)r->stats->samples, (long long)sc->spawned, (long long)sc->removed,
            (long long)sc->skipped, (long long)sc->layers, (long long)(sc->spawned - sc->removed),
            r->bodies_final, sc->fixed_bodies, (long long)r->stats->escaped_seen,
            (long long)r->stats->not_finite_seen);
    fputs(",\"speed_map\":", out);
    json_map(out, r->stats, r->stats->speed_sum);
    fputs(",\"angular_speed_map\":", out);
    json_map(out, r->stats, r->stats->omega_sum);
    fputs(",\"rdf\":", out);
    json_rdf(out, r);
    fputs(",\"solid_fraction_profile\":", out);
    json_profile(out, r->stats);
    fputs(",\"history\":", out);
    json_history(out, &r->stats->history);
    fputc('}', out);
}

static int invariants_hold(const run *r) {
    const channel_scene *sc = &r->scene;
    return r->status == NSCD_OK && r->stats->not_finite_seen == 0 && r->stats->escaped_seen == 0 &&
           r->bodies_final - sc->fixed_bodies == sc->spawned - sc->removed;
}

static double rel_diff(double a, double b) { return fabs(a - b) / (0.5 * (fabs(a) + fabs(b))); }

static void json_paper(FILE *out) {
    fputs(",\"paper\":{\"particles_avg\":", out);
    json_array(out, paper_particles, 2);
    fputs(",\"contacts_avg\":", out);
    json_array(out, paper_contacts, 2);
    fputs(",\"contacts_per_particle\":", out);
    json_array(out, paper_contacts_per_particle, 2);
    fputs(",\"max_penetration\":", out);
    json_array(out, paper_max_penetration, 2);
    fputs(",\"speed_peak\":", out);
    json_array(out, paper_speed_peak, 2);
    json_field(out, "solid_fraction", paper_solid_fraction);
    json_field(out, "solid_fraction_channel", paper_channel_fraction);
    json_field(out, "inflow_rate", paper_inflow_rate);
    fputc('}', out);
}

/* Relative differences between the two laws and the acceptance targets. */
static void json_comparison(FILE *out, const run *a, const run *b) {
    const channel_summary *x = &a->summary, *y = &b->summary;
    double dp = rel_diff(x->particles_avg, y->particles_avg);
    double dc = rel_diff(x->contacts_avg, y->contacts_avg);
    double dcp = rel_diff(x->contacts_per_particle, y->contacts_per_particle);
    double ds = rel_diff(x->speed_peak, y->speed_peak);
    fputs(",\"law_difference\":{\"particles\":", out);
    json_number(out, dp);
    json_field(out, "contacts", dc);
    json_field(out, "contacts_per_particle", dcp);
    json_field(out, "speed_peak", ds);
    fprintf(out, ",\"within_targets\":%s}",
            dp < 0.02 && dc < 0.02 && dcp < 0.02 && ds < 0.03 ? "true" : "false");
}

static long max_rss_bytes(void) {
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_maxrss * 1024L : -1L;
}

static void print_json(const run_config *c, run *runs, int n, double seconds) {
    const channel_scene *sc = &runs[0].scene;
    const channel_params *p = &sc->p;
    double layer_sites = (double)sc->layer_ny * sc->layer_nz;
    printf("{\"example\":\"granular_channel\",\"coarse_graining\":");
    json_number(stdout, c->k);
    json_field(stdout, "duration", (double)c->steps * p->dt);
    printf(",\"steps\":%lld", (long long)c->steps);
    json_field(stdout, "warmup", c->warmup);
    json_field(stdout, "dt", p->dt);
    json_field(stdout, "diameter", p->diameter);
    json_field(stdout, "grid", p->grid);
    json_field(stdout, "reset_distance", p->reset_distance);
    printf(",\"layer_sites\":%d,\"steps_per_layer\":%lld", (int)layer_sites,
           (long long)sc->steps_per_layer);
    json_field(stdout, "nominal_inflow_rate", layer_sites / ((double)sc->steps_per_layer * p->dt));
    double scale = c->keep_volume_fraction ? c->k * c->k * c->k : c->k * c->k;
    json_field(stdout, "target_particles", paper_particles[0] / scale);
    printf(",\"inflow\":\"%s\"", c->keep_volume_fraction ? "volume" : "depth");
    printf(",\"sweeps\":%d,\"threads\":%d", p->sweeps, (int)p->threads);
    json_field(stdout, "error_reduction", p->error_reduction);
    json_field(stdout, "contact_margin", p->margin);
    json_field(stdout, "contact_threshold", CHANNEL_CONTACT_THRESHOLD * p->diameter);
    json_field(stdout, "friction", CHANNEL_FRICTION);
    json_field(stdout, "wall_friction", p->wall_friction);
    printf(",\"seed\":%llu", (unsigned long long)c->seed);
    json_field(stdout, "seconds", seconds);
    printf(",\"max_rss_bytes\":%ld", max_rss_bytes());
    json_paper(stdout);
    fputs(",\"runs\":[", stdout);
    int hold = 1;
    for (int i = 0; i < n; ++i) {
        if (i) {
            fputc(',', stdout);
        }
        json_run(stdout, &runs[i]);
        hold = hold && invariants_hold(&runs[i]);
    }
    fputc(']', stdout);
    if (n == 2) {
        json_comparison(stdout, &runs[0], &runs[1]);
    }
    printf(",\"invariants\":{\"hold\":%s}}\n", hold ? "true" : "false");
}

static void print_text(const run_config *c, const run *runs, int n, double seconds) {
    printf("granular channel, k = %g: %lld steps of %g s (%g s), warm-up %g s, %.1f s wall\n", c->k,
           (long long)c->steps, runs[0].scene.p.dt, (double)c->steps * runs[0].scene.p.dt,
           c->warmup, seconds);
    for (int i = 0; i < n; ++i) {
        const run *r = &runs[i];
        const channel_summary *s = &r->summary;
        printf("  %-15s particles %.1f  contacts %.1f  per particle %.4f  solid fraction %.3f"
               "  max penetration %.3g m (%.2f %% of d)  speed peak %.3f m/s  in %.4g/s out "
               "%.4g/s  %.1f s (CPU %.1f s)\n",
               law_name(r->law), s->particles_avg, s->contacts_avg, s->contacts_per_particle,
               s->solid_fraction, r->stats->max_penetration,
               100.0 * r->stats->max_penetration / r->scene.p.diameter, s->speed_peak,
               s->inflow_rate, s->outflow_rate, r->seconds, r->cpu_seconds);
    }
}

/* --- command line ------------------------------------------------------------- */

static int parse_laws(const char *text, int32_t laws[2]) {
    if (strcmp(text, "coulomb") == 0) {
        laws[0] = NSCD_FRICTION_COULOMB;
        return 1;
    }
    if (strcmp(text, "max_dissipation") == 0) {
        laws[0] = NSCD_FRICTION_MAX_DISSIPATION;
        return 1;
    }
    if (strcmp(text, "both") == 0) {
        laws[0] = NSCD_FRICTION_COULOMB;
        laws[1] = NSCD_FRICTION_MAX_DISSIPATION;
        return 2;
    }
    return 0;
}

static int parse_config(int argc, char **argv, run_config *c) {
    memset(c, 0, sizeof *c);
    c->k = cli_has_flag(argc, argv, "--full")
               ? 1.0
               : cli_double(argc, argv, "--coarse-graining", DEFAULT_K);
    double dt = c->k * CHANNEL_DT;
    double steps = cli_double(argc, argv, "--steps", 0.0);
    c->duration = cli_double(argc, argv, "--duration", DEFAULT_DURATION);
    c->steps = steps > 0.0 ? (int64_t)steps : (int64_t)llround(c->duration / dt);
    c->warmup = cli_double(argc, argv, "--warmup", 0.5 * (double)c->steps * dt);
    c->sweeps = (int32_t)cli_double(argc, argv, "--sweeps", DEFAULT_SWEEPS);
    c->threads = (int32_t)cli_double(argc, argv, "--threads", 0.0);
    c->seed = (uint64_t)cli_double(argc, argv, "--seed", 1.0);
    c->vtk_dir = cli_string(argc, argv, "--vtk", NULL);
    c->vtk_every = cli_double(argc, argv, "--vtk-every", 0.01);
    c->wall_friction = cli_double(argc, argv, "--wall-friction", CHANNEL_WALL_FRICTION);
    const char *inflow = cli_string(argc, argv, "--inflow", "depth");
    c->keep_volume_fraction = strcmp(inflow, "volume") == 0;
    const char *bad = channel_checkpoint_parse(argc, argv, dt, c->steps, &c->checkpoint);
    if (bad != NULL) {
        fprintf(stderr, "granular_channel: %s\n", bad);
        return 0;
    }
    if (!c->keep_volume_fraction && strcmp(inflow, "depth") != 0) {
        fprintf(stderr, "granular_channel: --inflow must be depth or volume\n");
        return 0;
    }
    if (!(c->k >= 1.0 && c->k <= 20.0) || c->steps < 1 || c->steps > 100000000 || c->sweeps < 1 ||
        !(c->warmup >= 0.0) || !(c->vtk_every > 0.0) || !(c->wall_friction >= 0.0) ||
        c->threads < 0 || c->threads > 256) {
        fprintf(stderr, "granular_channel: need 1 <= K <= 20, N >= 1, sweeps >= 1, warm-up >= 0, "
                        "wall friction >= 0, 0 <= threads <= 256\n");
        return 0;
    }
    return 1;
}

static int run_all(const run_config *c, run *runs, int n) {
    pthread_t threads[2];
    int started[2] = {0, 0};
    for (int i = 0; i < n; ++i) { /* one thread per law; the last runs here */
        if (i + 1 < n) {
            started[i] = pthread_create(&threads[i], NULL, run_law, &runs[i]) == 0;
        }
        if (!started[i]) {
            run_law(&runs[i]);
        }
    }
    for (int i = 0; i < n; ++i) {
        if (started[i]) {
            pthread_join(threads[i], NULL);
        }
    }
    int ok = 1;
    for (int i = 0; i < n; ++i) {
        if (runs[i].status != NSCD_OK) {
            fprintf(stderr, "granular_channel (%s): %s\n", law_name(runs[i].law), runs[i].error);
            ok = 0;
        }
    }
    (void)c;
    return ok;
}

static const char usage_text[] =
    "usage: granular_channel [--json] [--coarse-graining K] [--full] [--duration T] "
    "[--warmup T] [--steps N] [--law coulomb|max_dissipation|both] [--sweeps N] [--seed S] "
    "[--vtk DIR] [--vtk-every T] [--inflow depth|volume] [--wall-friction MU] "
    "[--checkpoint FILE] [--checkpoint-at T] [--checkpoint-every T] [--restart FILE] "
    "[--threads N]";

int main(int argc, char **argv) {
    cli_check(argc, argv, usage_text);
    run_config c;
    int32_t laws[2] = {0, 0};
    int n = parse_laws(cli_string(argc, argv, "--law", "both"), laws);
    if (n == 0 || !parse_config(argc, argv, &c)) {
        fprintf(stderr, "%s\n", usage_text);
        return 2;
    }
    c.both_laws = n == 2;
    run runs[2];
    memset(runs, 0, sizeof runs);
    for (int i = 0; i < n; ++i) {
        runs[i].config = &c;
        runs[i].law = laws[i];
    }
    double start = now();
    int ok = run_all(&c, runs, n);
    double seconds = now() - start;
    int hold = ok;
    if (ok && cli_has_flag(argc, argv, "--json")) {
        print_json(&c, runs, n, seconds);
    } else if (ok) {
        print_text(&c, runs, n, seconds);
    }
    for (int i = 0; i < n; ++i) {
        hold = hold && invariants_hold(&runs[i]);
        channel_scene_destroy(&runs[i].scene);
        if (runs[i].stats != NULL) {
            channel_stats_free(runs[i].stats);
            free(runs[i].stats);
        }
    }
    if (!ok) {
        return 1;
    }
    if (!hold) {
        fprintf(stderr, "granular_channel: an invariant is violated (NaN, escape or count)\n");
        return 3;
    }
    return 0;
}
