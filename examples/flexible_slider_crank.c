/* The slider-crank with a flexible connecting rod and a translational
 * clearance joint of seed 003 (Sect. 3, 4.1-4.5, App. C and D), integrated
 * by the time stepper: the rod is the floating-frame beam of
 * include/nscd/beam.h (examples/common/flexible_slider_crank_model.h), the
 * crank, slider, guide and cases are those of examples/slider_crank.c.
 *
 * Usage: flexible_slider_crank [--case table1|table2|bilateral] [--scheme S] [--dt 1e-5]
 *                              [--t-end 0.05] [--sample 1e-3] [--rho-inf 1]
 *                              [--theta 0.5] [--youngs-modulus 2e11]
 *                              [--elements 20] [--modes 0] [--cutoff 0]
 *                              [--rotary-inertia 1] [--reference tangent|pinned]
 *                              [--impulse-on all|reference]
 *                              [--solver auto|lcp|fc3d|prox] [--json] [--csv FILE]
 * S: moreau_jean, moreau_midpoint, hets, generalized_alpha, bathe (default),
 * ed_alpha. --modes K keeps the K lowest modes of the tangentially clamped
 * rod (App. D), --cutoff F those below F Hz; 0 and 0: the nodal model.
 * --rotary-inertia 0: the paper's slender element (ρ A only; its rod then has
 * the moment of inertia m2 l2²/12 instead of J2). --reference pinned: the
 * rod frame's x axis through the tip (eq. 185) instead of tangential at the
 * crank pin (eq. 184). --case bilateral: c = 0, the guide as four corner
 * equalities (a redundant set) as in slider_crank. --impulse-on reference:
 * the impulsive corrections of the α schemes act on (θ1, θ2, θ3) only, the
 * elastic velocities keep their values through an impact (the rigid
 * model's impact for a stiff rod); all (default): on every velocity.
 * JSON: the slider_crank contract (case, scheme, dt, t_end, rho_inf,
 * parameters, samples, final, steps, cpu_seconds_per_step, ...) where
 * final.q and final.v are (θ1, θ2, θ3, q_e) and the samples carry the
 * first three plus the slider's centre, the tip's deflection and axial
 * stretch in the rod frame and the root's
 * bending moment. Exit 1 when the integration fails (an explicit scheme
 * beyond its stability limit ends with a non-finite state), 2 on bad
 * arguments, 4 for options the library refuses. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "example_cli.h"
#include "flexible_slider_crank_model.h"
#include "slider_crank_run.h"
#include <nscd/nscd.h>

#define EXIT_FAILED 1
#define EXIT_USAGE 2
#define EXIT_UNSUPPORTED 4
#define MAX_FREQUENCIES 8

typedef struct settings {
    const slider_crank_case *model;
    slider_crank_run run;
    double youngs_modulus, cutoff;
    int32_t elements, modes, rotary_inertia, reference;
    bool json;
} settings;

typedef struct sample {
    double t, q[SLIDER_CRANK_DOF], v[SLIDER_CRANK_DOF], energy;
    double slider[2], deflection, stretch, root_moment;
    double normal_force[SLIDER_CRANK_CORNERS], gap[SLIDER_CRANK_CORNERS];
} sample;

typedef struct record {
    flex_crank *fc;
    const settings *s;
    nscd_system *sys;
    nscd_time_stepping *ts;
    sample *samples;
    int32_t n_samples, max_samples;
    double t, *q, *v, *row, energy, max_deflection;
    slider_crank_counts counts;
} record;

static int usage(const char *what, const char *value) {
    return slider_crank_usage("flexible_slider_crank", what, value);
}

static int parse_model(int argc, char **argv, settings *s) {
    s->youngs_modulus = cli_double(argc, argv, "--youngs-modulus", 2e11);
    double elements = cli_double(argc, argv, "--elements", 20.0);
    double modes = cli_double(argc, argv, "--modes", 0.0);
    s->cutoff = cli_double(argc, argv, "--cutoff", 0.0);
    double rotary = cli_double(argc, argv, "--rotary-inertia", 1.0);
    if (rotary != 0.0 && rotary != 1.0) {
        return usage("--rotary-inertia (0 or 1)", cli_string(argc, argv, "--rotary-inertia", ""));
    }
    s->rotary_inertia = (int32_t)rotary;
    const char *reference = cli_string(argc, argv, "--reference", "tangent");
    if (strcmp(reference, "tangent") != 0 && strcmp(reference, "pinned") != 0) {
        return usage("--reference (tangent|pinned)", reference);
    }
    s->reference = reference[0] == 't' ? NSCD_BEAM_REFERENCE_TANGENT : NSCD_BEAM_REFERENCE_PINNED;
    if (!(elements >= 1.0 && elements <= NSCD_BEAM_MAX_ELEMENTS)) {
        return usage("--elements (1 to 200)", cli_string(argc, argv, "--elements", ""));
    }
    if (!(modes >= 0.0 && modes <= 3.0 * NSCD_BEAM_MAX_ELEMENTS)) {
        return usage("--modes (>= 0)", cli_string(argc, argv, "--modes", ""));
    }
    s->elements = (int32_t)elements;
    s->modes = (int32_t)modes;
    return 0;
}

static int parse_settings(int argc, char **argv, settings *s) {
    const char *case_name = cli_string(argc, argv, "--case", "table1");
    s->model = slider_crank_case_find(case_name);
    if (s->model == NULL) {
        return usage("--case (table1|table2|bilateral)", case_name);
    }
    int code = slider_crank_run_parse(argc, argv, "flexible_slider_crank", "bathe", &s->run);
    const char *impulse_on = cli_string(argc, argv, "--impulse-on", "all");
    if (code == 0 && strcmp(impulse_on, "all") != 0 && strcmp(impulse_on, "reference") != 0) {
        return usage("--impulse-on (all|reference)", impulse_on);
    }
    /* reference: the impacts move (θ1, θ2, θ3) only, not the elastic
     * velocities (impulse_velocities, docs/flexible_bodies.md) */
    s->run.options.impulse_velocities = impulse_on[0] == 'r' ? SLIDER_CRANK_DOF : 0;
    return code != 0 ? code : parse_model(argc, argv, s);
}

