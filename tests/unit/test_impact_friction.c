/* Frictional impacts of several contacts (contact/impacts/impact_friction.c):
 * Newton's law in Moreau's form and Poisson's law in Pfeiffer and Glocker's
 * two phases, against hand formulas, Routh's method, an independent
 * enumeration of the stick / slip / open cases (the numbers come from
 * tests/unit/frictional_impacts_reference.py), the frictionless LCP paths
 * and the energy balance. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/solvers/fc3d_internal.h"
#include "contact/solvers/fc3d_local.h"
#include "contact/impacts/impact.h"
#include "contact/impacts/impact_rules.h"
#include "models/system.h"
#include "nscd/nscd.h"
#include "single_contact_reference.h"

/* ------------------------------------------------------------------ models */

enum { PLANAR_BLOCK, FIXED_ROWS };
enum { NEWTON, POISSON, ROUTH };
#define MAX_V 6
#define MAX_C 8

/* PLANAR_BLOCK: a rectangle with q = (x, y, theta), M = diag(m, m, I); its
 * corner i (body frame) has the gap y + p_y, the normal row (0, 1, p_x) and
 * the tangential row (1, 0, -p_y), p = R(theta) corner_i.
 * FIXED_ROWS: rows given per contact (normal, then two tangents), any M. */
typedef struct model {
    int kind;
    int32_t n_v, n_contacts;
    double M[MAX_V * MAX_V];
    double corner[MAX_C][2];
    double rows[MAX_C][3][MAX_V];
    int32_t n_tangent[MAX_C]; /* FIXED_ROWS: tangential rows written by the callback */
} model;

static nscd_status model_mass(void *user, const double *q, double *M) {
    (void)q;
    const model *md = user;
    memcpy(M, md->M, (size_t)(md->n_v * md->n_v) * sizeof(double));
    return NSCD_OK;
}

static nscd_status model_contact(void *user, int32_t index, double t, const double *q, double *gap,
                                 double *wn, double *wt) {
    (void)t;
    const model *md = user;
    int32_t n = md->n_v;
    if (md->kind == PLANAR_BLOCK) {
        double c = cos(q[2]), s = sin(q[2]);
        double px = c * md->corner[index][0] - s * md->corner[index][1];
        double py = s * md->corner[index][0] + c * md->corner[index][1];
        *gap = q[1] + py;
        wn[0] = 0.0, wn[1] = 1.0, wn[2] = px;
        if (wt != NULL) {
            wt[0] = 1.0, wt[1] = 0.0, wt[2] = -py;
        }
        return NSCD_OK;
    }
    *gap = 0.0;
    memcpy(wn, md->rows[index][0], (size_t)n * sizeof(double));
    if (wt != NULL) {
        memcpy(wt, md->rows[index][1], (size_t)(md->n_tangent[index] * n) * sizeof(double));
    }
    return NSCD_OK;
}

/* m = 1, half sizes a = 0.5, b = 0.2 (the reference script's block). */
static model block(void) {
    model md;
    memset(&md, 0, sizeof md);
    md.kind = PLANAR_BLOCK;
    md.n_v = 3;
    md.n_contacts = 2;
    double m = 1.0, a = 0.5, b = 0.2;
    md.M[0] = md.M[4] = m;
    md.M[8] = m * (4.0 * a * a + 4.0 * b * b) / 12.0;
    md.corner[0][0] = -a, md.corner[0][1] = -b;
    md.corner[1][0] = a, md.corner[1][1] = -b;
    return md;
}

static nscd_contact_law *make_law(int kind, double e) {
    nscd_contact_law *law = NULL;
    nscd_status rc = kind == POISSON ? nscd_contact_law_create_poisson(e, NULL, &law)
                     : kind == ROUTH ? nscd_contact_law_create_routh(e, NULL, &law)
                                     : nscd_contact_law_create_newton(e, NULL, &law);
    assert_int_equal(rc, NSCD_OK);
    return law;
}

/* A system of md with the law `kind` on every contact, restitution e[i],
 * friction mu[i] and n_tangent[i]. */
static nscd_system *make_system(model *md, int kind, const double *e, const double *mu,
                                const int32_t *n_tangent) {
    nscd_system_desc desc;
    nscd_system_desc_init(&desc, sizeof desc);
    desc.n_dof = md->n_v;
    desc.n_contacts = md->n_contacts;
    desc.user = md;
    desc.mass = model_mass;
    desc.contact = model_contact;
    nscd_system *sys = NULL;
    assert_int_equal(nscd_system_create(&desc, &sys), NSCD_OK);
    for (int32_t i = 0; i < md->n_contacts; ++i) {
        nscd_contact_law *law = make_law(kind, e[i]);
        nscd_contact_desc c;
        nscd_contact_desc_init(&c, sizeof c);
        c.law = law;
        c.friction = mu[i];
        c.n_tangent = n_tangent[i];
        md->n_tangent[i] = n_tangent[i];
        assert_int_equal(nscd_system_set_contact(sys, i, &c), NSCD_OK);
        nscd_contact_law_destroy(law);
    }
    return sys;
}

/* What one impact did. */
typedef struct outcome {
    nscd_status rc;
    double P[MAX_C], Pt[2 * MAX_C], before[MAX_C], after[MAX_C];
    double energy_change, energy_reference;
    nscd_fc3d_info info;
} outcome;

enum { DISPATCH, FRICTION_NEWTON, FRICTION_POISSON };

/* Resolves the impact of `contacts` at (q, v) (v updated) the way the
 * stepper does: through nscd__resolve_impact (DISPATCH), or straight through
 * nscd__resolve_friction with the given rule. `tune` may change the work's
 * options first. */
static outcome impact_ex(nscd_system *sys, int32_t count, const int32_t *contacts, const double *q,
                         double *v, int path, int plastic, void (*tune)(nscd__impact_work *work)) {
    nscd__model *m = nscd__system_model(sys);
    nscd__impact_work work;
    nscd__arena arena;
    nscd__arena_init(&arena, m->allocator);
    assert_int_equal(nscd__impact_work_create(m, &arena, &work), NSCD_OK);
    if (tune != NULL) {
        tune(&work);
    }
    outcome out;
    memset(&out, 0, sizeof out);
    double values[MAX_C * 3 * MAX_V], gap;
    nscd__rows rows[MAX_C];
    for (int32_t r = 0; r < count; ++r) {
        rows[r].values = values + r * 3 * m->n_v;
        assert_int_equal(m->entry(m->self, contacts[r], 0.0, q, &gap, &rows[r]), NSCD_OK);
    }
    nscd__impact impact = {count, contacts, rows, plastic, out.P, out.before, out.after, 0.0};
    if (path == DISPATCH) {
        out.rc = nscd__resolve_impact(m, &work, q, &impact, v);
    } else {
        int32_t rule = path == FRICTION_POISSON ? NSCD__IMPACT_POISSON : NSCD__IMPACT_NEWTON;
        out.rc = nscd__resolve_friction(m, &work, q, &impact, rule, v);
    }
    memcpy(out.Pt, work.impulse_tangent, (size_t)(2 * count) * sizeof(double));
    out.energy_change = work.energy_change;
    out.energy_reference = work.energy_reference;
    out.info = work.fc3d_info;
    nscd__impact_work_destroy(m->allocator, &work);
    nscd__arena_release(&arena);
    return out;
}

static outcome impact(nscd_system *sys, int32_t count, const int32_t *contacts, const double *q,
                      double *v) {
    return impact_ex(sys, count, contacts, q, v, DISPATCH, 0, NULL);
}

static double kinetic(const model *md, const double *v) {
    double T = 0.0;
    for (int32_t i = 0; i < md->n_v; ++i) {
        for (int32_t j = 0; j < md->n_v; ++j) {
            T += 0.5 * v[i] * md->M[i * md->n_v + j] * v[j];
        }
    }
    return T;
}

/* |a - b| <= tol in double precision (cmocka's assert_float_equal converts to
 * float, and without parentheses around its arguments). */
