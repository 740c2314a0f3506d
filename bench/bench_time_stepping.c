/* CPU time per step of every time-stepping scheme on the rigid slider-crank
 * of seed 003 (public API only): the measurement behind Tables 3 and 5 of
 * the paper ("relative CPU time per time-step", Δt = 1e-5 s).
 *
 * Cases (examples/common/slider_crank_model.h, the model of
 * examples/slider_crank.c, compiled in):
 *   table1     the unilateral case of Table 1 (c = 1 mm), Table 5;
 *   bilateral  c = 0, the redundant corner set, Table 3.
 * Each scheme integrates 0.05 s at dt = 1e-5 s (5000 steps) with the default
 * options (local solver AUTO: fc3d Coulomb on table1's frictional corners, the
 * LCP handing the bilateral case's redundant equalities to prox). A run
 * is: create the system and the stepper, one nscd_time_stepping_advance() to
 * t_end without an observer, read the final state, destroy. After one untimed
 * warm-up run each (case, scheme) is timed --repeat times; the per-step time
 * is the median CPU time of the process (CLOCK_PROCESS_CPUTIME_ID) divided
 * by the steps, and "ratio_to_moreau_jean" divides it by Moreau–Jean's of the
 * same case (the paper's tables divide by Moreau's midpoint rule:
 * "ratio_to_moreau_midpoint" gives that). A scheme this build does not
 * implement is listed with "supported": false (exit status 0); a supported
 * scheme that fails exits with 1. The final state is hashed (FNV-1a) into
 * "checksum"; "deterministic" says every repetition gave the same one.
 *
 * Usage: bench_time_stepping [--repeat N] [--case table1|bilateral|table2]
 *                            [--dt DT] [--t-end T]   (default N = 5) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nscd/nscd.h"
#include "slider_crank_model.h"

#define DEFAULT_REPEAT 5
#define MAX_REPEAT 1001
#define N_SCHEMES 6

static const char *const SCHEME_NAMES[N_SCHEMES] = {
    "moreau_jean", "moreau_midpoint", "hets", "generalized_alpha", "bathe", "ed_alpha"};

typedef struct run_result {
    nscd_status status;
    int64_t steps, solver_iterations;
    double q[SLIDER_CRANK_DOF], v[SLIDER_CRANK_DOF], t;
    uint64_t checksum;
} run_result;

typedef struct scheme_result {
    const char *name;
    int supported, deterministic;
    double cpu_median, cpu_min, wall_median;
    run_result run;
} scheme_result;

static double seconds(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t fnv1a(uint64_t hash, const void *data, size_t size) {
    const unsigned char *bytes = data;
    for (size_t i = 0; i < size; ++i) {
        hash = (hash ^ bytes[i]) * 1099511628211ull;
    }
    return hash;
}

static run_result run_once(const slider_crank_case *model, int32_t scheme, double dt,
                           double t_end) {
    run_result r;
    memset(&r, 0, sizeof r);
    nscd_system *sys = NULL;
    nscd_time_stepping *ts = NULL;
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = scheme;
    o.dt = dt;
    nscd_time_stepping_stats stats = {.struct_size = sizeof stats};
    r.status = slider_crank_system_create(model, &sys);
    if (r.status == NSCD_OK) {
        r.status = nscd_time_stepping_create(sys, &o, &ts);
    }
    if (r.status == NSCD_OK) {
        r.status = nscd_time_stepping_advance(ts, t_end, &stats);
    }
    if (r.status == NSCD_OK) {
        nscd_system_get_state(sys, &r.t, r.q, r.v);
        r.steps = stats.steps;
        r.solver_iterations = stats.solver_iterations;
        r.checksum = fnv1a(1469598103934665603ull, &r.t, sizeof r.t);
        r.checksum = fnv1a(r.checksum, r.q, sizeof r.q);
        r.checksum = fnv1a(r.checksum, r.v, sizeof r.v);
    } else if (ts != NULL) {
        fprintf(stderr, "bench_time_stepping: %s\n", nscd_time_stepping_last_error(ts));
    }
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(sys);
    return r;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *x, int n) {
    qsort(x, (size_t)n, sizeof *x, compare_doubles);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* Warm-up, then `repeat` timed runs of one scheme. */
static scheme_result time_scheme(const slider_crank_case *model, int32_t scheme, double dt,
                                 double t_end, int repeat) {
    static double cpu[MAX_REPEAT], wall[MAX_REPEAT];
    scheme_result s;
    memset(&s, 0, sizeof s);
    s.name = SCHEME_NAMES[scheme];
    s.run = run_once(model, scheme, dt, t_end); /* warm-up */
    s.supported = s.run.status != NSCD_ERR_UNSUPPORTED;
    s.deterministic = 1;
    for (int k = 0; k < repeat && s.run.status == NSCD_OK; ++k) {
        double c0 = seconds(CLOCK_PROCESS_CPUTIME_ID), w0 = seconds(CLOCK_MONOTONIC);
        run_result r = run_once(model, scheme, dt, t_end);
        cpu[k] = seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
        wall[k] = seconds(CLOCK_MONOTONIC) - w0;
        s.deterministic &= r.status == NSCD_OK && r.checksum == s.run.checksum;
    }
    if (s.run.status == NSCD_OK) {
        s.wall_median = median(wall, repeat);
        s.cpu_median = median(cpu, repeat);
        s.cpu_min = cpu[0]; /* sorted by median() */
    }
    return s;
}

