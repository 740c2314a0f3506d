/* bench_world: N spheres (or, with --shape, boxes, capsules, cylinders, convex
 * hulls or a mixed pile) poured into an open box, stepped by nscd's world
 * (include/nscd/world.h) and, side by side in the same process, by ODE's
 * QuickStep and Bullet's sequential-impulse solver when this build found
 * them: the same scenario (bench/world/scenario.c), the same dt, the same
 * iteration count (sweeps), the same friction and error reduction.
 *
 * Per engine and size: create the world with every body, W warm-up steps
 * (the spheres drop into the hollows of the layer below and the pile
 * settles: bench/world/scenario.c), then S timed steps. Time is the CPU time of the
 * process (CLOCK_PROCESS_CPUTIME_ID; every engine runs on one thread, so
 * this is per core and insensitive to other processes sharing the
 * machine); the wall time is reported too. Memory is counted through each
 * engine's allocator hook (bench/world/counting.h): bytes_per_body = bytes
 * in use after creating the world / N; bytes_per_contact = (peak bytes in
 * use during the timed steps - bytes after creation) / the largest contact
 * count of those steps: everything a step allocates (broad phase, contact
 * cache, solver rows) per contact. "growth" is the least-squares slope of
 * log(time per step) against log(N) over the sizes run, per engine (1 =
 * linear); "growth_between_sizes" gives the slope between each two successive
 * sizes. See docs/benchmarks.md.
 *
 * Usage: bench_world [--json] [--bodies N[,N...]] [--steps S] [--warmup W]
 *                    [--sweeps K] [--dt DT] [--friction MU]
 *                    [--engine nscd,ode,bullet] [--ode-space auto|hash|sap|quadtree]
 *                    [--nscd-law coulomb|mdp] [--scene spheres|chains|stack]
 *                    [--shape sphere|box|capsule|cylinder|convex|mixed]
 *                    [--threads T[,T...]] [--chains-variant with|without|loose]
 *                    [--nscd-margin F] [--nscd-relax R] [--nscd-correction-speed V]
 * --threads: nscd's nscd_world_desc::threads, one nscd run per count (the
 * other engines run once per size, on one thread). Each run prints its
 * `threads` and `state_hash` (FNV-1a 64 of the final positions,
 * velocities and angular velocities' bytes: equal for every T >= 1). With
 * T >= 2 the process CPU time counts every worker, so `steps_per_second`
 * is then by the wall clock (`cpu_steps_per_second` keeps the CPU figure).
 * --nscd-margin F: nscd's contact margin F r (default: the world's, 1 mm);
 * --nscd-relax R: R of the K sweeps are nscd's relax pass (default 3; the
 * rest, K - R, its sweeps with the correction: K in all, as the peers);
 * --nscd-correction-speed V: nscd's max_correction_speed, m/s (default 3);
 * bench/world/nscd_world.c says why. Each run prints `sweeps_per_step` (the
 * sweeps run, every pass counted) and `end_penetration` (the largest
 * penetration of the last timed step; `max_penetration` is over all).
 * --shape: the bodies of the pour (bench/world/scenario.c; default sphere:
 * the scene before the shapes came, unchanged), in every engine.
 * --scene chains / stack: mechanisms in a pile, nscd only (bench/world/chains.c;
 * one size, default N = 1000, S = 200, W = 300, DT = 2e-3 s); each run prints
 * a `state_hash` of every body's x, q, v, ω (links included).
 * --chains-variant: --scene chains runs only that one of its three runs (with
 * the chains, without them, with the loose links; for profiling: no
 * joints_cost is printed then).
 * Default: N = 1000, 10000, 100000; S = 200000 / N within [10, 500];
 * W = 80; K = 10; DT = 0.01 s; MU = 0.4. Exit status 1 when a run fails. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nscd/nscd.h"
#include "world/chains.h"
#include "world/counting.h"
#include "world/engine.h"
#include "peers/ode_world.h"
#include "world/nscd_world.h"

#define PI 3.14159265358979323846
#define MAX_SIZES 8
#define MAX_ENGINES 3
#define MAX_THREADS 8
#define MAX_RUNS (MAX_SIZES * MAX_ENGINES * MAX_THREADS)

typedef struct options {
    int json;
    int32_t sizes[MAX_SIZES], n_sizes;
    int32_t steps, warmup, sweeps; /* steps 0: by size */
    double dt, friction;
    const bw_engine *engines[MAX_ENGINES];
    int n_engines;
    const char *scene;          /* "spheres" (the default), "chains" or "stack" */
    const char *chains_variant; /* NULL: every run of --scene chains */
    int32_t shape;              /* of the pour, BW_SHAPE_* */
    int sizes_given, steps_given, warmup_given, dt_given;
    int32_t threads[MAX_THREADS], n_threads; /* nscd_world_desc::threads of the nscd runs */
} options;