#define assert_near(a, b, tol) assert_near_impl((a), (b), (tol), __FILE__, __LINE__)
static void assert_near_impl(double a, double b, double tol, const char *file, int line) {
    if (!(fabs(a - b) <= tol)) {
        fail_msg("%s:%d: %.17g vs %.17g (difference %.3g > %.3g)", file, line, a, b, fabs(a - b),
                 tol);
    }
}

static void assert_vec_close(const double *x, const double *y, int n, double tol) {
    for (int i = 0; i < n; ++i) {
        if (!(fabs(x[i] - y[i]) <= tol)) {
            fail_msg("component %d: %.17g vs %.17g (tolerance %g)", i, x[i], y[i], tol);
        }
    }
}

static const int32_t both[2] = {0, 1};
static const int32_t first[1] = {0};

/* ----------------------------------------- one corner: the Moreau answer */

/* The tilted block's corner 0 at theta = 0.6: normal row (0, 1, p_x),
 * tangential row (1, 0, -p_y), W = [[1/m + p_x^2/I, -p_x p_y/I], [., 1/m +
 * p_y^2/I]]. Moreau with xi_n = u+_n + e u-_n: sliding
 * in direction d gives r = r_n (1, -mu d), r_n = -(1 + e) u_n / (W_nn - mu d W_nt),
 * consistent when the slip after impact u_t + (W_tn - mu d W_tt) r_n has the
 * sign d (here d = -1: the slip reverses during the impact);
 * sticking gives r = -W^-1 (u_n (1 + e), u_t). Both checked against these
 * formulas and against the enumeration's v+. */
static void moreau_single_corner(double theta, const double v0[3], double mu, double e,
                                 double r_out[2], int *sticks) {
    double c = cos(theta), s = sin(theta), a = 0.5, b = 0.2, I = (1.0 + 0.16) / 12.0;
    double px = c * -a - s * -b, py = s * -a + c * -b;
    double wnn = 1.0 + px * px / I, wnt = -px * py / I, wtt = 1.0 + py * py / I;
    double un = v0[1] + px * v0[2], ut = v0[0] - py * v0[2];
    double qn = (1.0 + e) * un, det = wnn * wtt - wnt * wnt;
    double stick[2] = {-(wtt * qn - wnt * ut) / det, -(wnn * ut - wnt * qn) / det};
    *sticks = fabs(stick[1]) <= mu * stick[0];
    if (*sticks) {
        r_out[0] = stick[0], r_out[1] = stick[1];
        return;
    }
    /* sliding in direction d: consistent when the slip after impact has the
     * sign d; exactly one direction is (the enumeration found one solution) */
    int found = 0;
    for (int k = 0; k < 2; ++k) {
        double d = k == 0 ? 1.0 : -1.0, den = wnn - mu * d * wnt;
        double rn = -qn / den;
        if (den > 0.0 && rn > 0.0 && d * (ut + (wnt - mu * d * wtt) * rn) > 0.0) {
            r_out[0] = rn;
            r_out[1] = -mu * d * rn;
            ++found;
        }
    }
    assert_int_equal(found, 1);
}

/* The block's velocity after the corner-0 impulse r = (r_n, r_t) at theta:
 * v+ = v- + M^-1 (w_n r_n + w_t r_t), with the rows of moreau_single_corner. */
static void moreau_single_corner_velocity(double theta, const double v0[3], const double r[2],
                                          double v[3]) {
    double c = cos(theta), s = sin(theta), a = 0.5, b = 0.2, I = (1.0 + 0.16) / 12.0;
    double px = c * -a - s * -b, py = s * -a + c * -b;
    v[0] = v0[0] + r[1];
    v[1] = v0[1] + r[0];
    v[2] = v0[2] + (px * r[0] - py * r[1]) / I;
}

static void single_corner_case(const double v0[3], double mu, double e, int expect_stick,
                               const double expected[3]) {
    model md = block();
    md.n_contacts = 1;
    const int32_t nt[1] = {1};
    nscd_system *sys = make_system(&md, NEWTON, &e, &mu, nt);
    const double q[3] = {0.0, 0.0, 0.6};
    double v[3] = {v0[0], v0[1], v0[2]}, r[2] = {0.0, 0.0};
    int sticks = 0;
    moreau_single_corner(0.6, v0, mu, e, r, &sticks);
    assert_int_equal(sticks, expect_stick);
    outcome o = impact(sys, 1, first, q, v);
    assert_int_equal(o.rc, NSCD_OK);
    assert_vec_close(v, expected, 3, 1e-12);
    assert_near(o.P[0], r[0], 1e-12);
    assert_near(o.Pt[0], r[1], 1e-12);
    assert_true(o.Pt[1] == 0.0);
    assert_near(o.after[0], -e * o.before[0], 1e-12); /* xi_n = 0 */
    assert_near(o.energy_change, kinetic(&md, v) - kinetic(&md, v0), 1e-12);
    assert_true(o.energy_change < 0.0);
    nscd_system_destroy(sys);
}

static void single_corner_sliding_and_sticking(void **state) {
    (void)state;
    /* sliding: mu = 0.2, e = 0.5 (enumeration: 'slide-', i.e. r_t < 0) */
    const double v_slide[3] = {1.0, -2.0, 0.5};
    const double after_slide[3] = {1.3904194676926522, -0.047902661536737723, -3.7460467875644978};
    single_corner_case(v_slide, 0.2, 0.5, 0, after_slide);
    /* sticking: mu = 1.5, e = 0 */
    const double v_stick[3] = {0.3, -2.0, 0.5};
    const double after_stick[3] = {0.79299023675072478, -0.53128415940885887, -1.7724874141090523};
    single_corner_case(v_stick, 1.5, 0.0, 1, after_stick);
}

/* Moreau's law with e > 0 and no tangential restitution creates energy when
 * a contact with normal-tangential coupling sticks: here u+ = (2.899, 0)
 * after u- = (-2.899, 2.092) with e = 1 gives dT = +1.048 (enumeration and
 * hand formula). The impact must fail and leave v alone. */
static void newton_energy_gain_is_an_error(void **state) {
    (void)state;
    model md = block();
    md.n_contacts = 1;
    const double e = 1.0, mu = 1.5;
    const int32_t nt[1] = {1};
    nscd_system *sys = make_system(&md, NEWTON, &e, &mu, nt);
    const double q[3] = {0.0, 0.0, 0.6}, v0[3] = {0.75, -2.0, 3.0};
    double v[3] = {v0[0], v0[1], v0[2]}, r[2];
    int sticks = 0;
    moreau_single_corner(0.6, v0, mu, e, r, &sticks);
    assert_true(sticks);
    outcome o = impact(sys, 1, first, q, v);
    assert_int_equal(o.rc, NSCD_ERR_UNSUPPORTED);
    assert_true(v[0] == v0[0] && v[1] == v0[1] && v[2] == v0[2]);
    double v_moreau[3]; /* the energy the hand formula's impulse creates (about +1.048) */
    moreau_single_corner_velocity(0.6, v0, r, v_moreau);
    double dT = kinetic(&md, v_moreau) - kinetic(&md, v0);
    assert_true(dT > 0.0);
    assert_near(o.energy_change, dT, 1e-12 * kinetic(&md, v0));
    assert_non_null(strstr(nscd_system_last_error(sys), "create kinetic energy"));
    assert_non_null(strstr(nscd_system_last_error(sys), "Poisson"));
    nscd_system_destroy(sys);

    /* the same impact with Poisson's law is dissipative */
    sys = make_system(&md, POISSON, &e, &mu, nt);
    o = impact(sys, 1, first, q, v);
    assert_int_equal(o.rc, NSCD_OK);
    assert_true(kinetic(&md, v) < kinetic(&md, v0));
    nscd_system_destroy(sys);
}

/* --------------------------------------- one contact: Poisson vs Routh */

/* Poisson's law with friction on one planar contact equals Routh's method
 * when the slip does not reverse: sliding throughout (Fig. 4a of seed 000),
 * sticking in compression (4b) or restitution (4d), sticking from rest and
 * sliding from rest. Where the slip reverses (4c, 4e) the two phases of
 * Pfeiffer and Glocker only see the slip at the end of each phase: they
 * differ from Routh (and this test shows by how much). */
