/**
 * @file time_stepping.h
 * @brief Time-stepping (event-capturing) integration of an ::nscd_system.
 *
 * A time stepper advances the system by fixed steps dt (or, with dt_max > 0,
 * by variable steps in [dt_min, dt_max] shortened to predicted contacts;
 * docs/variable_step.md) without locating events: impacts, closing and
 * opening contacts and stick-slip transitions are all captured by one
 * complementarity problem per step on the velocity level, whose unknowns
 * are the contact impulses of the step. Implemented: Moreau–Jean's θ-method
 * (Siconos' MoreauJeanOSI is the reference), Moreau's midpoint rule, the
 * half-explicit scheme HETS, the mixed framework of seed 003 with the base
 * schemes generalized-α, Bathe and ED-α, and seed 004's semi-implicit step.
 * See docs/time_stepping.md.
 *
 * One step of ::NSCD_TS_MOREAU_JEAN from (t_k, q_k, v_k):
 * - the active set: every equality entry, and every contact whose predicted
 *   gap g_k + gamma dt ġ_k is <= 0 (ġ_k = W_N v_k; gamma = 1/2 by default)
 *   or that carried a normal impulse in the stepper's previous step (forgotten
 *   when the state was changed from outside since);
 * - explicit forces (::NSCD_TS_FORCES_EXPLICIT): the iteration matrix is
 *   W_it = M and the free velocity v_free = v_k + dt M^-1 h(t_θ, q_θ, v_k)
 *   with t_θ = t_k + θ dt and q_θ = q_k + θ dt v_k;
 * - implicit forces (::NSCD_TS_FORCES_IMPLICIT, Siconos' MoreauJeanOSI): with
 *   K = -dh/dq and C = -dh/dv at (t_k, q_k, v_k), W_it = M + θ dt C + θ² dt² K
 *   and v_free = v_k + dt W_it^-1 (h(t_θ, q_k, v_k) - θ dt K v_k);
 * - the local problem u = W P + c with W = H W_it^-1 H' over the active rows H
 *   and c = H v_free + e min(H_N v_k, 0) on the normal rows (Newton's impact
 *   law at the velocity level), solved for the impulses P;
 * - v_{k+1} = v_free + W_it^-1 H' P and q_{k+1} = q_k + dt((1 - θ) v_k + θ v_{k+1}).
 *
 * One step of ::NSCD_TS_MOREAU_MIDPOINT from (t_k, q_k, v_k):
 * - the midpoint q_M = q_k + dt/2 v_k, t_M = t_k + dt/2, where the mass,
 *   the forces and the constraints are evaluated;
 * - the active set: every equality entry, and every contact with g(q_M) <= 0
 *   or that carried a normal impulse in the previous step (as above);
 * - v_free = v_k + dt M(q_M)^-1 h(t_M, q_M, v_k) (explicit forces: stable
 *   for ω dt <= 2 only), the same local problem and solvers with H = H(q_M)
 *   and the bias e min(H_N v_k, 0);
 * - v_{k+1} = v_free + M^-1 H' P and q_{k+1} = q_M + dt/2 v_{k+1}.
 *
 * One step of an α scheme (::NSCD_TS_GENERALIZED_ALPHA, ::NSCD_TS_BATHE,
 * ::NSCD_TS_ED_ALPHA; the mixed framework of seed 003, Fig. 4) from
 * (t_i, q_i, v_i, a_i):
 * - the closed set: every equality entry, and every contact with g(q_i) <= 0
 *   or that carried a normal force or impulse in the previous step;
 * - the base scheme's implicit stages (generalized-α: one at t_{i+1}; Bathe:
 *   t_i + dt/2 and t_{i+1}; ED-α: two coupled stages at t_i and t_{i+1}),
 *   each M(q) a = h(t, q, v) + H(q)' λ with q, v affine in a, solved by
 *   Newton with the effective matrix M + γ' C + β' K when the system gives
 *   K or C (a fixed point on M otherwise), the closed entries' forces λ on
 *   the velocity level (0 <= ġ_N ⊥ λ_N >= 0 at the stage ends; the default)
 *   or the acceleration level (then only for the closed contacts that do
 *   not separate at t_i);
 * - the new-impact test: when a contact outside the closed set has
 *   g(q_{i+1}) <= 0, an impulsive correction v^+ = v^- + M^-1 H' Λ over every
 *   entry with g(q_{i+1}) <= 0 and every equality, with Newton's law
 *   0 <= ġ_N^+ + e ġ_N^- ⊥ Λ_N >= 0 (tangential restitution on the
 *   tangential rows) and friction; the accelerations are kept;
 * - the start: a_0 = M^-1 (h_0 + H' λ_0) with the closed set's forces λ_0
 *   (::NSCD_TS_START_CONSISTENT) or the paper's a_0 = M^-1 h_0; the stepper
 *   keeps a_i between steps and restarts when the state was changed from
 *   outside.
 * The forces λ of the last stage are read with
 * nscd_time_stepping_get_contact_force(), the impulses Λ with
 * nscd_time_stepping_get_contact_impulse().
 * One step of ::NSCD_TS_HALF_EXPLICIT (HETS) from (t_k, q_k, v_k), Heun's
 * explicit trapezoid with velocity-level constraints:
 * - stage 1 at (t_k, q_k): a_1 = M^-1 (h(t_k, q_k, v_k) + H_k' λ_1), with
 *   dt λ_1 from the local problem that makes V_2 = v_k + dt a_1 admissible on
 *   the entries closed at q_k (equalities, g <= 0 or loaded before), without
 *   restitution (λ_1 is a force);
 * - stage 2 at (t_k + dt, Q_2 = q_k + dt v_k, V_2): the free velocity
 *   v_free = v_k + dt/2 (a_1 + M(Q_2)^-1 h(t_k + dt, Q_2, V_2)), the active
 *   set g(Q_2) <= 0 or loaded before, and Moreau–Jean's local problem at Q_2
 *   (restitution bias e min(H_N(Q_2) v_k, 0), friction, equalities) for the
 *   impulses P: v_{k+1} = v_free + M(Q_2)^-1 H(Q_2)' P;
 * - q_{k+1} = q_k + dt/2 (v_k + v_{k+1}).
 * Explicit forces: second order on smooth motion, stable for ω dt <= 2
 * only (a diverging step fails with ::NSCD_ERR_NOT_FINITE). An entry's
 * impulse of the step is dt/2 λ_1 + P.
 */