/* Engine settings, for the JSON. */
static const char *ode_space_name = "auto", *nscd_law_name = "coulomb";

typedef struct run_result {
    const char *engine;
    int32_t bodies, steps, warmup;
    int ok;
    char error[256];
    double cpu_seconds, wall_seconds, contacts_avg, max_penetration;
    double end_penetration; /* the largest penetration of the last timed step */
    double sweeps_avg;      /* sweeps (iterations) run per timed step, every pass counted */
    int32_t contacts_max;
    double radius;
    double bytes_per_body, bytes_per_contact; /* < 0: not measured */
    double bytes_not_freed;                   /* counted bytes still held after destroy */
    bw_state_summary summary;
    const char *memory_method;
    int32_t threads;     /* nscd's; 0 for the other engines */
    uint64_t state_hash; /* FNV-1a 64 of the final state's bytes */
} run_result;

static double seconds(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Every engine compiled into this build, in a fixed order. */
static int available_engines(const bw_engine **engines) {
    int n = 0;
#ifdef BW_HAVE_NSCD
    engines[n++] = bw_engine_nscd();
#endif
#ifdef BW_HAVE_ODE
    engines[n++] = bw_engine_ode();
#endif
#ifdef BW_HAVE_BULLET
    engines[n++] = bw_engine_bullet();
#endif
    return n;
}

static int32_t default_steps(int32_t bodies) {
    const int32_t s = 200000 / bodies;
    return s < 10 ? 10 : s > 500 ? 500 : s;
}

/* --------------------------------------------------------------- one run */

static int summarise(const bw_engine *engine, void *state, const bw_scenario *s,
                     bw_state_summary *out) {
    const size_t n = (size_t)s->bodies;
    double *x = malloc(9 * n * sizeof *x);
    if (x == NULL || engine->state(state, x, x + 3 * n, x + 6 * n) != 0) {
        free(x);
        return -1;
    }
    memset(out, 0, sizeof *out);
    uint64_t hash = 14695981039346656037ull; /* FNV-1a 64 */
    const unsigned char *bytes = (const unsigned char *)x;
    for (size_t k = 0; k < 9 * n * sizeof *x; ++k) {
        hash = (hash ^ bytes[k]) * 1099511628211ull;
    }
    out->state_hash = hash;
    for (size_t i = 0; i < n; ++i) {
        /* The rotational energy with the mean principal moment (exact for
         * spheres; the engines give no orientation here). */
        const double mass = s->body[i].mass, *moments = s->body[i].inertia;
        const double inertia = (moments[0] + moments[1] + moments[2]) / 3.0;
        const double *p = &x[3 * i], *v = &x[3 * n + 3 * i], *w = &x[6 * n + 3 * i];
        const double v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        const double w2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
        out->mean_height += p[2] / (double)n;
        out->max_speed = fmax(out->max_speed, sqrt(v2));
        out->kinetic_energy += 0.5 * (mass * v2 + inertia * w2);
        if (p[0] < 0 || p[0] > s->box[0] || p[1] < 0 || p[1] > s->box[1] || p[2] < 0) {
            out->escaped++;
        }
    }
    free(x);
    return 0;
}

/* Warm-up, then the timed steps; 0 on success. */
static int step_engine(const bw_engine *engine, void *state, run_result *r, size_t created,
                       int32_t sweeps) {
    bw_step_stats stats;
    for (int32_t i = 0; i < r->warmup; ++i) {
        stats.sweeps = 0;
        if (engine->step(state, &stats, r->error, sizeof r->error) != 0) {
            return -1;
        }
    }
    bw_count_reset_peak();
    double contacts = 0.0, sweeps_run = 0.0;
    const double cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID), wall0 = seconds(CLOCK_MONOTONIC);
    for (int32_t i = 0; i < r->steps; ++i) {
        stats.sweeps = 0;
        if (engine->step(state, &stats, r->error, sizeof r->error) != 0) {
            return -1;
        }
        contacts += stats.contacts;
        sweeps_run += stats.sweeps > 0 ? stats.sweeps : sweeps;
        r->end_penetration = stats.max_penetration;
        r->contacts_max = stats.contacts > r->contacts_max ? stats.contacts : r->contacts_max;
        r->max_penetration = fmax(r->max_penetration, stats.max_penetration);
    }
    r->cpu_seconds = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
    r->wall_seconds = seconds(CLOCK_MONOTONIC) - wall0;
    r->contacts_avg = contacts / r->steps;
    r->sweeps_avg = sweeps_run / r->steps;
    const size_t peak = bw_count_peak();
    r->bytes_per_contact =
        r->contacts_max > 0 && peak >= created ? (double)(peak - created) / r->contacts_max : -1.0;
    return 0;
}

