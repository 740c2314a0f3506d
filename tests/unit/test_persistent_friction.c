/* Persistent contact with planar Coulomb friction in the event-driven stepper:
 * a block launched up an incline slides, stops, and then either sticks
 * (tan theta <= mu) or slides back down; every phase has a closed form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "assert_near.h"

#include <math.h>
#include <string.h>

#include "nscd/nscd.h"

#define G_ACC 9.81
#define PI 3.14159265358979323846

typedef struct incline {
    double mass, theta;
} incline;

typedef struct events {
    int n;
    int32_t type[16];
    double t[16];
} events;

static nscd_status mass(void *user, const double *q, double *M) {
    (void)q;
    const incline *b = user;
    M[0] = M[3] = b->mass;
    M[1] = M[2] = 0.0;
    return NSCD_OK;
}

static nscd_status forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)t, (void)q, (void)v;
    const incline *b = user;
    h[0] = 0.0;
    h[1] = -b->mass * G_ACC;
    return NSCD_OK;
}

/* The incline through the origin: normal n = (-sin, cos), tangent up the
 * slope t = (cos, sin). */
static nscd_status contact(void *user, int32_t index, double t, const double *q, double *gap,
                           double *wn, double *wt) {
    (void)index, (void)t;
    const incline *b = user;
    double s = sin(b->theta), c = cos(b->theta);
    *gap = -s * q[0] + c * q[1];
    wn[0] = -s;
    wn[1] = c;
    if (wt != NULL) {
        wt[0] = c;
        wt[1] = s;
    }
    return NSCD_OK;
}

static int32_t record(void *user, const nscd_event_info *info) {
    events *e = user;
    if (e->n < 16) {
        e->type[e->n] = info->type;
        e->t[e->n++] = info->t;
    }
    return NSCD_EVENT_CONTINUE;
}

/* Runs the block launched at v0 up the slope until t_end; returns the
 * distance travelled along the slope and its velocity. */
static void run(incline *b, double mu, double v0, double t_end, events *ev, double *distance,
                double *speed, double *gap) {
    nscd_system_desc desc;
    nscd_system_desc_init(&desc, sizeof desc);
    desc.n_dof = 2;
    desc.n_contacts = 1;
    desc.user = b;
    desc.mass = mass;
    desc.forces = forces;
    desc.contact = contact;
    nscd_system *sys = NULL;
    assert_int_equal(nscd_system_create(&desc, &sys), NSCD_OK);
    nscd_contact_law *law = NULL;
    assert_int_equal(nscd_contact_law_create_routh(0.5, NULL, &law), NSCD_OK);
    nscd_contact_desc cd;
    nscd_contact_desc_init(&cd, sizeof cd);
    cd.law = law;
    cd.friction = mu;
    cd.n_tangent = 1;
    assert_int_equal(nscd_system_set_contact(sys, 0, &cd), NSCD_OK);
    nscd_contact_law_destroy(law);
    double q[2] = {0.0, 0.0}, v[2] = {v0 * cos(b->theta), v0 * sin(b->theta)};
    assert_int_equal(nscd_system_set_state(sys, 0.0, q, v), NSCD_OK);

    nscd_event_driven_options opt;
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.on_event = record;
    opt.on_event_user = ev;
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, &opt, &ed), NSCD_OK);
    nscd_status rc = nscd_event_driven_advance(ed, t_end, NULL);
    if (rc != NSCD_OK) {
        fail_msg("advance: %s", nscd_event_driven_last_error(ed));
    }
    double t;
    assert_int_equal(nscd_system_get_state(sys, &t, q, v), NSCD_OK);
    assert_near(t, t_end, 0.0);
    double s = sin(b->theta), c = cos(b->theta);
    *distance = c * q[0] + s * q[1];
    *speed = c * v[0] + s * v[1];
    *gap = -s * q[0] + c * q[1];
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
}

/* theta = 20 deg, mu = 0.5 > tan theta = 0.364: up, stop, stick. */
static void block_slides_up_and_sticks(void **state) {
    (void)state;
    incline b = {2.0, 20.0 * PI / 180.0};
    double mu = 0.5, v0 = 3.0, s = sin(b.theta), c = cos(b.theta);
    double decel = G_ACC * (s + mu * c);
    double t_stop = v0 / decel, d_stop = v0 * v0 / (2.0 * decel);
    events ev = {0};
    double d, u, gap;
    run(&b, mu, v0, 2.0, &ev, &d, &u, &gap);
    assert_near(d, d_stop, 1e-8);
    assert_near(u, 0.0, 1e-9);
    assert_near(gap, 0.0, 1e-9);
    /* closed at t = 0 while sliding, then a stick exactly when it stops */
    assert_int_equal(ev.type[ev.n - 2], NSCD_EVENT_CONTACT_CLOSED);
    assert_int_equal(ev.type[ev.n - 1], NSCD_EVENT_CONTACT_STICK);
    assert_near(ev.t[ev.n - 1], t_stop, 1e-9);
    /* halfway up, the distance follows the sliding law */
    events ev2 = {0};
    run(&b, mu, v0, 0.5 * t_stop, &ev2, &d, &u, &gap);
    assert_near(d, v0 * 0.5 * t_stop - 0.5 * decel * pow(0.5 * t_stop, 2), 1e-9);
    assert_near(u, 0.5 * v0, 1e-9);
}

/* theta = 20 deg, mu = 0.2 < tan theta: up, stop, slide back down. */
static void block_slides_up_then_down(void **state) {
    (void)state;
    incline b = {2.0, 20.0 * PI / 180.0};
    double mu = 0.2, v0 = 3.0, s = sin(b.theta), c = cos(b.theta);
    double up = G_ACC * (s + mu * c), down = G_ACC * (s - mu * c);
    double t_stop = v0 / up, d_stop = v0 * v0 / (2.0 * up), t_end = 1.5;
    events ev = {0};
    double d, u, gap;
    run(&b, mu, v0, t_end, &ev, &d, &u, &gap);
    double tau = t_end - t_stop;
    assert_near(d, d_stop - 0.5 * down * tau * tau, 1e-8);
    assert_near(u, -down * tau, 1e-8);
    assert_near(gap, 0.0, 1e-9);
    assert_int_equal(ev.type[ev.n - 1], NSCD_EVENT_CONTACT_SLIP);
    assert_near(ev.t[ev.n - 1], t_stop, 1e-9);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(block_slides_up_and_sticks),
        cmocka_unit_test(block_slides_up_then_down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