#ifndef NSCD_TIME_STEPPING_H
#define NSCD_TIME_STEPPING_H

#include <stddef.h>
#include <stdint.h>

#include "nscd/export.h"
#include "nscd/fc3d.h"
#include "nscd/host.h"
#include "nscd/status.h"
#include "nscd/system.h"
#include "nscd/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque time stepper. */
typedef struct nscd_time_stepping nscd_time_stepping;

/** Time-stepping schemes; all seven are implemented. */
typedef enum nscd_ts_scheme {
    NSCD_TS_MOREAU_JEAN = 0,     /**< Moreau–Jean θ-method, θ in [1/2, 1] (default). */
    NSCD_TS_MOREAU_MIDPOINT = 1, /**< Moreau's midpoint rule (explicit forces; θ unused). */
    NSCD_TS_HALF_EXPLICIT = 2,   /**< Half-explicit time stepping, HETS (explicit forces). */
    /** Generalized-α (Arnold–Brüls form, α_m, α_f, γ, β from `rho_infinity`,
     *  eq. 26) in the mixed framework: second order. */
    NSCD_TS_GENERALIZED_ALPHA = 3,
    /** Bathe's scheme (trapezoidal rule over dt/2, then the three-point
     *  backward difference) in the mixed framework: second order,
     *  L-stable; `rho_infinity` is not used. */
    NSCD_TS_BATHE = 4,
    /** ED-α (α = (1 - ρ∞)/(1 + ρ∞), `alpha_ar`) in the mixed framework:
     *  third order on linear problems for α_AR = 1/6. Needs the mass matrix
     *  (`mass`) of a model with one mass block (a dense 2 n_dof effective
     *  matrix). The closed contacts' forces of its first stage (at t_i) obey
     *  the acceleration level, those of its second the chosen level
     *  (docs/time_stepping.md: the literal velocity level on both is
     *  ill-posed at ρ∞ = 1 and defeats the fc3d solvers). */
    NSCD_TS_ED_ALPHA = 5,
    /** Seed 004's semi-implicit step (Sect. 2.1.4, eqs. 22–24): Moreau–Jean
     *  with θ = 1 (`theta` and `gamma` are not used), every contact in the
     *  local problem with its gap linearised at the step's start,
     *  0 <= P_N ⊥ u_N + g_k / dt >= 0 (eq. 24: plastic impacts, the
     *  contacts' restitution is not used), and every one-row equality entry
     *  with u_E + g_E / dt = 0 (eq. 23); Coulomb friction when μ > 0.
     *  Explicit forces at the step's start (t_k, q_k, v_k) (eq. 26b).
     *  docs/variable_step.md. */
    NSCD_TS_SEMI_IMPLICIT = 6
} nscd_ts_scheme;

