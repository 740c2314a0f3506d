/* Compliant contacts in the event-driven stepper (seed 001): onset and
 * separation located as events, the effective mass and impact velocity
 * captured at onset, permanent versus temporary indentation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "nscd/nscd.h"

/* Two point masses on a line (or one on a floor when m[0] is 0): the gap is
 * q1 - q0 (or q0), gravity g pulls q towards -inf. */
typedef struct bodies {
    double m[2], g;
    int two;
} bodies;

typedef struct log {
    int onsets, separations;
    double t_onset[8], t_separation[8], q_onset[8], q_separation[8];
    double rate_before[8], rate_after[8];
} log_t;

static nscd_status mass(void *user, const double *q, double *m) {
    (void)q;
    const bodies *b = user;
    if (b->two) {
        m[0] = b->m[0], m[1] = 0.0, m[2] = 0.0, m[3] = b->m[1];
    } else {
        m[0] = b->m[1];
    }
    return NSCD_OK;
}

static nscd_status forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)t, (void)q, (void)v;
    const bodies *b = user;
    h[0] = -b->g * (b->two ? b->m[0] : b->m[1]);
    if (b->two) {
        h[1] = -b->g * b->m[1];
    }
    return NSCD_OK;
}

static nscd_status contact(void *user, int32_t index, double t, const double *q, double *gap,
                           double *w, double *wt) {
    (void)index, (void)t, (void)wt;
    const bodies *b = user;
    if (b->two) {
        *gap = q[1] - q[0];
        w[0] = -1.0;
        w[1] = 1.0;
    } else {
        *gap = q[0];
        w[0] = 1.0;
    }
    return NSCD_OK;
}

static int32_t on_event(void *user, const nscd_event_info *info) {
    log_t *l = user;
    double gap = info->n_dof == 2 ? info->q[1] - info->q[0] : info->q[0];
    if (info->type == NSCD_EVENT_COMPLIANT_ONSET && l->onsets < 8) {
        l->t_onset[l->onsets] = info->t;
        l->q_onset[l->onsets] = gap;
        l->rate_before[l->onsets] = info->gap_velocity_before[0];
        l->onsets++;
    } else if (info->type == NSCD_EVENT_COMPLIANT_SEPARATION && l->separations < 8) {
        l->t_separation[l->separations] = info->t;
        l->q_separation[l->separations] = gap;
        l->rate_after[l->separations] = info->gap_velocity_after[0];
        l->separations++;
    }
    return NSCD_EVENT_CONTINUE;
}

static void run(bodies *b, const nscd_contact_law *law, const double *q0, const double *v0,
                double t_end, log_t *l) {
    nscd_system_desc desc;
    nscd_system_desc_init(&desc, sizeof desc);
    desc.n_dof = b->two ? 2 : 1;
    desc.n_contacts = 1;
    desc.user = b;
    desc.mass = mass;
    desc.forces = forces;
    desc.contact = contact;
    nscd_system *sys = NULL;
    assert_int_equal(nscd_system_create(&desc, &sys), NSCD_OK);
    nscd_contact_desc cd;
    nscd_contact_desc_init(&cd, sizeof cd);
    cd.law = law;
    assert_int_equal(nscd_system_set_contact(sys, 0, &cd), NSCD_OK);
    assert_int_equal(nscd_system_set_state(sys, 0.0, q0, v0), NSCD_OK);
    nscd_event_driven_options opt;
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.on_event = on_event;
    opt.on_event_user = l;
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_OK);
    assert_int_equal(nscd_event_driven_advance(ed, t_end, NULL), NSCD_OK);
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

/* Without gravity the stepper must reproduce the direct central impact:
 * onset at h/v, separation one contact duration later, e_out = e. */
static void single_impact_matches_simulator(void **state) {
    (void)state;
    bodies b = {{0.0, 0.7}, 0.0, 0};
    double e = 0.45, k = 1e8, n = 1.5, v = 2.0, h = 0.01;
    nscd_contact_law *law = NULL;
    assert_int_equal(nscd_contact_law_create_hertz_damper(k, n, e, NSCD_COPT_EXACT,
                                                          NSCD_INDENTATION_TEMPORARY, NULL, &law),
                     NSCD_OK);
    nscd_central_impact_result r = {.struct_size = sizeof r};
    assert_int_equal(nscd_central_impact(law, b.m[1], v, &r), NSCD_OK);
    log_t l = {0};
    double q0 = h, v0 = -v;
    run(&b, law, &q0, &v0, 0.02, &l);
    assert_int_equal(l.onsets, 1);
    assert_int_equal(l.separations, 1);
    assert_true(fabs(l.t_onset[0] - h / v) < 1e-11);
    assert_true(fabs(l.t_separation[0] - l.t_onset[0] - r.duration) < 1e-9 * r.duration);
    assert_true(fabs(l.rate_after[0] / v - e) < 1e-8);
    assert_true(fabs(-l.q_separation[0] - r.residual_penetration) < 1e-7 * r.max_penetration);
    nscd_contact_law_destroy(law);
}

/* Two free masses: the law must see the effective mass m1 m2/(m1 + m2)
 * (eq. 3) to restitute e with the optimal damping. */
static void effective_mass_of_two_bodies(void **state) {
    (void)state;
    bodies b = {{0.3, 1.2}, 0.0, 1};
    double e = 0.6;
    nscd_contact_law *law = NULL;
    assert_int_equal(nscd_contact_law_create_hertz_damper(5e7, 1.5, e, NSCD_COPT_EXACT,
                                                          NSCD_INDENTATION_TEMPORARY, NULL, &law),
                     NSCD_OK);
    log_t l = {0};
    double q0[2] = {0.0, 0.01}, v0[2] = {1.5, -0.5};
    run(&b, law, q0, v0, 0.05, &l);
    assert_int_equal(l.onsets, 1);
    assert_int_equal(l.separations, 1);
    assert_true(fabs(-l.rate_after[0] / l.rate_before[0] - e) < 1e-8);
    nscd_contact_law_destroy(law);
}

/* A bouncing mass under gravity: with a permanent indentation the second
 * contact starts where the first one left the surface (delta = dent); with
 * a temporary one it starts at delta = 0 again. */
static void permanent_versus_temporary_indentation(void **state) {
    (void)state;
    for (int32_t mode = NSCD_INDENTATION_TEMPORARY; mode <= NSCD_INDENTATION_PERMANENT; ++mode) {
        bodies b = {{0.0, 1.0}, 9.81, 0};
        nscd_contact_law *law = NULL;
        assert_int_equal(
            nscd_contact_law_create_hertz_damper(1e6, 1.5, 0.5, NSCD_COPT_EXACT, mode, NULL, &law),
            NSCD_OK);
        log_t l = {0};
        double q0 = 0.05, v0 = 0.0;
        run(&b, law, &q0, &v0, 0.25, &l);
        assert_true(l.onsets >= 2);
        assert_true(l.separations >= 1);
        double dent = -l.q_separation[0];
        assert_true(dent > 0.0);
        double expected = mode == NSCD_INDENTATION_PERMANENT ? -dent : 0.0;
        assert_true(fabs(l.q_onset[1] - expected) < 1e-9);
        nscd_contact_law_destroy(law);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(single_impact_matches_simulator),
        cmocka_unit_test(effective_mass_of_two_bodies),
        cmocka_unit_test(permanent_versus_temporary_indentation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