static void take_sample(record *r, double t, const double *q, const double *v,
                        const double *impulse, double dt) {
    sample *s = &r->samples[r->n_samples++];
    s->t = t;
    s->energy = r->energy;
    memcpy(s->q, q, sizeof s->q);
    memcpy(s->v, v, sizeof s->v);
    flex_crank_slider(r->fc, q, &s->slider[0], &s->slider[1], &s->deflection, &s->stretch);
    s->root_moment = flex_crank_root_moment(r->fc, q, r->s->youngs_modulus);
    for (int32_t k = 0; k < SLIDER_CRANK_CORNERS; ++k) {
        s->normal_force[k] = impulse[k] / dt;
        flex_crank_contact(r->fc, k, t, q, &s->gap[k], r->row, NULL);
    }
}

static int32_t on_step(void *user, const nscd_time_stepping_report *report) {
    record *r = user;
    double t, impulse[SLIDER_CRANK_CORNERS];
    nscd_system_get_state(r->sys, &t, r->q, r->v);
    slider_crank_corner_loads(r->ts, report->dt, impulse);
    r->energy = flex_crank_energy(r->fc, r->q, r->v);
    slider_crank_count_step(&r->counts, report, r->q);
    double x, y, deflection, stretch;
    flex_crank_slider(r->fc, r->q, &x, &y, &deflection, &stretch);
    r->max_deflection = fmax(r->max_deflection, fabs(deflection));
    r->t = t;
    if (t >= r->s->run.sample * (double)r->n_samples - 1e-6 * report->dt &&
        r->n_samples < r->max_samples) {
        take_sample(r, t, r->q, r->v, impulse, report->dt);
    }
    return 0;
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
    fprintf(out, ",\"slider\":");
    json_array(out, s->slider, 2);
    fprintf(out, ",\"deflection\":");
    json_number(out, s->deflection);
    fprintf(out, ",\"stretch\":");
    json_number(out, s->stretch);
    fprintf(out, ",\"root_moment\":");
    json_number(out, s->root_moment);
    fprintf(out, ",\"gap\":");
    json_array(out, s->gap, SLIDER_CRANK_CORNERS);
    fprintf(out, ",\"normal_force\":");
    json_array(out, s->normal_force, SLIDER_CRANK_CORNERS);
    fputc('}', out);
}