/** Solver of the local (one-step) problem. */
typedef enum nscd_ts_local_solver {
    /** ::NSCD_TS_SOLVER_BLOCK_GS for Moreau–Jean on a world whose active
     *  set it takes (see there). Else ::NSCD_TS_SOLVER_PROX when an active contact has friction and
     *  equality entries are active (the LCP is frictionless, fc3d takes
     *  contacts only); else ::NSCD_TS_SOLVER_LCP when no active contact has
     *  friction and the problem is small (at most ::NSCD_LCP_MAX_SIZE active
     *  contacts, or equality entries are active), else
     *  ::NSCD_TS_SOLVER_FC3D_COULOMB (default). When the LCP finds the rows
     *  dependent (a redundant set, e.g. four corners held on two dofs), the
     *  same problem goes to ::NSCD_TS_SOLVER_PROX. When the fc3d choice meets
     *  a contact whose 3x3 diagonal block of the local matrix W is not
     *  symmetric (|W_ab - W_ba| > 1e-10 max |W_aa| within the block) or not
     *  positive definite, which fc3d cannot take (ED-α's coupled stages with
     *  stiffness or damping give such blocks), the problem goes to
     *  ::NSCD_TS_SOLVER_PROX. An explicit fc3d choice fails on it with
     *  ::NSCD_ERR_NOT_SPD. */
    NSCD_TS_SOLVER_AUTO = 0,
    /** The library's (mixed) pivoting LCP: frictionless contacts and equality
     *  entries; an active contact with friction, or more than
     *  ::NSCD_LCP_MAX_SIZE active contacts, fails with ::NSCD_ERR_UNSUPPORTED. */
    NSCD_TS_SOLVER_LCP = 1,
    /** fc3d block Gauss–Seidel with Coulomb's law (contacts only). */
    NSCD_TS_SOLVER_FC3D_COULOMB = 2,
    /** fc3d block Gauss–Seidel with maximum dissipation (contacts only). */
    NSCD_TS_SOLVER_FC3D_MAX_DISSIPATION = 3,
    /** The paper's prox formulation solved by a nonsmooth Gauss–Newton method
     *  with the pseudoinverse (eqs. 42–45, 51–54; LAPACK dgelsd): contacts
     *  with Coulomb friction and equality entries together, redundant rows
     *  allowed (the minimum-norm step); r per `prox_r_mode`. Dense: more than
     *  1024 active rows fail with ::NSCD_ERR_UNSUPPORTED. Stops when
     *  max |f_a| / r_a (a constraint velocity for the scaled r) is <=
     *  `tolerance`; `max_iterations` Gauss–Newton steps without it fail the
     *  step with ::NSCD_ERR_NOT_CONVERGED. */
    NSCD_TS_SOLVER_PROX = 4,
    /** The world's matrix-free block Gauss–Seidel (the solver of
     *  nscd_world_step(), docs/fc3d.md): contacts with Coulomb friction and
     *  ideal joints together, W = H M⁻¹ Hᵀ never formed, a sweep O(contacts
     *  + joint rows). Moreau–Jean (::NSCD_TS_MOREAU_JEAN,
     *  ::NSCD_TS_SEMI_IMPLICIT) with explicit forces on a model of rigid
     *  bodies (a world, nscd_time_stepping_create_world()) only: a contact's
     *  rows must be three (normal and two tangents; frictionless allowed),
     *  an equality entry's at most three, linearly independent and without
     *  bias (no energy-form joint, no linearised gap of a one-row equality),
     *  else the step fails with ::NSCD_ERR_UNSUPPORTED, as it does with
     *  another scheme. Stops when the largest change of a block's relative
     *  velocity in a sweep (a joint: its violation |H v|) is below
     *  `tolerance`; `max_iterations` sweeps without it fail the step with
     *  ::NSCD_ERR_NOT_CONVERGED. Under ::NSCD_TS_SOLVER_AUTO, Moreau–Jean on
     *  a world takes it first when the active set qualifies, and falls back
     *  to the choice above when it does not or when it does not converge. */
    NSCD_TS_SOLVER_BLOCK_GS = 5
} nscd_ts_local_solver;

/** Level on which the α schemes (generalized-α, Bathe, ED-α) impose the
 *  constraints of the contacts closed at the step's start. */
typedef enum nscd_ts_level {
    /** Velocity level (default): 0 <= ġ_N ⊥ λ_N >= 0 at the stage ends; no
     *  drift of the velocity, a position drift bounded by dt times the
     *  impact velocity (Sect. 2.4.2). */
    NSCD_TS_LEVEL_VELOCITY = 0,
    /** Acceleration level: 0 <= g̈_N ⊥ λ_N >= 0; reproduces the drift of
     *  Sect. 2.8 (Fig. 17). The Moreau schemes and HETS refuse it with
     *  ::NSCD_ERR_UNSUPPORTED. */
    NSCD_TS_LEVEL_ACCELERATION = 1
} nscd_ts_level;

