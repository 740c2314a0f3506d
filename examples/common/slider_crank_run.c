#include "slider_crank_run.h"

#include <math.h>
#include <stdio.h>

#include "example_cli.h"
#include "slider_crank_model.h"

#define MAX_SAMPLES 1000000

int slider_crank_usage(const char *program, const char *what, const char *value) {
    fprintf(stderr, "%s: bad %s: %s\n", program, what, value ? value : "(none)");
    return 2;
}

int slider_crank_run_parse(int argc, char **argv, const char *program, const char *default_scheme,
                           slider_crank_run *run) {
    nscd_time_stepping_options *o = &run->options;
    nscd_time_stepping_options_init(o, sizeof *o);
    run->scheme_name = cli_string(argc, argv, "--scheme", default_scheme);
    if (slider_crank_scheme_from_name(run->scheme_name, &o->scheme) != 0) {
        return slider_crank_usage(program, "--scheme", run->scheme_name);
    }
    run->solver_name = cli_string(argc, argv, "--solver", "auto");
    if (slider_crank_solver_from_name(run->solver_name, &o->local_solver) != 0) {
        return slider_crank_usage(program, "--solver", run->solver_name);
    }
    o->dt = cli_double(argc, argv, "--dt", 1e-5);
    o->rho_infinity = cli_double(argc, argv, "--rho-inf", o->rho_infinity);
    o->theta = cli_double(argc, argv, "--theta", o->theta);
    run->t_end = cli_double(argc, argv, "--t-end", 0.05);
    run->sample = cli_double(argc, argv, "--sample", 1e-3);
    run->csv_path = cli_string(argc, argv, "--csv", NULL);
    run->json = cli_has_flag(argc, argv, "--json");
    if (!(run->t_end > 0.0 && run->t_end <= 1e3)) {
        return slider_crank_usage(program, "--t-end (0 < T <= 1000 s)",
                                  cli_string(argc, argv, "--t-end", ""));
    }
    if (!(run->sample > 0.0 && run->t_end / run->sample < MAX_SAMPLES)) {
        return slider_crank_usage(program, "--sample (> 0, fewer than 1e6 samples)",
                                  cli_string(argc, argv, "--sample", ""));
    }
    return 0;
}

void slider_crank_corner_loads(nscd_time_stepping *ts, double dt, double *impulse) {
    for (int32_t k = 0; k < SLIDER_CRANK_CORNERS; ++k) {
        double force = 0.0;
        nscd_time_stepping_get_contact_impulse(ts, k, &impulse[k], NULL);
        nscd_time_stepping_get_contact_force(ts, k, &force, NULL);
        impulse[k] = fmax(impulse[k], dt * force);
    }
}

void slider_crank_json_head(FILE *out, const slider_crank_case *model,
                            const slider_crank_run *run) {
    bool alpha = run->options.scheme >= NSCD_TS_GENERALIZED_ALPHA;
    fprintf(out, "{\"case\":\"%s\",\"scheme\":\"%s\",\"dt\":%.17g,\"t_end\":%.17g,\"rho_inf\":",
            model->name, run->scheme_name, run->options.dt, run->t_end);
    json_number(out, alpha ? run->options.rho_infinity : NAN);
    fprintf(out, ",\"parameters\":{\"clearance\":%.17g,\"notch_height\":%.17g,\"torque\":%.17g,",
            model->clearance, 2.0 * (SLIDER_CRANK_B + model->clearance), model->torque);
    fprintf(out, "\"restitution\":%.17g,\"tangential_restitution\":0,\"friction\":%.17g,",
            model->restitution, model->friction);
    fprintf(out, "\"v0\":");
    json_array(out, model->v0, SLIDER_CRANK_DOF);
}

void slider_crank_count_step(slider_crank_counts *counts, const nscd_time_stepping_report *report,
                             const double *q) {
    counts->steps++;
    counts->solver_iterations += report->iterations;
    counts->steps_with_contact += report->active_contacts > 0;
    counts->impact_steps += report->impact != 0;
    counts->max_penetration = fmax(counts->max_penetration, report->max_penetration);
    counts->max_slider_rotation = fmax(counts->max_slider_rotation, fabs(q[2]));
}

void slider_crank_json_counts(FILE *out, const slider_crank_counts *counts) {
    fprintf(out, "\"max_penetration\":%.17g,", counts->max_penetration);
    fprintf(out, "\"steps\":%lld,\"steps_with_contact\":%lld,\"impact_steps\":%lld,",
            (long long)counts->steps, (long long)counts->steps_with_contact,
            (long long)counts->impact_steps);
    fprintf(out, "\"solver_iterations\":%lld,\"max_slider_rotation\":%.17g,",
            (long long)counts->solver_iterations, counts->max_slider_rotation);
}

void slider_crank_json_final(FILE *out, double t, const double *q, const double *v, int n,
                             double energy) {
    fprintf(out, "\"final\":{\"t\":%.17g,\"q\":", t);
    json_array(out, q, n);
    fprintf(out, ",\"v\":");
    json_array(out, v, n);
    fprintf(out, ",\"energy\":%.17g},", energy);
}
