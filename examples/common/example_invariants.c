/* Physics invariants of the examples: see example_invariants.h. */
#include "example_invariants.h"

#include "example_cli.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

static void violation(example_invariants *inv, const char *format, ...) {
    if (inv->violations++ == 0) {
        va_list args;
        va_start(args, format);
        vsnprintf(inv->first_violation, sizeof inv->first_violation, format, args);
        va_end(args);
    }
}

/* Deepest penetration a contact may show at closing speed `closing` (>= 0). */
static double gap_tolerance(const example_invariants *inv, double closing) {
    double located = inv->fixed_step > 0.0
                         ? 0.5 * inv->gap_acceleration * inv->fixed_step * inv->fixed_step
                         : inv->event_time_tolerance * closing;
    return inv->persistent_gap_tolerance + located + EXAMPLE_GAP_ROUNDING;
}

/* Gap of contact k with gap velocity `rate`, at time t; `open` says the contact
 * is not overlapping under a compliant law. */
static void check_gap(example_invariants *inv, int32_t k, double t, double gap, double rate,
                      bool open, const char *where) {
    double closing = fmax(0.0, -rate);
    inv->max_closing_speed = fmax(inv->max_closing_speed, closing);
    double bound = gap_tolerance(inv, closing);
    if (inv->exempt[k]) {
        if (!open || gap < -bound) {
            return; /* a compliant overlap, or its residual after separation */
        }
        inv->exempt[k] = false;
    }
    inv->min_gap = fmin(inv->min_gap, gap);
    if (!(gap >= -bound)) {
        violation(inv,
                  "gap of contact %d is %.17g m at t = %.17g s (%s, gap velocity %.3g m/s), "
                  "below -%.17g m",
                  (int)k, gap, t, where, rate, bound);
    }
}

/* End of a smooth phase at energy `e`. */
static void check_phase(example_invariants *inv, double t, double e, const char *where) {
    if (!inv->conservative || inv->overlapping > 0) {
        return;
    }
    double rise = e - inv->phase_energy;
    inv->max_smooth_energy_rise = fmax(inv->max_smooth_energy_rise, rise);
    if (!(rise <= inv->drift_tolerance)) {
        violation(inv,
                  "energy rose by %.3g J over the smooth phase ending at t = %.17g s (%s), "
                  "above the drift tolerance %.3g J",
                  rise, t, where, inv->drift_tolerance);
    }
}

int example_invariants_init(example_invariants *inv, nscd_system *system,
                            const nscd_event_driven_options *options, nscd_contact_fn contact,
                            example_energy_fn energy, void *model, double energy_scale,
                            bool conservative) {
    memset(inv, 0, sizeof *inv);
    inv->energy = energy;
    inv->contact = contact;
    inv->model = model;
    inv->conservative = conservative;
    inv->energy_scale = energy_scale;
    inv->energy_tolerance = EXAMPLE_EVENT_ENERGY_TOLERANCE * energy_scale;
    inv->persistent_gap_tolerance = options->persistent_gap_tolerance;
    inv->event_time_tolerance = options->event_time_tolerance;
    if (options->method == NSCD_ED_RK4_LINEAR) {
        inv->fixed_step = options->fixed_step;
        inv->drift_tolerance = EXAMPLE_DRIFT_TOLERANCE_RK4 * energy_scale;
    } else {
        inv->drift_tolerance = EXAMPLE_DRIFT_TOLERANCE * options->relative_tolerance * energy_scale;
    }
    inv->max_event_energy_gain = -INFINITY;
    inv->max_smooth_energy_rise = -INFINITY;
    inv->min_gap = INFINITY;
    nscd_system_get_sizes(system, &inv->n_dof, &inv->n_contacts);
    if (inv->n_dof > EXAMPLE_INVARIANTS_MAX_DOF ||
        inv->n_contacts > EXAMPLE_INVARIANTS_MAX_CONTACTS) {
        fprintf(stderr, "example_invariants: at most %d dofs and %d contacts\n",
                EXAMPLE_INVARIANTS_MAX_DOF, EXAMPLE_INVARIANTS_MAX_CONTACTS);
        return 1;
    }
    double q[EXAMPLE_INVARIANTS_MAX_DOF], v[EXAMPLE_INVARIANTS_MAX_DOF];
    nscd_system_get_state(system, NULL, q, v);
    inv->phase_energy = energy(model, q, v);
    return 0;
}

void example_invariants_event(example_invariants *inv, const nscd_event_info *info) {
    double before = inv->energy(inv->model, info->q, info->v_before);
    double after = inv->energy(inv->model, info->q, info->v_after);
    inv->events++;
    inv->max_event_energy_gain = fmax(inv->max_event_energy_gain, after - before);
    if (!(after - before <= inv->energy_tolerance)) {
        violation(inv,
                  "energy rose by %.3g J at the event of type %d at t = %.17g s, above the "
                  "tolerance %.3g J",
                  after - before, (int)info->type, info->t, inv->energy_tolerance);
    }
    bool was_overlapping = inv->overlapping > 0;
    check_phase(inv, info->t, before, "before an event");
    if (!was_overlapping) {
        inv->phase_energy = after; /* a new phase, or a compliant passage, starts */
    }

    int32_t k0 = info->n_contacts > 0 ? info->contacts[0] : info->index;
    bool onset = info->type == NSCD_EVENT_COMPLIANT_ONSET;
    bool separation = info->type == NSCD_EVENT_COMPLIANT_SEPARATION;
    for (int32_t k = 0; k < inv->n_contacts; ++k) {
        double gap = 0.0, wn[EXAMPLE_INVARIANTS_MAX_DOF], wt[2 * EXAMPLE_INVARIANTS_MAX_DOF];
        if (inv->contact(inv->model, k, info->t, info->q, &gap, wn, wt) != NSCD_OK) {
            violation(inv, "the contact callback failed at t = %.17g s", info->t);
            continue;
        }
        double rate = 0.0;
        for (int32_t j = 0; j < info->n_dof; ++j) {
            rate += wn[j] * info->v_before[j];
        }
        check_gap(inv, k, info->t, gap, rate, !inv->in_contact[k] && !(separation && k == k0),
                  "at an event");
    }
    if (onset && k0 >= 0 && k0 < inv->n_contacts && !inv->in_contact[k0]) {
        inv->in_contact[k0] = inv->exempt[k0] = true;
        inv->overlapping++; /* E leaves out the spring: the passage is one phase */
    } else if (separation && k0 >= 0 && k0 < inv->n_contacts && inv->in_contact[k0]) {
        inv->in_contact[k0] = false;
        inv->overlapping--;
    }
    if (was_overlapping && inv->overlapping == 0) {
        check_phase(inv, info->t, after, "over a compliant contact");
        inv->phase_energy = after;
    }
}

