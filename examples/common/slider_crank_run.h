/* What the rigid and the flexible slider-crank examples (slider_crank,
 * flexible_slider_crank) share around their models: the settings of a run
 * from the command line, the corners' loads and the counts of the steps, the
 * head and the counts of the JSON output. */
#ifndef SLIDER_CRANK_RUN_H
#define SLIDER_CRANK_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "slider_crank_model.h"
#include <nscd/nscd.h>

/* The settings of a run. */
typedef struct slider_crank_run {
    const char *scheme_name, *solver_name, *csv_path;
    nscd_time_stepping_options options;
    double t_end, sample; /* s; sample: the sampling interval */
    bool json;
} slider_crank_run;

/* What both examples count over the steps of a run. */
typedef struct slider_crank_counts {
    int64_t steps, steps_with_contact, impact_steps, solver_iterations;
    double max_penetration, max_slider_rotation; /* m, rad (|θ3|) */
} slider_crank_counts;

/* Prints "program: bad what: value" to stderr; returns 2 (the usage exit). */
int slider_crank_usage(const char *program, const char *what, const char *value);
/* Reads --scheme (default `default_scheme`), --solver, --dt, --rho-inf,
 * --theta, --t-end, --sample, --csv and --json into `run`; returns 0, or 2
 * after slider_crank_usage. */
int slider_crank_run_parse(int argc, char **argv, const char *program, const char *default_scheme,
                           slider_crank_run *run);
/* The load of each corner over the step of size dt that `ts` just took: the
 * Moreau schemes' and HETS's impulse P (their force is P / dt), the α
 * schemes' force λ times dt or their impact impulse Λ, whichever is larger. */
void slider_crank_corner_loads(nscd_time_stepping *ts, double dt, double *impulse);

/* The head of the JSON output: {"case", "scheme", "dt", "t_end", "rho_inf"
 * (null but for the α schemes), "parameters":{ the case's clearance, notch
 * height, torque, restitutions, friction and "v0", the parameters object
 * left open for the example's own. */
void slider_crank_json_head(FILE *out, const slider_crank_case *model, const slider_crank_run *run);
/* Prints "final":{"t":t,"q":[q],"v":[v],"energy":energy}, (n coordinates,
 * with the trailing comma). */
void slider_crank_json_final(FILE *out, double t, const double *q, const double *v, int n,
                             double energy);
/* Counts the step of `report` that ended at the coordinates q. */
void slider_crank_count_step(slider_crank_counts *counts, const nscd_time_stepping_report *report,
                             const double *q);
/* Prints the counts as "max_penetration":..,"steps":..,"steps_with_contact":..,
 * "impact_steps":..,"solver_iterations":..,"max_slider_rotation":.., (with
 * the trailing comma). */
void slider_crank_json_counts(FILE *out, const slider_crank_counts *counts);

#endif