static void run_one(const options *o, const bw_engine *engine, int32_t bodies, run_result *r) {
    memset(r, 0, sizeof *r);
    r->engine = engine->name;
    r->bodies = bodies;
    r->steps = o->steps > 0 ? o->steps : default_steps(bodies);
    r->warmup = o->warmup;
    r->bytes_per_body = r->bytes_per_contact = -1.0;
    r->memory_method = engine->memory_method;
    bw_scenario s;
    if (bw_scenario_init(&s, bodies, o->sweeps, o->dt, o->friction, o->shape) != 0) {
        snprintf(r->error, sizeof r->error, "out of memory");
        return;
    }
    r->radius = s.radius;
    const size_t before = bw_count_in_use();
    void *state = engine->create(&s, r->error, sizeof r->error);
    if (state != NULL) {
        const size_t created = bw_count_in_use();
        r->bytes_per_body = (double)(created - before) / bodies;
        r->ok = step_engine(engine, state, r, created, s.sweeps) == 0 &&
                summarise(engine, state, &s, &r->summary) == 0;
        engine->destroy(state);
        const size_t after = bw_count_in_use();
        r->bytes_not_freed = after > before ? (double)(after - before) : 0.0;
    }
    bw_scenario_free(&s);
}

/* ---------------------------------------------------------------- output */

static double steps_per_second(const run_result *r) {
    return r->threads >= 2 ? r->steps / r->wall_seconds : r->steps / r->cpu_seconds;
}

/* The thread count of an engine's first run: the growth is over the runs
 * of that count only (--threads gives several per size). */
static int32_t growth_threads(const run_result *runs, int n, const char *engine) {
    for (int i = 0; i < n; ++i) {
        if (strcmp(runs[i].engine, engine) == 0) {
            return runs[i].threads;
        }
    }
    return 0;
}

/* Slope of log(seconds per step) against log(N) over an engine's runs. */
static int growth(const run_result *runs, int n, const char *engine, double *slope) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int m = 0;
    for (int i = 0; i < n; ++i) {
        if (runs[i].ok && strcmp(runs[i].engine, engine) == 0 &&
            runs[i].threads == growth_threads(runs, n, engine)) {
            const double x = log((double)runs[i].bodies), y = log(1.0 / steps_per_second(&runs[i]));
            sx += x, sy += y, sxx += x * x, sxy += x * y, ++m;
        }
    }
    const double d = m * sxx - sx * sx;
    if (m < 2 || d <= 0) {
        return 0;
    }
    *slope = (m * sxy - sx * sy) / d;
    return 1;
}

/* The slope between each two successive sizes of an engine (runs are in
 * size order): where the growth departs from linear. */
static void print_growth_steps(const run_result *runs, int n, const char *engine) {
    const run_result *last = NULL;
    int printed = 0;
    for (int i = 0; i < n; ++i) {
        if (!runs[i].ok || strcmp(runs[i].engine, engine) != 0 ||
            runs[i].threads != growth_threads(runs, n, engine)) {
            continue;
        }
        if (last != NULL && runs[i].bodies != last->bodies) {
            const double slope = log(steps_per_second(last) / steps_per_second(&runs[i])) /
                                 log((double)runs[i].bodies / last->bodies);
            printf("%s{\"from\": %d, \"to\": %d, \"exponent\": %.4g}", printed++ ? ", " : "",
                   (int)last->bodies, (int)runs[i].bodies, slope);
        }
        last = &runs[i];
    }
}

static void print_number_or_null(double x) {
    if (x >= 0 && isfinite(x)) {
        printf("%.6g", x);
    } else {
        printf("null");
    }
}