void example_invariants_sample(example_invariants *inv, nscd_system *system) {
    double t = 0.0, q[EXAMPLE_INVARIANTS_MAX_DOF], v[EXAMPLE_INVARIANTS_MAX_DOF];
    nscd_system_get_state(system, &t, q, v);
    inv->samples++;
    for (int32_t k = 0; k < inv->n_contacts; ++k) {
        double gap = 0.0, rate = 0.0;
        int32_t mode = NSCD_CONTACT_OPEN;
        if (nscd_system_get_contact(system, k, &gap, &rate, &mode) != NSCD_OK) {
            violation(inv, "the contact callback failed at t = %.17g s", t);
            continue;
        }
        check_gap(inv, k, t, gap, rate, mode != NSCD_CONTACT_COMPLIANT, "at a sample");
    }
    check_phase(inv, t, inv->energy(inv->model, q, v), "at a sample");
}

void example_invariants_merge(example_invariants *total, const example_invariants *part) {
    total->energy_tolerance = fmax(total->energy_tolerance, part->energy_tolerance);
    total->drift_tolerance = fmax(total->drift_tolerance, part->drift_tolerance);
    total->persistent_gap_tolerance =
        fmax(total->persistent_gap_tolerance, part->persistent_gap_tolerance);
    total->event_time_tolerance = fmax(total->event_time_tolerance, part->event_time_tolerance);
    total->gap_acceleration = fmax(total->gap_acceleration, part->gap_acceleration);
    total->fixed_step = fmax(total->fixed_step, part->fixed_step);
    total->conservative = total->conservative || part->conservative;
    total->max_event_energy_gain = fmax(total->max_event_energy_gain, part->max_event_energy_gain);
    total->max_smooth_energy_rise =
        fmax(total->max_smooth_energy_rise, part->max_smooth_energy_rise);
    total->min_gap = fmin(total->min_gap, part->min_gap);
    total->max_closing_speed = fmax(total->max_closing_speed, part->max_closing_speed);
    total->events += part->events;
    total->samples += part->samples;
    if (total->violations == 0 && part->violations > 0) {
        memcpy(total->first_violation, part->first_violation, sizeof total->first_violation);
    }
    total->violations += part->violations;
}

bool example_invariants_hold(const example_invariants *inv) { return inv->violations == 0; }

void example_invariants_json(FILE *out, const example_invariants *inv) {
    fputs("{\"max_event_energy_gain\":", out);
    json_number(out, inv->max_event_energy_gain);
    fputs(",\"min_gap\":", out);
    json_number(out, inv->min_gap);
    fputs(",\"gap_tolerance\":", out);
    json_number(out, gap_tolerance(inv, inv->max_closing_speed));
    fputs(",\"energy_tolerance\":", out);
    json_number(out, inv->energy_tolerance);
    fputs(",\"max_smooth_energy_rise\":", out);
    json_number(out, inv->conservative ? inv->max_smooth_energy_rise : NAN);
    fputs(",\"drift_tolerance\":", out);
    json_number(out, inv->conservative ? inv->drift_tolerance : NAN);
    fprintf(out, ",\"events\":%lld,\"samples\":%lld,\"violations\":%lld,\"hold\":%s}",
            (long long)inv->events, (long long)inv->samples, (long long)inv->violations,
            example_invariants_hold(inv) ? "true" : "false");
}

void example_invariants_text(FILE *out, const example_invariants *inv) {
    fprintf(out, "invariants %s: ", example_invariants_hold(inv) ? "hold" : "VIOLATED");
    if (inv->events > 0) {
        fprintf(out, "energy gain at events <= %.3g J (tol %.3g), ", inv->max_event_energy_gain,
                inv->energy_tolerance);
    } else {
        fputs("no events, ", out);
    }
    fprintf(out, "lowest gap %.3g m (tol %.3g)", inv->min_gap,
            gap_tolerance(inv, inv->max_closing_speed));
    if (inv->conservative) {
        fprintf(out, ", smooth energy rise %.3g J (tol %.3g)", inv->max_smooth_energy_rise,
                inv->drift_tolerance);
    }
    fputc('\n', out);
}

int example_invariants_report(const example_invariants *inv, const char *program) {
    if (example_invariants_hold(inv)) {
        return 0;
    }
    fprintf(stderr, "%s: PHYSICS INVARIANT VIOLATED (%lld violation%s); the first: %s\n", program,
            (long long)inv->violations, inv->violations == 1 ? "" : "s", inv->first_violation);
    return 3;
}
