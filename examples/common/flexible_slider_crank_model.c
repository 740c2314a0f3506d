/* The flexible slider-crank (flexible_slider_crank_model.h). */
#include "flexible_slider_crank_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define L1 SLIDER_CRANK_L1
#define L2 SLIDER_CRANK_L2
#define G SLIDER_CRANK_GRAVITY

static const double CORNER_SIGN[SLIDER_CRANK_CORNERS][2] = {
    {+1.0, +1.0}, {-1.0, +1.0}, {+1.0, -1.0}, {-1.0, -1.0}};

nscd_status flex_crank_init(flex_crank *fc, const slider_crank_case *model, double youngs_modulus,
                            int32_t n_elements, int32_t n_modes, double cutoff_hz,
                            int32_t rotary_inertia, int32_t reference) {
    memset(fc, 0, sizeof *fc);
    fc->model = model;
    /* Sect. 3: J2 = m2 (l2² + D²)/12 defines D; ρ l2 H D = m2 defines H */
    fc->height = sqrt(12.0 * SLIDER_CRANK_J2 / SLIDER_CRANK_M2 - L2 * L2);
    fc->thickness = SLIDER_CRANK_M2 / (FLEX_DENSITY * L2 * fc->height);
    fc->area = fc->thickness * fc->height;
    fc->second_moment = fc->thickness * pow(fc->height, 3) / 12.0;
    nscd_beam_desc d;
    nscd_beam_desc_init(&d, sizeof d);
    d.youngs_modulus = youngs_modulus;
    d.density = FLEX_DENSITY;
    d.area = fc->area;
    d.second_moment = fc->second_moment;
    d.length = L2;
    d.n_elements = n_elements;
    d.reference = reference;
    d.rotary_inertia = rotary_inertia;
    d.n_modes = n_modes;
    d.cutoff_frequency = cutoff_hz;
    d.gravity[1] = -G;
    nscd_status rc = nscd_beam_create(&d, &fc->beam);
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd_beam_get_sizes(fc->beam, &fc->n_beam, NULL);
    fc->n_dof = fc->n_beam;
    size_t n = (size_t)fc->n_beam;
    fc->n_elements = n_elements;
    fc->scratch = calloc(3 * n * n + 8 * n + 3 * (size_t)(n_elements + 1), sizeof(double));
    return fc->scratch != NULL ? NSCD_OK : NSCD_ERR_OUT_OF_MEMORY;
}

void flex_crank_free(flex_crank *fc) {
    nscd_beam_destroy(fc->beam);
    free(fc->scratch);
    memset(fc, 0, sizeof *fc);
}

/* The system's index of the beam coordinate k >= 2: θ2 or q_e. */
static int32_t sys_index(int32_t k) { return k == 2 ? 1 : k; }

/* p = (R(θ1), θ2, q_e), ṗ, and b = dR/dθ1. */
static void beam_coordinates(const flex_crank *fc, const double *q, const double *v, double *p,
                             double *pdot, double *b) {
    double c1 = cos(q[0]), s1 = sin(q[0]);
    b[0] = -L1 * s1, b[1] = L1 * c1;
    p[0] = L1 * c1, p[1] = L1 * s1, p[2] = q[1];
    memcpy(p + 3, q + 3, (size_t)(fc->n_beam - 3) * sizeof(double));
    if (v != NULL) {
        pdot[0] = b[0] * v[0], pdot[1] = b[1] * v[0], pdot[2] = v[1];
        memcpy(pdot + 3, v + 3, (size_t)(fc->n_beam - 3) * sizeof(double));
    }
}

/* M_p = M_beam + m3 L'L of the slider at the tip (eq. 141). */
static void beam_and_slider_mass(flex_crank *fc, const double *p, double *mp, double *rows) {
    int32_t n = fc->n_beam;
    nscd_beam_mass(fc->beam, p, mp);
    nscd_beam_point(fc->beam, L2, p, NULL, NULL, rows, NULL);
    for (int32_t i = 0; i < n; ++i) {
        for (int32_t j = 0; j < n; ++j) {
            mp[i * n + j] += SLIDER_CRANK_M3 * (rows[i] * rows[j] + rows[n + i] * rows[n + j]);
        }
    }
}

nscd_status flex_crank_mass(void *user, const double *q, double *mass) {
    flex_crank *fc = user;
    int32_t n = fc->n_beam;
    double *mp = fc->scratch, *rows = mp + (size_t)n * (size_t)n, *p = rows + 2 * n;
    double b[2], unused[1];
    beam_coordinates(fc, q, NULL, p, unused, b);
    beam_and_slider_mass(fc, p, mp, rows);
    memset(mass, 0, (size_t)n * (size_t)n * sizeof(double));
    /* B' M_p B: the R rows and columns fold into θ1 through b */
    mass[0] = SLIDER_CRANK_J1 + SLIDER_CRANK_M1 * L1 * L1 / 4.0;
    for (int a = 0; a < 2; ++a) {
        for (int c = 0; c < 2; ++c) {
            mass[0] += b[a] * mp[a * n + c] * b[c];
        }
    }
    for (int32_t k = 2; k < n; ++k) {
        double m0k = b[0] * mp[k] + b[1] * mp[n + k];
        mass[sys_index(k)] = mass[(size_t)sys_index(k) * (size_t)n] = m0k;
        for (int32_t j = 2; j < n; ++j) {
            mass[(size_t)sys_index(k) * (size_t)n + (size_t)sys_index(j)] = mp[k * n + j];
        }
    }
    mass[2 * n + 2] = SLIDER_CRANK_J3;
    return NSCD_OK;
}

