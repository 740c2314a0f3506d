/* The driver shared by the joint examples (revolute_pendulum,
 * cylindrical_slider, prismatic_slider): the --scheme option, a variable-step
 * stepper that returns after every step, one step of it, the --csv file and
 * the "key":value fields of their JSON. */
#ifndef NSCD_EXAMPLES_JOINT_EXAMPLE_H
#define NSCD_EXAMPLES_JOINT_EXAMPLE_H

#include <stdio.h>

#include "nscd/nscd.h"

/* The scheme named by --scheme ("midpoint", "moreau_jean", "semi_implicit"),
 * -1 for any other name. */
int joint_example_scheme(const char *name);
/* The scheme's name in the JSON parameters ("moreau_midpoint", ...). */
const char *joint_example_scheme_name(int scheme);
/* An on_step callback that stops every advance after one step, so that the
 * caller's loop sees each step. */
int32_t joint_example_stop_after_one_step(void *user, const nscd_time_stepping_report *report);
/* A stepper of `scheme` on `world` with variable steps in [dt_min, dt_max]
 * that returns after every step. */
nscd_status joint_example_variable_stepper(nscd_world *world, int scheme, double dt_min,
                                           double dt_max, nscd_time_stepping **ts);
/* Advances `ts` towards `t_end` (one step with the stepper above); `stats`
 * receives the advance's statistics, stats->t the time reached. */
nscd_status joint_example_advance(nscd_time_stepping *ts, double t_end,
                                  nscd_time_stepping_stats *stats);
/* Opens the --csv file `path` (NULL: no file, *csv = NULL) and writes its
 * `header` line; returns 0, or 2 after telling stderr (as "program: ...")
 * that it cannot be written. */
int joint_example_open_csv(const char *program, const char *path, const char *header, FILE **csv);
/* Prints ,"key":x (x as json_number prints it). */
void joint_example_json_field(const char *key, double x);

#endif