static void print_run_json(const options *o, const run_result *r) {
    printf("    {\"engine\": \"%s\", \"shape\": \"%s\", \"bodies\": %d, \"sweeps\": %d, "
           "\"threads\": %d, \"dt\": %.17g, \"warmup_steps\": %d, \"steps\": %d, \"ok\": %s",
           r->engine, bw_shape_name(o->shape), (int)r->bodies, (int)o->sweeps, (int)r->threads,
           o->dt, (int)r->warmup, (int)r->steps, r->ok ? "true" : "false");
    if (!r->ok) {
        printf(", \"error\": \"%s\"}", r->error);
        return;
    }
    const double sps = steps_per_second(r);
    printf(",\n     \"steps_per_second\": %.6g, \"wall_steps_per_second\": %.6g, "
           "\"seconds_per_step\": %.6g, \"contacts_avg\": %.6g, \"contacts_max\": %d, "
           "\"contacts_per_body\": %.4g,\n     \"contact_sweeps_per_second\": %.6g, ",
           sps, r->steps / r->wall_seconds, 1.0 / sps, r->contacts_avg, (int)r->contacts_max,
           r->contacts_avg / r->bodies, r->contacts_avg * o->sweeps * sps);
    printf("\"cpu_steps_per_second\": %.6g, \"state_hash\": \"%016llx\", ",
           r->steps / r->cpu_seconds, (unsigned long long)r->summary.state_hash);
    printf("\"bytes_per_body\": ");
    print_number_or_null(r->bytes_per_body);
    printf(", \"bytes_per_contact\": ");
    print_number_or_null(r->bytes_per_contact);
    printf(", \"bytes_not_freed\": %.0f", r->bytes_not_freed);
    printf(", \"memory_method\": \"%s\",\n     \"max_penetration\": %.6g, "
           "\"end_penetration\": %.6g, \"sweeps_per_step\": %.6g, "
           "\"mean_height\": %.6g, \"max_speed\": %.6g, \"kinetic_energy\": %.6g, "
           "\"escaped\": %d}",
           r->memory_method, r->max_penetration, r->end_penetration, r->sweeps_avg,
           r->summary.mean_height, r->summary.max_speed, r->summary.kinetic_energy,
           (int)r->summary.escaped);
}

static void print_json(const options *o, const run_result *runs, int n_runs) {
    bw_scenario s;
    bw_scenario_init(&s, 1, o->sweeps, o->dt, o->friction, o->shape);
    bw_scenario_free(&s);
    const bw_engine *found[MAX_ENGINES];
    const int n_found = available_engines(found);
    printf("{\"benchmark\": \"bench_world\", \"nscd_version\": \"%s\",\n", nscd_version_string());
    printf(" \"scenario\": {\"shape\": \"%s\", \"radius\": %g, \"density\": %g, \"friction\": %g, "
           "\"error_reduction\": %g, \"gravity\": %g, \"layers\": %d, \"sweeps\": %d, "
           "\"dt\": %g},\n",
           bw_shape_name(o->shape), s.radius, s.density, s.friction, s.error_reduction, s.gravity,
           BW_LAYERS, (int)o->sweeps, o->dt);
    printf(" \"nscd_friction_law\": \"%s\", \"ode_space\": \"%s\",\n", nscd_law_name,
           ode_space_name);
    printf(" \"engines_found\": [");
    for (int i = 0; i < n_found; ++i) {
        printf("%s\"%s\"", i ? ", " : "", found[i]->name);
    }
    printf("],\n \"runs\": [\n");
    for (int i = 0; i < n_runs; ++i) {
        print_run_json(o, &runs[i]);
        printf("%s\n", i + 1 < n_runs ? "," : "");
    }
    printf(" ],\n \"growth\": {");
    for (int e = 0; e < o->n_engines; ++e) {
        double slope;
        printf("%s\"%s\": ", e ? ", " : "", o->engines[e]->name);
        if (growth(runs, n_runs, o->engines[e]->name, &slope)) {
            printf("%.4g", slope);
        } else {
            printf("null");
        }
    }
    printf("},\n \"growth_between_sizes\": {");
    for (int e = 0; e < o->n_engines; ++e) {
        printf("%s\"%s\": [", e ? ", " : "", o->engines[e]->name);
        print_growth_steps(runs, n_runs, o->engines[e]->name);
        printf("]");
    }
    printf("}}\n");
}