nscd_status flex_crank_forces(void *user, double t, const double *q, const double *v, double *h) {
    (void)t;
    flex_crank *fc = user;
    int32_t n = fc->n_beam;
    double *mp = fc->scratch, *rows = mp + (size_t)n * (size_t)n, *p = rows + 2 * n;
    double *pdot = p + n, *hp = pdot + n;
    double b[2], gamma[2];
    beam_coordinates(fc, q, v, p, pdot, b);
    beam_and_slider_mass(fc, p, mp, rows);
    nscd_status rc = nscd_beam_forces(fc->beam, p, pdot, hp);
    if (rc == NSCD_OK) {
        rc = nscd_beam_point(fc->beam, L2, p, pdot, NULL, NULL, gamma);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    /* the slider's weight and inertia of the frame's motion, L'(m3 g − m3 γ) */
    double f[2] = {-SLIDER_CRANK_M3 * gamma[0], SLIDER_CRANK_M3 * (-G - gamma[1])};
    /* p̈ = B q̈ + ċ, ċ = −l1 θ̇1² (cos θ1, sin θ1, 0, ...): h_p − M_p ċ */
    double cdot[2] = {-L1 * cos(q[0]) * v[0] * v[0], -L1 * sin(q[0]) * v[0] * v[0]};
    for (int32_t i = 0; i < n; ++i) {
        hp[i] +=
            rows[i] * f[0] + rows[n + i] * f[1] - mp[i * n] * cdot[0] - mp[i * n + 1] * cdot[1];
    }
    h[0] = b[0] * hp[0] + b[1] * hp[1] - G * SLIDER_CRANK_M1 * L1 / 2.0 * cos(q[0]) +
           fc->model->torque;
    h[2] = 0.0;
    for (int32_t k = 2; k < n; ++k) {
        h[sys_index(k)] = hp[k];
    }
    return NSCD_OK;
}

nscd_status flex_crank_stiffness(void *user, double t, const double *q, const double *v,
                                 double *k) {
    (void)t, (void)q, (void)v;
    flex_crank *fc = user;
    /* K lives on q_e only, which keeps its indices (θ2 ↔ θ: zero rows) */
    return nscd_beam_stiffness(fc->beam, k);
}

/* The tip (slider centre) and its rows in the system's coordinates. */
static void tip(flex_crank *fc, const double *q, double *r, double *jx, double *jy) {
    int32_t n = fc->n_beam;
    double *rows = fc->scratch + (size_t)n * (size_t)n, *p = rows + 2 * n, b[2], unused[1];
    beam_coordinates(fc, q, NULL, p, unused, b);
    nscd_beam_point(fc->beam, L2, p, NULL, r, rows, NULL);
    if (jx == NULL) {
        return;
    }
    jx[0] = rows[0] * b[0] + rows[1] * b[1];
    jy[0] = rows[n] * b[0] + rows[n + 1] * b[1];
    jx[2] = jy[2] = 0.0;
    for (int32_t k = 2; k < n; ++k) {
        jx[sys_index(k)] = rows[k];
        jy[sys_index(k)] = rows[n + k];
    }
}

nscd_status flex_crank_contact(void *user, int32_t index, double t, const double *q, double *gap,
                               double *w_normal, double *w_tangent) {
    (void)t;
    flex_crank *fc = user;
    if (index < 0 || index >= SLIDER_CRANK_CORNERS) {
        return NSCD_ERR_INDEX;
    }
    int32_t n = fc->n_dof;
    double *jx = fc->scratch + 2 * (size_t)n * (size_t)n, *jy = jx + n, r[2];
    tip(fc, q, r, jx, jy);
    double ox = CORNER_SIGN[index][0] * SLIDER_CRANK_A, oy = CORNER_SIGN[index][1] * SLIDER_CRANK_B;
    double c3 = cos(q[2]), s3 = sin(q[2]);
    double y = r[1] + s3 * ox + c3 * oy;
    jx[2] = -s3 * ox - c3 * oy;
    jy[2] = c3 * ox - s3 * oy;
    double wall = SLIDER_CRANK_B + fc->model->clearance, side = CORNER_SIGN[index][1];
    *gap = wall - side * y;
    for (int32_t i = 0; i < n; ++i) {
        w_normal[i] = -side * jy[i];
        if (w_tangent != NULL) {
            w_tangent[i] = jx[i];
        }
    }
    return NSCD_OK;
}

double flex_crank_energy(flex_crank *fc, const double *q, const double *v) {
    int32_t n = fc->n_beam;
    double *rows = fc->scratch + (size_t)n * (size_t)n, *p = rows + 2 * n, *pdot = p + n;
    double b[2], e[3], r[2];
    beam_coordinates(fc, q, v, p, pdot, b);
    nscd_beam_energy(fc->beam, p, pdot, e);
    nscd_beam_point(fc->beam, L2, p, NULL, r, rows, NULL);
    double rdot[2] = {0.0, 0.0};
    for (int32_t k = 0; k < n; ++k) {
        rdot[0] += rows[k] * pdot[k];
        rdot[1] += rows[n + k] * pdot[k];
    }
    double crank = 0.5 * (SLIDER_CRANK_J1 + SLIDER_CRANK_M1 * L1 * L1 / 4.0) * v[0] * v[0] +
                   G * SLIDER_CRANK_M1 * L1 / 2.0 * sin(q[0]);
    double slider = 0.5 * SLIDER_CRANK_M3 * (rdot[0] * rdot[0] + rdot[1] * rdot[1]) +
                    0.5 * SLIDER_CRANK_J3 * v[2] * v[2] + G * SLIDER_CRANK_M3 * r[1];
    return e[0] + e[1] + e[2] + crank + slider - fc->model->torque * q[0];
}

void flex_crank_slider(flex_crank *fc, const double *q, double *x, double *y, double *deflection,
                       double *stretch) {
    double r[2];
    tip(fc, q, r, NULL, NULL);
    *x = r[0], *y = r[1];
    /* the tip in the rod frame: A(θ2)' (r − R) = (l2 + stretch, deflection) */
    double dx = r[0] - L1 * cos(q[0]), dy = r[1] - L1 * sin(q[0]);
    *deflection = -sin(q[1]) * dx + cos(q[1]) * dy;
    *stretch = cos(q[1]) * dx + sin(q[1]) * dy - L2;
}

double flex_crank_root_moment(flex_crank *fc, const double *q, double youngs_modulus) {
    /* w''(0) of the first element (eq. 163 at ξ = 0) from its nodal values */
    double *w = fc->scratch + 3 * (size_t)fc->n_beam * (size_t)fc->n_beam + 8 * (size_t)fc->n_beam;
    nscd_beam_nodal_displacements(fc->beam, q + 3, w);
    double h = L2 / fc->n_elements;
    double curvature = (-6.0 * w[1] - 4.0 * h * w[2] + 6.0 * w[4] - 2.0 * h * w[5]) / (h * h);
    return youngs_modulus * fc->second_moment * curvature;
}

/* The bilateral case: each corner on its wall as an equality g = 0. */
static nscd_status corner_on_wall(void *user, int32_t index, double t, const double *q, double *g,
                                  double *w) {
    return flex_crank_contact(user, index, t, q, g, w, NULL);
}

nscd_status flex_crank_system_create(flex_crank *fc, nscd_system **system) {
    const slider_crank_case *model = fc->model;
    nscd_system_desc desc;
    nscd_system_desc_init(&desc, sizeof desc);
    desc.n_dof = fc->n_dof;
    /* c = 0 (bilateral): the prismatic joint as four corner equalities, a
     * redundant set on the slider's two dofs, as in slider_crank_model.c */
    int bilateral = model->clearance == 0.0;
    desc.n_contacts = bilateral ? 0 : SLIDER_CRANK_CORNERS;
    desc.n_equalities = bilateral ? SLIDER_CRANK_CORNERS : 0;
    desc.user = fc;
    desc.mass = flex_crank_mass;
    desc.forces = flex_crank_forces;
    desc.stiffness = flex_crank_stiffness;
    desc.contact = bilateral ? NULL : flex_crank_contact;
    desc.equality = bilateral ? corner_on_wall : NULL;
    nscd_system *sys = NULL;
    nscd_status rc = nscd_system_create(&desc, &sys);
    if (rc == NSCD_OK) {
        rc = slider_crank_set_corner_contacts(model, sys, desc.n_contacts);
    }
    double *q0 = calloc(2 * (size_t)fc->n_dof, sizeof(double)), *v0 = q0 + fc->n_dof;
    if (rc == NSCD_OK && q0 == NULL) {
        rc = NSCD_ERR_OUT_OF_MEMORY;
    }
    if (rc == NSCD_OK) {
        memcpy(v0, model->v0, SLIDER_CRANK_DOF * sizeof(double));
        rc = nscd_system_set_state(sys, 0.0, q0, v0);
    }
    free(q0);
    if (rc != NSCD_OK) {
        nscd_system_destroy(sys);
        return rc;
    }
    *system = sys;
    return NSCD_OK;
}
