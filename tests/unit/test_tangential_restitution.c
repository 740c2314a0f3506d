/* Tangential restitution e_T of Newton's law with friction (Moreau's form,
 * seed 003 eqs. 11-15) through the public API: a particle that lands on a
 * floor with a horizontal velocity, its first impact against the analytic
 * answer, and bad settings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/struct_sizes.h"
#include "models/system.h"

#define G 9.81
#define H0 1.0

/* A particle (x, z, y) over the floor y = 0: normal row (0, 0, 1), tangents
 * (1, 0, 0) and (0, 1, 0). `coupled` gives it a non-diagonal mass matrix, so
 * that the normal and tangential rows of W = H M^-1 H' are coupled. */
typedef struct particle {
    int coupled;
    double v_before[3], v_after[3];
    int impacts;
} particle;

static nscd_status mass(void *user, const double *q, double *m) {
    const particle *p = user;
    (void)q;
    const double diagonal[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const double coupled[9] = {2.0, 0.3, 0.6, 0.3, 1.5, -0.2, 0.6, -0.2, 1.0};
    memcpy(m, p->coupled ? coupled : diagonal, sizeof diagonal);
    return NSCD_OK;
}

static nscd_status gravity(void *user, double t, const double *q, const double *v, double *h) {
    (void)user, (void)t, (void)q, (void)v;
    h[0] = h[1] = 0.0;
    h[2] = -G;
    return NSCD_OK;
}

static nscd_status floor_contact(void *user, int32_t index, double t, const double *q, double *gap,
                                 double *w_normal, double *w_tangent) {
    (void)user, (void)index, (void)t;
    *gap = q[2];
    w_normal[0] = w_normal[1] = 0.0, w_normal[2] = 1.0;
    if (w_tangent != NULL) { /* n_tangent rows; the second only read when n_tangent = 2 */
        const double rows[6] = {1, 0, 0, 0, 1, 0};
        memcpy(w_tangent, rows, sizeof rows);
    }
    return NSCD_OK;
}

/* The first impact's velocities, then stop. */
static int32_t first_impact(void *user, const nscd_event_info *info) {
    particle *p = user;
    if (info->type != NSCD_EVENT_IMPACT) {
        return NSCD_EVENT_CONTINUE;
    }
    memcpy(p->v_before, info->v_before, sizeof p->v_before);
    memcpy(p->v_after, info->v_after, sizeof p->v_after);
    p->impacts++;
    return NSCD_EVENT_STOP;
}

/* Drops the particle from H0 with horizontal velocity (vx, vz) onto the floor
 * (contact desc `c`, Newton law e) and records its first impact. */
static nscd_status drop(particle *p, const nscd_contact_desc *c, double e, double vx, double vz) {
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = 3, d.n_contacts = 1, d.user = p;
    d.mass = mass, d.forces = gravity, d.contact = floor_contact;
    nscd_system *sys = NULL;
    nscd_contact_law *law = NULL;
    nscd_event_driven *ed = NULL;
    nscd_event_driven_options o;
    nscd_event_driven_options_init(&o, sizeof o);
    o.on_event = first_impact, o.on_event_user = p;
    const double q[3] = {0.0, 0.0, H0}, v[3] = {vx, vz, 0.0};
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_OK);
    assert_int_equal(nscd_contact_law_create_newton(e, NULL, &law), NSCD_OK);
    nscd_contact_desc given = *c; /* keeps the caller's struct_size */
    given.law = law;
    assert_int_equal(nscd_system_set_contact(sys, 0, &given), NSCD_OK);
    assert_int_equal(nscd_system_set_state(sys, 0.0, q, v), NSCD_OK);
    assert_int_equal(nscd_event_driven_create(sys, &o, &ed), NSCD_OK);
    nscd_status rc = nscd_event_driven_advance(ed, 2.0, NULL);
    nscd_event_driven_destroy(ed);
    nscd_contact_law_destroy(law);
    nscd_system_destroy(sys);
    return rc;
}

static nscd_contact_desc frictional(double mu, int32_t n_tangent, double e_t) {
    nscd_contact_desc c;
    nscd_contact_desc_init(&c, sizeof c);
    c.friction = mu, c.n_tangent = n_tangent, c.tangential_restitution = e_t;
    return c;
}

/* Sticking (mu large): u+_N = -e u-_N and u+_T = -e_T u-_T, in the plane
 * and in space; e_T = 1 reverses the slip. */
