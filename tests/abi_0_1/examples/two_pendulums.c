/* Two impacting pendulums (seed 001, Sect. 6, Figs. 10-12).
 *
 * Two uniform rods hang from pivots at the same height, a apart: rod 1
 * (m1, L1) at x = 0, rod 2 (m2, L2) at x = a. The angle theta_i is measured
 * from the downward vertical; rod i points along (-sin theta_i, -cos theta_i).
 * Rod 1 starts at theta1 = pi/12, displaced away from rod 2; rod 2 starts
 * horizontal (theta2 = -pi/2), pointing away from rod 1. Rod 2 swings through its lowest point and
 * its tip strikes the side of rod 1. The gap is the distance of tip 2 from the line of rod 1, on
 * the side of rod 2:
 *
 *     g = a cos(theta1) - L2 sin(theta2 - theta1).
 *
 * Three contact models (e = 0.3): the piecewise method (Newton impact at the
 * tip), the Hertz spring + linear damper with the optimal damping of eq. 50
 * (n = 3/2, k = 1e8) and the Hunt-Crossley force of eq. 9 with the damping
 * factor of eq. 16. The effective mass and impact velocity of eq. 50 are
 * those of the contact at onset.
 *
 * Usage: two_pendulums [--json] [--csv FILE] [--t-end 8] [--e 0.3] [--k 1e8]
 *                      [--n 1.5] [--copt closed|exact]                          */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "example_cli.h"
#include <nscd/nscd.h>

#define PI 3.14159265358979323846
#define MAX_CONTACTS 64
#define MAX_SAMPLES 20000
#define MAX_CURVE 4000

typedef struct pendulums {
    double m1, m2, L1, L2, a, g;
} pendulums;

typedef struct contact_record {
    double t, t_end, v_before, v_after, max_penetration;
} contact_record;

typedef struct run {
    const char *name;
    int count;
    contact_record contacts[MAX_CONTACTS];
    int in_contact, first_done, stop_at_onset;
    int samples;
    double t[MAX_SAMPLES], w1[MAX_SAMPLES], w2[MAX_SAMPLES];
    int curve_count; /* force vs penetration in the first contact (Fig. 12) */
    double penetration[MAX_CURVE], force[MAX_CURVE];
    double damping; /* c or mu chosen at the first onset */
    int separated;  /* the first contact's separation state is in sep_q, sep_v */
    double sep_q[2], sep_v[2];
} run;

static nscd_status mass(void *user, const double *q, double *m) {
    (void)q;
    const pendulums *p = user;
    m[0] = p->m1 * p->L1 * p->L1 / 3.0; /* uniform rods about their pivots */
    m[1] = 0.0;
    m[2] = 0.0;
    m[3] = p->m2 * p->L2 * p->L2 / 3.0;
    return NSCD_OK;
}

static nscd_status forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)t, (void)v;
    const pendulums *p = user;
    h[0] = -p->m1 * p->g * 0.5 * p->L1 * sin(q[0]);
    h[1] = -p->m2 * p->g * 0.5 * p->L2 * sin(q[1]);
    return NSCD_OK;
}

static nscd_status tip_contact(void *user, int32_t index, double t, const double *q, double *gap,
                               double *w_normal, double *w_tangent) {
    (void)index, (void)t, (void)w_tangent;
    const pendulums *p = user;
    double d = q[1] - q[0];
    *gap = p->a * cos(q[0]) - p->L2 * sin(d);
    w_normal[0] = -p->a * sin(q[0]) + p->L2 * cos(d);
    w_normal[1] = -p->L2 * cos(d);
    return NSCD_OK;
}

static int32_t on_event(void *user, const nscd_event_info *info) {
    run *r = user;
    if (info->type == NSCD_EVENT_IMPACT || info->type == NSCD_EVENT_COMPLIANT_ONSET) {
        if (r->count < MAX_CONTACTS) {
            contact_record *c = &r->contacts[r->count++];
            c->t = info->t;
            c->v_before = info->gap_velocity_before[0];
            c->v_after = info->type == NSCD_EVENT_IMPACT ? info->gap_velocity_after[0] : NAN;
            c->t_end = info->type == NSCD_EVENT_IMPACT ? info->t : NAN;
            c->max_penetration = 0.0;
        }
        if (info->type == NSCD_EVENT_COMPLIANT_ONSET) {
            r->in_contact = 1;
            if (!r->first_done && r->stop_at_onset) {
                return NSCD_EVENT_STOP; /* sample the first contact finely */
            }
        }
    } else if (info->type == NSCD_EVENT_COMPLIANT_SEPARATION && r->count > 0) {
        contact_record *c = &r->contacts[r->count - 1];
        c->t_end = info->t;
        c->v_after = info->gap_velocity_after[0];
        if (!r->first_done) {
            memcpy(r->sep_q, info->q, sizeof r->sep_q);
            memcpy(r->sep_v, info->v_after, sizeof r->sep_v);
            r->separated = 1;
        }
        r->in_contact = 0;
        r->first_done = 1;
    }
    return NSCD_EVENT_CONTINUE;
}

