/* The slider-crank of seed 003 (Sect. 3, App. C) with a flexible connecting
 * rod: the floating-frame beam of include/nscd/beam.h between the rigid
 * crank and the rigid slider, the slider lumped at the rod's tip (eq. 141),
 * the clearance joint of the rigid model (examples/common/slider_crank_model.h,
 * same cases, guide and corner order).
 *
 * Coordinates q = (θ1, θ2, θ3, q_e): the crank's and the rod frame's angles,
 * the slider's turn, then the rod's elastic (nodal or modal) coordinates.
 * The rod's reference is tangential at the crank pin (eq. 184) and its frame
 * origin is the pin, R = l1 (cos θ1, sin θ1) (eq. 142), so the beam's own
 * coordinates are p = (R(θ1), θ2, q_e) and the system's terms follow by the
 * chain rule p̈ = B q̈ + ċ (docs/flexible_bodies.md).
 *
 * Cross-section from Sect. 3: D = √(12 J2/m2 − l2²) = 0.3044 m high,
 * H = m2 / (ρ l2 D) = 5.23e-5 m thick, A = H D, I = H D³/12 (bending in the
 * mechanism's plane, about the thickness axis), with the rotary inertia ρ I
 * so that the stiff rod has J2 about its centre. */
#ifndef FLEXIBLE_SLIDER_CRANK_MODEL_H
#define FLEXIBLE_SLIDER_CRANK_MODEL_H

#include <stdint.h>

#include "slider_crank_model.h"
#include <nscd/nscd.h>

#define FLEX_DENSITY 7800.0 /* kg/m³, Table 1 */

typedef struct flex_crank {
    const slider_crank_case *model;
    nscd_beam *beam;
    int32_t n_beam, n_dof; /* 3 + n_e both: p and q have the same length */
    int32_t n_elements;
    double height, thickness, area, second_moment;
    double *scratch; /* 3 n² + 8 n + 3 (n_elements + 1) doubles for the callbacks */
} flex_crank;

/* Builds the rod (E, elements, modes: 0 = nodal, cut-off Hz: 0 = none,
 * rotary_inertia: 1 with ρ I, 0 the slender element of the paper,
 * reference: an nscd_beam_reference). */
nscd_status flex_crank_init(flex_crank *fc, const slider_crank_case *model, double youngs_modulus,
                            int32_t n_elements, int32_t n_modes, double cutoff_hz,
                            int32_t rotary_inertia, int32_t reference);
void flex_crank_free(flex_crank *fc);

/* The system (state t = 0, q = 0, v = (ω1, ω2, ω3, 0)); fc is its user. */
nscd_status flex_crank_system_create(flex_crank *fc, nscd_system **system);

nscd_status flex_crank_mass(void *user, const double *q, double *mass);
nscd_status flex_crank_forces(void *user, double t, const double *q, const double *v, double *h);
nscd_status flex_crank_stiffness(void *user, double t, const double *q, const double *v, double *k);
nscd_status flex_crank_contact(void *user, int32_t index, double t, const double *q, double *gap,
                               double *w_normal, double *w_tangent);

/* E = T + V_elastic + V_gravity − T_torque θ1. */
double flex_crank_energy(flex_crank *fc, const double *q, const double *v);
/* The slider's centre (the rod's tip), the tip's transverse deflection and
 * axial stretch in the rod frame. */
void flex_crank_slider(flex_crank *fc, const double *q, double *x, double *y, double *deflection,
                       double *stretch);
/* The bending moment E I w''(0) at the rod's root (Fig. 26). */
double flex_crank_root_moment(flex_crank *fc, const double *q, double youngs_modulus);

#endif
