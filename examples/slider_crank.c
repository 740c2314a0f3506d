/* The rigid slider-crank with a translational clearance joint of seed 003
 * (Sect. 4.1, Tables 1 and 2), integrated by the time stepper.
 *
 * The model (examples/common/slider_crank_model.h) is the one of the
 * independent reference tools/reference/slider_crank.py: coordinates
 * (θ1, θ2, θ3), Flores' mass matrix, Lagrange's forces, gravity, a torque on
 * the crank, and the slider's four corners as unilateral contacts with one
 * tangent each in a guide of height d = 2 (b + c). Cases:
 *   table1     c = 1 mm, e_N = 0.4, μ = 0.01, from ω = (150, -75, 0) rad/s;
 *   table2     c = 0.5 mm, torque 1 N m, e_N = 0.1, μ = 0.1, from rest;
 *   bilateral  c = 0: the prismatic joint as four corner equalities g = 0
 *              (four rows of rank 2 on three dofs, frictionless): AUTO's
 *              LCP finds them singular and hands them to the prox solver
 *              (pseudoinverse); from ω = (150, -75, 0) rad/s.
 *
 * Physics invariants, checked every step; a violation exits with 3:
 *  1. Penetration, per corner and contact phase. A phase of a corner starts
 *     at the first step that ends with the corner below its wall or with a
 *     normal impulse, and ends at a step that leaves it above its wall
 *     without impulse. On the velocity level a corner becomes active once
 *     its (predicted) gap is <= 0, so the step that brings it below the
 *     wall ends at most dt V deep, V its closing speed at the step's start
 *     or end (an impulse elsewhere can turn the slider within the step)
 *     ((2 - e_N)/2 dt V for the Moreau schemes, docs/time_stepping.md
 *     "Penetration and drift"; dt V covers the α schemes' velocity level
 *     too). While it stays active, u_N >= 0 holds at the scheme's evaluation
 *     point (q_M, q_k), not at the step's end, and the gap drifts per step by
 *     at most about dt² κ, κ = l1 ω1² + l2 ω2² + r ω3², r = sqrt(a² + b²):
 *     the bound of |v' (d²g/dq²) v| (a corner's y is a sum of one function
 *     per coordinate, of curvature at most l1, l2, r); the leading term is
 *     3/4 dt² v'(d²g/dq²)v for the midpoint rule, dt² v'(d²g/dq²)v for
 *     Moreau–Jean. So at every step of a phase
 *         -g_k <= dt V_phase + dt² Σ_phase κ + 1e-14 m,
 *     V_phase the largest closing speed at a step's start in the phase, the
 *     sum over its steps so far, 1e-14 m for rounding.
 *  2. No energy gain at impacts. E = T + V_gravity - T_torque θ1 is
 *     conserved by the smooth motion and lost by impacts (e_N < 1) and
 *     friction; a step with a new contact may not raise E by more than
 *     the integration error of a step, bounded by the largest |ΔE| of a
 *     contact-free step seen in the run (twice it, plus 1e-12 of the energy
 *     scale for rounding).
 *
 * Usage: slider_crank [--case table1|table2|bilateral] [--scheme S] [--dt 1e-5]
 *                     [--t-end 0.05] [--sample 1e-3] [--rho-inf 1] [--theta 0.5]
 *                     [--solver auto|lcp|fc3d|fc3d_max_dissipation|prox]
 *                     [--level velocity|acceleration] [--start consistent|paper]
 *                     [--json] [--csv FILE]
 * S: moreau_jean, moreau_midpoint (default), hets, generalized_alpha, bathe,
 * ed_alpha. Options the library refuses (NSCD_ERR_UNSUPPORTED) exit with 4
 * and say so (stderr, and a JSON object with "error" under --json). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "example_cli.h"
#include "slider_crank_model.h"
#include "slider_crank_run.h"
#include <nscd/nscd.h>

#define EXIT_FAILED 1
#define EXIT_INVARIANT 3
#define EXIT_UNSUPPORTED 4
#define GAP_ROUNDING 1e-14 /* m */

typedef struct settings {
    const slider_crank_case *model;
    slider_crank_run run;
} settings;

typedef struct sample {
    double t, q[SLIDER_CRANK_DOF], v[SLIDER_CRANK_DOF], energy;
    double normal_force[SLIDER_CRANK_CORNERS], gap[SLIDER_CRANK_CORNERS];
    int64_t impact_steps, contact_steps; /* in the window that ends here */
} sample;