static void print_scheme(const scheme_result *s, const scheme_result *mj,
                         const scheme_result *mid) {
    printf("{\"scheme\":\"%s\",\"supported\":%s", s->name, s->supported ? "true" : "false");
    if (!s->supported) {
        printf(",\"error\":\"scheme not implemented in this build\"}");
        return;
    }
    if (s->run.status != NSCD_OK) {
        printf(",\"error\":\"%s\"}", nscd_status_string(s->run.status));
        return;
    }
    double per_step = s->cpu_median / (double)s->run.steps;
    printf(",\"steps\":%lld,\"solver_iterations\":%lld,\"cpu_median_s\":%.9g,\"cpu_min_s\":%.9g,",
           (long long)s->run.steps, (long long)s->run.solver_iterations, s->cpu_median, s->cpu_min);
    printf("\"wall_median_s\":%.9g,\"cpu_us_per_step\":%.6g,", s->wall_median, 1e6 * per_step);
    printf("\"ratio_to_moreau_jean\":");
    if (mj->run.status == NSCD_OK && mj->cpu_median > 0.0) {
        printf("%.4g", per_step / (mj->cpu_median / (double)mj->run.steps));
    } else {
        printf("null");
    }
    printf(",\"ratio_to_moreau_midpoint\":");
    if (mid->run.status == NSCD_OK && mid->cpu_median > 0.0) {
        printf("%.4g", per_step / (mid->cpu_median / (double)mid->run.steps));
    } else {
        printf("null");
    }
    printf(",\"final_q\":[%.17g,%.17g,%.17g],\"checksum\":\"%016llx\",\"deterministic\":%s}",
           s->run.q[0], s->run.q[1], s->run.q[2], (unsigned long long)s->run.checksum,
           s->deterministic ? "true" : "false");
}

/* Times every scheme on one case; 0, or 1 when a supported scheme failed. */
static int bench_case(const slider_crank_case *model, double dt, double t_end, int repeat) {
    scheme_result results[N_SCHEMES];
    int failed = 0;
    for (int32_t k = 0; k < N_SCHEMES; ++k) {
        results[k] = time_scheme(model, k, dt, t_end, repeat);
        failed |=
            results[k].supported && (results[k].run.status != NSCD_OK || !results[k].deterministic);
    }
    printf("{\"case\":\"%s\",\"dt\":%.17g,\"t_end\":%.17g,\"schemes\":[", model->name, dt, t_end);
    for (int k = 0; k < N_SCHEMES; ++k) {
        printf(k ? "," : "");
        print_scheme(&results[k], &results[NSCD_TS_MOREAU_JEAN], &results[NSCD_TS_MOREAU_MIDPOINT]);
    }
    printf("]}");
    return failed;
}

static const char *arg_value(int argc, char **argv, const char *name) {
    for (int i = 1; i + 1 < argc; ++i) {
        if (strcmp(argv[i], name) == 0) {
            return argv[i + 1];
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    const char *text = arg_value(argc, argv, "--repeat");
    int repeat = text ? atoi(text) : DEFAULT_REPEAT;
    double dt = arg_value(argc, argv, "--dt") ? atof(arg_value(argc, argv, "--dt")) : 1e-5;
    double t_end = arg_value(argc, argv, "--t-end") ? atof(arg_value(argc, argv, "--t-end")) : 0.05;
    const char *only = arg_value(argc, argv, "--case");
    if (repeat < 1 || repeat > MAX_REPEAT || !(dt > 0.0) || !(t_end > 0.0) ||
        (only != NULL && slider_crank_case_find(only) == NULL)) {
        fprintf(stderr,
                "usage: bench_time_stepping [--repeat 1..%d] [--case table1|bilateral|"
                "table2] [--dt DT] [--t-end T]\n",
                MAX_REPEAT);
        return 2;
    }
    const char *cases[] = {"table1", "bilateral"};
    double w0 = seconds(CLOCK_MONOTONIC);
    int failed = 0;
    printf("{\"benchmark\":\"time_stepping\",\"nscd_version\":\"%s\",\"repeat\":%d,\"cases\":[",
           nscd_version_string(), repeat);
    for (int k = 0; k < (only ? 1 : 2); ++k) {
        printf(k ? "," : "");
        failed |= bench_case(slider_crank_case_find(only ? only : cases[k]), dt, t_end, repeat);
    }
    printf("],\"wall_s\":%.6g}\n", seconds(CLOCK_MONOTONIC) - w0);
    return failed;
}