static double effective_mass(const pendulums *p, const double *q) {
    double g, w[2];
    tip_contact((void *)p, 0, 0.0, q, &g, w, NULL);
    double I1 = p->m1 * p->L1 * p->L1 / 3.0, I2 = p->m2 * p->L2 * p->L2 / 3.0;
    return 1.0 / (w[0] * w[0] / I1 + w[1] * w[1] / I2);
}

typedef struct model_spec {
    const char *name;
    int kind; /* 0 Newton, 1 Hertz-damper, 2 Hunt-Crossley */
} model_spec;

typedef struct settings {
    pendulums p;
    double e, k, n, t_end;
    int copt_method;
} settings;

/* Contact force of the first contact from the state, for Fig. 12: the same
 * formula as the law, with c or mu from the public kernels at the onset. */
static void record_force(run *r, const settings *s, int kind, const double *q, const double *v) {
    const contact_record *c = &r->contacts[0];
    double g, w[2];
    tip_contact((void *)&s->p, 0, 0.0, q, &g, w, NULL);
    double delta = -g, rate = -(w[0] * v[0] + w[1] * v[1]);
    if (r->damping == 0.0) {
        double v0 = -c->v_before;
        if (kind == 1) {
            /* the onset configuration is the first sample's: q at onset */
            double m = effective_mass(&s->p, q);
            if (s->copt_method == NSCD_COPT_EXACT) {
                nscd_copt_exact(m, s->k, s->n, v0, s->e, &r->damping);
            } else {
                nscd_copt_closed_form(m, s->k, s->n, v0, s->e, &r->damping);
            }
        } else {
            nscd_hunt_crossley_factor(NSCD_HC_FLORES, s->k, s->e, v0, &r->damping);
        }
    }
    double f = kind == 1 ? r->damping * rate + s->k * pow(fmax(delta, 0.0), s->n)
                         : (r->damping * rate + s->k) * pow(fmax(delta, 0.0), s->n);
    if (r->curve_count < MAX_CURVE) {
        r->penetration[r->curve_count] = delta;
        r->force[r->curve_count] = f;
        r->curve_count++;
    }
    r->contacts[0].max_penetration = fmax(r->contacts[0].max_penetration, delta);
}

static nscd_contact_law *make_law(const settings *s, int kind) {
    nscd_contact_law *law = NULL;
    nscd_status rc;
    if (kind == 0) {
        rc = nscd_contact_law_create_newton(s->e, NULL, &law);
    } else if (kind == 1) {
        rc = nscd_contact_law_create_hertz_damper(s->k, s->n, s->e, s->copt_method,
                                                  NSCD_INDENTATION_TEMPORARY, NULL, &law);
    } else {
        rc = nscd_contact_law_create_hunt_crossley(s->k, s->n, s->e, NSCD_HC_FLORES, NULL, &law);
    }
    if (rc != NSCD_OK) {
        fprintf(stderr, "two_pendulums: law: %s\n", nscd_status_string(rc));
        return NULL;
    }
    return law;
}

static void sample(run *r, nscd_system *sys) {
    double t, q[2], v[2];
    nscd_system_get_state(sys, &t, q, v);
    if (r->samples < MAX_SAMPLES) {
        r->t[r->samples] = t;
        r->w1[r->samples] = v[0];
        r->w2[r->samples] = v[1];
        r->samples++;
    }
}

/* Integrates one model over [0, t_end], sampling the angular velocities every
 * dt and the first compliant contact every dt_fine. */
static int simulate(const settings *s, int kind, run *r) {
    nscd_contact_law *law = make_law(s, kind);
    if (law == NULL) {
        return 1;
    }
    nscd_system_desc desc;
    nscd_system_desc_init(&desc, sizeof desc);
    desc.n_dof = 2;
    desc.n_contacts = 1;
    desc.user = (void *)&s->p;
    desc.mass = mass;
    desc.forces = forces;
    desc.contact = tip_contact;
    nscd_system *sys = NULL;
    nscd_status rc = nscd_system_create(&desc, &sys);
    nscd_contact_desc contact;
    nscd_contact_desc_init(&contact, sizeof contact);
    contact.law = law;
    if (rc == NSCD_OK) {
        rc = nscd_system_set_contact(sys, 0, &contact);
    }
    nscd_contact_law_destroy(law);
    double q0[2] = {PI / 12.0, -PI / 2.0}, v0[2] = {0.0, 0.0};
    if (rc == NSCD_OK) {
        rc = nscd_system_set_state(sys, 0.0, q0, v0);
    }
    nscd_event_driven_options opt;
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.on_event = on_event;
    opt.on_event_user = r;
    r->stop_at_onset = kind != 0;
    nscd_event_driven *ed = NULL;
    if (rc == NSCD_OK) {
        rc = nscd_event_driven_create(sys, &opt, &ed);
    }
    const double dt = 0.01, dt_fine = 2e-6;
    double t = 0.0;
    sample(r, sys);
    while (rc == NSCD_OK && t < s->t_end) {
        int fine = r->in_contact && !r->first_done;
        double target = fine ? t + dt_fine : fmin(s->t_end, dt * (floor(t / dt + 1e-9) + 1.0));
        nscd_event_driven_stats stats = {.struct_size = sizeof stats};
        rc = nscd_event_driven_advance(ed, target, &stats);
        nscd_system_get_state(sys, &t, NULL, NULL);
        if (rc != NSCD_OK) {
            break;
        }
        if (r->in_contact && !r->first_done) {
            double q[2], v[2];
            nscd_system_get_state(sys, NULL, q, v);
            record_force(r, s, kind, q, v);
        } else if (r->separated == 1) { /* the last point: the force is zero there */
            record_force(r, s, kind, r->sep_q, r->sep_v);
            r->separated = 2;
        }
        if (!stats.stopped && fabs(t - dt * round(t / dt)) < 1e-9) {
            sample(r, sys);
        }
    }
    if (rc != NSCD_OK) {
        fprintf(stderr, "two_pendulums: %s: %s (%s)\n", r->name, nscd_status_string(rc),
                nscd_event_driven_last_error(ed));
    }
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
    return rc != NSCD_OK;
}