static void sticking_impact_restitutes_the_slip(void **state) {
    (void)state;
    const double e = 0.5, vx = 0.3, vz = -0.2, un = -sqrt(2.0 * G * H0);
    const double e_ts[3] = {0.0, 0.5, 1.0};
    for (int k = 0; k < 3; ++k) {
        for (int32_t nt = 1; nt <= 2; ++nt) {
            particle p = {0};
            nscd_contact_desc c = frictional(1.0, nt, e_ts[k]);
            assert_int_equal(drop(&p, &c, e, vx, vz), NSCD_OK);
            assert_int_equal(p.impacts, 1);
            assert_true(fabs(p.v_before[2] - un) < 1e-9);
            assert_true(fabs(p.v_after[2] + e * p.v_before[2]) < 1e-9);
            assert_true(fabs(p.v_after[0] + e_ts[k] * vx) < 1e-9);
            /* z is a tangent only in space; in the plane it keeps its velocity */
            double z_after = nt == 2 ? -e_ts[k] * vz : vz;
            assert_true(fabs(p.v_after[1] - z_after) < 1e-9);
        }
    }
}

/* Sliding (mu small): friction is saturated, r_T = -mu r_N along the slip,
 * with or without e_T: u+_T = u-_T - mu (1 + e) |u-_N| on the decoupled
 * particle. */
static void sliding_impact_is_saturated_friction(void **state) {
    (void)state;
    const double e = 0.5, mu = 0.1, vx = 1.0;
    for (int k = 0; k < 2; ++k) {
        particle p = {0};
        nscd_contact_desc c = frictional(mu, 1, k == 0 ? 0.0 : 1.0);
        assert_int_equal(drop(&p, &c, e, vx, 0.0), NSCD_OK);
        double expected = vx - mu * (1.0 + e) * fabs(p.v_before[2]);
        assert_true(fabs(p.v_after[0] - expected) < 1e-9);
        assert_true(fabs(p.v_after[2] + e * p.v_before[2]) < 1e-9);
    }
}

/* e_T = e_N = 1 on coupled rows (non-diagonal mass): a sticking impact
 * reverses the whole velocity (u+ = -u-, and H is invertible), so the
 * kinetic energy is kept and the energy check lets it pass. */
static void elastic_sticking_reverses_coupled_velocity(void **state) {
    (void)state;
    particle p = {.coupled = 1};
    nscd_contact_desc c = frictional(50.0, 2, 1.0);
    nscd_status rc = drop(&p, &c, 1.0, 0.4, -0.3);
    assert_int_equal(rc, NSCD_OK);
    for (int i = 0; i < 3; ++i) {
        print_message("# v- %.12f  v+ %.12f\n", p.v_before[i], p.v_after[i]);
        assert_true(fabs(p.v_after[i] + p.v_before[i]) < 1e-9);
    }
}

/* e_T = 0 is the 0.1 behaviour bitwise: the same impact as a 0.1 desc. */
static void zero_is_the_first_release_bitwise(void **state) {
    (void)state;
    nscd_contact_desc c = frictional(1.0, 2, 0.0);
    nscd_contact_desc *old = malloc(sizeof c);
    assert_non_null(old);
    memcpy(old, &c, sizeof c);
    old->struct_size = (uint32_t)NSCD__CONTACT_DESC_SIZE_0_1;
    particle a = {.coupled = 1}, b = {.coupled = 1};
    assert_int_equal(drop(&a, &c, 0.5, 0.3, -0.2), NSCD_OK);
    assert_int_equal(drop(&b, old, 0.5, 0.3, -0.2), NSCD_OK);
    assert_memory_equal(a.v_after, b.v_after, sizeof a.v_after);
    free(old);
}

/* Out of [0, 1] or not finite: refused, the contact keeps its settings. */
static void bad_tangential_restitution_is_refused(void **state) {
    (void)state;
    particle p = {0};
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = 3, d.n_contacts = 1, d.user = &p;
    d.mass = mass, d.contact = floor_contact;
    nscd_system *sys = NULL;
    assert_int_equal(nscd_system_create(&d, &sys), NSCD_OK);
    nscd_contact_desc c = frictional(0.5, 1, 0.25);
    assert_int_equal(nscd_system_set_contact(sys, 0, &c), NSCD_OK);
    const nscd__contact_slot *slot = &nscd__system_model(sys)->contacts[0];
    assert_true(slot->tangential_restitution == 0.25);
    const double bad[] = {-0.1, 1.0 + 1e-12, 2.0, NAN, INFINITY};
    for (int k = 0; k < 5; ++k) {
        nscd_contact_desc b = frictional(0.9, 2, bad[k]);
        nscd_status expected = isfinite(bad[k]) ? NSCD_ERR_OUT_OF_RANGE : NSCD_ERR_NOT_FINITE;
        assert_int_equal(nscd_system_set_contact(sys, 0, &b), expected);
        assert_non_null(strstr(nscd_system_last_error(sys), "tangential restitution"));
        assert_true(slot->tangential_restitution == 0.25 && slot->friction == 0.5);
    }
    nscd_system_destroy(sys);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sticking_impact_restitutes_the_slip),
        cmocka_unit_test(sliding_impact_is_saturated_friction),
        cmocka_unit_test(elastic_sticking_reverses_coupled_velocity),
        cmocka_unit_test(zero_is_the_first_release_bitwise),
        cmocka_unit_test(bad_tangential_restitution_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
