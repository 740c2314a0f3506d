#include "joint_example.h"

#include <string.h>

#include "example_cli.h"

int joint_example_scheme(const char *name) {
    return strcmp(name, "semi_implicit") == 0 ? NSCD_TS_SEMI_IMPLICIT
           : strcmp(name, "midpoint") == 0    ? NSCD_TS_MOREAU_MIDPOINT
           : strcmp(name, "moreau_jean") == 0 ? NSCD_TS_MOREAU_JEAN
                                              : -1;
}

const char *joint_example_scheme_name(int scheme) {
    return scheme == NSCD_TS_SEMI_IMPLICIT     ? "semi_implicit"
           : scheme == NSCD_TS_MOREAU_MIDPOINT ? "moreau_midpoint"
                                               : "moreau_jean";
}

int32_t joint_example_stop_after_one_step(void *user, const nscd_time_stepping_report *report) {
    (void)user, (void)report;
    return 1;
}

nscd_status joint_example_variable_stepper(nscd_world *world, int scheme, double dt_min,
                                           double dt_max, nscd_time_stepping **ts) {
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = scheme;
    o.dt_min = dt_min, o.dt_max = dt_max, o.on_step = joint_example_stop_after_one_step;
    return nscd_time_stepping_create_world(world, &o, ts);
}

nscd_status joint_example_advance(nscd_time_stepping *ts, double t_end,
                                  nscd_time_stepping_stats *stats) {
    memset(stats, 0, sizeof *stats);
    stats->struct_size = sizeof *stats;
    return nscd_time_stepping_advance(ts, t_end, stats);
}

int joint_example_open_csv(const char *program, const char *path, const char *header, FILE **csv) {
    *csv = path != NULL ? fopen(path, "w") : NULL;
    if (path != NULL && *csv == NULL) {
        fprintf(stderr, "%s: cannot write %s\n", program, path);
        return 2;
    }
    if (*csv != NULL) {
        fprintf(*csv, "%s\n", header);
    }
    return 0;
}

void joint_example_json_field(const char *key, double x) {
    printf(",\"%s\":", key);
    json_number(stdout, x);
}
