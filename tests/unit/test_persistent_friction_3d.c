/* Persistent contact with Coulomb friction in 3D (two tangential rows) in the
 * event-driven stepper: a point mass on an inclined plane slides along its
 * velocity, whose direction turns under gravity, stops and sticks (or turns
 * downhill for good), and a block on the floor pushed sideways sticks or
 * slides. Every phase is compared with a closed form or with an independent
 * integration of the sliding ODE done here.
 *
 * Sliding on the incline (tilt theta, mu, speed V, velocity angle phi from
 * the horizontal across the slope, x across, y up the slope):
 *     du/dt = -g sin(theta) e_y - mu g cos(theta) u / ||u||,
 * i.e. dV/dt = -g (sin(theta) sin(phi) + mu cos(theta)),
 *      V dphi/dt = -g sin(theta) cos(phi),
 * so that with eps = phi + pi/2 (the angle from straight downhill) and
 * k = mu / tan(theta)
 *     V(eps) = C tan(eps/2)^k / sin(eps),
 *     dt = -V / (g sin(theta) sin(eps)) deps,
 *     dx = -V^2 / (g sin(theta)) deps,  dy = V^2 cos(eps) / (g sin(theta) sin(eps)) deps.
 * For k > 1 (mu > tan theta) V reaches 0 as eps -> 0: the mass stops while
 * it slides straight downhill, at a time and place given by quadratures of
 * these (evaluated here by tanh-sinh quadrature, which takes the algebraic
 * singularity at eps = 0); for k < 1 it never stops. */
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
#define MAX_EVENTS 64

/* A point mass (x, y, z) on the plane through the origin tilted by theta
 * about x: normal n = (0, -sin, cos), up the slope e_up = (0, cos, sin),
 * across it e_side = (1, 0, 0). The tangential rows are that basis turned by
 * beta in the plane (with one row: e_up). A constant force acts besides
 * gravity. */
typedef struct plane {
    double mass, theta, beta;
    double force[3];
    int32_t n_tangent;
    double groove;        /* > 0: instead, a V-groove along x whose walls rise at this angle */
    double restitution;   /* Newton's law at impacts */
    double zeno_velocity; /* stepper option; 0: the default */
} plane;

typedef struct events {
    int n;
    int32_t type[MAX_EVENTS];
    double t[MAX_EVENTS];
} events;

typedef struct result {
    double q[3], v[3];
    events ev;
    double energy_rise; /* largest rise of the energy between two samples */
    int32_t mode;       /* of contact 0 at the end */
    double lambda_n;    /* normal force of contact 0 at the end */
    double lambda_t;    /* ||tangential force|| of contact 0 at the end */
    double lambda_n1;   /* the same of contact 1 (groove) */
    double lambda_t1;
    double friction_pow; /* friction force . velocity at the end (<= 0) */
} result;

static void axes(const plane *p, double up[3], double side[3], double normal[3]) {
    double s = sin(p->theta), c = cos(p->theta);
    up[0] = 0.0, up[1] = c, up[2] = s;
    side[0] = 1.0, side[1] = 0.0, side[2] = 0.0;
    normal[0] = 0.0, normal[1] = -s, normal[2] = c;
}

static double dot3(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static nscd_status mass(void *user, const double *q, double *M) {
    (void)q;
    const plane *p = user;
    memset(M, 0, 9 * sizeof(double));
    M[0] = M[4] = M[8] = p->mass;
    return NSCD_OK;
}

static nscd_status forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)t, (void)q, (void)v;
    const plane *p = user;
    h[0] = p->force[0];
    h[1] = p->force[1];
    h[2] = p->force[2] - p->mass * G_ACC;
    return NSCD_OK;
}

/* Wall `index` of the groove: normal, rising tangent and the groove's axis. */
static void wall(const plane *p, int32_t index, double up[3], double side[3], double normal[3]) {
    double sign = index == 0 ? 1.0 : -1.0, s = sin(p->groove), c = cos(p->groove);
    normal[0] = 0.0, normal[1] = sign * s, normal[2] = c;
    up[0] = 0.0, up[1] = -sign * c, up[2] = s;
    side[0] = 1.0, side[1] = 0.0, side[2] = 0.0;
}

static nscd_status contact(void *user, int32_t index, double t, const double *q, double *gap,
                           double *wn, double *wt) {
    (void)t;
    const plane *p = user;
    double up[3], side[3], normal[3];
    if (p->groove > 0.0) {
        wall(p, index, up, side, normal);
    } else {
        axes(p, up, side, normal);
    }
    *gap = dot3(normal, q);
    memcpy(wn, normal, sizeof normal);
    if (wt != NULL) {
        double cb = cos(p->beta), sb = sin(p->beta);
        for (int k = 0; k < 3; ++k) {
            wt[k] = p->n_tangent == 1 ? up[k] : cb * up[k] + sb * side[k];
            if (p->n_tangent == 2) {
                wt[3 + k] = -sb * up[k] + cb * side[k];
            }
        }
    }
    return NSCD_OK;
}

/* Potential plus kinetic energy; the applied force has the potential -F.q. */
static double energy(const plane *p, const double *q, const double *v) {
    return 0.5 * p->mass * dot3(v, v) + p->mass * G_ACC * q[2] - dot3(p->force, q);
}

