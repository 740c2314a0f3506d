/* A ball dropped from height h0 onto a rigid floor with Newton restitution e.
 *
 * Impact k (k = 1, 2, ...) happens at t_k = t1 + sum_{j=1}^{k-1} 2 e^j v1 / g
 * with t1 = sqrt(2 h0 / g) and v1 = g t1; the bounces accumulate at
 * t_inf = t1 + 2 v1 e / (g (1 - e)), where the ball comes to rest. The
 * event-driven stepper locates every impact and, when the bounces become
 * infinitely many (Zeno), closes the contact: the ball rests on the floor.
 *
 * Usage: bouncing_ball [--h0 1] [--e 0.8] [--g 9.81] [--t-end T] [--rk4]
 *                      [--json] [--csv FILE]                              */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "example_cli.h"
#include <nscd/nscd.h>

#define MAX_IMPACTS 100000

typedef struct ball {
    double mass, g;
} ball;

typedef struct record {
    int count;
    double t[MAX_IMPACTS], v_before[MAX_IMPACTS], v_after[MAX_IMPACTS];
    double rest_time;
} record;

static nscd_status mass(void *user, const double *q, double *m) {
    (void)q;
    m[0] = ((const ball *)user)->mass;
    return NSCD_OK;
}

static nscd_status forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)t, (void)q, (void)v;
    const ball *b = user;
    h[0] = -b->mass * b->g;
    return NSCD_OK;
}

static nscd_status floor_contact(void *user, int32_t index, double t, const double *q, double *gap,
                                 double *w_normal, double *w_tangent) {
    (void)user, (void)index, (void)t, (void)w_tangent;
    *gap = q[0];
    w_normal[0] = 1.0;
    return NSCD_OK;
}

static int32_t on_event(void *user, const nscd_event_info *info) {
    record *r = user;
    if (info->type == NSCD_EVENT_IMPACT && r->count < MAX_IMPACTS) {
        r->t[r->count] = info->t;
        r->v_before[r->count] = info->gap_velocity_before[0];
        r->v_after[r->count] = info->gap_velocity_after[0];
        r->count++;
    } else if (info->type == NSCD_EVENT_CONTACT_CLOSED && isnan(r->rest_time)) {
        r->rest_time = info->t;
    }
    return NSCD_EVENT_CONTINUE;
}

static int fail(const char *what, nscd_status rc, const char *detail) {
    fprintf(stderr, "bouncing_ball: %s: %s (%s)\n", what, nscd_status_string(rc), detail);
    return 1;
}

static void print_json(double h0, double e, double g, const record *r, double t_end,
                       double seconds) {
    double t1 = sqrt(2.0 * h0 / g), v1 = g * t1;
    double t_inf = t1 + 2.0 * v1 * e / (g * (1.0 - e));
    double t_exact = t1, speed = v1, max_error = 0.0;
    printf("{\"parameters\":{\"h0\":%.17g,\"e\":%.17g,\"g\":%.17g,\"t_end\":%.17g},\"impacts\":[",
           h0, e, g, t_end);
    for (int k = 0; k < r->count; ++k) {
        max_error = fmax(max_error, fabs(r->t[k] - t_exact));
        printf("%s{\"t\":%.17g,\"v_before\":%.17g,\"v_after\":%.17g,\"t_analytic\":%.17g}",
               k ? "," : "", r->t[k], r->v_before[k], r->v_after[k], t_exact);
        t_exact += 2.0 * e * speed / g;
        speed *= e;
    }
    printf("],\"rest_time\":");
    json_number(stdout, r->rest_time);
    printf(",\"rest_time_analytic\":");
    json_number(stdout, e < 1.0 ? t_inf : NAN);
    printf(",\"rest_time_error\":");
    json_number(stdout, e < 1.0 ? fabs(r->rest_time - t_inf) : NAN);
    printf(",\"max_impact_time_error\":%.17g,\"impact_count\":%d,\"seconds\":%.6g}\n", max_error,
           r->count, seconds);
}

int main(int argc, char **argv) {
    double h0 = cli_double(argc, argv, "--h0", 1.0);
    double e = cli_double(argc, argv, "--e", 0.8);
    double g = cli_double(argc, argv, "--g", 9.81);
    double t_end = cli_double(argc, argv, "--t-end", 10.0);
    const char *csv_path = cli_string(argc, argv, "--csv", NULL);
    ball b = {1.0, g};
    static record r;
    r.rest_time = NAN;

    nscd_contact_law *newton = NULL;
    nscd_status rc = nscd_contact_law_create_newton(e, NULL, &newton);
    if (rc != NSCD_OK) {
        return fail("restitution", rc, "e must lie in [0, 1]");
    }
    nscd_system_desc desc;
    nscd_system_desc_init(&desc, sizeof desc);
    desc.n_dof = 1;
    desc.n_contacts = 1;
    desc.user = &b;
    desc.mass = mass;
    desc.forces = forces;
    desc.contact = floor_contact;
    nscd_system *sys = NULL;
    rc = nscd_system_create(&desc, &sys);
    if (rc != NSCD_OK) {
        nscd_contact_law_destroy(newton);
        return fail("system", rc, "");
    }
    nscd_contact_desc contact;
    nscd_contact_desc_init(&contact, sizeof contact);
    contact.law = newton;
    nscd_system_set_contact(sys, 0, &contact);
    nscd_contact_law_destroy(newton); /* the system keeps its own copy */
    double q0 = h0, v0 = 0.0;
    rc = nscd_system_set_state(sys, 0.0, &q0, &v0);

    nscd_event_driven_options opt;
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.method = cli_has_flag(argc, argv, "--rk4") ? NSCD_ED_RK4_LINEAR : NSCD_ED_DOPRI5;
    opt.on_event = on_event;
    opt.on_event_user = &r;
    nscd_event_driven *ed = NULL;
    if (rc == NSCD_OK) {
        rc = nscd_event_driven_create(sys, &opt, &ed);
    }

    FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
    if (csv) {
        fprintf(csv, "t,height,velocity\n");
    }
    const int samples = csv ? 2000 : 1;
    nscd_event_driven_stats stats = {.struct_size = sizeof stats};
    for (int k = 1; k <= samples && rc == NSCD_OK; ++k) {
        rc = nscd_event_driven_advance(ed, t_end * k / samples, &stats);
        double t, q, v;
        nscd_system_get_state(sys, &t, &q, &v);
        if (csv) {
            fprintf(csv, "%.17g,%.17g,%.17g\n", t, q, v);
        }
    }
    if (csv) {
        fclose(csv);
    }
    if (rc != NSCD_OK) {
        int code = fail("integration", rc, nscd_system_last_error(sys));
        nscd_event_driven_destroy(ed);
        nscd_system_destroy(sys);
        return code;
    }
    if (cli_has_flag(argc, argv, "--json")) {
        print_json(h0, e, g, &r, t_end, 0.0);
    } else {
        printf("%d impacts, first at t = %.12f s, at rest from t = %.12f s\n", r.count,
               r.count ? r.t[0] : NAN, r.rest_time);
    }
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
    return 0;
}