static void json_rod(FILE *out, const settings *s, const flex_crank *fc) {
    int32_t n_elastic = 0, count;
    nscd_beam_get_sizes(fc->beam, NULL, &n_elastic);
    double omega[MAX_FREQUENCIES];
    count = n_elastic < MAX_FREQUENCIES ? n_elastic : MAX_FREQUENCIES;
    if (count < 1 || nscd_beam_frequencies(fc->beam, count, omega) != NSCD_OK) {
        count = 0;
    }
    for (int32_t k = 0; k < count; ++k) {
        omega[k] /= 2.0 * 3.14159265358979323846; /* Hz */
    }
    fprintf(out, "\"youngs_modulus\":%.17g,\"density\":%.17g,\"elements\":%d,\"modes\":%d,",
            s->youngs_modulus, FLEX_DENSITY, s->elements, s->modes);
    fprintf(out, "\"cutoff\":%.17g,\"rotary_inertia\":%d,\"elastic_coordinates\":%d,", s->cutoff,
            s->rotary_inertia, n_elastic);
    fprintf(out, "\"reference\":\"%s\",\"height\":%.17g,",
            s->reference == NSCD_BEAM_REFERENCE_TANGENT ? "tangent" : "pinned", fc->height);
    if (s->run.options.impulse_velocities > 0) { /* only then: the default output stays as it was */
        fprintf(out, "\"impulse_on\":\"reference\",");
    }
    fprintf(out, "\"thickness\":%.17g,\"area\":%.17g,\"second_moment\":%.17g,", fc->thickness,
            fc->area, fc->second_moment);
    fprintf(out, "\"lowest_frequencies_hz\":");
    json_array(out, omega, count);
}

static void json_head(FILE *out, const settings *s, const flex_crank *fc) {
    slider_crank_json_head(out, s->model, &s->run);
    fprintf(out, ",\"theta\":%.17g,", s->run.options.theta);
    json_rod(out, s, fc);
    fputc('}', out);
}

static void print_json(const settings *s, const record *r, double cpu) {
    FILE *out = stdout;
    int n = r->fc->n_dof;
    json_head(out, s, r->fc);
    fprintf(out, ",\"samples\":[");
    for (int32_t i = 0; i < r->n_samples; ++i) {
        if (i > 0) {
            fputc(',', out);
        }
        json_sample(out, &r->samples[i]);
    }
    fprintf(out, "],");
    slider_crank_json_final(out, r->t, r->q, r->v, n, r->energy);
    slider_crank_json_counts(out, &r->counts);
    fprintf(out, "\"max_deflection\":%.17g,\"cpu_seconds\":%.9g,\"cpu_seconds_per_step\":%.9g,",
            r->max_deflection, cpu, r->counts.steps > 0 ? cpu / (double)r->counts.steps : 0.0);
    fprintf(out, "\"initial_energy\":%.17g}\n", r->samples[0].energy);
}

static void write_csv(const char *path, const record *r) {
    FILE *csv = fopen(path, "w");
    if (csv == NULL) {
        fprintf(stderr, "flexible_slider_crank: cannot write %s\n", path);
        return;
    }
    fprintf(csv, "t,theta1,theta2,theta3,omega1,omega2,omega3,energy,slider_x,slider_y,"
                 "deflection,root_moment,force1,force2,force3,force4\n");
    for (int32_t i = 0; i < r->n_samples; ++i) {
        const sample *s = &r->samples[i];
        fprintf(csv, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g",
                s->t, s->q[0], s->q[1], s->q[2], s->v[0], s->v[1], s->v[2], s->energy, s->slider[0],
                s->slider[1], s->deflection, s->root_moment);
        for (int k = 0; k < SLIDER_CRANK_CORNERS; ++k) {
            fprintf(csv, ",%.17g", s->normal_force[k]);
        }
        fputc('\n', csv);
    }
    fclose(csv);
}

/* ------------------------------------------------------------------ run */

static int report_failure(const settings *s, nscd_status rc, const char *detail, double t) {
    bool refused = rc == NSCD_ERR_UNSUPPORTED;
    const char *what = refused ? "options not supported by the library" : "integration failed";
    fprintf(stderr, "flexible_slider_crank: %s: %s at t = %g: %s (%s)\n", s->run.scheme_name, what,
            t, nscd_status_string(rc), detail);
    if (s->run.json) {
        printf("{\"case\":\"%s\",\"scheme\":\"%s\",\"dt\":%.17g,\"error\":\"%s\",\"status\":\"%s\","
               "\"failed_at\":%.17g}\n",
               s->model->name, s->run.scheme_name, s->run.options.dt, what, nscd_status_string(rc),
               t);
    }
    return refused ? EXIT_UNSUPPORTED : EXIT_FAILED;
}

