/* The Poisson and Routh rules of the impact solver (contact/impacts/impact.c), on
 * systems whose answers are known by hand or from the pure Routh kernel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "assert_near.h"

#include <math.h>
#include <string.h>

#include "contact/impacts/impact.h"
#include "models/system.h"
#include "nscd/nscd.h"

/* ------------------------------------------- three particles on a line */

/* x1 < x2 < x3 with masses 1, 2, 1; contact 0 between 1 and 2, contact 1
 * between 2 and 3 (gap = x_right - x_left). */
static const double chain_mass[3] = {1.0, 2.0, 1.0};

static nscd_status chain_mass_fn(void *user, const double *q, double *M) {
    (void)user, (void)q;
    memset(M, 0, 9 * sizeof(double));
    for (int i = 0; i < 3; ++i) {
        M[4 * i] = chain_mass[i];
    }
    return NSCD_OK;
}

static nscd_status chain_contact(void *user, int32_t index, double t, const double *q, double *gap,
                                 double *w_normal, double *w_tangent) {
    (void)user, (void)t;
    memset(w_normal, 0, 3 * sizeof(double));
    if (w_tangent != NULL) { /* Routh's law needs a tangential row: none moves here */
        memset(w_tangent, 0, 3 * sizeof(double));
    }
    w_normal[index] = -1.0;
    w_normal[index + 1] = 1.0;
    *gap = q[index + 1] - q[index];
    return NSCD_OK;
}

enum { NEWTON, POISSON, ROUTH };

static nscd_system *chain(double e0, double e1, int kind) {
    nscd_system_desc desc;
    nscd_system_desc_init(&desc, sizeof desc);
    desc.n_dof = 3;
    desc.n_contacts = 2;
    desc.mass = chain_mass_fn;
    desc.contact = chain_contact;
    nscd_system *sys = NULL;
    assert_int_equal(nscd_system_create(&desc, &sys), NSCD_OK);
    for (int i = 0; i < 2; ++i) {
        nscd_contact_law *law = NULL;
        double e = i == 0 ? e0 : e1;
        nscd_status rc = kind == POISSON ? nscd_contact_law_create_poisson(e, NULL, &law)
                         : kind == ROUTH ? nscd_contact_law_create_routh(e, NULL, &law)
                                         : nscd_contact_law_create_newton(e, NULL, &law);
        assert_int_equal(rc, NSCD_OK);
        nscd_contact_desc c;
        nscd_contact_desc_init(&c, sizeof c);
        c.law = law;
        c.n_tangent = kind == ROUTH ? 1 : 0;
        assert_int_equal(nscd_system_set_contact(sys, i, &c), NSCD_OK);
        nscd_contact_law_destroy(law);
    }
    return sys;
}

/* Resolves an impact of the contacts `contacts` at (q, v); v is updated. */
static nscd_status impact_of(nscd_system *sys, int32_t count, const int32_t *contacts,
                             const double *q, double *v, double *impulse) {
    nscd__model *m = nscd__system_model(sys);
    nscd__impact_work work;
    nscd__arena arena;
    nscd__arena_init(&arena, m->allocator);
    assert_int_equal(nscd__impact_work_create(m, &arena, &work), NSCD_OK);
    double values[2 * 9], gap, before[2], after[2];
    nscd__rows rows[2];
    for (int32_t r = 0; r < count; ++r) {
        rows[r].values = values + 9 * r;
        assert_int_equal(m->entry(m->self, contacts[r], 0.0, q, &gap, &rows[r]), NSCD_OK);
    }
    nscd__impact impact = {count, contacts, rows, 0, impulse, before, after, 0.0};
    nscd_status rc = nscd__resolve_impact(m, &work, q, &impact, v);
    nscd__impact_work_destroy(m->allocator, &work);
    nscd__arena_release(&arena);
    return rc;
}