/** Initial acceleration a_0 of the α schemes. */
typedef enum nscd_ts_start {
    /** a_0 = M^-1 (h_0 + H' λ_0) with the constraint forces λ_0 of the
     *  contacts closed at t_0 (default): no start-up oscillation of the
     *  constraint force and no drift (docs/time_stepping.md). */
    NSCD_TS_START_CONSISTENT = 0,
    /** The paper's eqs. (25)/(62): a_0 = M^-1 h_0 without λ_0 (Figs. 17–18). */
    NSCD_TS_START_PAPER = 1
} nscd_ts_start;

/** Choice of the prox parameter r of ::NSCD_TS_SOLVER_PROX. */
typedef enum nscd_ts_prox_r {
    /** r_k = prox_r / G_kk per contact, G the local problem's matrix and kk
     *  the contact's normal row (all its rows share it: the disk projection
     *  needs one r), or the equality row's own diagonal (default;
     *  dimensionally consistent, independent of units). */
    NSCD_TS_PROX_R_SCALED = 0,
    /** The paper's constants: r = 0.1 for the forces, r = 0.1 dt for the
     *  impulses (Sect. 2.4.2, 2.5), whatever the units. */
    NSCD_TS_PROX_R_PAPER = 1
} nscd_ts_prox_r;

/** Treatment of the forces h(t, q, v) in a Moreau–Jean step. The midpoint
 *  rule takes them explicitly at (t_M, q_M, v_k): ::NSCD_TS_FORCES_AUTO and
 *  ::NSCD_TS_FORCES_EXPLICIT mean that, ::NSCD_TS_FORCES_IMPLICIT is refused
 *  by nscd_time_stepping_create() with ::NSCD_ERR_UNSUPPORTED. The α schemes
 *  iterate on the forces: AUTO and IMPLICIT use Newton with the Jacobians
 *  (IMPLICIT without them fails the first step), EXPLICIT a fixed point on
 *  M (Jacobians ignored). */
typedef enum nscd_ts_forces {
    /** ::NSCD_TS_FORCES_IMPLICIT when the system gives a stiffness or a
     *  damping callback (and its mass matrix through `mass`), else
     *  ::NSCD_TS_FORCES_EXPLICIT (default). */
    NSCD_TS_FORCES_AUTO = 0,
    /** h at the θ-point, h(t_k + θ dt, q_k + θ dt v_k, v_k): no Jacobian is
     *  needed; stable for ω dt <= 2 only on a stiff mode of frequency ω. */
    NSCD_TS_FORCES_EXPLICIT = 1,
    /** Siconos' linear-implicit form: the θ-mean of the forces at the step
     *  ends, linearised with K = -dh/dq and C = -dh/dv at the step's start
     *  (a missing stiffness or damping callback counts as 0); unconditionally
     *  stable on linear springs and dampers for θ >= 1/2. A system with
     *  neither callback (or without `mass`) fails the first step with
     *  ::NSCD_ERR_UNSUPPORTED. */
    NSCD_TS_FORCES_IMPLICIT = 2
} nscd_ts_forces;

/** What chose the size of a step (nscd_time_stepping_report::step_rule). */
typedef enum nscd_ts_step_rule {
    NSCD_TS_STEP_FIXED = 0,   /**< The fixed step `dt` (variable steps off). */
    NSCD_TS_STEP_MAX = 1,     /**< `dt_max`: no open contact closes within it. */
    NSCD_TS_STEP_CONTACT = 2, /**< The predicted time to the first contact (>= `dt_min`). */
    NSCD_TS_STEP_END = 3      /**< Shortened or stretched to land on t_end. */
} nscd_ts_step_rule;

/**
 * @brief What one step did; filled by the library with its own sizeof in
 *        `struct_size` (fields are only ever appended: check `struct_size`
 *        before reading a field added after 0.2).
 */