static int32_t record(void *user, const nscd_event_info *info) {
    events *e = user;
    if (e->n < MAX_EVENTS) {
        e->type[e->n] = info->type;
        e->t[e->n++] = info->t;
    }
    return NSCD_EVENT_CONTINUE;
}

typedef struct run_state {
    nscd_system *sys;
    nscd_event_driven *ed;
} run_state;

static run_state start(plane *p, double mu, const double q0[3], const double v0[3], events *ev) {
    nscd_system_desc desc;
    nscd_system_desc_init(&desc, sizeof desc);
    desc.n_dof = 3;
    desc.n_contacts = p->groove > 0.0 ? 2 : 1;
    desc.user = p;
    desc.mass = mass;
    desc.forces = forces;
    desc.contact = contact;
    run_state rs = {NULL, NULL};
    assert_int_equal(nscd_system_create(&desc, &rs.sys), NSCD_OK);
    nscd_contact_law *law = NULL;
    assert_int_equal(nscd_contact_law_create_newton(p->restitution, NULL, &law), NSCD_OK);
    nscd_contact_desc cd;
    nscd_contact_desc_init(&cd, sizeof cd);
    cd.law = law;
    cd.friction = mu;
    cd.n_tangent = p->n_tangent;
    assert_int_equal(nscd_system_set_contact(rs.sys, 0, &cd), NSCD_OK);
    if (p->groove > 0.0) {
        assert_int_equal(nscd_system_set_contact(rs.sys, 1, &cd), NSCD_OK);
    }
    nscd_contact_law_destroy(law);
    assert_int_equal(nscd_system_set_state(rs.sys, 0.0, q0, v0), NSCD_OK);
    nscd_event_driven_options opt;
    nscd_event_driven_options_init(&opt, sizeof opt);
    opt.on_event = record;
    opt.on_event_user = ev;
    if (p->zeno_velocity > 0.0) {
        opt.zeno_velocity = p->zeno_velocity;
    }
    assert_int_equal(nscd_event_driven_create(rs.sys, &opt, &rs.ed), NSCD_OK);
    return rs;
}

/* Advances to t_end in n_samples calls, watching the energy. */
static void advance(run_state *rs, const plane *p, double t_end, int n_samples, result *out) {
    double t = 0.0;
    assert_int_equal(nscd_system_get_state(rs->sys, &t, out->q, out->v), NSCD_OK);
    double e = energy(p, out->q, out->v), t0 = t;
    for (int k = 1; k <= n_samples; ++k) {
        double target = k == n_samples ? t_end : t0 + (t_end - t0) * k / n_samples;
        nscd_status rc = nscd_event_driven_advance(rs->ed, target, NULL);
        if (rc != NSCD_OK) {
            fail_msg("advance: %s", nscd_event_driven_last_error(rs->ed));
        }
        assert_int_equal(nscd_system_get_state(rs->sys, &t, out->q, out->v), NSCD_OK);
        assert_near(t, target, 0.0);
        double now = energy(p, out->q, out->v);
        out->energy_rise = fmax(out->energy_rise, now - e);
        e = now;
    }
}

/* The contact's mode and forces at the end. */
static void finish(run_state *rs, plane *p, result *out) {
    double gap = 0.0, rate = 0.0, t = 0.0, y[6], lambda_t[2] = {0.0, 0.0};
    assert_int_equal(nscd_system_get_contact(rs->sys, 0, &gap, &rate, &out->mode), NSCD_OK);
    assert_int_equal(nscd_system_get_state(rs->sys, &t, y, y + 3), NSCD_OK);
    if (p->groove > 0.0) {
        assert_int_equal(nscd_event_driven_get_contact_force(rs->ed, 1, &out->lambda_n1, lambda_t),
                         NSCD_OK);
        out->lambda_t1 = hypot(lambda_t[0], lambda_t[1]);
    }
    assert_int_equal(nscd_event_driven_get_contact_force(rs->ed, 0, &out->lambda_n, lambda_t),
                     NSCD_OK);
    out->lambda_t = hypot(lambda_t[0], lambda_t[1]);
    /* the friction force in space, W_T' lambda_T, against the velocity */
    double wn[3], wt[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}, f[3];
    assert_int_equal(contact(p, 0, t, y, &gap, wn, wt), NSCD_OK);
    for (int k = 0; k < 3; ++k) {
        f[k] = wt[k] * lambda_t[0] + wt[3 + k] * lambda_t[1];
    }
    out->friction_pow = dot3(f, y + 3);
    nscd_event_driven_destroy(rs->ed);
    nscd_system_destroy(rs->sys);
}

static void run(plane *p, double mu, const double v0[3], double t_end, int n_samples, result *out) {
    const double q0[3] = {0.0, 0.0, 0.0};
    memset(out, 0, sizeof *out);
    run_state rs = start(p, mu, q0, v0, &out->ev);
    advance(&rs, p, t_end, n_samples, out);
    finish(&rs, p, out);
}

/* Launch velocity: `up` along the slope, `across` horizontally across it. */
static void launch(const plane *p, double up_speed, double across, double v[3]) {
    double up[3], side[3], normal[3];
    axes(p, up, side, normal);
    for (int k = 0; k < 3; ++k) {
        v[k] = up_speed * up[k] + across * side[k];
    }
}

