/* The rigid slider-crank with a clearance joint (slider_crank_model.h). */
#include "slider_crank_model.h"

#include <math.h>
#include <string.h>

/* Table 1 (c = 1 mm, free run from 150 and -75 rad/s), Table 2 (c = 0.5 mm,
 * driven by 1 N m from rest) and the bilateral variant c = 0 of Sect. 4.1
 * (Tables 3-4): the prismatic joint, four corner equalities without
 * restitution or friction (slider_crank_system_create). */
static const slider_crank_case CASES[] = {
    {"table1", 1e-3, 0.0, 0.4, 0.01, {150.0, -75.0, 0.0}},
    {"table2", 5e-4, 1.0, 0.1, 0.1, {0.0, 0.0, 0.0}},
    {"bilateral", 0.0, 0.0, 0.0, 0.01, {150.0, -75.0, 0.0}},
};

/* (x sign, y sign) of the corners: upper corners first. */
static const double CORNER_SIGN[SLIDER_CRANK_CORNERS][2] = {
    {+1.0, +1.0}, {-1.0, +1.0}, {+1.0, -1.0}, {-1.0, -1.0}};

const slider_crank_case *slider_crank_case_find(const char *name) {
    for (size_t i = 0; name != NULL && i < sizeof CASES / sizeof CASES[0]; ++i) {
        if (strcmp(CASES[i].name, name) == 0) {
            return &CASES[i];
        }
    }
    return NULL;
}

const char *slider_crank_case_names(void) { return "table1|table2|bilateral"; }

/* (m2/2 + m3) l1 l2: the coupling of crank and rod in M12. */
static double coupling(void) {
    return (SLIDER_CRANK_M2 / 2.0 + SLIDER_CRANK_M3) * SLIDER_CRANK_L1 * SLIDER_CRANK_L2;
}

nscd_status slider_crank_mass(void *user, const double *q, double *mass) {
    (void)user;
    const double l1 = SLIDER_CRANK_L1, l2 = SLIDER_CRANK_L2;
    double m12 = coupling() * cos(q[1] - q[0]);
    mass[0] =
        SLIDER_CRANK_J1 + (SLIDER_CRANK_M1 / 4.0 + SLIDER_CRANK_M2 + SLIDER_CRANK_M3) * l1 * l1;
    mass[1] = m12;
    mass[2] = 0.0;
    mass[3] = m12;
    mass[4] = SLIDER_CRANK_J2 + (SLIDER_CRANK_M2 / 4.0 + SLIDER_CRANK_M3) * l2 * l2;
    mass[5] = 0.0;
    mass[6] = 0.0;
    mass[7] = 0.0;
    mass[8] = SLIDER_CRANK_J3;
    return NSCD_OK;
}

/* Lagrange's equations: h = -dM/dt v + dT/dq - dV/dq + torque. With
 * M12 = k cos(θ2 - θ1) the velocity terms reduce to ±k sin(θ2 - θ1) ω². */
nscd_status slider_crank_forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)t;
    const slider_crank_case *model = user;
    const double g = SLIDER_CRANK_GRAVITY;
    double k = coupling() * sin(q[1] - q[0]);
    double gravity1 = -g * SLIDER_CRANK_L1 * cos(q[0]) *
                      (SLIDER_CRANK_M1 / 2.0 + SLIDER_CRANK_M2 + SLIDER_CRANK_M3);
    double gravity2 = -g * SLIDER_CRANK_L2 * cos(q[1]) * (SLIDER_CRANK_M2 / 2.0 + SLIDER_CRANK_M3);
    h[0] = k * v[1] * v[1] + gravity1 + model->torque;
    h[1] = -k * v[0] * v[0] + gravity2;
    h[2] = 0.0;
    return NSCD_OK;
}

void slider_crank_slider_centre(const double *q, double *x, double *y) {
    *x = SLIDER_CRANK_L1 * cos(q[0]) + SLIDER_CRANK_L2 * cos(q[1]);
    *y = SLIDER_CRANK_L1 * sin(q[0]) + SLIDER_CRANK_L2 * sin(q[1]);
}

/* Corner k at (x, y) with the Jacobians d(x)/dq and d(y)/dq. */
static void corner(const double *q, int32_t k, double *p, double *jx, double *jy) {
    double ox = CORNER_SIGN[k][0] * SLIDER_CRANK_A, oy = CORNER_SIGN[k][1] * SLIDER_CRANK_B;
    double c3 = cos(q[2]), s3 = sin(q[2]);
    slider_crank_slider_centre(q, &p[0], &p[1]);
    p[0] += c3 * ox - s3 * oy;
    p[1] += s3 * ox + c3 * oy;
    jx[0] = -SLIDER_CRANK_L1 * sin(q[0]);
    jx[1] = -SLIDER_CRANK_L2 * sin(q[1]);
    jx[2] = -s3 * ox - c3 * oy;
    jy[0] = SLIDER_CRANK_L1 * cos(q[0]);
    jy[1] = SLIDER_CRANK_L2 * cos(q[1]);
    jy[2] = c3 * ox - s3 * oy;
}

nscd_status slider_crank_contact(void *user, int32_t index, double t, const double *q, double *gap,
                                 double *w_normal, double *w_tangent) {
    (void)t;
    const slider_crank_case *model = user;
    if (index < 0 || index >= SLIDER_CRANK_CORNERS) {
        return NSCD_ERR_INDEX;
    }
    double p[2], jx[SLIDER_CRANK_DOF], jy[SLIDER_CRANK_DOF];
    corner(q, index, p, jx, jy);
    double wall = SLIDER_CRANK_B + model->clearance; /* half the guide's height d / 2 */
    double side = CORNER_SIGN[index][1];             /* +1: upper wall, normal -y */
    *gap = wall - side * p[1];
    for (int i = 0; i < SLIDER_CRANK_DOF; ++i) {
        w_normal[i] = -side * jy[i];
        if (w_tangent != NULL) {
            w_tangent[i] = jx[i];
        }
    }
    return NSCD_OK;
}