static void print_table_header(void) {
    printf("%-7s %7s %5s %10s %10s %9s %12s %9s %9s %9s\n", "engine", "bodies", "steps", "steps/s",
           "ms/step", "contacts", "c*sweeps/s", "B/body", "B/contact", "pen/r");
}

static void print_table(const options *o, const run_result *runs, int n_runs) {
    for (int i = 0; i < n_runs; ++i) {
        const run_result *r = &runs[i];
        if (!r->ok) {
            printf("%-7s %7d failed: %s\n", r->engine, (int)r->bodies, r->error);
            continue;
        }
        const double sps = steps_per_second(r);
        printf("%-7s %7d %5d %10.4g %10.4g %9.0f %12.4g %9.0f %9.0f %9.3g\n", r->engine,
               (int)r->bodies, (int)r->steps, sps, 1e3 / sps, r->contacts_avg,
               r->contacts_avg * o->sweeps * sps, r->bytes_per_body, r->bytes_per_contact,
               r->max_penetration / r->radius);
    }
}

/* ----------------------------------------------------------------- options */

static int parse_sizes(options *o, const char *text) {
    o->n_sizes = 0;
    while (*text != '\0' && o->n_sizes < MAX_SIZES) {
        char *end;
        const double n = strtod(text, &end); /* accepts 1e5 */
        if (end == text || n < 1 || n > 1e7 || n != floor(n)) {
            return -1;
        }
        o->sizes[o->n_sizes++] = (int32_t)n;
        text = *end == ',' ? end + 1 : end;
        if (*end != ',' && *end != '\0') {
            return -1;
        }
    }
    return *text == '\0' ? 0 : -1;
}

static int parse_engines(options *o, const char *text) {
    const bw_engine *found[MAX_ENGINES];
    const int n_found = available_engines(found);
    o->n_engines = 0;
    for (int i = 0; i < n_found; ++i) {
        const char *at = strstr(text, found[i]->name);
        const size_t len = strlen(found[i]->name);
        if (at != NULL && (at == text || at[-1] == ',') && (at[len] == ',' || at[len] == '\0')) {
            o->engines[o->n_engines++] = found[i];
        }
    }
    return o->n_engines > 0 ? 0 : -1;
}

static int parse_int(const char *text, int32_t min, int32_t *out) {
    char *end;
    const long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || v < min || v > 100000000) {
        return -1;
    }
    *out = (int32_t)v;
    return 0;
}

static int parse_positive(const char *text, double *out) {
    char *end;
    *out = strtod(text, &end);
    return end != text && *end == '\0' && *out > 0 && isfinite(*out) ? 0 : -1;
}

static int parse_ode_space(const char *text) {
    if (strcmp(text, "auto") == 0) {
        bw_ode_set_space(BW_ODE_SPACE_AUTO);
    } else if (strcmp(text, "hash") == 0) {
        bw_ode_set_space(BW_ODE_SPACE_HASH);
    } else if (strcmp(text, "sap") == 0) {
        bw_ode_set_space(BW_ODE_SPACE_SAP);
    } else if (strcmp(text, "quadtree") == 0) {
        bw_ode_set_space(BW_ODE_SPACE_QUADTREE);
    } else {
        return -1;
    }
    ode_space_name = text;
    return 0;
}

static int parse_nscd_law(const char *text) {
    if (strcmp(text, "coulomb") == 0) {
        bw_nscd_set_friction_law(NSCD_FRICTION_COULOMB);
    } else if (strcmp(text, "mdp") == 0) {
        bw_nscd_set_friction_law(NSCD_FRICTION_MAX_DISSIPATION);
    } else {
        return -1;
    }
    nscd_law_name = text;
    return 0;
}

static int parse_threads(options *o, const char *text) {
    o->n_threads = 0;
    const char *p = text;
    while (*p != '\0') {
        char *end = NULL;
        long t = strtol(p, &end, 10);
        if (end == p || t < 0 || t > 256 || o->n_threads == MAX_THREADS) {
            return -1;
        }
        o->threads[o->n_threads++] = (int32_t)t;
        p = *end == ',' ? end + 1 : end;
        if (*end != ',' && *end != '\0') {
            return -1;
        }
    }
    return o->n_threads > 0 ? 0 : -1;
}