/* What the per-step observer sees. */
typedef struct record {
    const slider_crank_case *model;
    nscd_system *sys;
    nscd_time_stepping *ts;
    double sample_every;
    sample *samples;
    int32_t n_samples, max_samples;
    /* the state at the start of the current step */
    double t, q[SLIDER_CRANK_DOF], v[SLIDER_CRANK_DOF], energy;
    /* counters */
    slider_crank_counts counts;
    int64_t window_impacts, window_contacts;
    /* invariants */
    double max_closing_speed, max_penetration_bound, max_penetration_ratio;
    double max_loaded_gap; /* largest gap at a step's end of a corner with an impulse */
    /* the contact phase of each corner (invariant 1): open, its V and drift */
    int in_phase[SLIDER_CRANK_CORNERS];
    double phase_speed[SLIDER_CRANK_CORNERS], phase_drift[SLIDER_CRANK_CORNERS];
    int64_t violations;
    double max_impact_energy_gain, max_smooth_energy_change, energy_scale;
} record;

/* ----------------------------------------------------------- settings */

static int usage(const char *what, const char *value) {
    return slider_crank_usage("slider_crank", what, value);
}

static int parse_level_start(int argc, char **argv, nscd_time_stepping_options *o) {
    const char *level = cli_string(argc, argv, "--level", "velocity");
    const char *start = cli_string(argc, argv, "--start", "consistent");
    if (strcmp(level, "velocity") != 0 && strcmp(level, "acceleration") != 0) {
        return usage("--level", level);
    }
    if (strcmp(start, "consistent") != 0 && strcmp(start, "paper") != 0) {
        return usage("--start", start);
    }
    o->level = level[0] == 'v' ? NSCD_TS_LEVEL_VELOCITY : NSCD_TS_LEVEL_ACCELERATION;
    o->start = start[0] == 'c' ? NSCD_TS_START_CONSISTENT : NSCD_TS_START_PAPER;
    return 0;
}

static int parse_settings(int argc, char **argv, settings *s) {
    const char *case_name = cli_string(argc, argv, "--case", "table1");
    s->model = slider_crank_case_find(case_name);
    if (s->model == NULL) {
        fprintf(stderr, "slider_crank: --case is one of %s\n", slider_crank_case_names());
        return usage("--case", case_name);
    }
    int code = slider_crank_run_parse(argc, argv, "slider_crank", "moreau_midpoint", &s->run);
    if (code != 0) {
        return code;
    }
    nscd_time_stepping_options *o = &s->run.options;
    o->tolerance = cli_double(argc, argv, "--tolerance", o->tolerance);
    double sweeps = cli_double(argc, argv, "--max-iterations", o->max_iterations);
    if (!(sweeps >= 1.0 && sweeps <= 1e9)) { /* checked before the cast */
        return usage("--max-iterations (1 to 1e9)", cli_string(argc, argv, "--max-iterations", ""));
    }
    o->max_iterations = (int32_t)sweeps;
    return parse_level_start(argc, argv, o);
}

/* ---------------------------------------------------------- observer */

/* Largest curvature term v' (d²g/dq²) v of any corner (see the head). */
static double curvature_bound(const double *v) {
    double r = hypot(SLIDER_CRANK_A, SLIDER_CRANK_B);
    return SLIDER_CRANK_L1 * v[0] * v[0] + SLIDER_CRANK_L2 * v[1] * v[1] + r * v[2] * v[2];
}

/* Normal gap and its rate W_N v of corner k at (q, v). */
static double corner_gap(const record *r, int32_t k, const double *q, const double *v,
                         double *rate) {
    double gap, w[SLIDER_CRANK_DOF];
    slider_crank_contact((void *)r->model, k, 0.0, q, &gap, w, NULL);
    *rate = 0.0;
    for (int i = 0; i < SLIDER_CRANK_DOF; ++i) {
        *rate += w[i] * v[i];
    }
    return gap;
}

/* Invariant 1 for the step from (r->q, r->v) to (q, v): each corner's phase
 * and bound. */