/* Ball 1 hits the resting pair 2-3. Compression ends with all three at v/4
 * (P_c = 3/4, 1/4); restitution adds e P_c. With e = (1, 0) that leaves
 * 2 and 3 approaching, and the restitution LCP adds x = 1/4 at contact 1:
 * v+ = (-1/2, 1/2, 1/2). With equal e the restitution impulses suffice:
 * v+ = ((1 - 3e)/4, (1 + e)/4, (1 + e)/4). */
static void poisson_chain_of_three(void **state) {
    (void)state;
    const double q[3] = {0.0, 0.0, 0.0};
    const int32_t both[2] = {0, 1};
    for (int k = 0; k < 2; ++k) {
        double e0 = k == 0 ? 1.0 : 0.6, e1 = k == 0 ? 0.0 : 0.6;
        nscd_system *sys = chain(e0, e1, POISSON);
        double v[3] = {1.0, 0.0, 0.0}, P[2];
        assert_int_equal(impact_of(sys, 2, both, q, v, P), NSCD_OK);
        double expected[3] = {-0.5, 0.5, 0.5};
        if (k == 1) {
            expected[0] = (1.0 - 3.0 * e0) / 4.0;
            expected[1] = expected[2] = (1.0 + e0) / 4.0;
        }
        for (int i = 0; i < 3; ++i) {
            assert_near(v[i], expected[i], 1e-14);
        }
        double kinetic = 0.0;
        for (int i = 0; i < 3; ++i) {
            kinetic += 0.5 * chain_mass[i] * v[i] * v[i];
        }
        assert_true(kinetic <= 0.5 + 1e-14); /* never more than before */
        nscd_system_destroy(sys);
    }
}

/* One frictionless contact: Poisson and Newton agree, c+ = -e c-. */
static void poisson_single_contact_is_newton(void **state) {
    (void)state;
    const double q[3] = {0.0, 0.0, 0.3};
    const int32_t first[1] = {0};
    double vp[3] = {2.0, -1.0, 0.0}, vn[3] = {2.0, -1.0, 0.0}, P[1];
    nscd_system *poisson = chain(0.7, 0.7, POISSON), *newton = chain(0.7, 0.7, NEWTON);
    assert_int_equal(impact_of(poisson, 1, first, q, vp, P), NSCD_OK);
    assert_int_equal(impact_of(newton, 1, first, q, vn, P), NSCD_OK);
    for (int i = 0; i < 3; ++i) {
        assert_near(vp[i], vn[i], 1e-14);
    }
    assert_near(vp[1] - vp[0], 0.7 * 3.0, 1e-14);
    nscd_system_destroy(poisson);
    nscd_system_destroy(newton);
}

/* ---------------------------------------------- the pendulum of seed 000 */

typedef struct pendulum {
    double flip; /* +1: the paper's tangent, -1: the mirrored tangent */
} pendulum;

static const double m1 = 3.2, m2 = 3.8, l1 = 0.5, l2 = 0.6, rr = 0.05, lc = 0.3627, I1 = 6.76e-2,
                    I2 = 0.164, D = 0.9;

static void mass_2x2(const double *q, double A[4]) {
    A[0] = I1 + l1 * l1 * (m1 / 4 + m2);
    A[1] = A[2] = l1 * lc * m2 * cos(q[0] - q[1]);
    A[3] = I2 + lc * lc * m2;
}

static nscd_status pendulum_mass(void *user, const double *q, double *A) {
    (void)user;
    mass_2x2(q, A);
    return NSCD_OK;
}

static nscd_status pendulum_contact(void *user, int32_t index, double t, const double *q,
                                    double *gap, double *wn, double *wt) {
    (void)index, (void)t;
    const pendulum *p = user;
    *gap = D - l1 * cos(q[0]) - (l2 + rr) * cos(q[1]) - rr;
    wn[0] = l1 * sin(q[0]);
    wn[1] = (l2 + rr) * sin(q[1]);
    if (wt != NULL) {
        wt[0] = -p->flip * l1 * cos(q[0]);
        wt[1] = -p->flip * (rr + (l2 + rr) * cos(q[1]));
    }
    return NSCD_OK;
}