typedef struct nscd_time_stepping_report {
    uint32_t struct_size;    /**< sizeof(nscd_time_stepping_report) of the library. */
    int32_t converged;       /**< 1 when the local solver reached its tolerance. */
    int64_t step;            /**< Index of the step since the stepper's creation (from 0). */
    double t;                /**< Time at the end of the step. */
    double dt;               /**< Size of the step (the last one before t_end may be shorter). */
    int32_t active_contacts; /**< Active entries (contacts and equalities) of the step. */
    int32_t new_contacts;    /**< Active entries that were not active in the previous step. */
    /** Local solver iterations (fc3d sweeps; 1 for the LCP; Gauss–Newton
     *  steps for the prox solver); HETS: the sum over its two local problems. */
    int32_t iterations;
    int32_t rows; /**< Rows of the local problem (HETS: of its impulse stage). */
    /** Local solver residual (fc3d merit; LCP complementarity; prox
     *  max |f_a| / r_a); HETS: the larger of its two. */
    double residual;
    double max_penetration; /**< Largest -g over the contacts at the step's end (>= 0). */
    /** 1 when the step applied an impulsive correction (a new impact, test
     *  (18), in the α schemes; a contact impulse in the Moreau schemes). */
    int32_t impact;
    /** Iterations on the nonlinear forces (Newton / fixed point) of the step. */
    int32_t newton_iterations;
    /** Largest |g| over the equality entries at the step's end (0 without
     *  any; appended after the first 0.2 size). */
    double equality_violation;
    /** Residual of the impulse balance of the step (eq. 16a discretised),
     *  max_i |(M(q_k)(v_{k+1} - v_k) - dt h - H' P)_i|, recomputed with the
     *  model's mass product; -1 when not computed (schemes other than
     *  ::NSCD_TS_SEMI_IMPLICIT, implicit forces, or a model without a mass
     *  product; appended after the first 0.2 size). */
    double momentum_residual;
    /** ::nscd_ts_step_rule that chose `dt` (appended after the first 0.2 size). */
    int32_t step_rule;
    /** Open contacts that the step-size rule predicted to close within
     *  `dt_max` (0 for fixed steps; appended after the first 0.2 size). */
    int32_t predicted_contacts;
} nscd_time_stepping_report;

/**
 * @brief Per-step observer. Returns 0 to go on, 1 to stop (nscd_time_stepping_advance()
 *        then returns ::NSCD_OK early); any other value fails the advance with
 *        ::NSCD_ERR_CALLBACK (the step it saw is kept).
 *
 * Re-entrancy (docs/hostile_input.md): the observer may destroy the stepper
 * or its system or world; the destroy is deferred, the advance stops after
 * this step, frees them when it returns and returns ::NSCD_ERR_STALE_HANDLE.
 * Calling nscd_time_stepping_advance(), nscd_event_driven_advance() or
 * nscd_world_step() on the same stepper, system or world from here fails
 * with ::NSCD_ERR_STATE. The same holds in the system's callbacks and the
 * log hook during the advance.
 */
typedef int32_t (*nscd_time_step_fn)(void *user, const nscd_time_stepping_report *report);