static void poisson_agrees_with_routh_without_reversal(void **state) {
    (void)state;
    model md = block();
    md.n_contacts = 1;
    const int32_t nt[1] = {1};
    const double q[3] = {0.0, 0.0, 0.8}, e = 0.6;
    int seen[7] = {0}, compared = 0;
    double largest_same = 0.0, smallest_reversal = INFINITY;
    const double mus[3] = {0.1, 0.35, 0.9};
    for (int im = 0; im < 3; ++im) {
        double mu = mus[im];
        nscd_system *routh = make_system(&md, ROUTH, &e, &mu, nt);
        nscd_system *poisson = make_system(&md, POISSON, &e, &mu, nt);
        for (int k = 0; k <= 40; ++k) {
            double v0[3] = {-2.0 + 0.1 * k, -1.5, 0.4};
            double vr[3] = {v0[0], v0[1], v0[2]}, vp[3] = {v0[0], v0[1], v0[2]};
            outcome orr = impact(routh, 1, first, q, vr);
            outcome op = impact(poisson, 1, first, q, vp);
            assert_int_equal(orr.rc, NSCD_OK);
            assert_int_equal(op.rc, NSCD_OK);
            /* the case Routh followed, from the kernel on the same G */
            nscd__model *m = nscd__system_model(routh);
            double values[9], gap;
            nscd__rows rows = {.values = values};
            m->entry(m->self, 0, 0.0, q, &gap, &rows);
            const double *wn = values, *wt = values + 3;
            double G[4] = {1.0 + wt[2] * wt[2] / md.M[8], wt[2] * wn[2] / md.M[8],
                           wt[2] * wn[2] / md.M[8], 1.0 + wn[2] * wn[2] / md.M[8]};
            double u0[2] = {v0[0] + wt[2] * v0[2], v0[1] + wn[2] * v0[2]};
            nscd_routh_result res = {.struct_size = sizeof res};
            assert_int_equal(nscd_routh_impact_ex(G, u0, mu, e, &res), NSCD_OK);
            seen[res.impact_case] = 1;
            double diff = 0.0;
            for (int i = 0; i < 3; ++i) {
                diff = fmax(diff, fabs(vr[i] - vp[i]));
            }
            if (res.impact_case == NSCD_ROUTH_REVERSAL_IN_COMPRESSION ||
                res.impact_case == NSCD_ROUTH_REVERSAL_IN_RESTITUTION) {
                smallest_reversal = fmin(smallest_reversal, diff);
            } else {
                largest_same = fmax(largest_same, diff);
                ++compared;
            }
        }
        nscd_system_destroy(routh);
        nscd_system_destroy(poisson);
    }
    print_message("Poisson vs Routh: %d impacts without reversal agree to %.2g; "
                  "reversals differ by at least %.3g\n",
                  compared, largest_same, smallest_reversal);
    assert_true(largest_same <= 1e-12);
    assert_true(seen[NSCD_ROUTH_SLIP] && seen[NSCD_ROUTH_STICK_IN_COMPRESSION] &&
                seen[NSCD_ROUTH_STICK_IN_RESTITUTION]);
    assert_true(seen[NSCD_ROUTH_REVERSAL_IN_COMPRESSION] ||
                seen[NSCD_ROUTH_REVERSAL_IN_RESTITUTION]);
    assert_true(smallest_reversal > 1e-6);
}

/* One frictionless contact through the frictional solver: Poisson and Newton
 * give c+ = -e c- (the dummy tangents change nothing). */
static void frictionless_single_contact_reduces_to_newton(void **state) {
    (void)state;
    model md = block();
    md.n_contacts = 1;
    const double e = 0.7, mu = 0.0;
    const int32_t nt[1] = {1};
    const double q[3] = {0.0, 0.0, 0.6}, v0[3] = {1.0, -2.0, 0.5};
    for (int rule = FRICTION_NEWTON; rule <= FRICTION_POISSON; ++rule) {
        nscd_system *sys =
            make_system(&md, rule == FRICTION_NEWTON ? NEWTON : POISSON, &e, &mu, nt);
        double v[3] = {v0[0], v0[1], v0[2]}, lcp[3] = {v0[0], v0[1], v0[2]};
        outcome o = impact_ex(sys, 1, first, q, v, rule, 0, NULL);
        outcome l = impact(sys, 1, first, q, lcp); /* mu = 0: the LCP path */
        assert_int_equal(o.rc, NSCD_OK);
        assert_int_equal(l.rc, NSCD_OK);
        assert_near(o.after[0], -e * o.before[0], 1e-14);
        assert_vec_close(v, lcp, 3, 1e-14);
        assert_true(o.Pt[0] == 0.0 && o.Pt[1] == 0.0);
        nscd_system_destroy(sys);
    }
}

/* ------------------------------------ two corners: independent enumeration */

typedef struct two_corner_case {
    double theta, v0[3], mu, e[2];
    int law;
    double expected[3]; /* from frictional_impacts_reference.py */
    const char *cases;  /* the cases the enumeration found */
} two_corner_case;

static const two_corner_case two_corner_cases[] = {
    {0.3,
     {-1.5, -1.0, -2.0},
     1.0,
     {0.5, 0.5},
     NEWTON,
     {-0.33882740115579058, 0.5, 1.0},
     "stick, slide-"},
    {0.3,
     {-0.5, -1.0, -2.0},
     0.5,
     {0.5, 0.5},
     NEWTON,
     {-0.22770151402769462, 0.49999999999999978, 0.99999999999999911},
     "slide+, slide-"},
    {0.3,
     {-2.0, -1.0, 1.0},
     1.0,
     {0.5, 0.5},
     NEWTON,
     {-0.41826192661084804, 0.58173807338915196, -0.30471795543363189},
     "slide-, open"},
    {0.0,
     {2.0, -1.0, 0.8},
     0.2,
     {0.5, 0.5},
     NEWTON,
     {1.6999999999999997, 0.50000000000000044, -0.3999999999999988},
     "slide+, slide+"},
    {0.0,
     {0.4, -1.0, 0.8},
     0.9,
     {0.0, 0.0},
     NEWTON,
     {0.0, 0.0, 0.0},
     "stick, stick (W singular: a family of impulses)"},
    {0.3,
     {-1.5, -1.0, -2.0},
     1.0,
     {0.6, 0.3},
     POISSON,
     {-0.083579468259991296, 0.47584265075049914, 0.24667269522739099},
     "compression slide-, slide-; expansion bound-stick, bound-slide-"},
    {0.3,
     {-0.5, -1.0, 1.5},
     0.5,
     {0.6, 0.3},
     POISSON,
     {0.23535151264313747, 0.57453687352510097, -1.0703549505486454},
     "compression stick, stick; expansion bound-slide-, slide+"},
    {0.3,
     {0.5, -1.0, 1.5},
     0.2,
     {0.6, 0.3},
     POISSON,
     {0.32237080684215424, 0.51070165607692086, -0.95143074539573591},
     "compression slide+, slide+; expansion bound-stick, slide+"},
    {0.0,
     {0.4, -1.0, 0.8},
     0.9,
     {0.5, 0.5},
     POISSON,
     {-0.001951219512195207, 0.5, 0.0097560975609756739},
     "compression stick, stick; expansion bound-stick, bound-stick"},
};

static void two_corners_match_the_enumeration(void **state) {
    (void)state;
    for (size_t c = 0; c < sizeof two_corner_cases / sizeof two_corner_cases[0]; ++c) {
        const two_corner_case *tc = &two_corner_cases[c];
        model md = block();
        const double mu[2] = {tc->mu, tc->mu};
        const int32_t nt[2] = {1, 1};
        nscd_system *sys = make_system(&md, tc->law, tc->e, mu, nt);
        const double q[3] = {0.0, 0.0, tc->theta};
        double v[3] = {tc->v0[0], tc->v0[1], tc->v0[2]};
        outcome o = impact(sys, 2, both, q, v);
        if (o.rc != NSCD_OK) {
            fail_msg("case %zu (%s): status %d: %s", c, tc->cases, (int)o.rc,
                     nscd_system_last_error(sys));
        }
        assert_vec_close(v, tc->expected, 3, 1e-9);
        /* Coulomb's cone and the energy balance, independently */
        for (int j = 0; j < 2; ++j) {
            assert_true(o.P[j] >= 0.0);
            assert_true(fabs(o.Pt[2 * j]) <= tc->mu * o.P[j] * (1.0 + 1e-12) + 1e-15);
        }
        double dT = kinetic(&md, v) - kinetic(&md, tc->v0);
        assert_near(o.energy_change, dT, 1e-12);
        assert_true(dT < 0.0);
        nscd_system_destroy(sys);
    }
}