static void watch_penetration(record *r, const double *q, const double *v,
                              const double *normal_impulse, double dt) {
    double kappa = curvature_bound(r->v), rate;
    for (int32_t k = 0; k < SLIDER_CRANK_CORNERS; ++k) {
        double gap = corner_gap(r, k, q, r->v, &rate);
        if (normal_impulse[k] > 0.0) {
            r->max_loaded_gap = fmax(r->max_loaded_gap, gap);
        }
        if (!r->in_phase[k] && !(gap < 0.0 || normal_impulse[k] > 0.0)) {
            continue;
        }
        if (!r->in_phase[k]) {
            r->in_phase[k] = 1;
            r->phase_speed[k] = r->phase_drift[k] = 0.0;
        }
        /* the closing speed at the step's start, or at its end: an impulse
         * on another corner within the step can drive this inactive one
         * into its wall (seen: 5e-7 m in one step of 1e-6 s from rest) */
        double rate_end;
        corner_gap(r, k, r->q, r->v, &rate);
        corner_gap(r, k, q, v, &rate_end);
        r->phase_speed[k] = fmax(r->phase_speed[k], fmax(-rate, -rate_end));
        r->phase_drift[k] += dt * dt * kappa;
        double bound = dt * r->phase_speed[k] + r->phase_drift[k] + GAP_ROUNDING;
        r->max_closing_speed = fmax(r->max_closing_speed, r->phase_speed[k]);
        r->max_penetration_bound = fmax(r->max_penetration_bound, bound);
        r->max_penetration_ratio = fmax(r->max_penetration_ratio, -gap / bound);
        r->violations += -gap > bound;
        r->in_phase[k] = gap < 0.0 || normal_impulse[k] > 0.0;
    }
}

static void take_sample(record *r, double t, const double *q, const double *v, double energy,
                        const double *normal_impulse, double dt) {
    sample *s = &r->samples[r->n_samples++];
    s->t = t;
    s->energy = energy;
    memcpy(s->q, q, sizeof s->q);
    memcpy(s->v, v, sizeof s->v);
    for (int32_t k = 0; k < SLIDER_CRANK_CORNERS; ++k) {
        double w[SLIDER_CRANK_DOF];
        s->normal_force[k] = normal_impulse[k] / dt;
        slider_crank_contact((void *)r->model, k, t, q, &s->gap[k], w, NULL);
    }
    s->impact_steps = r->window_impacts;
    s->contact_steps = r->window_contacts;
    r->window_impacts = r->window_contacts = 0;
}

static int32_t on_step(void *user, const nscd_time_stepping_report *report) {
    record *r = user;
    double t, q[SLIDER_CRANK_DOF], v[SLIDER_CRANK_DOF], impulse[SLIDER_CRANK_CORNERS];
    nscd_system_get_state(r->sys, &t, q, v);
    slider_crank_corner_loads(r->ts, report->dt, impulse);
    double energy = slider_crank_energy(r->model, q, v), change = energy - r->energy;
    slider_crank_count_step(&r->counts, report, q);
    if (report->active_contacts > 0) {
        r->window_contacts++;
    } else {
        r->max_smooth_energy_change = fmax(r->max_smooth_energy_change, fabs(change));
    }
    if (report->impact) {
        r->window_impacts++;
        r->max_impact_energy_gain = fmax(r->max_impact_energy_gain, change);
    }
    watch_penetration(r, q, v, impulse, report->dt);
    if (t >= r->sample_every * (double)r->n_samples - 1e-6 * report->dt &&
        r->n_samples < r->max_samples) {
        take_sample(r, t, q, v, energy, impulse, report->dt);
    }
    r->t = t;
    memcpy(r->q, q, sizeof r->q);
    memcpy(r->v, v, sizeof r->v);
    r->energy = energy;
    return 0;
}

/* ----------------------------------------------------------- invariants */

static double impact_energy_tolerance(const record *r) {
    return 2.0 * r->max_smooth_energy_change + 1e-12 * r->energy_scale;
}

/* 0 when both invariants hold, else EXIT_INVARIANT with a message. */
static int check_invariants(const record *r) {
    int code = 0;
    if (r->violations > 0) {
        fprintf(stderr,
                "slider_crank: %lld corner steps below their penetration bound (worst: %.6g "
                "times the bound)\n",
                (long long)r->violations, r->max_penetration_ratio);
        code = EXIT_INVARIANT;
    }
    if (r->counts.impact_steps > 0 && r->max_impact_energy_gain > impact_energy_tolerance(r)) {
        fprintf(stderr, "slider_crank: an impact step gained %.6g J (tolerance %.6g J)\n",
                r->max_impact_energy_gain, impact_energy_tolerance(r));
        code = EXIT_INVARIANT;
    }
    return code;
}

