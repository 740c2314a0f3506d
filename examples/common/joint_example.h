/* The driver shared by the joint examples (revolute_pendulum,
 * cylindrical_slider, prismatic_slider): their single body's world, the
 * --scheme option, a variable-step
 * stepper that returns after every step, one step of it, the --csv file and
 * the "key":value fields of their JSON. */
#ifndef NSCD_EXAMPLES_JOINT_EXAMPLE_H
#define NSCD_EXAMPLES_JOINT_EXAMPLE_H

#include <stdio.h>

#include "nscd/nscd.h"

/* A body description of `mass` and isotropic `inertia`, at rest at the origin. */
void joint_example_body_desc(double mass, double inertia, nscd_body_desc *body_desc);
/* A world with `gravity` (x, y, z) and the one body of `body_desc`; *world
 * is to be destroyed by the caller even on failure. */
nscd_status joint_example_world_with_body(const double gravity[3], const nscd_body_desc *body_desc,
                                          nscd_world **world, nscd_body_id *body);
/* The scheme named by --scheme ("midpoint", "moreau_jean", "semi_implicit"),
 * -1 for any other name. */
int joint_example_scheme(const char *name);
/* The scheme's name in the JSON parameters ("moreau_midpoint", ...). */
const char *joint_example_scheme_name(int scheme);
/* An on_step callback that stops every advance after one step, so that the
 * caller's loop sees each step. */
int32_t joint_example_stop_after_one_step(void *user, const nscd_time_stepping_report *report);
/* The variable steps of a run: the scheme, the step sizes in [dt_min,
 * dt_max] and the end time. */
typedef struct joint_example_steps {
    int scheme;
    double dt_min, dt_max, t_end;
} joint_example_steps;
/* Reads --dt (dt_min), --dt-max, --t-end and --scheme into `steps`, which
 * holds the defaults; returns 0, or 2 after telling stderr (as "program:
 * ...") that they are bad. */
int joint_example_parse_steps(int argc, char **argv, const char *program,
                              joint_example_steps *steps);
/* Reads --clearance-energy-form 0|1 (nscd_clearance_joint_desc::energy_form;
 * absent: 1, the library's default) into *form; returns 0, or 2 after
 * telling stderr (as "program: ...") that it is neither 0 nor 1. */
int joint_example_parse_energy_form(int argc, char **argv, const char *program, int32_t *form);
/* A stepper on `world` with the variable steps of `steps` that returns after
 * every step. */
nscd_status joint_example_variable_stepper(nscd_world *world, const joint_example_steps *steps,
                                           nscd_time_stepping **ts);
/* Prints the JSON fields "dt_min", "dt_max" and "t_end" of `steps`. */
void joint_example_json_steps(const joint_example_steps *steps);
/* Advances `ts` towards `t_end` (one step with the stepper above); `stats`
 * receives the advance's statistics, stats->t the time reached. */
nscd_status joint_example_advance(nscd_time_stepping *ts, double t_end,
                                  nscd_time_stepping_stats *stats);
/* Opens the --csv file `path` (NULL: no file, *csv = NULL) and writes its
 * `header` line; returns 0, or 2 after telling stderr (as "program: ...")
 * that it cannot be written. */
int joint_example_open_csv(const char *program, const char *path, const char *header, FILE **csv);

#endif