/** Options of the time stepper, filled by nscd_time_stepping_options_init(). */
typedef struct nscd_time_stepping_options {
    uint32_t struct_size; /**< sizeof(nscd_time_stepping_options). */
    int32_t scheme;       /**< ::nscd_ts_scheme (default ::NSCD_TS_MOREAU_JEAN). */
    double dt;            /**< Step size, > 0 (default 1e-3 s). */
    /** θ of Moreau–Jean, in [1/2, 1] (default 1/2, Siconos' default: second
     *  order for smooth motion, no numerical damping; 1 is the first-order,
     *  dissipative variant). Checked but not used by the midpoint rule. */
    double theta;
    /** Prediction of the activation, g_k + gamma dt ġ_k <= 0, in [0, 1]
     *  (default 1/2, Siconos' gamma). Not used by the midpoint rule, whose
     *  active set is g(q_M) <= 0. */
    double gamma;
    /** Spectral radius at infinity of generalized-α and ED-α, in [0, 1]
     *  (default 1; not used by Moreau–Jean, the midpoint rule and Bathe). */
    double rho_infinity;
    int32_t local_solver; /**< ::nscd_ts_local_solver (default ::NSCD_TS_SOLVER_AUTO). */
    /** Sweeps of the fc3d solver, or Gauss–Newton steps of the prox solver,
     *  >= 1 (default 1000). */
    int32_t max_iterations;
    /** fc3d merit tolerance, or the prox solver's on max |f_a| / r_a, > 0
     *  (default 1e-10). */
    double tolerance;
    nscd_time_step_fn on_step; /**< Observer of every step, or NULL. */
    void *on_step_user;        /**< Passed to `on_step`. */
    /** Steps per nscd_time_stepping_advance() call before ::NSCD_ERR_MAX_STEPS,
     *  >= 1 (default 10^9): a tiny dt cannot hang the caller. */
    int64_t max_steps;
    /** ::nscd_ts_forces (default ::NSCD_TS_FORCES_AUTO). */
    int32_t forces;
    /** Reserved, must be 0 (::NSCD_ERR_INVALID_ARGUMENT otherwise): keeps the
     *  struct free of tail padding; a later release may give it a meaning. */
    int32_t reserved;
    /** ::nscd_ts_level of the α schemes' closed-contact forces (default
     *  ::NSCD_TS_LEVEL_VELOCITY). */
    int32_t level;
    /** ::nscd_ts_start of the α schemes (default ::NSCD_TS_START_CONSISTENT). */
    int32_t start;
    /** α_AR of ED-α, >= 0 (default 1/6: minimal period error, third order on
     *  the linear model problem; eq. 84). */
    double alpha_ar;
    /** ::nscd_ts_prox_r (default ::NSCD_TS_PROX_R_SCALED). */
    int32_t prox_r_mode;
    /** Cap of the iterations on nonlinear forces per stage, >= 1 (default 50):
     *  the fixed-point / Newton loop of eq. (55); hitting it fails the step
     *  with ::NSCD_ERR_NOT_CONVERGED. */
    int32_t max_newton_iterations;
    /** Tolerance of that loop on the velocity change, > 0 (default 1e-10,
     *  relative to 1 + |v|). */
    double newton_tolerance;
    /** Factor of the scaled prox parameter r_k = prox_r / G_kk, in (0, 2)
     *  (default 1). */
    double prox_r;
    /** Smallest variable step h_min (default 0; appended after the first 0.2 size). Variable
     *  steps are on when `dt_max` > 0; then 0 < `dt_min` <= `dt_max` and
     *  `dt` is not used. The rule (docs/variable_step.md): dt_max, unless an
     *  open contact (g > 0, no impulse in the previous step) is predicted
     *  to close sooner from its gap, gap rate and free-flight gap
     *  acceleration at the step's start (g + s ġ + s² g̈/2 = 0); then that
     *  time s, unless s < dt_min (closed within the resolution: the step's
     *  local problem catches it); the last step lands exactly on t_end. */
    double dt_min;
    /** Largest variable step h_max (default 0: fixed steps of `dt`;
     *  appended after the first 0.2 size). */
    double dt_max;
    /** Velocities the impulsive corrections of the α schemes act on
     *  (appended after the first 0.2 size): 0 (default) all of them; K > 0
     *  only the first K, the others keep their velocities through an impact
     *  (Δv = M_KK^-1 H_K' Λ on them, W = H_K M_KK^-1 H_K'). For a floating
     *  frame body with its reference coordinates first, K = their count makes
     *  the impacts act on the rigid-body motion only, as they would on an
     *  infinitely stiff body (docs/flexible_bodies.md). The forces and the
     *  non-impulsive stages are not affected. K > n_v fails with
     *  ::NSCD_ERR_OUT_OF_RANGE; K > 0 needs an α scheme and a model with one
     *  mass block whose matrix it gives (a generic system), else
     *  ::NSCD_ERR_UNSUPPORTED; K < 0: ::NSCD_ERR_OUT_OF_RANGE. */
    int32_t impulse_velocities;
    /** ::nscd_fc3d_method of the fc3d local solves (since 0.2; the slot was
     *  a reserved 0 before the 0.2 release): ::NSCD_FC3D_AUTO (default:
     *  Gauss–Seidel, then semismooth Newton when the merit stalls, so that a
     *  hard stack converges without a choice), ::NSCD_FC3D_GAUSS_SEIDEL,
     *  ::NSCD_FC3D_JACOBI_BLEND or ::NSCD_FC3D_NEWTON. Newton and AUTO solve
     *  Coulomb's law only: the maximum-dissipation solves
     *  (::NSCD_TS_SOLVER_FC3D_MAX_DISSIPATION) sweep with Gauss–Seidel under
     *  them. Other values: ::NSCD_ERR_INVALID_ARGUMENT. */
    int32_t fc3d_method;
} nscd_time_stepping_options;

/** Counters of one nscd_time_stepping_advance() call. */
typedef struct nscd_time_stepping_stats {
    uint32_t struct_size;      /**< Set by the caller to sizeof(nscd_time_stepping_stats); kept. */
    int32_t stopped;           /**< 1 when the observer stopped the integration early. */
    int64_t steps;             /**< Steps taken. */
    int64_t solver_iterations; /**< Sum of the local solver iterations. */
    double t;                  /**< Time reached. */
    double max_penetration;    /**< Largest report.max_penetration of the call. */
    int64_t workspace_peak_bytes; /**< Largest per-step workspace used since creation. */
    double dt_smallest; /**< Smallest step of the call (0 without steps; appended after the first
                           0.2 size). */
    double dt_largest;  /**< Largest step of the call (appended after the first 0.2 size). */
    /** Steps shortened by a predicted contact (rule ::NSCD_TS_STEP_CONTACT;
     *  appended after the first 0.2 size). */
    int64_t contact_steps;
    /** Largest report.equality_violation of the call (appended after the first 0.2 size). */
    double max_equality_violation;
    /** Largest report.momentum_residual of the call (-1 when none was
     *  computed; appended after the first 0.2 size). */
    double max_momentum_residual;
} nscd_time_stepping_stats;