static int parse_options(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->sizes[0] = 1000, o->sizes[1] = 10000, o->sizes[2] = 100000, o->n_sizes = 3;
    o->warmup = 80, o->sweeps = 10, o->dt = 1e-2, o->friction = 0.4;
    o->n_engines = available_engines(o->engines);
    o->scene = "spheres";
    o->n_threads = 1; /* threads[0] = 0 */
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
            continue;
        }
        if (v == NULL) {
            bad = 1;
        } else if (strcmp(a, "--bodies") == 0) {
            bad = parse_sizes(o, v);
            o->sizes_given = 1;
        } else if (strcmp(a, "--steps") == 0) {
            bad = parse_int(v, 1, &o->steps);
            o->steps_given = 1;
        } else if (strcmp(a, "--warmup") == 0) {
            bad = parse_int(v, 0, &o->warmup);
            o->warmup_given = 1;
        } else if (strcmp(a, "--scene") == 0) {
            bad = strcmp(v, "spheres") != 0 && strcmp(v, "chains") != 0 && strcmp(v, "stack") != 0;
            o->scene = v;
        } else if (strcmp(a, "--chains-variant") == 0) {
            bad = strcmp(v, "with") != 0 && strcmp(v, "without") != 0 && strcmp(v, "loose") != 0;
            o->chains_variant = v;
        } else if (strcmp(a, "--shape") == 0) {
            o->shape = bw_shape_parse(v);
            bad = o->shape < 0;
        } else if (strcmp(a, "--sweeps") == 0) {
            bad = parse_int(v, 1, &o->sweeps);
        } else if (strcmp(a, "--dt") == 0) {
            bad = parse_positive(v, &o->dt);
            o->dt_given = 1;
        } else if (strcmp(a, "--friction") == 0) {
            bad = parse_positive(v, &o->friction);
        } else if (strcmp(a, "--engine") == 0) {
            bad = parse_engines(o, v);
        } else if (strcmp(a, "--ode-space") == 0) {
            bad = parse_ode_space(v);
        } else if (strcmp(a, "--nscd-law") == 0) {
            bad = parse_nscd_law(v);
        } else if (strcmp(a, "--nscd-margin") == 0) {
            double f = 0.0;
            bad = parse_positive(v, &f);
            bw_nscd_set_margin(f);
        } else if (strcmp(a, "--nscd-correction-speed") == 0) {
            double speed = 0.0;
            bad = parse_positive(v, &speed);
            bw_nscd_set_correction_speed(speed);
        } else if (strcmp(a, "--nscd-relax") == 0) {
            int32_t k = 0;
            bad = parse_int(v, 0, &k);
            bw_nscd_set_relax(k);
        } else if (strcmp(a, "--threads") == 0) {
            bad = parse_threads(o, v);
        } else {
            bad = 1;
        }
        if (bad) {
            fprintf(stderr, "bench_world: bad option %s %s (see the head of bench/bench_world.c)\n",
                    a, v != NULL ? v : "");
            return -1;
        }
        ++i;
    }
    return 0;
}

int main(int argc, char **argv) {
    options o;
    if (parse_options(argc, argv, &o) != 0) {
        return 2;
    }
    if (strcmp(o.scene, "spheres") != 0) {
        return bw_chains_main(o.scene, o.sizes_given ? o.sizes[0] : 1000,
                              o.warmup_given ? o.warmup : 300, o.steps_given ? o.steps : 200,
                              o.dt_given ? o.dt : 2e-3, o.sweeps, o.chains_variant);
    }
    static run_result runs[MAX_RUNS];
    int n_runs = 0, failed = 0;
    if (!o.json) {
        print_table_header();
    }
    for (int s = 0; s < o.n_sizes; ++s) {
        for (int e = 0; e < o.n_engines; ++e) {
            int nscd = strcmp(o.engines[e]->name, "nscd") == 0;
            for (int t = 0; t < (nscd ? o.n_threads : 1); ++t) {
                bw_nscd_set_threads(nscd ? o.threads[t] : 0);
                run_one(&o, o.engines[e], o.sizes[s], &runs[n_runs]);
                runs[n_runs].threads = nscd ? o.threads[t] : 0;
                failed |= !runs[n_runs].ok;
                if (!o.json) {
                    print_table(&o, &runs[n_runs], 1);
                    fflush(stdout);
                }
                ++n_runs;
            }
        }
    }
    if (o.json) {
        print_json(&o, runs, n_runs);
    }
    return failed ? 1 : 0;
}
