/* Time per step of nscd's Moreau–Jean time stepper on a bouncing ball, the
 * nscd side of bench/siconos_moreau_jean.py (which runs the same ball with
 * Siconos' MoreauJeanOSI and compares; public API only).
 *
 * The ball: one dof q (height), mass 1 kg, gravity g = 9.81 m/s², a floor
 * contact g_N = q with Newton restitution e, dropped at rest from h0. Moreau–
 * Jean with θ = 1/2 (Siconos' default), γ = 1/2 (the active-set prediction
 * g + γ dt ġ <= 0 of both), local solver LCP. One run: create, one advance to
 * t_end (an observer records the trajectory every --every steps when
 * --trajectory is given), destroy. After a warm-up the run is timed --repeat
 * times without the observer; "us_per_step" is the median CPU time per step.
 *
 * Output: one JSON object {"h0", "e", "dt", "t_end", "steps", "cpu_median_s",
 * "us_per_step", "final": [t, q, v], "trajectory": [[t, q, v], ...]}.
 * Usage: bench_ts_bouncing_ball [--repeat N] [--h0 1] [--e 0.9] [--dt 1e-3]
 *                               [--t-end 3] [--trajectory] [--every 10] */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nscd/nscd.h"

#define MAX_REPEAT 1001
#define MAX_POINTS 1000000
#define GRAVITY 9.81

typedef struct trajectory {
    nscd_system *sys;
    int64_t every;
    int32_t n, cap;
    double *points; /* t, q, v */
} trajectory;

static nscd_status mass(void *user, const double *q, double *m) {
    (void)user, (void)q;
    m[0] = 1.0;
    return NSCD_OK;
}

static nscd_status forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)user, (void)t, (void)q, (void)v;
    h[0] = -GRAVITY;
    return NSCD_OK;
}

static nscd_status floor_contact(void *user, int32_t index, double t, const double *q, double *gap,
                                 double *w_normal, double *w_tangent) {
    (void)user, (void)index, (void)t, (void)w_tangent;
    *gap = q[0];
    w_normal[0] = 1.0;
    return NSCD_OK;
}

static int32_t record(void *user, const nscd_time_stepping_report *report) {
    trajectory *tr = user;
    if ((report->step + 1) % tr->every == 0 && tr->n < tr->cap) {
        double *p = &tr->points[3 * tr->n++];
        nscd_system_get_state(tr->sys, &p[0], &p[1], &p[2]);
    }
    return 0;
}

static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One run; *steps and final[3] receive the result. */
static nscd_status run(double h0, double e, double dt, double t_end, trajectory *tr, int64_t *steps,
                       double *final) {
    nscd_system_desc desc;
    nscd_system_desc_init(&desc, sizeof desc);
    desc.n_dof = 1;
    desc.n_contacts = 1;
    desc.mass = mass;
    desc.forces = forces;
    desc.contact = floor_contact;
    nscd_system *sys = NULL;
    nscd_time_stepping *ts = NULL;
    nscd_contact_law *law = NULL;
    nscd_status rc = nscd_contact_law_create_newton(e, NULL, &law);
    if (rc == NSCD_OK) {
        rc = nscd_system_create(&desc, &sys);
    }
    nscd_contact_desc contact;
    nscd_contact_desc_init(&contact, sizeof contact);
    contact.law = law;
    double v0 = 0.0;
    if (rc == NSCD_OK) {
        rc = nscd_system_set_contact(sys, 0, &contact);
    }
    if (rc == NSCD_OK) {
        rc = nscd_system_set_state(sys, 0.0, &h0, &v0);
    }
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = NSCD_TS_MOREAU_JEAN;
    o.dt = dt;
    o.local_solver = NSCD_TS_SOLVER_LCP;
    if (tr != NULL) {
        tr->sys = sys;
        o.on_step = record;
        o.on_step_user = tr;
    }
    nscd_time_stepping_stats stats = {.struct_size = sizeof stats};
    if (rc == NSCD_OK) {
        rc = nscd_time_stepping_create(sys, &o, &ts);
    }
    if (rc == NSCD_OK) {
        rc = nscd_time_stepping_advance(ts, t_end, &stats);
    }
    if (rc == NSCD_OK) {
        nscd_system_get_state(sys, &final[0], &final[1], &final[2]);
        *steps = stats.steps;
    }
    nscd_time_stepping_destroy(ts);
    nscd_system_destroy(sys);
    nscd_contact_law_destroy(law);
    return rc;
}

static double arg(int argc, char **argv, const char *name, double fallback) {
    for (int i = 1; i + 1 < argc; ++i) {
        if (strcmp(argv[i], name) == 0) {
            return atof(argv[i + 1]);
        }
    }
    return fallback;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_trajectory(const trajectory *tr) {
    printf(",\"trajectory\":[");
    for (int32_t i = 0; i < tr->n; ++i) {
        const double *p = &tr->points[3 * i];
        printf("%s[%.17g,%.17g,%.17g]", i ? "," : "", p[0], p[1], p[2]);
    }
    printf("]");
}

int main(int argc, char **argv) {
    int repeat = (int)arg(argc, argv, "--repeat", 5);
    double h0 = arg(argc, argv, "--h0", 1.0), e = arg(argc, argv, "--e", 0.9);
    double dt = arg(argc, argv, "--dt", 1e-3), t_end = arg(argc, argv, "--t-end", 3.0);
    int64_t every = (int64_t)arg(argc, argv, "--every", 10);
    if (repeat < 1 || repeat > MAX_REPEAT || !(dt > 0.0) || !(t_end > 0.0) || every < 1 ||
        t_end / dt / (double)every > MAX_POINTS) {
        fprintf(stderr, "bench_ts_bouncing_ball: bad arguments\n");
        return 2;
    }
    trajectory tr = {.every = every, .cap = (int32_t)(t_end / dt / (double)every) + 2};
    int with_trajectory = 0;
    for (int i = 1; i < argc; ++i) {
        with_trajectory |= strcmp(argv[i], "--trajectory") == 0;
    }
    tr.points = calloc(3 * (size_t)tr.cap, sizeof(double));
    int64_t steps = 0;
    double final[3] = {0.0, 0.0, 0.0}, cpu[MAX_REPEAT];
    nscd_status rc = tr.points ? run(h0, e, dt, t_end, &tr, &steps, final) : NSCD_ERR_OUT_OF_MEMORY;
    for (int k = 0; k < repeat && rc == NSCD_OK; ++k) {
        double c0 = cpu_seconds();
        rc = run(h0, e, dt, t_end, NULL, &steps, final);
        cpu[k] = cpu_seconds() - c0;
    }
    if (rc != NSCD_OK) {
        fprintf(stderr, "bench_ts_bouncing_ball: %s\n", nscd_status_string(rc));
        free(tr.points);
        return 1;
    }
    qsort(cpu, (size_t)repeat, sizeof cpu[0], compare_doubles);
    double median = cpu[repeat / 2];
    printf("{\"benchmark\":\"ts_bouncing_ball\",\"h0\":%.17g,\"e\":%.17g,\"dt\":%.17g,", h0, e, dt);
    printf("\"t_end\":%.17g,\"repeat\":%d,\"steps\":%lld,\"cpu_median_s\":%.9g,", t_end, repeat,
           (long long)steps, median);
    printf("\"us_per_step\":%.6g,\"final\":[%.17g,%.17g,%.17g]", 1e6 * median / (double)steps,
           final[0], final[1], final[2]);
    if (with_trajectory) {
        print_trajectory(&tr);
    }
    printf("}\n");
    free(tr.points);
    return 0;
}