static int simulate(const settings *s, record *r) {
    nscd_status rc = flex_crank_system_create(r->fc, &r->sys);
    if (rc != NSCD_OK) {
        return report_failure(s, rc, "system", 0.0);
    }
    nscd_time_stepping_options o = s->run.options;
    o.on_step = on_step;
    o.on_step_user = r;
    rc = nscd_time_stepping_create(r->sys, &o, &r->ts);
    if (rc != NSCD_OK) {
        return report_failure(s, rc, "create", 0.0);
    }
    double zero[SLIDER_CRANK_CORNERS] = {0.0};
    nscd_system_get_state(r->sys, &r->t, r->q, r->v);
    r->energy = flex_crank_energy(r->fc, r->q, r->v);
    take_sample(r, r->t, r->q, r->v, zero, 1.0);
    clock_t start = clock();
    rc = nscd_time_stepping_advance(r->ts, s->run.t_end, NULL);
    double cpu = (double)(clock() - start) / CLOCKS_PER_SEC;
    if (rc != NSCD_OK) {
        return report_failure(s, rc, nscd_time_stepping_last_error(r->ts), r->t);
    }
    if (s->run.json) {
        print_json(s, r, cpu);
    } else {
        printf("%s, %s, E = %g, %d elements, %d coordinates, dt = %g: t = %g, q = (%.9f, %.9f, "
               "%.3g), max tip deflection %.3g m, %lld steps with contact, cpu %.3f s\n",
               s->model->name, s->run.scheme_name, s->youngs_modulus, s->elements, r->fc->n_dof,
               s->run.options.dt, s->run.t_end, r->q[0], r->q[1], r->q[2], r->max_deflection,
               (long long)r->counts.steps_with_contact, cpu);
    }
    if (s->run.csv_path != NULL) {
        write_csv(s->run.csv_path, r);
    }
    return 0;
}

static const char usage_text[] =
    "usage: flexible_slider_crank [--json] [--csv FILE] [--case table1|table2|bilateral] [--scheme "
    "S] "
    "[--solver S] [--dt DT] [--t-end T] [--sample DT] [--rho-inf R] [--theta T] "
    "[--youngs-modulus E] [--elements N] [--modes K] [--cutoff HZ] [--rotary-inertia 0|1] "
    "[--reference tangent|pinned] [--impulse-on all|reference]";

int main(int argc, char **argv) {
    cli_check(argc, argv, usage_text);
    settings s;
    int code = parse_settings(argc, argv, &s);
    if (code != 0) {
        return code;
    }
    flex_crank fc;
    nscd_status rc = flex_crank_init(&fc, s.model, s.youngs_modulus, s.elements, s.modes, s.cutoff,
                                     s.rotary_inertia, s.reference);
    if (rc != NSCD_OK) {
        fprintf(stderr, "flexible_slider_crank: the rod: %s\n", nscd_status_string(rc));
        flex_crank_free(&fc);
        return rc == NSCD_ERR_OUT_OF_MEMORY ? EXIT_FAILED : EXIT_USAGE;
    }
    record r;
    memset(&r, 0, sizeof r);
    r.fc = &fc;
    r.s = &s;
    r.max_samples = (int32_t)(s.run.t_end / s.run.sample) + 2;
    r.samples = calloc((size_t)r.max_samples, sizeof *r.samples);
    r.q = calloc(3 * (size_t)fc.n_dof, sizeof(double));
    if (r.samples == NULL || r.q == NULL) {
        fprintf(stderr, "flexible_slider_crank: out of memory\n");
        code = EXIT_FAILED;
    } else {
        r.v = r.q + fc.n_dof;
        r.row = r.v + fc.n_dof;
        code = simulate(&s, &r);
    }
    nscd_time_stepping_destroy(r.ts);
    nscd_system_destroy(r.sys);
    flex_crank_free(&fc);
    free(r.q);
    free(r.samples);
    return code;
}