/* ------------------------------------------- spatial: two corners of a box */

/* A box (m = 2, half sizes 0.4, 0.25, 0.15; v = (velocity of the centre,
 * angular velocity)) touching the floor z = 0 with the points p_1 =
 * (-0.4, -0.25, -0.15) and p_2 = (0.4, 0.05, -0.15): normal row
 * (0, 0, 1, p_y, -p_x, 0), tangents (1, 0, 0, 0, p_z, -p_y) and
 * (0, 1, 0, -p_z, 0, p_x). */
static model box(void) {
    model md;
    memset(&md, 0, sizeof md);
    md.kind = FIXED_ROWS;
    md.n_v = 6;
    md.n_contacts = 2;
    double m = 2.0, hx = 0.4, hy = 0.25, hz = 0.15;
    md.M[0] = md.M[7] = md.M[14] = m;
    md.M[21] = m * (hy * hy + hz * hz) / 3.0;
    md.M[28] = m * (hx * hx + hz * hz) / 3.0;
    md.M[35] = m * (hx * hx + hy * hy) / 3.0;
    const double p[2][3] = {{-hx, -hy, -hz}, {hx, 0.2 * hy, -hz}};
    for (int j = 0; j < 2; ++j) {
        const double normal[6] = {0, 0, 1, p[j][1], -p[j][0], 0};
        const double t1[6] = {1, 0, 0, 0, p[j][2], -p[j][1]};
        const double t2[6] = {0, 1, 0, -p[j][2], 0, p[j][0]};
        memcpy(md.rows[j][0], normal, sizeof normal);
        memcpy(md.rows[j][1], t1, sizeof t1);
        memcpy(md.rows[j][2], t2, sizeof t2);
    }
    return md;
}

static void spatial_two_corners_match_the_reference(void **state) {
    (void)state;
    const struct {
        double v0[6], mu[2], e;
        int law;
        double expected[6];
    } cases[] = {
        {{0.7, -0.4, -1.0, 0.3, -0.5, 0.9},
         {0.3, 0.3},
         0.4,
         NEWTON,
         {0.42270076567492865, -0.1783612634251564, 0.19691005103100556, -2.1508994896899463,
          -0.5615873086337293, 0.53773469421219566}}, /* slide, slide */
        {{0.7, -0.4, -1.0, 0.3, -0.5, 0.9},
         {0.3, 0.3},
         0.4,
         POISSON,
         {0.41410824888903242, -0.19527497022062762, 0.19014926519695674, -2.166012872930593,
          -0.60320641401707131, 0.50469994462101186}}, /* slide, slide; bound-slide twice */
        {{0.2, -0.1, -1.0, 0.3, -0.5, 0.2},
         {1.0, 0.8},
         0.0,
         NEWTON,
         {-0.059431981335247686, 0.15848528356066047, -0.10565685570710692, -1.0565685570710701,
          -0.39621320890165146, 0.0}}, /* stick, slide */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        model md = box();
        const double e[2] = {cases[c].e, cases[c].e};
        const int32_t nt[2] = {2, 2};
        nscd_system *sys = make_system(&md, cases[c].law, e, cases[c].mu, nt);
        const double q[6] = {0};
        double v[6];
        memcpy(v, cases[c].v0, sizeof v);
        outcome o = impact(sys, 2, both, q, v);
        assert_int_equal(o.rc, NSCD_OK);
        assert_vec_close(v, cases[c].expected, 6, 1e-8);
        for (int j = 0; j < 2; ++j) {
            assert_true(hypot(o.Pt[2 * j], o.Pt[2 * j + 1]) <=
                        cases[c].mu[j] * o.P[j] * (1.0 + 1e-12) + 1e-15);
        }
        assert_near(o.energy_change, kinetic(&md, v) - kinetic(&md, cases[c].v0), 1e-12);
        nscd_system_destroy(sys);
    }
}

/* Poisson's law with friction creates energy on two contacts with different
 * coefficients (Glocker 2014 proves consistency for one frictional contact and
 * gives a multi-contact counter-example). A case from the random study: a
 * rigid body, two planar contacts, e = (0.957, 0.063). The independent
 * enumeration (frictional_impacts_reference.py's spatial solver on the
 * embedded rows) finds one Poisson solution, compression (stick, slide),
 * expansion (bound-stick, bound-slide), with dT = +0.9515374865 (T_c = 3.655).
 * The impact fails; with e = 0.957 at both contacts it dissipates
 * (enumeration: dT = -0.2346, v+ below). */
static void poisson_two_contacts_can_create_energy(void **state) {
    (void)state;
    model md;
    memset(&md, 0, sizeof md);
    md.kind = FIXED_ROWS;
    md.n_v = 6;
    md.n_contacts = 2;
    const double M[36] = {1.1308045248903507,
                          0,
                          0,
                          0,
                          0,
                          0,
                          0,
                          1.1308045248903507,
                          0,
                          0,
                          0,
                          0,
                          0,
                          0,
                          1.1308045248903507,
                          0,
                          0,
                          0,
                          0,
                          0,
                          0,
                          0.1673075446844593,
                          -0.07255890167168777,
                          0.061089705091806501,
                          0,
                          0,
                          0,
                          -0.072558901671687784,
                          0.24561792247008407,
                          -0.070202658652368966,
                          0,
                          0,
                          0,
                          0.061089705091806515,
                          -0.070202658652368993,
                          0.28175531800058179};
    const double rows[2][2][6] = {
        {{-0.31112917350701474, 0.93198973299915522, -0.18599401865921714, -0.16338271632324949,
          -0.064176804604140547, -0.048275711001329463},
         {-0.80951217888202598, -0.3624198082931242, -0.46188950496677239, 0.13551658756676846,
          -0.16682833946405723, -0.10660652112662751}},
        {{0.8124328307362696, 0.14842897795946666, -0.56384548773911469, -0.091788709538707866,
          0.022261119741192756, -0.12639626886881827},
         {-0.42205207839232434, 0.8169232848155854, -0.39307555234437214, -0.16237037685848907,
          -0.12078063748882578, -0.07667676078367848}}};
    memcpy(md.M, M, sizeof M);
    for (int c = 0; c < 2; ++c) {
        memcpy(md.rows[c][0], rows[c][0], sizeof rows[c][0]);
        memcpy(md.rows[c][1], rows[c][1], sizeof rows[c][1]);
    }
    const double mu[2] = {0.7878387230303739, 0.9637192905723198};
    const double v0[6] = {0.24977934495907203, -1.6925727208650838, 1.2083828559645482,
                          1.4349709122834344,  -0.8015289197898194, -0.9238366223927167};
    const double q[6] = {0};
    const int32_t nt[2] = {1, 1};
    const double e[2] = {0.9566673954837791, 0.06284991520186622}, same[2] = {e[0], e[0]};
    nscd_system *sys = make_system(&md, POISSON, e, mu, nt);
    double v[6];
    memcpy(v, v0, sizeof v);
    outcome o = impact(sys, 2, both, q, v);
    assert_int_equal(o.rc, NSCD_ERR_UNSUPPORTED);
    assert_memory_equal(v, v0, sizeof v);
    assert_near(o.energy_change, 0.9515374865072586, 1e-8);
    assert_non_null(strstr(nscd_system_last_error(sys), "one e for these contacts"));
    nscd_system_destroy(sys);

    sys = make_system(&md, POISSON, same, mu, nt);
    o = impact(sys, 2, both, q, v);
    assert_int_equal(o.rc, NSCD_OK);
    const double expected[6] = {-0.029558297711059722, 1.2136242569664266,  -0.090080845512885199,
                                -2.8007278117814631,   -3.2651000764791229, -1.9617948416980058};
    assert_vec_close(v, expected, 6, 1e-8);
    assert_near(kinetic(&md, v) - kinetic(&md, v0), -0.23458284811193275, 1e-8);
    nscd_system_destroy(sys);
}