/* -------------------------------------------------------------- output */

static void json_sample(FILE *out, const sample *s) {
    fprintf(out, "{\"t\":");
    json_number(out, s->t);
    fprintf(out, ",\"q\":");
    json_array(out, s->q, SLIDER_CRANK_DOF);
    fprintf(out, ",\"v\":");
    json_array(out, s->v, SLIDER_CRANK_DOF);
    fprintf(out, ",\"energy\":");
    json_number(out, s->energy);
    fprintf(out, ",\"gap\":");
    json_array(out, s->gap, SLIDER_CRANK_CORNERS);
    fprintf(out, ",\"normal_force\":");
    json_array(out, s->normal_force, SLIDER_CRANK_CORNERS);
    fprintf(out, ",\"impact_steps\":%lld,\"contact_steps\":%lld}", (long long)s->impact_steps,
            (long long)s->contact_steps);
}

/* The head and the parameters of the JSON output. */
static void json_head(FILE *out, const settings *s) {
    slider_crank_json_head(out, s->model, &s->run);
    fprintf(out, ",\"solver\":\"%s\",\"theta\":%.17g,\"level\":\"%s\",\"start\":\"%s\"}",
            s->run.solver_name, s->run.options.theta,
            s->run.options.level == NSCD_TS_LEVEL_VELOCITY ? "velocity" : "acceleration",
            s->run.options.start == NSCD_TS_START_CONSISTENT ? "consistent" : "paper");
}

static void json_invariants(FILE *out, const record *r, int code) {
    fprintf(out, ",\"invariants\":{\"max_penetration\":%.17g,\"penetration_tolerance\":%.17g,",
            r->counts.max_penetration, r->max_penetration_bound + GAP_ROUNDING);
    fprintf(out, "\"max_penetration_ratio\":%.17g,\"penetration_violations\":%lld,",
            r->max_penetration_ratio, (long long)r->violations);
    fprintf(out, "\"max_closing_speed\":%.17g,\"max_loaded_gap\":%.17g,", r->max_closing_speed,
            r->max_loaded_gap);
    fprintf(out, "\"max_impact_energy_gain\":");
    json_number(out, r->counts.impact_steps > 0 ? r->max_impact_energy_gain : NAN);
    fprintf(out, ",\"impact_energy_tolerance\":%.17g,\"max_smooth_energy_change\":%.17g,",
            impact_energy_tolerance(r), r->max_smooth_energy_change);
    fprintf(out, "\"hold\":%s}", code == 0 ? "true" : "false");
}

static void print_json(const settings *s, const record *r, double cpu, int code) {
    FILE *out = stdout;
    json_head(out, s);
    fprintf(out, ",\"samples\":[");
    for (int32_t i = 0; i < r->n_samples; ++i) {
        if (i > 0) {
            fputc(',', out);
        }
        json_sample(out, &r->samples[i]);
    }
    fprintf(out, "],");
    slider_crank_json_final(out, r->t, r->q, r->v, SLIDER_CRANK_DOF, r->energy);
    slider_crank_json_counts(out, &r->counts);
    fprintf(out, "\"cpu_seconds\":%.9g,\"cpu_seconds_per_step\":%.9g,\"initial_energy\":%.17g", cpu,
            r->counts.steps > 0 ? cpu / (double)r->counts.steps : 0.0, r->samples[0].energy);
    json_invariants(out, r, code);
    fprintf(out, "}\n");
}

static void write_csv(const char *path, const record *r) {
    FILE *csv = fopen(path, "w");
    if (csv == NULL) {
        fprintf(stderr, "slider_crank: cannot write %s\n", path);
        return;
    }
    fprintf(csv, "t,theta1,theta2,theta3,omega1,omega2,omega3,energy,gap1,gap2,gap3,gap4,"
                 "force1,force2,force3,force4\n");
    for (int32_t i = 0; i < r->n_samples; ++i) {
        const sample *s = &r->samples[i];
        fprintf(csv, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", s->t, s->q[0], s->q[1],
                s->q[2], s->v[0], s->v[1], s->v[2], s->energy);
        for (int k = 0; k < SLIDER_CRANK_CORNERS; ++k) {
            fprintf(csv, ",%.17g", s->gap[k]);
        }
        for (int k = 0; k < SLIDER_CRANK_CORNERS; ++k) {
            fprintf(csv, ",%.17g", s->normal_force[k]);
        }
        fputc('\n', csv);
    }
    fclose(csv);
}