/* The bilateral variant: each corner on its wall as an equality g = 0. */
static nscd_status corner_on_wall(void *user, int32_t index, double t, const double *q, double *g,
                                  double *w) {
    return slider_crank_contact(user, index, t, q, g, w, NULL);
}

double slider_crank_energy(const slider_crank_case *model, const double *q, const double *v) {
    double mass[SLIDER_CRANK_DOF * SLIDER_CRANK_DOF], kinetic = 0.0;
    slider_crank_mass(NULL, q, mass);
    for (int i = 0; i < SLIDER_CRANK_DOF; ++i) {
        for (int j = 0; j < SLIDER_CRANK_DOF; ++j) {
            kinetic += 0.5 * v[i] * mass[SLIDER_CRANK_DOF * i + j] * v[j];
        }
    }
    double s1 = sin(q[0]), s2 = sin(q[1]);
    double potential = SLIDER_CRANK_GRAVITY *
                       (SLIDER_CRANK_M1 * SLIDER_CRANK_L1 / 2.0 * s1 +
                        SLIDER_CRANK_M2 * (SLIDER_CRANK_L1 * s1 + SLIDER_CRANK_L2 / 2.0 * s2) +
                        SLIDER_CRANK_M3 * (SLIDER_CRANK_L1 * s1 + SLIDER_CRANK_L2 * s2));
    return kinetic + potential - model->torque * q[0];
}

nscd_status slider_crank_set_corner_contacts(const slider_crank_case *model, nscd_system *system,
                                             int32_t n) {
    nscd_contact_law *newton = NULL;
    nscd_status rc = nscd_contact_law_create_newton(model->restitution, NULL, &newton);
    nscd_contact_desc contact;
    nscd_contact_desc_init(&contact, sizeof contact);
    contact.law = newton;
    contact.friction = model->friction;
    contact.n_tangent = 1;
    contact.tangential_restitution = 0.0; /* e_T of Table 1 */
    for (int32_t k = 0; rc == NSCD_OK && k < n; ++k) {
        rc = nscd_system_set_contact(system, k, &contact);
    }
    nscd_contact_law_destroy(newton); /* the system keeps its own copies */
    return rc;
}

nscd_status slider_crank_system_create(const slider_crank_case *model, nscd_system **system) {
    nscd_system_desc desc;
    nscd_system_desc_init(&desc, sizeof desc);
    desc.n_dof = SLIDER_CRANK_DOF;
    /* c = 0: the prismatic joint, four corner equalities on the two dofs
     * the guide takes (y and the turn of the slider): a redundant set, for
     * the prox solver; frictionless. Entries 0..3 either way. */
    int bilateral = model->clearance == 0.0;
    desc.n_contacts = bilateral ? 0 : SLIDER_CRANK_CORNERS;
    desc.n_equalities = bilateral ? SLIDER_CRANK_CORNERS : 0;
    desc.user = (void *)model; /* the callbacks only read it */
    desc.mass = slider_crank_mass;
    desc.forces = slider_crank_forces;
    desc.contact = bilateral ? NULL : slider_crank_contact;
    desc.equality = bilateral ? corner_on_wall : NULL;
    nscd_system *sys = NULL;
    nscd_status rc = nscd_system_create(&desc, &sys);
    if (rc == NSCD_OK) {
        rc = slider_crank_set_corner_contacts(model, sys, desc.n_contacts);
    }
    double q0[SLIDER_CRANK_DOF] = {0.0, 0.0, 0.0};
    if (rc == NSCD_OK) {
        rc = nscd_system_set_state(sys, 0.0, q0, model->v0);
    }
    if (rc != NSCD_OK) {
        nscd_system_destroy(sys);
        return rc;
    }
    *system = sys;
    return NSCD_OK;
}

int slider_crank_scheme_from_name(const char *name, int32_t *scheme) {
    static const struct {
        const char *name;
        int32_t scheme;
    } SCHEMES[] = {{"moreau_jean", NSCD_TS_MOREAU_JEAN},
                   {"moreau_midpoint", NSCD_TS_MOREAU_MIDPOINT},
                   {"hets", NSCD_TS_HALF_EXPLICIT},
                   {"generalized_alpha", NSCD_TS_GENERALIZED_ALPHA},
                   {"bathe", NSCD_TS_BATHE},
                   {"ed_alpha", NSCD_TS_ED_ALPHA}};
    for (size_t i = 0; name != NULL && i < sizeof SCHEMES / sizeof SCHEMES[0]; ++i) {
        if (strcmp(SCHEMES[i].name, name) == 0) {
            *scheme = SCHEMES[i].scheme;
            return 0;
        }
    }
    return -1;
}

int slider_crank_solver_from_name(const char *name, int32_t *solver) {
    static const struct {
        const char *name;
        int32_t solver;
    } SOLVERS[] = {{"auto", NSCD_TS_SOLVER_AUTO},
                   {"lcp", NSCD_TS_SOLVER_LCP},
                   {"fc3d", NSCD_TS_SOLVER_FC3D_COULOMB},
                   {"fc3d_max_dissipation", NSCD_TS_SOLVER_FC3D_MAX_DISSIPATION},
                   {"prox", NSCD_TS_SOLVER_PROX}};
    for (size_t i = 0; name != NULL && i < sizeof SOLVERS / sizeof SOLVERS[0]; ++i) {
        if (strcmp(SOLVERS[i].name, name) == 0) {
            *solver = SOLVERS[i].solver;
            return 0;
        }
    }
    return -1;
}
