/* Physics invariants every example that runs the event-driven stepper checks.
 *
 *  1. Energy never rises at an event: E(q, v_after) - E(q, v_before) <= energy_tolerance,
 *     with E the total mechanical energy (kinetic + potential) and energy_tolerance =
 *     1e-12 * the system's energy scale (the rounding of E, not a physical margin).
 *  2. No gap below -gap_tolerance at an event (at info->q) or at a sample (the state
 *     after each nscd_event_driven_advance() call). A contact may be found that deep:
 *     a touching contact lands at -persistent_gap_tolerance, and the event is placed
 *     up to event_time_tolerance after the crossing, where the gap has gone on falling
 *     at the closing speed. So the bound at a contact with gap velocity dg/dt is
 *         persistent_gap_tolerance + event_time_tolerance * max(0, -dg/dt) + 1e-14 m,
 *     and gap_tolerance reports it at the largest closing speed seen. The last term is
 *     the rounding of a gap: a difference of coordinates of 1 to 10 m, whose ulp is up
 *     to 1.8e-15 m (double_pendulum_routh --mu 1 --e 0.5 lands a touching contact
 *     3e-17 m beyond the first two terms).
 *     The paper's method NSCD_ED_RK4_LINEAR sees a crossing only at the end of a
 *     fixed step h and places the event on the chord (seed 000, eqs. 9-11): a contact
 *     may sink by up to a h^2 / 2 in one step (a = `gap_acceleration`, a bound of
 *     |d2g/dt2| the example sets), and that replaces the event-time term.
 *  3. (Systems with no energy input between events, `conservative`.) Energy does not
 *     rise over a smooth phase, from one event (or the start) to the next event (or
 *     any sample), by more than drift_tolerance: the integration error. For DOPRI5
 *     it is 1000 * relative_tolerance * the energy scale (1e-7 of it by default;
 *     the examples stay below 1e-9). For NSCD_ED_RK4_LINEAR, 1e-5 of the scale:
 *     the state at an event is interpolated linearly (eq. 11), which misses the
 *     energy by about m a^2 h^2 / 8 (1.2e-8 and 4.6e-7 of the scale in the default
 *     runs of bouncing_ball --rk4 and double_pendulum_routh --paper-method).
 *
 * Compliant contacts: while a compliant contact overlaps, its spring stores energy
 * that E does not count, and its geometric gap is negative by design (an overlap of
 * up to a millimetre; a Hertz spring with a linear damper also separates with a
 * residual overlap). So from a compliant onset until the contact is seen open with
 * its gap back above -gap_tolerance, that contact's gap is not checked, and the whole
 * passage from onset to separation counts as one smooth phase: E after the separation
 * must not exceed E before the onset (+ drift_tolerance; the spring energy left at
 * separation is lost, the damper dissipates). The onset and separation events
 * themselves do not change v, so their event gain is zero.
 */
#ifndef NSCD_EXAMPLE_INVARIANTS_H
#define NSCD_EXAMPLE_INVARIANTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <nscd/nscd.h>

#define EXAMPLE_INVARIANTS_MAX_DOF 16
#define EXAMPLE_INVARIANTS_MAX_CONTACTS 16

#define EXAMPLE_GAP_ROUNDING 1e-14 /* m */
/* Relative tolerances (times the energy scale). */
#define EXAMPLE_EVENT_ENERGY_TOLERANCE 1e-12
#define EXAMPLE_DRIFT_TOLERANCE 1e3      /* times relative_tolerance (DOPRI5) */
#define EXAMPLE_DRIFT_TOLERANCE_RK4 1e-5 /* NSCD_ED_RK4_LINEAR */

/* Total mechanical energy of a model at (q, v). */
typedef double (*example_energy_fn)(void *model, const double *q, const double *v);

typedef struct example_invariants {
    example_energy_fn energy;
    nscd_contact_fn contact;
    void *model;
    int32_t n_dof, n_contacts;
    bool conservative;
    /* tolerances */
    double energy_scale, energy_tolerance, drift_tolerance;
    double persistent_gap_tolerance, event_time_tolerance;
    double gap_acceleration; /* bound of |d2g/dt2|, m/s^2: set it for NSCD_ED_RK4_LINEAR */
    double fixed_step;       /* of NSCD_ED_RK4_LINEAR, else 0 */
    /* what was seen */
    double max_event_energy_gain; /* -inf until an event */
    double max_smooth_energy_rise;
    double min_gap, max_closing_speed;
    int64_t events, samples, violations;
    char first_violation[256];
    /* state: the smooth phase that runs since the last event */
    double phase_energy;
    int32_t overlapping;                              /* compliant contacts in contact */
    bool exempt[EXAMPLE_INVARIANTS_MAX_CONTACTS];     /* gap not checked (compliant) */
    bool in_contact[EXAMPLE_INVARIANTS_MAX_CONTACTS]; /* compliant, between onset and separation */
} example_invariants;

/* Sets up the observer for `system` at its current state (the first smooth phase
 * starts there). `options` are the stepper's (its gap and event-time tolerances),
 * `contact` the model's contact callback (called with `model`), `energy_scale` the
 * size of the energy terms (sets the tolerances), `conservative` whether energy is
 * conserved between events. Returns 0, or 1 with a message on stderr when the
 * system is larger than EXAMPLE_INVARIANTS_MAX_*. */
int example_invariants_init(example_invariants *inv, nscd_system *system,
                            const nscd_event_driven_options *options, nscd_contact_fn contact,
                            example_energy_fn energy, void *model, double energy_scale,
                            bool conservative);
/* Checks one event; call it from the example's on_event handler. */
void example_invariants_event(example_invariants *inv, const nscd_event_info *info);
/* Checks the current state; call it after each nscd_event_driven_advance(). */
void example_invariants_sample(example_invariants *inv, nscd_system *system);
/* Worst values and largest tolerances of `part` into `total` (several runs). */
void example_invariants_merge(example_invariants *total, const example_invariants *part);
bool example_invariants_hold(const example_invariants *inv);
/* Prints the JSON object {"max_event_energy_gain":..., ..., "hold":...}. */
void example_invariants_json(FILE *out, const example_invariants *inv);
/* One line of text: the worst values and whether they hold. */
void example_invariants_text(FILE *out, const example_invariants *inv);
/* 0 when the invariants hold; else prints the first violation on stderr, returns 3. */
int example_invariants_report(const example_invariants *inv, const char *program);

#endif