/* ------------------------------------------------------------------ run */

/* The failure of create or advance: a combination of options the library
 * refuses (e.g. the acceleration level with a Moreau scheme) exits with 4. */
static int report_failure(const settings *s, nscd_status rc, const char *detail) {
    bool refused = rc == NSCD_ERR_UNSUPPORTED;
    const char *what = refused ? "options not supported by the library" : "integration failed";
    fprintf(stderr, "slider_crank: %s: %s: %s (%s)\n", s->run.scheme_name, what,
            nscd_status_string(rc), detail);
    if (s->run.json) {
        printf(
            "{\"case\":\"%s\",\"scheme\":\"%s\",\"dt\":%.17g,\"error\":\"%s\",\"status\":\"%s\"}\n",
            s->model->name, s->run.scheme_name, s->run.options.dt, what, nscd_status_string(rc));
    }
    return refused ? EXIT_UNSUPPORTED : EXIT_FAILED;
}

/* The initial sample and state of the record. */
static void record_start(record *r, nscd_system *sys) {
    double impulse[SLIDER_CRANK_CORNERS] = {0.0};
    nscd_system_get_state(sys, &r->t, r->q, r->v);
    r->energy = slider_crank_energy(r->model, r->q, r->v);
    r->energy_scale = fmax(fabs(r->energy), 1e-3); /* from rest: m g l1 is 1e-1 J */
    take_sample(r, r->t, r->q, r->v, r->energy, impulse, 1.0);
}

static int simulate(const settings *s, record *r) {
    nscd_status rc = slider_crank_system_create(s->model, &r->sys);
    if (rc != NSCD_OK) {
        return report_failure(s, rc, "system");
    }
    nscd_time_stepping_options o = s->run.options;
    o.on_step = on_step;
    o.on_step_user = r;
    rc = nscd_time_stepping_create(r->sys, &o, &r->ts);
    if (rc != NSCD_OK) {
        return report_failure(s, rc, "create");
    }
    record_start(r, r->sys);
    clock_t start = clock();
    rc = nscd_time_stepping_advance(r->ts, s->run.t_end, NULL);
    double cpu = (double)(clock() - start) / CLOCKS_PER_SEC;
    if (rc != NSCD_OK) {
        return report_failure(s, rc, nscd_time_stepping_last_error(r->ts));
    }
    int code = check_invariants(r);
    if (s->run.json) {
        print_json(s, r, cpu, code);
    } else {
        printf("%s, %s, dt = %g: t = %g, q = (%.9f, %.9f, %.3g), %lld steps with contact, "
               "max penetration %.3g m (bound %.3g m), cpu %.3f s\n",
               s->model->name, s->run.scheme_name, s->run.options.dt, s->run.t_end, r->q[0],
               r->q[1], r->q[2], (long long)r->counts.steps_with_contact, r->counts.max_penetration,
               r->max_penetration_bound, cpu);
    }
    if (s->run.csv_path != NULL) {
        write_csv(s->run.csv_path, r);
    }
    return code;
}

static const char usage_text[] =
    "usage: slider_crank [--json] [--csv FILE] [--case "
    "table1|table2|bilateral] [--scheme S] [--solver S] [--dt DT] [--t-end "
    "T] [--sample DT] [--rho-inf R] [--theta T] [--tolerance TOL] "
    "[--max-iterations N] [--level velocity|acceleration] [--start "
    "consistent|paper]";

int main(int argc, char **argv) {
    cli_check(argc, argv, usage_text);
    settings s;
    int code = parse_settings(argc, argv, &s);
    if (code != 0) {
        return code;
    }
    record r;
    memset(&r, 0, sizeof r);
    r.model = s.model;
    r.sample_every = s.run.sample;
    r.max_samples = (int32_t)(s.run.t_end / s.run.sample) + 2;
    r.max_impact_energy_gain = -INFINITY;
    r.samples = calloc((size_t)r.max_samples, sizeof *r.samples);
    if (r.samples == NULL) {
        fprintf(stderr, "slider_crank: out of memory\n");
        return EXIT_FAILED;
    }
    code = simulate(&s, &r);
    nscd_time_stepping_destroy(r.ts);
    nscd_system_destroy(r.sys);
    free(r.samples);
    return code;
}