/**
 * @brief Fills options with their documented defaults.
 * @param options     The options.
 * @param struct_size sizeof(nscd_time_stepping_options) as the caller sees it
 *                    (any size from release 0.2 on; exactly that many bytes are written).
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER or ::NSCD_ERR_STRUCT_SIZE.
 */
NSCD_API nscd_status nscd_time_stepping_options_init(nscd_time_stepping_options *options,
                                                     size_t struct_size);

/**
 * @brief Creates a time stepper for a system; it advances the system's state.
 *
 * Lifetime as for the event-driven stepper: destroy the stepper first; if the
 * system goes first, the stepper's calls return ::NSCD_ERR_STALE_HANDLE and
 * nscd_time_stepping_destroy() still releases it.
 * @param system  The system.
 * @param options Options, or NULL for the defaults; copied.
 * @param stepper Receives the stepper; unchanged on failure.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_STRUCT_SIZE,
 *         ::NSCD_ERR_INVALID_ARGUMENT (unknown scheme, local solver or forces, or a
 *         non-zero `reserved`),
 *         ::NSCD_ERR_UNSUPPORTED (
 *         ::NSCD_TS_FORCES_IMPLICIT with ::NSCD_TS_MOREAU_MIDPOINT or
 *         ::NSCD_TS_HALF_EXPLICIT, or ::NSCD_TS_LEVEL_ACCELERATION with one of
 *         the Moreau schemes or HETS),
 *         ::NSCD_ERR_NOT_FINITE (NaN or infinity in a real option),
 *         ::NSCD_ERR_OUT_OF_RANGE (dt <= 0, θ outside [1/2, 1], gamma or rho_infinity
 *         outside [0, 1], tolerance <= 0, max_iterations < 1, max_steps < 1, dt_max < 0,
 *         or dt_max > 0 with dt_min <= 0 or dt_min > dt_max, or dt_min != 0 with
 *         dt_max == 0) or
 *         ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_time_stepping_create(nscd_system *system,
                                               const nscd_time_stepping_options *options,
                                               nscd_time_stepping **stepper);

/**
 * @brief Creates a time stepper that advances a rigid-body world (instead of
 *        nscd_world_step()): the world's dynamic bodies are its state, the
 *        world's contacts its entries, detected again at the start of every
 *        step (docs/world.md, "Driving a world with a time stepper").
 *
 * Each accepted step writes the bodies back to the world, advances
 * nscd_world_time() by the step, leaves the step's contacts and impulses to
 * nscd_world_get_contacts() and removes the bodies outside the domain box,
 * like nscd_world_step(); bodies may be added, removed or set between calls.
 * The world's gravity, materials, contact margin and collision filter are
 * used; its dt, sweeps, friction law and ε are not (the options rule the
 * step: dt, the local solver, and Moreau–Jean's velocity-level law without
 * the world's ξ/dt term). Static bodies and kinematic bodies at rest are
 * fixed obstacles; a kinematic body that moves makes the step fail with
 * ::NSCD_ERR_UNSUPPORTED.
 *
 * Lifetime: destroy the stepper first; if the world goes first, the
 * stepper's calls return ::NSCD_ERR_STALE_HANDLE and
 * nscd_time_stepping_destroy() still releases it.
 * @param world   The world.
 * @param options Options, or NULL for the defaults; copied. Only
 *                ::NSCD_TS_MOREAU_JEAN, ::NSCD_TS_SEMI_IMPLICIT and
 *                ::NSCD_TS_MOREAU_MIDPOINT drive
 *                a world.
 * @param stepper Receives the stepper; unchanged on failure.
 * @return As nscd_time_stepping_create(), and ::NSCD_ERR_UNSUPPORTED for
 *         the α schemes and HETS (their history is indexed by a fixed entry
 *         set) and for a kinematic body that moves.
 */
NSCD_API nscd_status nscd_time_stepping_create_world(nscd_world *world,
                                                     const nscd_time_stepping_options *options,
                                                     nscd_time_stepping **stepper);

/**
 * @brief Destroys a stepper, also after its system was destroyed. NULL is ignored.
 *
 * Called from a callback of the stepper's own advance (on_step, the system's
 * callbacks, the log hook), the destroy is deferred: the advance stops and
 * frees the stepper when it returns (::NSCD_ERR_STALE_HANDLE).
 * @param stepper The stepper.
 */