static nscd_system *pendulum_system(pendulum *p, double mu, double e, int32_t n_tangent) {
    nscd_system_desc desc;
    nscd_system_desc_init(&desc, sizeof desc);
    desc.n_dof = 2;
    desc.n_contacts = 1;
    desc.user = p;
    desc.mass = pendulum_mass;
    desc.contact = pendulum_contact;
    nscd_system *sys = NULL;
    assert_int_equal(nscd_system_create(&desc, &sys), NSCD_OK);
    nscd_contact_law *law = NULL;
    assert_int_equal(nscd_contact_law_create_routh(e, NULL, &law), NSCD_OK);
    nscd_contact_desc c;
    nscd_contact_desc_init(&c, sizeof c);
    c.law = law;
    c.friction = mu;
    c.n_tangent = n_tangent;
    assert_int_equal(nscd_system_set_contact(sys, 0, &c), NSCD_OK);
    nscd_contact_law_destroy(law);
    return sys;
}

/* The expected jump from the pure kernel, with G built here by hand. */
static void kernel_jump(const double *q, const double *v, double mu, double e, double *v_after) {
    pendulum paper = {1.0};
    double A[4], wn[2], wt[2], gap;
    mass_2x2(q, A);
    pendulum_contact(&paper, 0, 0.0, q, &gap, wn, wt);
    double det = A[0] * A[3] - A[1] * A[2];
    double Ainv[4] = {A[3] / det, -A[1] / det, -A[2] / det, A[0] / det};
    double mt[2] = {Ainv[0] * wt[0] + Ainv[1] * wt[1], Ainv[2] * wt[0] + Ainv[3] * wt[1]};
    double mn[2] = {Ainv[0] * wn[0] + Ainv[1] * wn[1], Ainv[2] * wn[0] + Ainv[3] * wn[1]};
    double G[4] = {wt[0] * mt[0] + wt[1] * mt[1], wt[0] * mn[0] + wt[1] * mn[1],
                   wn[0] * mt[0] + wn[1] * mt[1], wn[0] * mn[0] + wn[1] * mn[1]};
    double u0[2] = {wt[0] * v[0] + wt[1] * v[1], wn[0] * v[0] + wn[1] * v[1]}, P[2], u1[2];
    assert_int_equal(nscd_routh_impact(G, u0, mu, e, P, u1), NSCD_OK);
    for (int i = 0; i < 2; ++i) {
        v_after[i] = v[i] + mt[i] * P[0] + mn[i] * P[1];
    }
}

static void routh_rule_matches_the_kernel_for_either_tangent_sign(void **state) {
    (void)state;
    /* configurations with the disk on the floor (gap 0 is not needed by the
     * solver; only rows and velocities matter) and approaching velocities */
    const double cases[][4] = {{2.0, -1.2, 1.0, -3.0},
                               {0.3, -0.9, 0.5, -2.0},
                               {0.1, -1.0, 0.0, -0.3},
                               {-0.2, 0.9, -1.0, 2.5}};
    const double mus[3] = {0.0, 0.15, 0.8};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        for (int j = 0; j < 3; ++j) {
            double expected[2];
            const double *q = cases[k];
            /* approaching: the sign of v chosen so that c0 = W_N v < 0 */
            double c0 = l1 * sin(q[0]) * cases[k][2] + (l2 + rr) * sin(q[1]) * cases[k][3];
            double v0[2] = {cases[k][2], cases[k][3]};
            if (c0 >= 0.0) {
                v0[0] = -v0[0];
                v0[1] = -v0[1];
            }
            kernel_jump(q, v0, mus[j], 0.9, expected);
            for (int f = 0; f < 2; ++f) {
                pendulum p = {f == 0 ? 1.0 : -1.0};
                nscd_system *sys = pendulum_system(&p, mus[j], 0.9, 1);
                double v[2] = {v0[0], v0[1]}, P[1];
                const int32_t first[1] = {0};
                nscd__model *m = nscd__system_model(sys);
                nscd__impact_work work;
                nscd__arena arena;
                nscd__arena_init(&arena, m->allocator);
                assert_int_equal(nscd__impact_work_create(m, &arena, &work), NSCD_OK);
                double values[4], gap, before, after, *row = values;
                pendulum_contact(&p, 0, 0.0, q, &gap, values, values + 2);
                nscd__rows rows;
                nscd__rows_dense(&rows, 2, 2, values);
                nscd__impact impact = {1, first, &rows, 0, P, &before, &after, 0.0};
                nscd_status rc = nscd__resolve_impact(m, &work, q, &impact, v);
                nscd__impact_work_destroy(m->allocator, &work);
                nscd__arena_release(&arena);
                assert_int_equal(rc, NSCD_OK);
                double scale = fabs(v0[0]) + fabs(v0[1]);
                assert_near(v[0], expected[0], 1e-12 * scale);
                assert_near(v[1], expected[1], 1e-12 * scale);
                assert_near(after, row[0] * v[0] + row[1] * v[1], 1e-12 * scale);
                assert_true(P[0] > 0.0);
                nscd_system_destroy(sys);
            }
        }
    }
}