/* A closed (persistent) frictional contact takes part in another contact's
 * impact with e = 0 and friction: the flat block resting on corner 1 (closed)
 * is hit at corner 0; the result equals the impact of both contacts with
 * e_1 = 0, and corner 1 obeys Coulomb. */
static void closed_frictional_contact_takes_part(void **state) {
    (void)state;
    model md = block();
    const double e[2] = {0.5, 0.5}, e0[2] = {0.5, 0.0}, mu[2] = {0.4, 0.4};
    const int32_t nt[2] = {1, 1};
    nscd_system *sys = make_system(&md, NEWTON, e, mu, nt);
    nscd_system *ref = make_system(&md, NEWTON, e0, mu, nt);
    nscd__system_model(sys)->contacts[1].state.mode = NSCD_CONTACT_CLOSED;
    const double q[3] = {0.0, 0.0, 0.0}, v0[3] = {0.3, -1.0, -2.0};
    double v[3] = {v0[0], v0[1], v0[2]}, w[3] = {v0[0], v0[1], v0[2]};
    outcome o = impact(sys, 2, both, q, v);
    outcome r = impact(ref, 2, both, q, w);
    assert_int_equal(o.rc, NSCD_OK);
    assert_int_equal(r.rc, NSCD_OK);
    assert_memory_equal(v, w, sizeof v);
    assert_true(fabs(o.Pt[2]) <= 0.4 * o.P[1] * (1.0 + 1e-12) + 1e-15);
    assert_true(o.after[1] >= -1e-12);
    nscd_system_destroy(sys);
    nscd_system_destroy(ref);
}

/* ---------------------------------------------- the planar embedding */

/* A planar contact is an fc3d contact whose second tangent is a dummy: zero
 * coupling and the diagonal W_nn. fc3d then returns r_o = 0 (to 1e-16 mu r_n
 * on the sliding branch, exactly when sticking), the unshifted and the
 * shifted local solvers alike, and the planar impulses obey planar Coulomb. */
static void planar_embedding_keeps_the_dummy_impulse_zero(void **state) {
    (void)state;
    ref_rng_state = 0x1234567ull;
    double worst = 0.0;
    for (int it = 0; it < 2000; ++it) {
        double L[4] = {ref_normal(), 0.0, ref_normal(), ref_normal()};
        double a = L[0] * L[0] + 0.05, bnt = L[0] * L[2], c = L[2] * L[2] + L[3] * L[3] + 0.05;
        double A[9] = {a, bnt, 0.0, bnt, c, 0.0, 0.0, 0.0, a};
        double v[3] = {-fabs(ref_normal()) - 0.01, 3.0 * ref_normal(), 0.0};
        double mu = 1.5 * ref_uniform(), s = it % 2 ? 0.0 : fabs(ref_normal());
        double x[3] = {0.0, 0.0, 0.0};
        nscd_status rc = nscd__fc3d_local_coulomb_shifted(A, v, mu, s, x);
        if (rc != NSCD_OK) {
            continue; /* a jam; not the point here */
        }
        worst = fmax(worst, fabs(x[2]) / fmax(mu * x[0], DBL_MIN));
        double ut = A[3] * x[0] + A[4] * x[1] + v[1], un = A[0] * x[0] + A[1] * x[1] + v[0];
        assert_true(x[0] >= s * (1.0 - 1e-15));
        assert_true(un >= -1e-12 * (fabs(v[0]) + A[0] * x[0]));
        assert_true(fabs(x[1]) <= mu * x[0] * (1.0 + 1e-12));
        if (fabs(ut) > 1e-9 * (fabs(v[1]) + 1.0)) { /* sliding: against the slip, on the cone */
            assert_true(x[1] * ut <= 0.0);
            assert_near(fabs(x[1]), mu * x[0], 1e-12 * (1.0 + x[0]));
        }
    }
    print_message("planar embedding: largest |r_o| / (mu r_n) = %.3g\n", worst);
    assert_true(worst <= 1e-15);
}

/* A random SPD 3x3 block A = L L' + 0.05 E (L lower, entries from
 * ref_normal) and its inverse. */
static void random_spd_block(double A[9], double Ai[9]) {
    double L[9] = {ref_normal(), 0,           0, ref_normal(), ref_normal(), 0, ref_normal(),
                   ref_normal(), ref_normal()};
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) {
            A[3 * r + c] = L[3 * r] * L[3 * c] + L[3 * r + 1] * L[3 * c + 1] +
                           L[3 * r + 2] * L[3 * c + 2] + (r == c ? 0.05 : 0.0);
        }
    }
    assert_true(nscd__fc3d_inverse3(A, Ai));
}

/* The sweeps' Coulomb block solve with A^-1 given (nscd__fc3d_local_coulomb_inv)
 * on random SPD blocks, against Coulomb's law checked here (x in the cone,
 * u_n = 0 when x_n > 0, u = 0 when sticking inside the cone, x_t against the
 * slip on its boundary) and against nscd__fc3d_local_coulomb from the same
 * start (the same solution: the sticking impulses differ by rounding). */
static void coulomb_with_inverse_obeys_the_law(void **state) {
    (void)state;
    ref_rng_state = 0x5eedull;
    int stick = 0, slide = 0;
    double worst = 0.0;
    for (int it = 0; it < 20000; ++it) {
        double A[9], Ai[9];
        random_spd_block(A, Ai);
        double v[3] = {ref_normal() - 0.5, ref_normal(), ref_normal()};
        double mu = 0.1 + 0.8 * ref_uniform();
        double x[3] = {0.0, 0.0, 0.0}, y[3];
        if (it % 2) { /* a start in the cone, as a sweep's previous impulse */
            x[0] = fabs(ref_normal()), x[1] = 0.5 * mu * x[0], x[2] = -0.5 * mu * x[0];
        }
        memcpy(y, x, sizeof x);
        assert_int_equal(nscd__fc3d_local_coulomb_inv(A, Ai, v[0], v[1], v[2], mu, x), NSCD_OK);
        assert_int_equal(nscd__fc3d_local_coulomb(A, v, mu, y), NSCD_OK);
        double u[3], scale = fabs(v[0]) + fabs(v[1]) + fabs(v[2]);
        for (int r = 0; r < 3; ++r) {
            u[r] = A[3 * r] * x[0] + A[3 * r + 1] * x[1] + A[3 * r + 2] * x[2] + v[r];
        }
        double xt = hypot(x[1], x[2]), ut = hypot(u[1], u[2]), tol = 1e-11 * (1.0 + scale);
        assert_true(x[0] >= 0.0 && xt <= mu * x[0] * (1.0 + 1e-12));
        if (x[0] == 0.0) {
            assert_true(v[0] >= 0.0 && u[0] >= 0.0); /* take-off */
            continue;
        }
        assert_true(fabs(u[0]) <= tol);
        if (xt < mu * x[0] * (1.0 - 1e-9)) { /* inside the cone: sticking */
            assert_true(ut <= tol);
            ++stick;
        } else if (ut > tol) { /* on the boundary, against the slip */
            assert_true(fabs(x[1] * u[2] - x[2] * u[1]) <= 1e-9 * xt * ut + tol * xt);
            assert_true(x[1] * u[1] + x[2] * u[2] <= 0.0);
            ++slide;
        }
        for (int k = 0; k < 3; ++k) {
            worst = fmax(worst, fabs(x[k] - y[k]) / (1.0 + fabs(y[0])));
        }
    }
    print_message("A^-1 block solve: %d sticking, %d sliding; largest difference from the "
                  "solve %.3g\n",
                  stick, slide, worst);
    assert_true(stick > 1000 && slide > 1000);
    assert_true(worst <= 1e-9);
}