NSCD_API void nscd_time_stepping_destroy(nscd_time_stepping *stepper);

/**
 * @brief Steps from the system's current time to `t_end` (the last step is
 *        shortened to end exactly there).
 *
 * Bad input changes nothing. A step that fails leaves the state of the last
 * accepted step (t, q, v and the contacts' impulses), and the handle's last
 * error says what went wrong.
 * @param stepper The stepper.
 * @param t_end   Final time, >= the current time.
 * @param stats   Receives counters; may be NULL (struct_size from 0.2 to today's sizeof).
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_STRUCT_SIZE,
 *         ::NSCD_ERR_NOT_FINITE (t_end, or a state or callback value that is not finite),
 *         ::NSCD_ERR_INVALID_ARGUMENT (t_end before the current time),
 *         ::NSCD_ERR_NOT_CONVERGED (the fc3d or the prox solver reached max_iterations, or
 *         an α scheme's iteration on the forces max_newton_iterations),
 *         ::NSCD_ERR_SINGULAR (W_it singular, dependent equality rows, or an LCP matrix that is not
 *         a P-matrix; the prox solver's SVD failed), ::NSCD_ERR_UNSUPPORTED (friction or too
 *         many contacts for the LCP solver, more than 1024 rows for the prox solver,
 *         equality entries with an fc3d solver, ::NSCD_TS_FORCES_IMPLICIT
 *         without stiffness or damping), ::NSCD_ERR_CALLBACK (a callback
 * failed, or on_step returned a value other than 0 or 1), ::NSCD_ERR_STEP_TOO_SMALL (dt below the
 * resolution of t),
 *         ::NSCD_ERR_STALE_HANDLE (also: the stepper, its system or its world was
 *         destroyed by a callback during this call; each is freed now),
 *         ::NSCD_ERR_STATE (called from a callback of this stepper, or of a call
 *         that advances or steps the same system or world), ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_time_stepping_advance(nscd_time_stepping *stepper, double t_end,
                                                nscd_time_stepping_stats *stats);

/**
 * @brief The report of the last accepted step (all zero before the first).
 * @param stepper The stepper.
 * @param report  Receives the report; its struct_size, set by the caller, may be
 *                any size from 0.2 to today's sizeof; only that many bytes are written.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_STRUCT_SIZE.
 */
NSCD_API nscd_status nscd_time_stepping_get_report(const nscd_time_stepping *stepper,
                                                   nscd_time_stepping_report *report);

/**
 * @brief Impulse of one entry in the last accepted step (0 when it was not active).
 *
 * A contact's impulses are P_N >= 0 along its normal row and its friction
 * impulses along its n_tangent tangential rows; an equality entry's are its
 * multipliers (of either sign) of its first rows (normal: the first, tangent:
 * the next two). Divide by the step size for a mean force.
 * @param stepper The stepper.
 * @param index   Entry (contact) index.
 * @param normal  Receives the normal impulse (may be NULL).
 * @param tangent Receives the contact's n_tangent tangential impulses (may be NULL).
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_INDEX, ::NSCD_ERR_STALE_HANDLE.
 */
NSCD_API nscd_status nscd_time_stepping_get_contact_impulse(nscd_time_stepping *stepper,
                                                            int32_t index, double *normal,
                                                            double *tangent);

/**
 * @brief Non-impulsive force of one entry at the end of the last accepted step
 *        (0 when it was not active).
 *
 * The α schemes give the constraint force λ_{i+1} of their last stage (the
 * impulse of an impact is read with nscd_time_stepping_get_contact_impulse());
 * the Moreau schemes and HETS, whose unknowns are impulses, give the mean
 * force impulse / dt. Components as in nscd_time_stepping_get_contact_impulse().
 * @param stepper The stepper.
 * @param index   Entry (contact) index.
 * @param normal  Receives the normal force (may be NULL).
 * @param tangent Receives the contact's n_tangent tangential forces (may be NULL).
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_INDEX, ::NSCD_ERR_STALE_HANDLE.
 */
NSCD_API nscd_status nscd_time_stepping_get_contact_force(nscd_time_stepping *stepper,
                                                          int32_t index, double *normal,
                                                          double *tangent);

/**
 * @brief What went wrong in the latest call on this stepper, if it failed.
 * @param stepper The stepper, or NULL.
 * @return A string owned by the handle; "" when the latest call succeeded.
 */
NSCD_API const char *nscd_time_stepping_last_error(const nscd_time_stepping *stepper);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_TIME_STEPPING_H */
