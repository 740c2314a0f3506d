#include "joint_example.h"

#include <string.h>

#include "example_cli.h"

void joint_example_body_desc(double mass, double inertia, nscd_body_desc *body_desc) {
    nscd_body_desc_init(body_desc, sizeof *body_desc);
    body_desc->mass = mass;
    body_desc->inertia[0] = body_desc->inertia[1] = body_desc->inertia[2] = inertia;
}

nscd_status joint_example_world_with_body(const double gravity[3], const nscd_body_desc *body_desc,
                                          nscd_world **world, nscd_body_id *body) {
    nscd_world_desc wd;
    nscd_world_desc_init(&wd, sizeof wd);
    memcpy(wd.gravity, gravity, sizeof wd.gravity);
    nscd_status rc = nscd_world_create(&wd, world);
    return rc == NSCD_OK ? nscd_world_add_body(*world, body_desc, NULL, 0, body) : rc;
}

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

int joint_example_parse_steps(int argc, char **argv, const char *program,
                              joint_example_steps *steps) {
    steps->dt_min = cli_double(argc, argv, "--dt", steps->dt_min);
    steps->dt_max = cli_double(argc, argv, "--dt-max", steps->dt_max);
    steps->t_end = cli_double(argc, argv, "--t-end", steps->t_end);
    const char *scheme = cli_string(argc, argv, "--scheme", NULL);
    if (scheme != NULL) {
        steps->scheme = joint_example_scheme(scheme);
    }
    if (!(steps->dt_min > 0.0) || !(steps->dt_max >= steps->dt_min) || !(steps->t_end > 0.0) ||
        steps->t_end / steps->dt_min > 1e8 || steps->scheme < 0) {
        fprintf(stderr, "%s: bad --dt, --dt-max, --t-end or --scheme\n", program);
        return 2;
    }
    return 0;
}

int joint_example_parse_energy_form(int argc, char **argv, const char *program, int32_t *form) {
    double value = cli_double(argc, argv, "--clearance-energy-form", 1.0);
    if (value != 0.0 && value != 1.0) {
        fprintf(stderr, "%s: --clearance-energy-form takes 0 or 1\n", program);
        return 2;
    }
    *form = (int32_t)value;
    return 0;
}

nscd_status joint_example_variable_stepper(nscd_world *world, const joint_example_steps *steps,
                                           nscd_time_stepping **ts) {
    nscd_time_stepping_options o;
    nscd_time_stepping_options_init(&o, sizeof o);
    o.scheme = steps->scheme;
    o.dt_min = steps->dt_min, o.dt_max = steps->dt_max;
    o.on_step = joint_example_stop_after_one_step;
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

void joint_example_json_steps(const joint_example_steps *steps) {
    json_field(stdout, "dt_min", steps->dt_min);
    json_field(stdout, "dt_max", steps->dt_max);
    json_field(stdout, "t_end", steps->t_end);
}
