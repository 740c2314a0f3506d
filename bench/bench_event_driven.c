/* Wall-time benchmark of the event-driven stepper (public API only).
 *
 * Cases, each integrated with the default method (DOPRI5) and default options
 * except where the example sets them:
 *   double_pendulum_routh  the double pendulum of seed 000 hitting a rough
 *                          floor, Routh's frictional impact, mu = 0.15,
 *                          e = 0.9, t_end = 6 s (the defaults of
 *                          examples/double_pendulum_routh.c, whose model
 *                          callbacks are copied here; Zeno policy persistent
 *                          contact, zeno_min_interval = 1e-6 s)
 *   bouncing_ball          examples/bouncing_ball.c: h0 = 1 m, Newton e = 0.8,
 *                          g = 9.81, t_end = 10 s (the bounces accumulate and
 *                          the ball rests from t = 4.06 s)
 *
 * One run is everything a caller does: create the system and the stepper, set
 * the state, nscd_event_driven_advance() to t_end in one call, read the final
 * state, destroy. Each case runs --repeat times (after one untimed warm-up
 * run) and reports the median and the minimum wall time (CLOCK_MONOTONIC).
 * The counters come from the nscd_event_driven_stats of the advance; the
 * final state (t, q, v) is printed with %.17g and hashed (FNV-1a over the
 * bytes of the doubles) into "checksum", which must be equal for two builds
 * that compute the same thing; "deterministic" says every repetition gave the
 * same checksum. tools/compare_bench.py compares two outputs case by case.
 *
 * Output: one JSON object on stdout. Exit status 1 when a run fails.
 *
 * Usage: bench_event_driven [--repeat N] [--case NAME]
 *        (default N = 61: about 3 s on the reference machine) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nscd/nscd.h"

#define PI 3.14159265358979323846
#define MAX_DOF 2
#define DEFAULT_REPEAT 61

/* ------------------------------------------------ double pendulum (seed 000) */

typedef struct pendulum {
    double m1, m2, l1, l2, r, lc, I1, I2, D, g, mu;
} pendulum;

/* Mass matrix A of eq. 3 (examples/double_pendulum_routh.c). */
static nscd_status dp_mass(void *user, const double *q, double *A) {
    const pendulum *p = user;
    A[0] = p->I1 + p->l1 * p->l1 * (p->m1 / 4.0 + p->m2);
    A[1] = A[2] = p->l1 * p->lc * p->m2 * cos(q[0] - q[1]);
    A[3] = p->I2 + p->lc * p->lc * p->m2;
    return NSCD_OK;
}

/* Q of eq. 3 without torques and damping. */
static nscd_status dp_forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)t;
    const pendulum *p = user;
    double s12 = sin(q[0] - q[1]);
    h[0] = -p->l1 * p->lc * p->m2 * s12 * v[1] * v[1] -
           (p->m1 / 2.0 + p->m2) * p->g * p->l1 * sin(q[0]);
    h[1] = p->l1 * p->lc * p->m2 * s12 * v[0] * v[0] - p->m2 * p->g * p->lc * sin(q[1]);
    return NSCD_OK;
}

static nscd_status dp_floor(void *user, int32_t index, double t, const double *q, double *gap,
                            double *w_normal, double *w_tangent) {
    (void)index, (void)t;
    const pendulum *p = user;
    *gap = p->D - p->l1 * cos(q[0]) - (p->l2 + p->r) * cos(q[1]) - p->r; /* eq. 7 */
    w_normal[0] = p->l1 * sin(q[0]);
    w_normal[1] = (p->l2 + p->r) * sin(q[1]);
    if (w_tangent != NULL) {
        w_tangent[0] = -p->l1 * cos(q[0]);
        w_tangent[1] = -(p->r + (p->l2 + p->r) * cos(q[1]));
    }
    return NSCD_OK;
}

/* ------------------------------------------------------------- bouncing ball */

typedef struct ball {
    double mass, g;
} ball;

static nscd_status ball_mass(void *user, const double *q, double *m) {
    (void)q;
    m[0] = ((const ball *)user)->mass;
    return NSCD_OK;
}

static nscd_status ball_forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)t, (void)q, (void)v;
    const ball *b = user;
    h[0] = -b->mass * b->g;
    return NSCD_OK;
}

static nscd_status ball_floor(void *user, int32_t index, double t, const double *q, double *gap,
                              double *w_normal, double *w_tangent) {
    (void)user, (void)index, (void)t, (void)w_tangent;
    *gap = q[0];
    w_normal[0] = 1.0;
    return NSCD_OK;
}

/* ------------------------------------------------------------------ the runs */

typedef struct bench_case {
    const char *name;
    int batch; /* runs per timed repetition: a run of a few tens of microseconds is timed in batches
                */
    int32_t n_dof;
    double t_end;
    void *user;
    nscd_mass_fn mass;
    nscd_forces_fn forces;
    nscd_contact_fn contact;
    double restitution, friction;
    int routh; /* 1: Routh's law with friction along one tangent row; 0: Newton */
    double q0[MAX_DOF], v0[MAX_DOF];
    int set_zeno; /* the double pendulum example sets the Zeno options */
    double zeno_min_interval;
} bench_case;