static void routh_rule_needs_one_tangent_and_one_contact(void **state) {
    (void)state;
    pendulum p = {1.0};
    nscd_system *sys = pendulum_system(&p, 0.15, 0.9, 1);
    /* the system refuses a Routh law without exactly one tangential row ... */
    nscd_contact_law *law = NULL;
    assert_int_equal(nscd_contact_law_create_routh(0.9, NULL, &law), NSCD_OK);
    nscd_contact_desc c;
    nscd_contact_desc_init(&c, sizeof c);
    c.law = law, c.friction = 0.15;
    for (int32_t n_tangent = 0; n_tangent <= 2; n_tangent += 2) {
        c.n_tangent = n_tangent;
        assert_int_equal(nscd_system_set_contact(sys, 0, &c), NSCD_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(nscd_system_last_error(sys), "n_tangent"));
    }
    nscd_contact_law_destroy(law);
    /* ... and the impact rule still checks it, should a slot ever hold one */
    nscd__model *m = nscd__system_model(sys);
    assert_int_equal(m->contacts[0].n_tangent, 1);
    m->contacts[0].n_tangent = 0;
    nscd__impact_work work;
    nscd__arena arena;
    nscd__arena_init(&arena, m->allocator);
    assert_int_equal(nscd__impact_work_create(m, &arena, &work), NSCD_OK);
    const double q[2] = {2.0, -1.2};
    double v[2] = {1.0, -3.0}, P[2], values[4], gap, before[2], after[2];
    pendulum_contact(&p, 0, 0.0, q, &gap, values, values + 2);
    nscd__rows rows;
    nscd__rows_dense(&rows, 2, 2, values);
    const int32_t first[1] = {0};
    nscd__impact impact = {1, first, &rows, 0, P, before, after, 0.0};
    assert_int_equal(nscd__resolve_impact(m, &work, q, &impact, v), NSCD_ERR_INVALID_ARGUMENT);
    assert_true(v[0] == 1.0 && v[1] == -3.0);
    assert_non_null(strstr(nscd_system_last_error(sys), "n_tangent"));
    nscd__impact_work_destroy(m->allocator, &work);
    nscd__arena_release(&arena);
    nscd_system_destroy(sys);

    /* two Routh contacts at once: not Routh's problem any more */
    nscd_system *two = chain(0.5, 0.5, ROUTH);
    const double qc[3] = {0.0, 0.0, 0.0};
    const int32_t both[2] = {0, 1};
    double vc[3] = {1.0, 0.0, 0.0}, Pc[2];
    assert_int_equal(impact_of(two, 2, both, qc, vc, Pc), NSCD_ERR_UNSUPPORTED);
    assert_true(vc[0] == 1.0 && vc[1] == 0.0 && vc[2] == 0.0);
    nscd_system_destroy(two);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(poisson_chain_of_three),
        cmocka_unit_test(poisson_single_contact_is_newton),
        cmocka_unit_test(routh_rule_matches_the_kernel_for_either_tangent_sign),
        cmocka_unit_test(routh_rule_needs_one_tangent_and_one_contact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