static void print_model_json(const run *r) {
    printf("{\"name\":\"%s\",\"impacts\":[", r->name);
    for (int i = 0; i < r->count; ++i) {
        const contact_record *c = &r->contacts[i];
        printf("%s{\"t\":", i ? "," : "");
        json_number(stdout, c->t);
        printf(",\"t_end\":");
        json_number(stdout, c->t_end);
        printf(",\"gap_velocity_before\":");
        json_number(stdout, c->v_before);
        printf(",\"gap_velocity_after\":");
        json_number(stdout, c->v_after);
        printf(",\"e_out\":");
        json_number(stdout, -c->v_after / c->v_before);
        printf("}");
    }
    printf("],\"t\":");
    json_array(stdout, r->t, r->samples);
    printf(",\"theta1_dot\":");
    json_array(stdout, r->w1, r->samples);
    printf(",\"theta2_dot\":");
    json_array(stdout, r->w2, r->samples);
    printf(",\"first_contact\":{\"damping\":");
    json_number(stdout, r->damping);
    printf(",\"penetration\":");
    json_array(stdout, r->penetration, r->curve_count);
    printf(",\"force\":");
    json_array(stdout, r->force, r->curve_count);
    printf("}}");
}

int main(int argc, char **argv) {
    settings s = {{1.0, 0.2, 6.0, 4.0, 2.0, 9.81}, 0.3, 1e8, 1.5, 8.0, NSCD_COPT_CLOSED_FORM};
    s.e = cli_double(argc, argv, "--e", s.e);
    s.k = cli_double(argc, argv, "--k", s.k);
    s.n = cli_double(argc, argv, "--n", s.n);
    s.t_end = cli_double(argc, argv, "--t-end", s.t_end);
    if (strcmp(cli_string(argc, argv, "--copt", "closed"), "exact") == 0) {
        s.copt_method = NSCD_COPT_EXACT;
    }
    const model_spec specs[3] = {{"piecewise", 0}, {"hertz_damper", 1}, {"hunt_crossley", 2}};
    static run runs[3];
    for (int i = 0; i < 3; ++i) {
        runs[i].name = specs[i].name;
        if (simulate(&s, specs[i].kind, &runs[i]) != 0) {
            return 1;
        }
    }
    const char *csv_path = cli_string(argc, argv, "--csv", NULL);
    if (csv_path != NULL) {
        FILE *csv = fopen(csv_path, "w");
        if (csv == NULL) {
            fprintf(stderr, "two_pendulums: cannot write %s\n", csv_path);
            return 1;
        }
        fprintf(csv, "model,t,theta1_dot,theta2_dot\n");
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < runs[i].samples; ++j) {
                fprintf(csv, "%s,%.17g,%.17g,%.17g\n", runs[i].name, runs[i].t[j], runs[i].w1[j],
                        runs[i].w2[j]);
            }
        }
        fclose(csv);
    }
    if (cli_has_flag(argc, argv, "--json")) {
        printf("{\"parameters\":{\"m1\":%.17g,\"m2\":%.17g,\"L1\":%.17g,\"L2\":%.17g,\"a\":%.17g,"
               "\"g\":%.17g,\"e\":%.17g,\"k\":%.17g,\"n\":%.17g,\"t_end\":%.17g,\"copt\":\"%s\"},"
               "\"models\":[",
               s.p.m1, s.p.m2, s.p.L1, s.p.L2, s.p.a, s.p.g, s.e, s.k, s.n, s.t_end,
               s.copt_method == NSCD_COPT_EXACT ? "exact" : "closed_form");
        for (int i = 0; i < 3; ++i) {
            if (i) {
                printf(",");
            }
            print_model_json(&runs[i]);
        }
        printf("]}\n");
        return 0;
    }
    for (int i = 0; i < 3; ++i) {
        printf("%-14s %d impacts:", runs[i].name, runs[i].count);
        for (int j = 0; j < runs[i].count; ++j) {
            const contact_record *c = &runs[i].contacts[j];
            printf("  t = %.6f s (e_out %.4f)", c->t, -c->v_after / c->v_before);
        }
        printf("\n");
    }
    return 0;
}