/* The world sweeps' one-step block update (nscd__fc3d_local_coulomb_step)
 * on random SPD blocks: each step's impulse is in the cone with u_n = 0,
 * on its boundary against a slip w.u_t >= 0 when sliding; repeated from
 * its own output (a sweep whose other contacts have settled) it stops at a
 * start whose residual passes the exact solve's test (resid 0), and there
 * it is Coulomb's law (checked here) and the exact solve's root from that
 * start (nscd__fc3d_local_coulomb_inv). */
static void coulomb_step_converges_to_the_law(void **state) {
    (void)state;
    ref_rng_state = 0x57e9ull;
    int slide = 0, steps = 0, most = 0;
    double worst = 0.0;
    for (int it = 0; it < 20000; ++it) {
        double A[9], Ai[9];
        random_spd_block(A, Ai);
        double v[3] = {ref_normal() - 0.5, ref_normal(), ref_normal()};
        double mu = 0.1 + 0.8 * ref_uniform(), scale = fabs(v[0]) + fabs(v[1]) + fabs(v[2]);
        double x[3] = {0.0, 0.0, 0.0}, resid = 1.0;
        if (it % 2) {
            x[0] = fabs(ref_normal()), x[1] = 0.5 * mu * x[0], x[2] = -0.5 * mu * x[0];
        }
        int k = 0;
        for (; k < 100 && resid > 0.0; ++k) {
            assert_int_equal(nscd__fc3d_local_coulomb_step(A, Ai, v[0], v[1], v[2], mu, x, &resid),
                             NSCD_OK);
            assert_true(resid >= 0.0);
            double u[3];
            for (int r = 0; r < 3; ++r) {
                u[r] = A[3 * r] * x[0] + A[3 * r + 1] * x[1] + A[3 * r + 2] * x[2] + v[r];
            }
            double xt = hypot(x[1], x[2]), tol = 1e-11 * (1.0 + scale);
            assert_true(x[0] >= 0.0 && xt <= mu * x[0] * (1.0 + 1e-12));
            if (x[0] > 0.0) {
                assert_true(fabs(u[0]) <= tol);
            }
            if (resid > 0.0) { /* a sliding step: on the boundary, against the slip */
                assert_near(xt, mu * x[0], 1e-12 * (1.0 + x[0]));
                assert_true(x[1] * u[1] + x[2] * u[2] <= tol * xt);
            }
        }
        assert_true(resid == 0.0);
        steps += k, most = k > most ? k : most;
        double u[3], y[3] = {x[0], x[1], x[2]};
        for (int r = 0; r < 3; ++r) {
            u[r] = A[3 * r] * x[0] + A[3 * r + 1] * x[1] + A[3 * r + 2] * x[2] + v[r];
        }
        double xt = hypot(x[1], x[2]), ut = hypot(u[1], u[2]), tol = 1e-11 * (1.0 + scale);
        if (x[0] == 0.0) {
            assert_true(v[0] >= 0.0);
            continue;
        }
        assert_true(fabs(u[0]) <= tol);
        if (xt < mu * x[0] * (1.0 - 1e-9)) {
            assert_true(ut <= tol); /* sticking */
        } else if (ut > tol) {
            assert_true(fabs(x[1] * u[2] - x[2] * u[1]) <= 1e-9 * xt * ut + tol * xt);
            assert_true(x[1] * u[1] + x[2] * u[2] <= 0.0);
            ++slide;
        }
        assert_int_equal(nscd__fc3d_local_coulomb_inv(A, Ai, v[0], v[1], v[2], mu, y), NSCD_OK);
        for (int c = 0; c < 3; ++c) {
            worst = fmax(worst, fabs(x[c] - y[c]) / (1.0 + fabs(y[0])));
        }
    }
    print_message("one-step block update: %d sliding at the end, %.2f steps a block on average "
                  "(most %d); largest difference from the exact solve %.3g\n",
                  slide, steps / 20000.0, most, worst);
    assert_true(slide > 1000);
    assert_true(worst <= 1e-12);
}

/* The shifted local solver (Poisson's expansion) against the conditions of
 * Coulomb's law on K_mu ∩ {x_n >= s}, checked here independently, for
 * random spatial blocks. */
static void shifted_local_solver_obeys_its_law(void **state) {
    (void)state;
    ref_rng_state = 0xABCDEFull;
    int solved = 0, lifted = 0;
    for (int it = 0; it < 5000; ++it) {
        double Lm[9], A[9];
        for (int i = 0; i < 9; ++i) {
            Lm[i] = ref_normal();
        }
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) {
                double sum = i == j ? 0.1 : 0.0;
                for (int k = 0; k < 3; ++k) {
                    sum += Lm[3 * i + k] * Lm[3 * j + k];
                }
                A[3 * i + j] = sum;
            }
        }
        for (int i = 0; i < 3; ++i) { /* exactly symmetric */
            for (int j = 0; j < i; ++j) {
                A[3 * i + j] = A[3 * j + i];
            }
        }
        double v[3] = {ref_normal(), 2.0 * ref_normal(), 2.0 * ref_normal()};
        double mu = 1.2 * ref_uniform(), s = 2.0 * ref_uniform(), x[3] = {0.0, 0.0, 0.0};
        if (nscd__fc3d_local_coulomb_shifted(A, v, mu, s, x) != NSCD_OK) {
            continue;
        }
        ++solved;
        double u[3];
        ref_matvec(A, x, u);
        for (int i = 0; i < 3; ++i) {
            u[i] += v[i];
        }
        double scale = fabs(v[0]) + hypot(v[1], v[2]) + (A[0] + A[4] + A[8]) * x[0];
        assert_true(x[0] >= s);
        assert_true(u[0] >= -1e-11 * scale);
        if (x[0] > s * (1.0 + 1e-12)) {
            assert_true(fabs(u[0]) <= 1e-11 * scale);
            ++lifted;
        }
        double xt = hypot(x[1], x[2]), ut = hypot(u[1], u[2]);
        assert_true(xt <= mu * x[0] * (1.0 + 1e-12) + 1e-300);
        if (ut > 1e-9 * scale) { /* sliding: x_t = -mu x_n u_t / |u_t| */
            assert_near(x[1], -mu * x[0] * u[1] / ut, 1e-8 * (1.0 + mu * x[0]));
            assert_near(x[2], -mu * x[0] * u[2] / ut, 1e-8 * (1.0 + mu * x[0]));
        }
    }
    print_message("shifted local solver: %d of 5000 solved (%d with x_n > s)\n", solved, lifted);
    assert_true(solved >= 4900);
    assert_true(lifted > 500);
}

/* A frictionless fc3d contact that takes off with u_t = 0 (every dummy
 * tangent of an impact) has a zero residual: the projection onto the ray
 * K_0 of (-u_n, 0, 0) is the apex (it used to be returned unchanged, and
 * such problems never converged). */
static void fc3d_frictionless_take_off_converges(void **state) {
    (void)state;
    double W[36] = {0};
    for (int i = 0; i < 6; ++i) {
        W[7 * i] = 2.0;
    }
    W[3] = W[18] = 0.5; /* normal-normal coupling */
    const double q[6] = {-1.0, 0.0, 0.0, 1.0, 0.0, 0.0}, mu[2] = {0.0, 0.0};
    double r[6] = {0}, u[6];
    nscd_fc3d_info info = {.struct_size = sizeof info};
    assert_int_equal(nscd_fc3d_solve_dense(2, W, q, mu, NULL, r, u, &info), NSCD_OK);
    assert_near(r[0], 0.5, 1e-15);
    assert_true(r[3] == 0.0 && info.merit <= 1e-15);
}

/* ------------------------------------------------- frictionless = LCP */

/* Impacts without a frictional contact take today's LCP paths, bitwise:
 * friction = 0 with tangential rows, and friction > 0 without (n_tangent =
 * 0), give exactly the results of a frictionless, tangent-free system. And
 * the frictional solver itself, given the same frictionless impact, agrees
 * with the LCPs to 1e-12 (Newton and Poisson; fc3d run to merit 1e-15). */