typedef struct run_result {
    nscd_status status;
    double seconds, t, q[MAX_DOF], v[MAX_DOF];
    nscd_event_driven_stats stats;
    char error[160];
} run_result;

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double clock_s(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }

static double cpu_s(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

/* Sorts x[0..n) and returns its median. */
static double median_of(double *x, int n) {
    qsort(x, (size_t)n, sizeof *x, compare_doubles);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

static void run_once(const bench_case *c, run_result *res) {
    memset(res, 0, sizeof *res);
    double start = now_s();
    nscd_contact_law *law = NULL;
    nscd_system *sys = NULL;
    nscd_event_driven *ed = NULL;
    nscd_status rc = c->routh ? nscd_contact_law_create_routh(c->restitution, NULL, &law)
                              : nscd_contact_law_create_newton(c->restitution, NULL, &law);
    if (rc == NSCD_OK) {
        nscd_system_desc desc;
        nscd_system_desc_init(&desc, sizeof desc);
        desc.n_dof = c->n_dof;
        desc.n_contacts = 1;
        desc.user = c->user;
        desc.mass = c->mass;
        desc.forces = c->forces;
        desc.contact = c->contact;
        rc = nscd_system_create(&desc, &sys);
    }
    if (rc == NSCD_OK) {
        nscd_contact_desc contact;
        nscd_contact_desc_init(&contact, sizeof contact);
        contact.law = law;
        if (c->routh) {
            contact.friction = c->friction;
            contact.n_tangent = 1;
        }
        rc = nscd_system_set_contact(sys, 0, &contact);
    }
    nscd_contact_law_destroy(law); /* the system keeps its own copy */
    if (rc == NSCD_OK) {
        rc = nscd_system_set_state(sys, 0.0, c->q0, c->v0);
    }
    if (rc == NSCD_OK) {
        nscd_event_driven_options opt;
        nscd_event_driven_options_init(&opt, sizeof opt);
        opt.method = NSCD_ED_DOPRI5;
        if (c->set_zeno) {
            opt.zeno_policy = NSCD_ZENO_PERSISTENT_CONTACT;
            opt.zeno_min_interval = c->zeno_min_interval;
        }
        rc = nscd_event_driven_create(sys, &opt, &ed);
    }
    if (rc == NSCD_OK) {
        res->stats.struct_size = sizeof res->stats;
        rc = nscd_event_driven_advance(ed, c->t_end, &res->stats);
        if (rc != NSCD_OK) {
            snprintf(res->error, sizeof res->error, "%s", nscd_event_driven_last_error(ed));
        }
    }
    if (sys != NULL) {
        nscd_system_get_state(sys, &res->t, res->q, res->v);
    }
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
    res->seconds = now_s() - start;
    res->status = rc;
}

/* FNV-1a 64 over the bytes of t, q, v (-0.0 and 0.0 differ, as they should). */
static uint64_t state_checksum(const run_result *r, int32_t n_dof) {
    uint64_t h = 1469598103934665603u;
    double values[1 + 2 * MAX_DOF];
    int n = 0;
    values[n++] = r->t;
    for (int32_t i = 0; i < n_dof; ++i) {
        values[n++] = r->q[i];
    }
    for (int32_t i = 0; i < n_dof; ++i) {
        values[n++] = r->v[i];
    }
    const unsigned char *bytes = (const unsigned char *)values;
    for (size_t k = 0; k < (size_t)n * sizeof(double); ++k) {
        h = (h ^ bytes[k]) * 1099511628211u;
    }
    return h;
}

static void print_doubles(const double *x, int32_t n) {
    putchar('[');
    for (int32_t i = 0; i < n; ++i) {
        printf("%s%.17g", i ? "," : "", x[i]);
    }
    putchar(']');
}

static void json_escaped(const char *s) {
    putchar('"');
    for (; *s; ++s) {
        if (*s == '"' || *s == '\\') {
            putchar('\\');
        }
        putchar(*s >= ' ' ? *s : ' ');
    }
    putchar('"');
}

/* Runs one case `repeat` times (each repetition: c->batch runs back to back)
 * and prints its JSON object; 0 on success. */
static int bench(const bench_case *c, int repeat, int first) {
    double *times = malloc(2 * (size_t)repeat * sizeof *times), *cpu = times + repeat;
    if (times == NULL) {
        fprintf(stderr, "bench_event_driven: out of memory\n");
        return 1;
    }
    run_result res;
    run_once(c, &res); /* untimed: page faults, lazy binding, caches */
    uint64_t checksum = state_checksum(&res, c->n_dof);
    int deterministic = 1, failed = res.status != NSCD_OK;
    for (int k = 0; k < repeat && !failed; ++k) {
        double start = now_s(), start_cpu = cpu_s();
        for (int b = 0; b < c->batch && !failed; ++b) {
            run_once(c, &res);
            failed = res.status != NSCD_OK;
            deterministic &= state_checksum(&res, c->n_dof) == checksum;
        }
        times[k] = (now_s() - start) / c->batch; /* seconds per run */
        cpu[k] = (cpu_s() - start_cpu) / c->batch;
    }
    double median = NAN, min = NAN, max = NAN, total = 0.0, cpu_median = NAN, cpu_min = NAN;
    if (!failed) {
        for (int k = 0; k < repeat; ++k) {
            total += times[k] * c->batch;
        }
        median = median_of(times, repeat);
        min = times[0];
        max = times[repeat - 1];
        cpu_median = median_of(cpu, repeat);
        cpu_min = cpu[0];
    }
    free(times);
    const nscd_event_driven_stats *s = &res.stats;
    printf("%s{\"name\":\"%s\",\"method\":\"dopri5\",\"t_end\":%.17g,\"runs_per_repetition\":%d,"
           "\"status\":\"%s\",\"error\":",
           first ? "" : ",", c->name, c->t_end, c->batch, nscd_status_string(res.status));
    json_escaped(res.error);
    if (failed) {
        printf(",\"median_s\":null,\"min_s\":null,\"max_s\":null,\"total_s\":null,"
               "\"cpu_median_s\":null,\"cpu_min_s\":null");
    } else {
        printf(",\"median_s\":%.6e,\"min_s\":%.6e,\"max_s\":%.6e,\"total_s\":%.6e", median, min,
               max, total);
        printf(",\"cpu_median_s\":%.6e,\"cpu_min_s\":%.6e", cpu_median, cpu_min);
    }
    printf(",\"events\":%lld,\"impacts\":%lld,\"steps_accepted\":%lld,\"steps_rejected\":%lld,"
           "\"rhs_evaluations\":%lld,\"t_reached\":%.17g,\"final_q\":",
           (long long)s->events, (long long)s->impacts, (long long)s->steps_accepted,
           (long long)s->steps_rejected, (long long)s->rhs_evaluations, res.t);
    print_doubles(res.q, c->n_dof);
    printf(",\"final_v\":");
    print_doubles(res.v, c->n_dof);
    printf(",\"checksum\":\"%016llx\",\"deterministic\":%s}",
           (unsigned long long)state_checksum(&res, c->n_dof), deterministic ? "true" : "false");
    if (failed) {
        fprintf(stderr, "bench_event_driven: %s: %s %s\n", c->name, nscd_status_string(res.status),
                res.error);
    } else if (!deterministic) {
        fprintf(stderr, "bench_event_driven: %s: the final state differs between runs\n", c->name);
    }
    return failed || !deterministic;
}

int main(int argc, char **argv) {
    int repeat = DEFAULT_REPEAT;
    const char *only = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            char *end = NULL;
            long n = strtol(argv[++i], &end, 10);
            if (*end != '\0' || n < 1 || n > 1000000) {
                fprintf(stderr, "bench_event_driven: --repeat takes a count >= 1\n");
                return 2;
            }
            repeat = (int)n;
        } else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else {
            fprintf(stderr, "usage: bench_event_driven [--repeat N] [--case NAME]\n");
            return 2;
        }
    }

    static pendulum dp = {3.2, 3.8, 0.5, 0.6, 0.05, 0.3627, 6.76e-2, 0.164, 0.9, 9.81, 0.15};
    static ball b = {1.0, 9.81};
    const bench_case cases[] = {
        {.name = "double_pendulum_routh",
         .batch = 1,
         .n_dof = 2,
         .t_end = 6.0,
         .user = &dp,
         .mass = dp_mass,
         .forces = dp_forces,
         .contact = dp_floor,
         .restitution = 0.9,
         .friction = 0.15,
         .routh = 1,
         .q0 = {140.0 * PI / 180.0, -PI / 2.0},
         .v0 = {1.2, -0.5},
         .set_zeno = 1,
         .zeno_min_interval = 1e-6},
        {.name = "bouncing_ball",
         .batch = 50,
         .n_dof = 1,
         .t_end = 10.0,
         .user = &b,
         .mass = ball_mass,
         .forces = ball_forces,
         .contact = ball_floor,
         .restitution = 0.8,
         .q0 = {1.0},
         .v0 = {0.0}},
    };
    const int n_cases = (int)(sizeof cases / sizeof cases[0]);
    int found = 0;
    for (int k = 0; k < n_cases; ++k) {
        found |= only == NULL || strcmp(only, cases[k].name) == 0;
    }
    if (!found) {
        fprintf(stderr, "bench_event_driven: no case %s\n", only);
        return 2;
    }

    double start = now_s();
    int failed = 0, first = 1;
    printf("{\"benchmark\":\"event_driven\",\"nscd_version\":\"%s\",\"repeat\":%d,\"cases\":[",
           nscd_version_string(), repeat);
    for (int k = 0; k < n_cases; ++k) {
        if (only == NULL || strcmp(only, cases[k].name) == 0) {
            failed |= bench(&cases[k], repeat, first);
            first = 0;
        }
    }
    printf("],\"wall_s\":%.3f}\n", now_s() - start);
    return failed;
}
