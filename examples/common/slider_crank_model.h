/* The rigid slider-crank with a translational clearance joint of seed 003
 * (Sect. 4.1, Tables 1 and 2, after Flores et al.) as an nscd_system: the
 * model of tools/reference/slider_crank.py, shared by examples/slider_crank.c
 * and bench/bench_time_stepping.c.
 *
 * Coordinates q = (θ1 crank, θ2 rod, θ3 slider); SI units. The crank of
 * length l1 turns about the origin, the rod of length l2 goes from the crank
 * tip A to its tip B, the slider (half-length a, half-height b, turned by θ3)
 * is centred at B in a horizontal guide of height d = 2 (b + c) centred on
 * y = 0 (the paper does not give d; with this one every corner gap is c at
 * θ = 0). Centres of mass at mid-length; Flores' mass matrix with Steiner's
 * term m1 l1² / 4 for the crank (the paper's appendix misprints it):
 *     M11 = J1 + (m1/4 + m2 + m3) l1²,  M12 = (m2/2 + m3) l1 l2 cos(θ2 − θ1),
 *     M22 = J2 + (m2/4 + m3) l2²,       M33 = J3;
 * forces h from Lagrange's equations: the gyroscopic terms of M12, gravity
 * along −y and the torque T on the crank (Table 2: T = 1 N·m, printed
 * "1 N/m").
 *
 * Contacts, in this order: the two upper corners (x sign +, −) with the upper
 * wall, g = (b + c) − y_k, then the two lower corners with the lower wall,
 * g = y_k + (b + c); one tangent along x each. Newton's impact law with e_N,
 * tangential restitution e_T = 0, Coulomb friction μ. */
#ifndef SLIDER_CRANK_MODEL_H
#define SLIDER_CRANK_MODEL_H

#include <stdint.h>

#include <nscd/nscd.h>

#define SLIDER_CRANK_DOF 3
#define SLIDER_CRANK_CORNERS 4

/* Table 1 (seed 003, after Flores et al.) */
#define SLIDER_CRANK_L1 0.153  /* m, crank */
#define SLIDER_CRANK_L2 0.306  /* m, rod */
#define SLIDER_CRANK_A 0.05    /* m, half-length of the slider */
#define SLIDER_CRANK_B 0.025   /* m, half-height of the slider */
#define SLIDER_CRANK_M1 0.038  /* kg */
#define SLIDER_CRANK_M2 0.038  /* kg */
#define SLIDER_CRANK_M3 0.076  /* kg */
#define SLIDER_CRANK_J1 7.4e-5 /* kg m² */
#define SLIDER_CRANK_J2 5.9e-4 /* kg m² */
#define SLIDER_CRANK_J3 2.7e-6 /* kg m² */
#define SLIDER_CRANK_GRAVITY 9.81

/* One variant of the mechanism. */
typedef struct slider_crank_case {
    const char *name;            /* "table1", "table2" or "bilateral" */
    double clearance;            /* c, m */
    double torque;               /* T on the crank, N m */
    double restitution;          /* e_N of every corner */
    double friction;             /* μ of every corner */
    double v0[SLIDER_CRANK_DOF]; /* initial velocities (θ = 0) */
} slider_crank_case;

/* The case called `name`, or NULL. */
const slider_crank_case *slider_crank_case_find(const char *name);
/* The names of the cases, for messages: "table1|table2|bilateral". */
const char *slider_crank_case_names(void);

/* The system of a case (state t = 0, q = 0, v = v0, every corner with Newton
 * e_N, μ, one tangent, e_T = 0). `model` must outlive the system: it is the
 * callbacks' user pointer. Returns the status of the failing call. */
nscd_status slider_crank_system_create(const slider_crank_case *model, nscd_system **system);
/* Contacts 0 .. n - 1 of `system` as the corners of `model`: Newton's law
 * with e_N, friction μ, one tangent, e_T = 0 (also for the flexible rod's
 * system). Returns the status of the failing call. */
nscd_status slider_crank_set_corner_contacts(const slider_crank_case *model, nscd_system *system,
                                             int32_t n);

/* The callbacks (user = const slider_crank_case *). */
nscd_status slider_crank_mass(void *user, const double *q, double *mass);
nscd_status slider_crank_forces(void *user, double t, const double *q, const double *v, double *h);
nscd_status slider_crank_contact(void *user, int32_t index, double t, const double *q, double *gap,
                                 double *w_normal, double *w_tangent);

/* E = T(q, v) + V(q) − T_torque θ1: kinetic energy plus the potential of
 * gravity and of the constant torque, conserved by the smooth motion. */
double slider_crank_energy(const slider_crank_case *model, const double *q, const double *v);
/* Position (x, y) of the slider's centre, the rod's tip B. */
void slider_crank_slider_centre(const double *q, double *x, double *y);

/* The time-stepping scheme called `name` (moreau_jean, moreau_midpoint,
 * hets, generalized_alpha, bathe, ed_alpha) into *scheme; 0, or -1 when
 * unknown. */
int slider_crank_scheme_from_name(const char *name, int32_t *scheme);
/* The local solver called `name` (auto, lcp, fc3d, fc3d_max_dissipation,
 * prox); 0, or -1 when unknown. */
int slider_crank_solver_from_name(const char *name, int32_t *solver);

#endif