static void tight(nscd__impact_work *work) {
    work->fc3d_options.tolerance = 1e-15;
    work->fc3d_options.max_iterations = 100000;
}

static void frictionless_impacts_are_the_lcp_results(void **state) {
    (void)state;
    const double q[3] = {0.0, 0.0, 0.3};
    const double vs[3][3] = {{-0.5, -1.0, -2.0}, {2.0, -1.0, 0.8}, {0.1, -0.3, 1.9}};
    const double e[2] = {0.5, 0.8};
    for (int law = NEWTON; law <= POISSON; ++law) {
        model md = block();
        const double mu0[2] = {0.0, 0.0}, mu1[2] = {0.4, 0.7};
        const int32_t nt0[2] = {0, 0}, nt1[2] = {1, 1};
        nscd_system *plain = make_system(&md, law, e, mu0, nt0);
        nscd_system *tangent = make_system(&md, law, e, mu0, nt1);
        nscd_system *no_rows = make_system(&md, law, e, mu1, nt0);
        for (int k = 0; k < 3; ++k) {
            double v0[3], v1[3], v2[3], v3[3];
            memcpy(v0, vs[k], sizeof v0);
            memcpy(v1, vs[k], sizeof v1);
            memcpy(v2, vs[k], sizeof v2);
            memcpy(v3, vs[k], sizeof v3);
            outcome a = impact(plain, 2, both, q, v0);
            outcome b = impact(tangent, 2, both, q, v1);
            outcome c = impact(no_rows, 2, both, q, v2);
            outcome d = impact_ex(tangent, 2, both, q, v3,
                                  law == NEWTON ? FRICTION_NEWTON : FRICTION_POISSON, 0, tight);
            assert_int_equal(a.rc, NSCD_OK);
            assert_int_equal(b.rc, NSCD_OK);
            assert_int_equal(c.rc, NSCD_OK);
            assert_int_equal(d.rc, NSCD_OK);
            assert_memory_equal(v0, v1, sizeof v0);
            assert_memory_equal(v0, v2, sizeof v0);
            assert_memory_equal(a.P, b.P, 2 * sizeof(double));
            assert_memory_equal(a.P, c.P, 2 * sizeof(double));
            assert_memory_equal(a.after, c.after, 2 * sizeof(double));
            assert_vec_close(v3, v0, 3, 1e-12);
            assert_vec_close(d.P, a.P, 2, 1e-12);
            assert_true(d.Pt[0] == 0.0 && d.Pt[1] == 0.0 && d.Pt[2] == 0.0 && d.Pt[3] == 0.0);
        }
        nscd_system_destroy(plain);
        nscd_system_destroy(tangent);
        nscd_system_destroy(no_rows);
    }
}

/* A plastic projection (closing contacts) stays the bilateral solve W v+ = 0
 * with or without friction. */
static void plastic_projection_ignores_friction(void **state) {
    (void)state;
    model md = block();
    const double e[2] = {0.5, 0.5}, mu0[2] = {0.0, 0.0}, mu1[2] = {0.8, 0.8};
    const int32_t nt[2] = {1, 1};
    nscd_system *plain = make_system(&md, NEWTON, e, mu0, nt);
    nscd_system *rough = make_system(&md, NEWTON, e, mu1, nt);
    const double q[3] = {0.0, 0.0, 0.3};
    double v0[3] = {-0.5, -1.0, -2.0}, v1[3] = {-0.5, -1.0, -2.0};
    assert_int_equal(impact_ex(plain, 2, both, q, v0, DISPATCH, 1, NULL).rc, NSCD_OK);
    assert_int_equal(impact_ex(rough, 2, both, q, v1, DISPATCH, 1, NULL).rc, NSCD_OK);
    assert_memory_equal(v0, v1, sizeof v0);
    nscd_system_destroy(plain);
    nscd_system_destroy(rough);
}

/* ---------------------------------------------------------------- energy */

/* Random impacts of two families:
 * - rigid: one spatial rigid body (random mass, random rotated inertia)
 *   touching 1 to 4 random planes at random points (normal and tangent rows
 *   [n, p x n], [t_a, p x t_a]);
 * - abstract: a random SPD mass of 6 dofs and random rows.
 * Contacts are planar or spatial, mu in [0, 1.2] (one in ten frictionless,
 * contact 0 always frictional), e in {0, 1, U(0,1)}; v- random (approaching
 * or not). The kinetic energy change is measured independently as
 * (v+' M v+ - v-' M v-)/2. Four laws per problem: Newton with e = 0, Newton
 * with e_j, Poisson with e_j, Poisson with e_0 at every contact. Findings
 * (docs/frictional_impacts.md): Newton with e = 0 never gains energy
 * (provably dissipative), nor did Poisson with one e for all contacts;
 * Poisson with different e_j gains on rare multi-contact problems and Newton
 * with e > 0 on many, also single contacts: those impacts fail with
 * NSCD_ERR_UNSUPPORTED and leave v unchanged; every other impact
 * dissipates. NSCD_IMPACT_FRICTION_SAMPLES=N sets the number of problems
 * per family (default 400). */
static void ref_cross(const double a[3], const double b[3], double c[3]) {
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

static void random_rigid(model *md, int32_t k) {
    memset(md, 0, sizeof *md);
    md->kind = FIXED_ROWS;
    md->n_v = 6;
    md->n_contacts = k;
    double m = 0.5 + ref_uniform(), d[3], R[9], a[3] = {ref_normal(), ref_normal(), ref_normal()};
    for (int i = 0; i < 3; ++i) {
        d[i] = m * (0.05 + 0.3 * ref_uniform());
        md->M[7 * i] = m;
    }
    /* rotation from the unit quaternion (1, a) / |(1, a)| */
    double w = 1.0, nq = sqrt(1.0 + a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    double x = a[0] / nq, y = a[1] / nq, z = a[2] / nq;
    w /= nq;
    const double Rq[9] = {
        1 - 2 * (y * y + z * z), 2 * (x * y - z * w),     2 * (x * z + y * w),
        2 * (x * y + z * w),     1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
        2 * (x * z - y * w),     2 * (y * z + x * w),     1 - 2 * (x * x + y * y)};
    memcpy(R, Rq, sizeof R);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            double sum = 0.0;
            for (int l = 0; l < 3; ++l) {
                sum += R[3 * i + l] * d[l] * R[3 * j + l];
            }
            md->M[6 * (3 + i) + 3 + j] = sum;
        }
    }
    for (int32_t c = 0; c < k; ++c) {
        double p[3], n[3], t1[3], t2[3], h[3];
        for (int i = 0; i < 3; ++i) {
            p[i] = ref_uniform() - 0.5;
            n[i] = ref_normal();
            h[i] = ref_normal();
        }
        double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int i = 0; i < 3; ++i) {
            n[i] /= nn;
        }
        ref_cross(n, h, t1);
        double nt = sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
        for (int i = 0; i < 3; ++i) {
            t1[i] /= nt;
        }
        ref_cross(n, t1, t2);
        const double *dir[3] = {n, t1, t2};
        for (int r = 0; r < 3; ++r) {
            double pxd[3];
            ref_cross(p, dir[r], pxd);
            for (int i = 0; i < 3; ++i) {
                md->rows[c][r][i] = dir[r][i];
                md->rows[c][r][3 + i] = pxd[i];
            }
        }
    }
}

static void random_abstract(model *md, int32_t k) {
    memset(md, 0, sizeof *md);
    md->kind = FIXED_ROWS;
    md->n_v = 6;
    md->n_contacts = k;
    double L[36];
    for (int i = 0; i < 36; ++i) {
        L[i] = ref_normal();
    }
    for (int i = 0; i < 6; ++i) {
        for (int j = 0; j <= i; ++j) {
            double s = i == j ? 0.2 : 0.0;
            for (int l = 0; l < 6; ++l) {
                s += L[6 * i + l] * L[6 * j + l];
            }
            md->M[6 * i + j] = md->M[6 * j + i] = s;
        }
    }
    for (int32_t c = 0; c < k; ++c) {
        for (int a = 0; a < 3; ++a) {
            for (int i = 0; i < 6; ++i) {
                md->rows[c][a][i] = ref_normal();
            }
        }
    }
}