/* ---------------------------------------------------------- references */

/* The sliding ODE in the plane's coordinates y = (x, y, u_x, u_y). */
static void slide_rhs(double theta, double mu, const double *y, double *dy) {
    double speed = hypot(y[2], y[3]);
    dy[0] = y[2];
    dy[1] = y[3];
    dy[2] = -mu * G_ACC * cos(theta) * y[2] / speed;
    dy[3] = -G_ACC * sin(theta) - mu * G_ACC * cos(theta) * y[3] / speed;
}

/* Classical RK4 with n fine steps from 0 to t (the motion must not stop). */
static void slide_rk4(double theta, double mu, double across, double up, double t, int n,
                      double *y) {
    y[0] = y[1] = 0.0;
    y[2] = across;
    y[3] = up;
    double h = t / n, k1[4], k2[4], k3[4], k4[4], tmp[4];
    for (int step = 0; step < n; ++step) {
        slide_rhs(theta, mu, y, k1);
        for (int i = 0; i < 4; ++i)
            tmp[i] = y[i] + 0.5 * h * k1[i];
        slide_rhs(theta, mu, tmp, k2);
        for (int i = 0; i < 4; ++i)
            tmp[i] = y[i] + 0.5 * h * k2[i];
        slide_rhs(theta, mu, tmp, k3);
        for (int i = 0; i < 4; ++i)
            tmp[i] = y[i] + h * k3[i];
        slide_rhs(theta, mu, tmp, k4);
        for (int i = 0; i < 4; ++i) {
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
}

typedef struct stop_problem {
    double theta, k, c; /* V(eps) = c tan(eps/2)^k / sin(eps) */
} stop_problem;

static double speed_at(const stop_problem *sp, double eps) {
    return sp->c * pow(tan(0.5 * eps), sp->k) / sin(eps);
}

/* Integrands of the stop time, the distance across and the rise up the slope. */
static double stop_time_integrand(const stop_problem *sp, double eps) {
    return speed_at(sp, eps) / (G_ACC * sin(sp->theta) * sin(eps));
}
static double across_integrand(const stop_problem *sp, double eps) {
    double v = speed_at(sp, eps);
    return v * v / (G_ACC * sin(sp->theta));
}
static double down_integrand(const stop_problem *sp, double eps) {
    double v = speed_at(sp, eps);
    return v * v * cos(eps) / (G_ACC * sin(sp->theta) * sin(eps));
}

/* Tanh-sinh quadrature over (0, b) of an integrand with an integrable
 * singularity at 0: x = b / (1 + exp(-pi sinh(tau))), which is accurate
 * however close to 0 the node lies. */
static double tanh_sinh(const stop_problem *sp, double (*f)(const stop_problem *, double),
                        double b) {
    const double h = 1.0 / 64.0;
    double sum = 0.0;
    for (int j = -320; j <= 320; ++j) { /* tau in [-5, 5] */
        double tau = j * h, z = 0.5 * PI * sinh(tau);
        double x = b / (1.0 + exp(-2.0 * z));
        double weight = 0.5 * b * 0.5 * PI * cosh(tau) / (cosh(z) * cosh(z));
        if (x > 0.0 && x < b && weight > 0.0) {
            sum += weight * f(sp, x);
        }
    }
    return h * sum;
}

/* Stop of the slide launched with (across, up) on the incline: time, distance
 * across, and height along the slope (mu > tan theta). */
static void stop_reference(double theta, double mu, double across, double up, double *t_stop,
                           double *x_stop, double *y_stop) {
    stop_problem sp = {theta, mu / tan(theta), 0.0};
    double eps0 = atan2(up, across) + 0.5 * PI, v0 = hypot(across, up);
    sp.c = v0 * sin(eps0) / pow(tan(0.5 * eps0), sp.k);
    *t_stop = tanh_sinh(&sp, stop_time_integrand, eps0);
    *x_stop = tanh_sinh(&sp, across_integrand, eps0);
    *y_stop = -tanh_sinh(&sp, down_integrand, eps0);
}

/* Position and velocity in the plane's coordinates (across, up). */
static void in_plane(const plane *p, const double *world, double *across, double *up_coord) {
    double up[3], side[3], normal[3];
    axes(p, up, side, normal);
    *across = dot3(side, world);
    *up_coord = dot3(up, world);
}

static int count_type(const events *ev, int32_t type) {
    int n = 0;
    for (int k = 0; k < ev->n; ++k) {
        n += ev->type[k] == type;
    }
    return n;
}

/* ---------------------------------------------------------- tests */

/* The reference quadrature agrees with an RK4 integration run up to the stop. */
static void reference_quadrature_is_consistent(void **state) {
    (void)state;
    double theta = 20.0 * PI / 180.0, mu = 0.5, t_stop, x_stop, y_stop;
    stop_reference(theta, mu, 1.5, 3.0, &t_stop, &x_stop, &y_stop);
    /* scipy (quad, 1e-14): 0.5400978409292277, 0.42431015161410396, 0.6211732901284622 */
    assert_near(t_stop, 0.5400978409292277, 1e-13);
    assert_near(x_stop, 0.42431015161410396, 1e-13);
    assert_near(y_stop, 0.6211732901284622, 1e-13);
    double y[4];
    slide_rk4(theta, mu, 1.5, 3.0, 0.3, 20000, y);
    /* scipy solve_ivp (rtol 1e-12) at t = 0.3 */
    assert_near(y[0], 0.3462722, 1e-7);
    assert_near(y[1], 0.56973781, 1e-7);
    assert_near(y[2], 0.75856807, 1e-7);
    assert_near(y[3], 0.83103158, 1e-7);
}

/* theta = 20 deg, mu = 0.5 > tan theta, launched up and across: the friction
 * follows the turning velocity; the mass curves over, stops while sliding
 * downhill at the quadrature's time and place, and sticks. */
static void curved_slide_stops_and_sticks(void **state) {
    (void)state;
    plane p = {.mass = 2.0, .theta = 20.0 * PI / 180.0, .beta = 30.0 * PI / 180.0, .n_tangent = 2};
    double mu = 0.5, v0[3], t_stop, x_stop, y_stop, across, up;
    launch(&p, 3.0, 1.5, v0);
    stop_reference(p.theta, mu, 1.5, 3.0, &t_stop, &x_stop, &y_stop);

    /* while it slides: the independent integration */
    result r;
    run(&p, mu, v0, 0.3, 1, &r);
    double y[4];
    slide_rk4(p.theta, mu, 1.5, 3.0, 0.3, 20000, y);
    in_plane(&p, r.q, &across, &up);
    assert_near(across, y[0], 1e-9);
    assert_near(up, y[1], 1e-9);
    in_plane(&p, r.v, &across, &up);
    assert_near(across, y[2], 1e-9);
    assert_near(up, y[3], 1e-9);
    assert_int_equal(r.mode, NSCD_CONTACT_CLOSED);
    /* sliding: the friction is mu lambda_N, against the velocity */
    assert_near(r.lambda_n, p.mass * G_ACC * cos(p.theta), 1e-9);
    assert_near(r.lambda_t, mu * r.lambda_n, 1e-9);
    assert_near(r.friction_pow, -r.lambda_t * hypot(y[2], y[3]), 1e-8);

    /* the stop, then rest */
    run(&p, mu, v0, 1.5, 30, &r);
    assert_int_equal(r.ev.type[0], NSCD_EVENT_CONTACT_CLOSED);
    assert_near(r.ev.t[0], 0.0, 0.0);
    assert_int_equal(count_type(&r.ev, NSCD_EVENT_CONTACT_STICK), 1);
    assert_int_equal(count_type(&r.ev, NSCD_EVENT_CONTACT_SLIP), 0);
    assert_int_equal(r.ev.type[r.ev.n - 1], NSCD_EVENT_CONTACT_STICK);
    assert_near(r.ev.t[r.ev.n - 1], t_stop, 1e-9);
    in_plane(&p, r.q, &across, &up);
    assert_near(across, x_stop, 1e-9);
    assert_near(up, y_stop, 1e-9);
    assert_near(dot3(r.v, r.v), 0.0, 1e-18);
    assert_true(r.energy_rise <= 1e-12);
    /* sticking: the force holds the mass against gravity, inside the cone */
    assert_int_equal(r.mode, NSCD_CONTACT_CLOSED);
    assert_near(r.lambda_n, p.mass * G_ACC * cos(p.theta), 1e-9);
    assert_near(r.lambda_t, p.mass * G_ACC * sin(p.theta), 1e-9);
    assert_true(r.lambda_t <= mu * r.lambda_n);
}

/* theta = 20 deg, mu = 0.2 < tan theta: the velocity turns downhill without
 * stopping (it could only stop sliding straight uphill, which gravity and
 * the friction across forbid), then speeds up. */
static void curved_slide_turns_downhill(void **state) {
    (void)state;
    plane p = {.mass = 2.0, .theta = 20.0 * PI / 180.0, .beta = -50.0 * PI / 180.0, .n_tangent = 2};
    double mu = 0.2, v0[3], across, up, y[4];
    launch(&p, 3.0, 1.5, v0);
    result r;
    run(&p, mu, v0, 1.5, 30, &r);
    slide_rk4(p.theta, mu, 1.5, 3.0, 1.5, 60000, y);
    /* scipy solve_ivp (rtol 1e-12) at t = 1.5 */
    assert_near(y[0], 0.97780251, 1e-7);
    assert_near(y[1], 0.21563462, 1e-7);
    assert_near(y[2], 0.10882899, 1e-7);
    assert_near(y[3], -1.51927709, 1e-7);
    in_plane(&p, r.q, &across, &up);
    assert_near(across, y[0], 1e-8);
    assert_near(up, y[1], 1e-8);
    in_plane(&p, r.v, &across, &up);
    assert_near(across, y[2], 1e-8);
    assert_near(up, y[3], 1e-8);
    assert_int_equal(r.ev.n, 1); /* closed at t = 0, sliding ever since */
    assert_int_equal(r.ev.type[0], NSCD_EVENT_CONTACT_CLOSED);
    assert_true(r.energy_rise <= 1e-12);
    assert_near(r.lambda_t, mu * r.lambda_n, 1e-9);
    assert_true(r.friction_pow < 0.0);
}

/* Straight up the slope with two tangential rows turned by beta: the planar
 * answer (tests/unit/test_persistent_friction.c) and the same run with one
 * tangential row. */
static void in_plane_run(double mu, double t_end, int32_t n_tangent, result *r) {
    plane p = {.mass = 2.0,
               .theta = 20.0 * PI / 180.0,
               .beta = n_tangent == 2 ? 35.0 * PI / 180.0 : 0.0,
               .n_tangent = n_tangent};
    double v0[3];
    launch(&p, 3.0, 0.0, v0);
    run(&p, mu, v0, t_end, 20, r);
}

static void in_plane_stop_matches_planar(void **state) {
    (void)state;
    double theta = 20.0 * PI / 180.0, s = sin(theta), c = cos(theta), v0 = 3.0;
    /* mu = 0.5 > tan theta: up, stop, stick */
    double mu = 0.5, decel = G_ACC * (s + mu * c);
    double t_stop = v0 / decel, d_stop = v0 * v0 / (2.0 * decel);
    result r2, r1;
    in_plane_run(mu, 2.0, 2, &r2);
    in_plane_run(mu, 2.0, 1, &r1);
    assert_int_equal(r2.ev.n, 2);
    assert_int_equal(r2.ev.type[0], NSCD_EVENT_CONTACT_CLOSED);
    assert_int_equal(r2.ev.type[1], NSCD_EVENT_CONTACT_STICK);
    assert_near(r2.ev.t[1], t_stop, 1e-9);
    assert_near(r2.ev.t[1], r1.ev.t[r1.ev.n - 1], 1e-9);
    assert_near(r2.q[0], 0.0, 1e-12); /* no motion across */
    assert_near(r2.q[1], d_stop * c, 1e-8);
    assert_near(r2.q[2], d_stop * s, 1e-8);
    assert_near(r2.q[1], r1.q[1], 1e-9);
    assert_near(dot3(r2.v, r2.v), 0.0, 1e-18);
    assert_true(r2.energy_rise <= 1e-12);
    assert_near(r2.lambda_t, 2.0 * G_ACC * s, 1e-9);

    /* mu = 0.2 < tan theta: up, stop, slide back down */
    mu = 0.2;
    double up = G_ACC * (s + mu * c), down = G_ACC * (s - mu * c), t_end = 1.5;
    t_stop = v0 / up;
    d_stop = v0 * v0 / (2.0 * up);
    in_plane_run(mu, t_end, 2, &r2);
    in_plane_run(mu, t_end, 1, &r1);
    assert_int_equal(r2.ev.n, 2);
    assert_int_equal(r2.ev.type[1], NSCD_EVENT_CONTACT_SLIP);
    assert_near(r2.ev.t[1], t_stop, 1e-9);
    assert_near(r2.ev.t[1], r1.ev.t[r1.ev.n - 1], 1e-9);
    double tau = t_end - t_stop, d = d_stop - 0.5 * down * tau * tau;
    assert_near(r2.q[0], 0.0, 1e-12);
    assert_near(r2.q[1], d * c, 1e-8);
    assert_near(r2.q[2], d * s, 1e-8);
    assert_near(r2.v[1], -down * tau * c, 1e-8);
    assert_near(r2.q[1], r1.q[1], 1e-9);
    assert_true(r2.energy_rise <= 1e-12);
    assert_near(r2.lambda_t, mu * r2.lambda_n, 1e-9);
}

/* A block on the floor pushed by a constant horizontal force F at 40 deg to
 * the tangential rows (mu m g = 5.886 N): held below, sliding above with
 * acceleration (F - mu m g) / m along F. */
static void floor_push(double force, double mu, double t_end, result *r) {
    double alpha = 40.0 * PI / 180.0;
    plane p = {.mass = 2.0, .force = {force * cos(alpha), force * sin(alpha), 0.0}, .n_tangent = 2};
    const double v0[3] = {0.0, 0.0, 0.0};
    run(&p, mu, v0, t_end, 10, r);
}

static void floor_push_below_friction_sticks(void **state) {
    (void)state;
    result r;
    floor_push(4.0, 0.3, 1.0, &r);
    assert_near(r.q[0], 0.0, 1e-12);
    assert_near(r.q[1], 0.0, 1e-12);
    assert_near(r.q[2], 0.0, 1e-12);
    assert_near(dot3(r.v, r.v), 0.0, 1e-24);
    assert_int_equal(r.ev.n, 1);
    assert_int_equal(r.ev.type[0], NSCD_EVENT_CONTACT_CLOSED);
    assert_int_equal(r.mode, NSCD_CONTACT_CLOSED);
    assert_near(r.lambda_n, 2.0 * G_ACC, 1e-9);
    assert_near(r.lambda_t, 4.0, 1e-9);
    assert_true(r.energy_rise <= 1e-12);
}

static void floor_push_above_friction_slides(void **state) {
    (void)state;
    double force = 9.0, mu = 0.3, m = 2.0, alpha = 40.0 * PI / 180.0, t = 1.0;
    double a = (force - mu * m * G_ACC) / m;
    result r;
    floor_push(force, mu, t, &r);
    assert_near(r.q[0], 0.5 * a * t * t * cos(alpha), 1e-9);
    assert_near(r.q[1], 0.5 * a * t * t * sin(alpha), 1e-9);
    assert_near(r.q[2], 0.0, 1e-12);
    assert_near(r.v[0], a * t * cos(alpha), 1e-9);
    assert_near(r.v[1], a * t * sin(alpha), 1e-9);
    assert_int_equal(r.ev.n, 1); /* it closes sliding: one CLOSED event */
    assert_int_equal(r.ev.type[0], NSCD_EVENT_CONTACT_CLOSED);
    assert_near(r.lambda_t, mu * m * G_ACC, 1e-9);
    assert_true(r.energy_rise <= 1e-12);
}

/* At rest on the floor, then pushed above friction: a SLIP event at once,
 * and the slide from rest along the push (the direction the sticking force
 * could not hold). */
static void floor_push_from_rest_slips(void **state) {
    (void)state;
    double force = 9.0, mu = 0.3, m = 2.0, alpha = 40.0 * PI / 180.0;
    double a = (force - mu * m * G_ACC) / m;
    plane p = {.mass = m, .n_tangent = 2};
    const double zero[3] = {0.0, 0.0, 0.0};
    result r;
    memset(&r, 0, sizeof r);
    run_state rs = start(&p, mu, zero, zero, &r.ev);
    advance(&rs, &p, 0.25, 1, &r);
    assert_int_equal(r.ev.n, 1);
    assert_int_equal(r.ev.type[0], NSCD_EVENT_CONTACT_CLOSED);
    p.force[0] = force * cos(alpha); /* pushed from t = 0.25 on */
    p.force[1] = force * sin(alpha);
    advance(&rs, &p, 1.25, 10, &r);
    finish(&rs, &p, &r);
    assert_int_equal(r.ev.n, 2);
    assert_int_equal(r.ev.type[1], NSCD_EVENT_CONTACT_SLIP);
    assert_near(r.ev.t[1], 0.25, 0.0);
    assert_near(r.q[0], 0.5 * a * cos(alpha), 1e-9);
    assert_near(r.q[1], 0.5 * a * sin(alpha), 1e-9);
    assert_near(r.v[0], a * cos(alpha), 1e-9);
    assert_near(r.v[1], a * sin(alpha), 1e-9);
    assert_true(r.energy_rise <= 1e-12);
}

/* Sideways launch on the floor: it slides straight and stops at v0 / (mu g). */
static void floor_slide_stops(void **state) {
    (void)state;
    double mu = 0.3, beta = 25.0 * PI / 180.0, speed = 2.0, alpha = 110.0 * PI / 180.0;
    plane p = {.mass = 2.0, .beta = beta, .n_tangent = 2};
    const double v0[3] = {speed * cos(alpha), speed * sin(alpha), 0.0};
    double t_stop = speed / (mu * G_ACC), d_stop = speed * speed / (2.0 * mu * G_ACC);
    result r;
    run(&p, mu, v0, 1.0, 10, &r);
    assert_int_equal(r.ev.n, 2);
    assert_int_equal(r.ev.type[1], NSCD_EVENT_CONTACT_STICK);
    assert_near(r.ev.t[1], t_stop, 1e-9);
    assert_near(r.q[0], d_stop * cos(alpha), 1e-9);
    assert_near(r.q[1], d_stop * sin(alpha), 1e-9);
    assert_near(dot3(r.v, r.v), 0.0, 1e-18);
    assert_near(r.lambda_t, 0.0, 1e-9);
    assert_true(r.energy_rise <= 1e-12);
}

/* A point sliding along a V-groove whose walls rise at alpha = 30 deg, with
 * mu = 0.3 < tan(alpha) on both walls: the walls push with
 * lambda_N = m g / (2 cos alpha) each, the friction decelerates it at
 * mu g / cos(alpha) until it stops at t = v0 cos(alpha) / (mu g), and there it
 * sticks: the normal forces alone hold it. (Of the many force distributions
 * of the two redundant sticking contacts, the minimum-norm one would lean
 * half the weight on each wall's friction, beyond its cone, and the point
 * would be taken to slide where it cannot move.) */
static void groove_slide_stops_and_sticks(void **state) {
    (void)state;
    double alpha = 30.0 * PI / 180.0, mu = 0.3, v0 = 1.0, m = 2.0;
    plane p = {.mass = m, .n_tangent = 2, .groove = alpha};
    const double v[3] = {v0, 0.0, 0.0};
    double t_stop = v0 * cos(alpha) / (mu * G_ACC);
    double d_stop = v0 * v0 * cos(alpha) / (2.0 * mu * G_ACC),
           wall_force = m * G_ACC / (2.0 * cos(alpha));
    result r;
    run(&p, mu, v, 0.5 * t_stop, 1, &r); /* halfway: sliding on both walls */
    assert_near(r.v[0], 0.5 * v0, 1e-9);
    assert_near(r.lambda_n, wall_force, 1e-9);
    assert_near(r.lambda_n1, wall_force, 1e-9);
    assert_near(r.lambda_t, mu * wall_force, 1e-9);
    assert_near(r.lambda_t1, mu * wall_force, 1e-9);
    run(&p, mu, v, 1.0, 10, &r);
    assert_int_equal(r.ev.n, 4);
    assert_int_equal(r.ev.type[0], NSCD_EVENT_CONTACT_CLOSED);
    assert_int_equal(r.ev.type[1], NSCD_EVENT_CONTACT_CLOSED);
    assert_int_equal(r.ev.type[2], NSCD_EVENT_CONTACT_STICK);
    assert_int_equal(r.ev.type[3], NSCD_EVENT_CONTACT_STICK);
    assert_near(r.ev.t[2], t_stop, 1e-9);
    assert_near(r.ev.t[3], t_stop, 1e-9);
    assert_near(r.q[0], d_stop, 1e-9);
    assert_near(r.q[1], 0.0, 1e-12);
    assert_near(r.q[2], 0.0, 1e-12);
    assert_near(dot3(r.v, r.v), 0.0, 1e-18);
    assert_int_equal(r.mode, NSCD_CONTACT_CLOSED);
    assert_near(r.lambda_n, wall_force, 1e-4);
    assert_near(r.lambda_n1, wall_force, 1e-4);
    assert_true(r.lambda_t <= 1e-4 * wall_force && r.lambda_t1 <= 1e-4 * wall_force);
    assert_true(r.energy_rise <= 1e-12);
}

/* The V-groove of above released from rest under a pull F along its axis
 * and a push F_y across it (coupled directions, issue 28: the active-set
 * search on modes let one wall give way, then the other, and left both
 * "sliding" from rest with steps of 2e-8 s, which looked like a hang).
 * Sliding, both walls stay closed with lambda_0 + lambda_1 =
 * m g / cos(alpha) and lambda_0 - lambda_1 = -F_y / sin(alpha), so the
 * friction is mu m g / cos(alpha) whatever F_y: above it the point slides
 * along the axis at a = (F - mu m g / cos(alpha)) / m; below it it sticks,
 * held by forces inside both cones (redundant: with mu > tan(alpha) one
 * wall alone can hold it, so the distribution is not unique). */
static void groove_from_rest_sticks_or_slides(void **state) {
    (void)state;
    double alpha = 30.0 * PI / 180.0, m = 2.0, v0[3] = {0.0, 0.0, 0.0};
    const double mus[3] = {0.2, 0.5, 1.0};
    for (int i = 0; i < 3; ++i) {
        double mu = mus[i], friction = mu * m * G_ACC / cos(alpha);
        for (int push = 0; push < 2; ++push) {
            double fy = push ? 0.5 * m * G_ACC * tan(alpha) : 0.0;
            for (int slides = 0; slides < 2; ++slides) {
                plane p = {.mass = m, .n_tangent = 2, .groove = alpha};
                p.force[0] = (slides ? 1.5 : 0.5) * friction;
                p.force[1] = fy;
                result r;
                run(&p, mu, v0, 0.5, 5, &r);
                double a = slides ? (p.force[0] - friction) / m : 0.0;
                print_message("# mu %g, push %d, %s: x %.12f (expected %.12f)\n", mu, push,
                              slides ? "slides" : "sticks", r.q[0], 0.5 * a * 0.25);
                assert_near(r.q[0], 0.5 * a * 0.25, 1e-9);
                assert_near(r.v[0], a * 0.5, 1e-9);
                assert_near(r.q[1], 0.0, 1e-9);
                assert_near(r.q[2], 0.0, 1e-9);
                double tol = 1e-9 * m * G_ACC;
                if (slides) { /* the forces are determined: both walls, friction along -x */
                    assert_near(r.lambda_n + r.lambda_n1, m * G_ACC / cos(alpha), tol);
                    assert_near(r.lambda_n - r.lambda_n1, -fy / sin(alpha), tol);
                } else { /* redundant: any forces in the cones that hold it */
                    assert_true(r.lambda_n >= -tol && r.lambda_n1 >= -tol);
                    assert_true(r.lambda_t <= mu * r.lambda_n + tol);
                    assert_true(r.lambda_t1 <= mu * r.lambda_n1 + tol);
                }
                assert_true(r.energy_rise <= 1e-9);
            }
        }
    }
}

/* The V-groove launched along its axis and across it at once (coupled
 * directions) from its bottom: an impact on one wall at t = 0 (e = 0),
 * then sliding on both walls along and up and down them, until the point
 * comes to rest, sticking, with the energy never rising, for mu in {0.2,
 * 0.5, 1} (issue 28): at the bottom for mu < tan(alpha); with mu = 1 it
 * may stop on a wall, which its friction holds. */
static void groove_launched_across_comes_to_rest(void **state) {
    (void)state;
    const double alpha = 30.0 * PI / 180.0, mus[3] = {0.2, 0.5, 1.0};
    for (int i = 0; i < 3; ++i) {
        plane p = {.mass = 2.0, .n_tangent = 2, .groove = alpha};
        const double v0[3] = {1.0, 0.3, 0.0};
        result r;
        run(&p, mus[i], v0, 3.0, 30, &r);
        print_message("# mu %g: %d events, rest at x = %.9f, |v| = %.3g\n", mus[i], r.ev.n, r.q[0],
                      sqrt(dot3(r.v, r.v)));
        assert_near(dot3(r.v, r.v), 0.0, 1e-18);
        if (mus[i] < tan(alpha)) { /* at the bottom */
            assert_near(r.q[1], 0.0, 1e-9);
            assert_near(r.q[2], 0.0, 1e-9);
        } else { /* friction may hold it on a wall: on it */
            assert_near(r.q[2], fabs(r.q[1]) * tan(alpha), 1e-9);
        }
        assert_true(r.q[0] > 0.0);
        assert_int_equal(r.mode, NSCD_CONTACT_CLOSED);
        assert_true(r.energy_rise <= 1e-9);
    }
}

/* A ball dropped from h = 5 cm with a horizontal velocity V0 onto the rough
 * floor (Newton e = 0.5, mu = 0.3; the tangential rows turned by 60 deg):
 * every impact slides throughout, so the tangential speed drops by mu times
 * the normal one, (1 + e) v_k; the bounces accumulate at
 * t_c = t_1 + 2 e v_1 / (g (1 - e)), where the contact closes sliding with
 * V_c = V0 - mu (1 + e) v_1 / (1 - e) (v_1 = sqrt(2 g h)); it then slides
 * along V0 and stops at t_c + V_c / (mu g). With the default zeno_velocity
 * the last bounce leaves the ball at rest and the contact closes as it
 * moves; with zeno_velocity = 1e-12 the impacts accumulate first (eight
 * closer than 1e-9 s) and the contact is closed sticking by the Zeno rule,
 * whose impact leaves it sliding: it must slide on. */
static void bouncing_ball(double zeno_velocity) {
    double e = 0.5, mu = 0.3, h = 0.05, speed = sqrt(5.0), alpha = atan2(2.0, 1.0);
    plane p = {.mass = 1.0,
               .beta = 60.0 * PI / 180.0,
               .n_tangent = 2,
               .restitution = e,
               .zeno_velocity = zeno_velocity};
    const double q0[3] = {0.0, 0.0, h}, v0[3] = {speed * cos(alpha), speed * sin(alpha), 0.0};
    double v1 = sqrt(2.0 * G_ACC * h), t1 = sqrt(2.0 * h / G_ACC);
    double t_c = t1 + 2.0 * e * v1 / (G_ACC * (1.0 - e));
    double v_c = speed - mu * (1.0 + e) * v1 / (1.0 - e);
    /* distance: V0 t_1 + sum_k V_k 2 v_k / g with v_k = e^k v1 and
     * V_k = V0 - mu (1 + e) v1 (1 - e^k) / (1 - e) */
    double s1 = e / (1.0 - e), s2 = e * e / (1.0 - e * e);
    double x_c =
        speed * t1 + 2.0 * v1 / G_ACC * (speed * s1 - mu * (1.0 + e) * v1 / (1.0 - e) * (s1 - s2));
    double t_stop = t_c + v_c / (mu * G_ACC), x_stop = x_c + v_c * v_c / (2.0 * mu * G_ACC);
    result r;
    memset(&r, 0, sizeof r);
    run_state rs = start(&p, mu, q0, v0, &r.ev);
    advance(&rs, &p, 1.5, 15, &r);
    finish(&rs, &p, &r);
    assert_true(r.ev.n < MAX_EVENTS);
    assert_true(count_type(&r.ev, NSCD_EVENT_IMPACT) >= 20);
    assert_int_equal(count_type(&r.ev, NSCD_EVENT_CONTACT_CLOSED), 1);
    assert_int_equal(r.ev.type[r.ev.n - 2], NSCD_EVENT_CONTACT_CLOSED);
    assert_near(r.ev.t[r.ev.n - 2], t_c, 1e-8);
    assert_int_equal(r.ev.type[r.ev.n - 1], NSCD_EVENT_CONTACT_STICK);
    assert_near(r.ev.t[r.ev.n - 1], t_stop, 1e-8);
    assert_near(r.q[0], x_stop * cos(alpha), 1e-8);
    assert_near(r.q[1], x_stop * sin(alpha), 1e-8);
    assert_near(r.q[2], 0.0, 1e-12);
    assert_near(dot3(r.v, r.v), 0.0, 1e-18);
    assert_true(r.energy_rise <= 1e-12);
}

static void bouncing_ball_closes_sliding(void **state) {
    (void)state;
    bouncing_ball(0.0);
}

static void bouncing_ball_zeno_closure_slides(void **state) {
    (void)state;
    bouncing_ball(1e-12);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_quadrature_is_consistent),
        cmocka_unit_test(curved_slide_stops_and_sticks),
        cmocka_unit_test(curved_slide_turns_downhill),
        cmocka_unit_test(in_plane_stop_matches_planar),
        cmocka_unit_test(floor_push_below_friction_sticks),
        cmocka_unit_test(floor_push_above_friction_slides),
        cmocka_unit_test(floor_push_from_rest_slips),
        cmocka_unit_test(floor_slide_stops),
        cmocka_unit_test(groove_slide_stops_and_sticks),
        cmocka_unit_test(groove_from_rest_sticks_or_slides),
        cmocka_unit_test(groove_launched_across_comes_to_rest),
        cmocka_unit_test(bouncing_ball_closes_sliding),
        cmocka_unit_test(bouncing_ball_zeno_closure_slides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