static int samples(int fallback) {
    const char *s = getenv("NSCD_IMPACT_FRICTION_SAMPLES");
    return s != NULL && atoi(s) > 0 ? atoi(s) : fallback;
}

typedef struct energy_stats {
    int ok, gained, failed;
    double worst_ok, worst_gain; /* largest dT / T_c of accepted and of rejected impacts */
    int gained_by_k[5];
} energy_stats;

static void energy_family(int family, int n, energy_stats stats[4]) {
    for (int it = 0; it < n; ++it) {
        int32_t k = 1 + (int32_t)(4.0 * ref_uniform());
        model md;
        if (family == 0) {
            random_rigid(&md, k);
        } else {
            random_abstract(&md, k);
        }
        double mu[4], e[4], v0[6];
        int32_t nt[4];
        int32_t contacts[4] = {0, 1, 2, 3};
        for (int32_t c = 0; c < k; ++c) {
            mu[c] = ref_uniform() < 0.1 ? 0.0 : 1.2 * ref_uniform();
            nt[c] = ref_uniform() < 0.5 ? 1 : 2;
            double r = ref_uniform();
            e[c] = r < 0.2 ? 0.0 : r < 0.4 ? 1.0 : ref_uniform();
        }
        mu[0] = 0.1 + ref_uniform(); /* at least one frictional contact */
        for (int i = 0; i < 6; ++i) {
            v0[i] = ref_normal();
        }
        const double q[6] = {0};
        /* Newton e = 0, Newton e, Poisson e, Poisson with one e for all contacts */
        for (int variant = 0; variant < 4; ++variant) {
            double ev[4];
            for (int32_t c = 0; c < k; ++c) {
                ev[c] = variant == 0 ? 0.0 : variant == 3 ? e[0] : e[c];
            }
            nscd_system *sys = make_system(&md, variant >= 2 ? POISSON : NEWTON, ev, mu, nt);
            double v[6];
            memcpy(v, v0, sizeof v);
            outcome o = impact(sys, k, contacts, q, v);
            double dT = kinetic(&md, v) - kinetic(&md, v0);
            energy_stats *st = &stats[variant];
            if (o.rc == NSCD_OK) {
                ++st->ok;
                st->worst_ok = fmax(st->worst_ok, dT / fmax(o.energy_reference, DBL_MIN));
                assert_true(dT <= 1e-9 * o.energy_reference + 1e-12 * kinetic(&md, v0));
                assert_near(dT, o.energy_change, 1e-9 * (kinetic(&md, v0) + 1.0));
            } else if (o.rc == NSCD_ERR_UNSUPPORTED) {
                ++st->gained;
                ++st->gained_by_k[k];
                assert_memory_equal(v, v0, sizeof v);
                assert_true(o.energy_change > 1e-9 * o.energy_reference);
                st->worst_gain = fmax(st->worst_gain, o.energy_change / o.energy_reference);
                if (getenv("NSCD_DEBUG") != NULL) {
                    print_message("gain family %d law %d k %d: dT/T_c %g\n", family, variant,
                                  (int)k, o.energy_change / o.energy_reference);
                }
            } else {
                assert_int_equal(o.rc, NSCD_ERR_NOT_CONVERGED);
                ++st->failed;
                if (getenv("NSCD_DEBUG") != NULL) {
                    print_message("family %d law %d k %d: merit %.3g after %d sweeps\n", family,
                                  variant, (int)k, o.info.merit, (int)o.info.iterations);
                }
                assert_memory_equal(v, v0, sizeof v);
            }
            nscd_system_destroy(sys);
        }
    }
}

static void energy_never_increases(void **state) {
    (void)state;
    ref_rng_state = 0x5EED5EEDull;
    int n = samples(400);
    static const char *family_name[2] = {"rigid", "abstract"};
    static const char *law_name[4] = {"Newton e = 0 ", "Newton e_j   ", "Poisson e_j  ",
                                      "Poisson one e"};
    energy_stats stats[2][4];
    memset(stats, 0, sizeof stats);
    for (int family = 0; family < 2; ++family) {
        energy_family(family, n, stats[family]);
        print_message("energy, %d random %s impacts of 1-4 contacts:\n", n, family_name[family]);
        for (int law = 0; law < 4; ++law) {
            const energy_stats *st = &stats[family][law];
            print_message("  %s: %5d ok (max dT/T_c %.2g), %4d gains (max dT/T_c %.3g; "
                          "k = 1..4: %d %d %d %d), %4d fc3d failures\n",
                          law_name[law], st->ok, st->worst_ok, st->gained, st->worst_gain,
                          st->gained_by_k[1], st->gained_by_k[2], st->gained_by_k[3],
                          st->gained_by_k[4], st->failed);
        }
        assert_int_equal(stats[family][0].gained, 0);         /* Newton e = 0 */
        assert_true(stats[family][1].gained > 0);             /* Newton e > 0 */
        assert_true(stats[family][2].gained <= n / 100);      /* Poisson, e_j: rare */
        assert_int_equal(stats[family][2].gained_by_k[1], 0); /* never for one contact */
        assert_int_equal(stats[family][3].gained, 0);         /* Poisson, one e: never */
    }
    for (int law = 0; law < 4; ++law) {
        assert_true(stats[0][law].failed <= n / 25);
        assert_true(stats[1][law].failed <= n / 10);
    }
}

/* ------------------------------------------------------------- failures */

static void one_sweep(nscd__impact_work *work) { work->fc3d_options.max_iterations = 1; }

/* fc3d's failure to converge is the impact's status, with a message; v is
 * unchanged. Several Routh contacts name the laws to use instead. */
static void failures_are_reported(void **state) {
    (void)state;
    model md = block();
    const double e[2] = {0.5, 0.5}, mu[2] = {0.5, 0.5};
    const int32_t nt[2] = {1, 1};
    nscd_system *sys = make_system(&md, NEWTON, e, mu, nt);
    const double q[3] = {0.0, 0.0, 0.3}, v0[3] = {-0.5, -1.0, -2.0};
    double v[3] = {v0[0], v0[1], v0[2]};
    outcome o = impact_ex(sys, 2, both, q, v, DISPATCH, 0, one_sweep);
    assert_int_equal(o.rc, NSCD_ERR_NOT_CONVERGED);
    assert_memory_equal(v, v0, sizeof v);
    assert_non_null(strstr(nscd_system_last_error(sys), "fc3d merit"));
    assert_int_equal(o.info.converged, 0);
    nscd_system_destroy(sys);

    sys = make_system(&md, ROUTH, e, mu, nt);
    o = impact(sys, 2, both, q, v);
    assert_int_equal(o.rc, NSCD_ERR_UNSUPPORTED);
    assert_memory_equal(v, v0, sizeof v);
    assert_non_null(strstr(nscd_system_last_error(sys), "Poisson"));
    nscd_system_destroy(sys);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(single_corner_sliding_and_sticking),
        cmocka_unit_test(newton_energy_gain_is_an_error),
        cmocka_unit_test(poisson_agrees_with_routh_without_reversal),
        cmocka_unit_test(frictionless_single_contact_reduces_to_newton),
        cmocka_unit_test(two_corners_match_the_enumeration),
        cmocka_unit_test(spatial_two_corners_match_the_reference),
        cmocka_unit_test(poisson_two_contacts_can_create_energy),
        cmocka_unit_test(closed_frictional_contact_takes_part),
        cmocka_unit_test(planar_embedding_keeps_the_dummy_impulse_zero),
        cmocka_unit_test(shifted_local_solver_obeys_its_law),
        cmocka_unit_test(fc3d_frictionless_take_off_converges),
        cmocka_unit_test(frictionless_impacts_are_the_lcp_results),
        cmocka_unit_test(coulomb_with_inverse_obeys_the_law),
        cmocka_unit_test(coulomb_step_converges_to_the_law),
        cmocka_unit_test(plastic_projection_ignores_friction),
        cmocka_unit_test(energy_never_increases),
        cmocka_unit_test(failures_are_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
