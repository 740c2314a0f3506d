/* What happens at an event: impacts, contact mode changes, Zeno detection,
 * user events, and the projection that keeps closed contacts closed. */
#include <math.h>
#include <string.h>

#include "contact/assembly/assembly.h"
#include "contact/assembly/projection.h"
#include "integrators/event_driven/event_driven_impl.h"

#define MAX_PROJECTIONS 4
/* Rounds of impacts at one instant: a separating contact pushed back by an
 * impact takes part in the next one (one or two rounds in practice). */
#define MAX_IMPACT_ROUNDS 8
/* Rounds of mode decision and projection at one instant (one or two suffice). */
#define MODE_ROUNDS 4

nscd_status nscd__report(nscd_event_driven *ed, const nscd_event_info *info) {
    ed->stats.events++;
    if (ed->options.on_event == NULL) {
        return NSCD_OK;
    }
    int32_t answer = ed->options.on_event(ed->options.on_event_user, info);
    if (ed->diag.doomed || ed->model->diag->doomed) { /* destroyed in the handler: stop here */
        ed->stop = 1;
        return NSCD_OK;
    }
    if (answer == NSCD_EVENT_STOP) {
        ed->stop = 1;
    } else if (answer < 0) {
        return nscd__fail(&ed->diag, NSCD_ERR_CALLBACK, "event handler returned %d", (int)answer);
    } else if (answer != NSCD_EVENT_CONTINUE) {
        /* an answer the API does not define (a future action, a stray
         * value) must not be taken as "continue" */
        return nscd__fail(&ed->diag, NSCD_ERR_CALLBACK,
                          "event handler returned %d, which is neither NSCD_EVENT_CONTINUE (0), "
                          "NSCD_EVENT_STOP (1) nor negative",
                          (int)answer);
    }
    return NSCD_OK;
}

static nscd_event_info event_info(const nscd_event_driven *ed, int32_t type, double t,
                                  int32_t index, const double *y) {
    nscd_event_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = (uint32_t)sizeof info;
    info.type = type;
    info.t = t;
    info.index = index;
    info.n_dof = ed->model->n_v;
    info.q = y;
    info.v_before = info.v_after = y + ed->model->n_q;
    return info;
}

/* Reports an event that concerns contact i alone; `rate` is its gap
 * velocity (NULL when not relevant). */
static nscd_status report_contact(nscd_event_driven *ed, int32_t type, double t, const double *y,
                                  int32_t i, const double *rate) {
    nscd_event_info info = event_info(ed, type, t, i, y);
    info.n_contacts = 1;
    info.contacts = &i;
    info.gap_velocity_before = info.gap_velocity_after = rate;
    return nscd__report(ed, &info);
}

/* A contact changes mode (release, onset, separation): one-contact event. */
static nscd_status change_mode(nscd_event_driven *ed, double t, const double *y, int32_t i,
                               int32_t new_mode, int32_t type) {
    nscd__model *m = ed->model;
    nscd__contact_slot *slot = &m->contacts[i];
    double gap = 0.0;
    nscd_status rc = nscd__dynamics_contact(&ed->dynamics, i, t, y, &gap);
    if (rc != NSCD_OK) {
        return rc;
    }
    double rate = nscd__rows_dot(&ed->dynamics.entry, 0, y + m->n_q);
    if (new_mode == NSCD_CONTACT_COMPLIANT) {
        /* Seed 001: the law captures the impact velocity and the effective
         * mass of the contact (its damping may depend on both, eq. 49). The
         * memory is not cleared: a permanent indentation outlives contacts. */
        rc = nscd__dynamics_effective_mass(&ed->dynamics, y, &slot->state.memory.effective_mass);
        if (rc != NSCD_OK) {
            return rc;
        }
        slot->law.ops->onset(&slot->law, -rate, &slot->state.memory);
    } else if (slot->state.mode == NSCD_CONTACT_COMPLIANT) {
        slot->law.ops->separation(&slot->law, &slot->state.memory, -gap); /* eq. 20 reached */
    }
    slot->state.mode = new_mode;
    return report_contact(ed, type, t, y, i, &rate);
}

/* Velocity jump of `count` contacts at (t, y). */
static nscd_status apply_impact(nscd_event_driven *ed, double t, double *y, const int32_t *contacts,
                                int32_t count, int plastic) {
    nscd__model *m = ed->model;
    nscd__arena_reset(&ed->arena);
    nscd_status rc =
        nscd__gather_rows(m, &ed->arena, t, y, count, contacts, &ed->impact_rows, NULL);
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd__impact impact = {count,
                           contacts,
                           ed->impact_rows,
                           plastic,
                           ed->impulse,
                           ed->velocity_before,
                           ed->velocity_after,
                           t};
    return nscd__resolve_impact(m, &ed->impact_work, y, &impact, y + m->n_q);
}

/* Zeno by accumulation, before an impact of open contact i: that many
 * impacts in a row closer than the resolution in time. */
static int accumulating(nscd_event_driven *ed, int32_t i, double t) {
    const nscd_event_driven_options *o = &ed->options;
    /* a fixed-step method cannot resolve flights shorter than its step */
    double resolution = o->method == NSCD_ED_RK4_LINEAR
                            ? fmax(o->zeno_min_interval, 2.0 * o->fixed_step)
                            : o->zeno_min_interval;
    double interval = t - ed->last_impact[i];
    ed->last_impact[i] = t;
    ed->close_impacts[i] = interval < resolution ? ed->close_impacts[i] + 1 : 0;
    return ed->close_impacts[i] >= o->zeno_max_close_impacts;
}

/* The contacts that take part at an instant (into ed->impact_contacts, in
 * index order, their normal gap velocities into ed->rates): every closed
 * contact and every open contact under an impulsive law that touches,
 * g <= persistent_gap_tolerance. Touching contacts must take part even when
 * they do not approach: a row of touching balls passes an impact on, and the
 * second corner of a block that lands flat holds it up. */
static nscd_status touching_contacts(nscd_event_driven *ed, double t, const double *y,
                                     int32_t *count) {
    nscd__model *m = ed->model;
    *count = 0;
    for (int32_t i = 0; i < m->n_contacts; ++i) {
        const nscd__contact_slot *slot = &m->contacts[i];
        if (slot->state.mode == NSCD_CONTACT_COMPLIANT || nscd__slot_compliant(slot)) {
            continue;
        }
        double gap = 0.0;
        nscd_status rc = nscd__dynamics_contact(&ed->dynamics, i, t, y, &gap);
        if (rc != NSCD_OK) {
            return rc;
        }
        if (slot->state.mode == NSCD_CONTACT_CLOSED ||
            gap <= ed->options.persistent_gap_tolerance) {
            ed->rates[*count] = nscd__rows_dot(&ed->dynamics.entry, 0, y + m->n_q);
            ed->gaps[*count] = gap;
            ed->impact_contacts[(*count)++] = i;
        }
    }
    return NSCD_OK;
}

/* With NSCD_ZENO_STOP, an accumulation of impacts ends the call. */
static nscd_status zeno_stop(nscd_event_driven *ed, double t, const double *y) {
    if (ed->options.zeno_policy != NSCD_ZENO_STOP) {
        return NSCD_OK;
    }
    nscd_event_info info = event_info(ed, NSCD_EVENT_ZENO_STOP, t, -1, y);
    nscd_status rc = nscd__report(ed, &info);
    return rc != NSCD_OK
               ? rc
               : nscd__fail(&ed->diag, NSCD_ERR_ZENO,
                            "impacts accumulate at t = %.17g; stopped (zeno_policy = STOP)", t);
}

/* One impact of the touching contacts (ed->impact_contacts[0..count)) that
 * approach or rest: a contact that separates takes no part, since an impulse
 * on it would add energy (Newton's law changes the kinetic energy by
 * sum (1 - e) P c / 2 over approaching contacts, c < 0, plus P c / 2 over
 * separating ones). A contact whose impacts accumulate takes part
 * plastically (it is marked closed: e = 0), or the call stops (ZENO_STOP).
 * *impacted tells whether a contact approached. */
static nscd_status impact_round(nscd_event_driven *ed, double t, double *y, int32_t count,
                                int *impacted) {
    nscd__model *m = ed->model;
    const double v_rest = ed->options.zeno_velocity;
    int32_t first = -1, n = 0; /* the first approaching contact names the event */
    int zeno = 0;
    *impacted = 0;
    for (int32_t r = 0; r < count; ++r) {
        int32_t i = ed->impact_contacts[r];
        int equality = m->contacts[i].kind == NSCD__ENTRY_EQUALITY;
        if (ed->rates[r] > v_rest && !equality) { /* equalities take part in every impact */
            continue;
        }
        ed->rest[n] = r; /* scratch: positions in the touching set */
        ed->impact_list[n++] = i;
        if (fabs(ed->rates[r]) <= v_rest || (ed->rates[r] > 0.0 && !equality)) {
            continue;
        }
        first = first < 0 ? i : first;
        int open = m->contacts[i].state.mode == NSCD_CONTACT_OPEN;
        if (open && !ed->impacting[r] && accumulating(ed, i, t)) { /* once per instant */
            zeno = 1;
            if (ed->options.zeno_policy == NSCD_ZENO_PERSISTENT_CONTACT) {
                m->contacts[i].state.mode = NSCD_CONTACT_CLOSED;
                m->contacts[i].state.slip = 0;
            }
        }
        ed->impacting[r] |= open;
    }
    if (first < 0) {
        return NSCD_OK;
    }
    memcpy(ed->v_before, y + m->n_q, (size_t)m->n_v * sizeof(double));
    nscd_status rc = apply_impact(ed, t, y, ed->impact_list, n, 0);
    if (rc != NSCD_OK) {
        memcpy(y + m->n_q, ed->v_before, (size_t)m->n_v * sizeof(double));
        return rc;
    }
    *impacted = 1;
    ed->stats.impacts++;
    ed->impact_at_instant = 1;
    nscd_event_info info = event_info(ed, NSCD_EVENT_IMPACT, t, first, y);
    info.n_contacts = n;
    info.contacts = ed->impact_list;
    info.gap_velocity_before = ed->velocity_before;
    info.gap_velocity_after = ed->velocity_after;
    info.impulse = ed->impulse;
    info.v_before = ed->v_before;
    rc = nscd__report(ed, &info);
    return rc == NSCD_OK && zeno ? zeno_stop(ed, t, y) : rc;
}

/* Gap velocities of the touching contacts at (t, y) into ed->rates. */
static nscd_status refresh_rates(nscd_event_driven *ed, double t, const double *y, int32_t count) {
    for (int32_t r = 0; r < count; ++r) {
        double gap = 0.0;
        nscd_status rc = nscd__dynamics_contact(&ed->dynamics, ed->impact_contacts[r], t, y, &gap);
        if (rc != NSCD_OK) {
            return rc;
        }
        ed->rates[r] = nscd__rows_dot(&ed->dynamics.entry, 0, y + ed->model->n_q);
    }
    return NSCD_OK;
}

/* Stage 1 of an instant: impacts until no touching contact approaches. An
 * impact can push a separating contact back (it then approaches and takes
 * part in the next round); each round dissipates energy. */
static nscd_status impact_stage(nscd_event_driven *ed, double t, double *y, int32_t count) {
    memset(ed->impacting, 0, (size_t)count * sizeof(int32_t));
    for (int round = 0; round < MAX_IMPACT_ROUNDS; ++round) {
        int impacted = 0;
        nscd_status rc = impact_round(ed, t, y, count, &impacted);
        if (rc == NSCD_OK && impacted) {
            rc = refresh_rates(ed, t, y, count);
        }
        if (rc != NSCD_OK || !impacted) {
            return rc;
        }
    }
    return NSCD_OK;
}

/* Whether touching contact r (of the `count` in ed->impact_contacts) is at
 * rest: its gap velocity is below zeno_velocity, or it leaves so slowly that
 * its flight cannot be resolved apart from resting, which is an
 * accumulation of impacts:
 *  - from a gap g < 0 (an impact found at the threshold
 *    -persistent_gap_tolerance, see event_location.c), the top of its flight
 *    g + (dg/dt)^2 / (2 |d2g/dt2|) stays below zero: its next landing would
 *    come with the speed of the fall through the tolerance band;
 *  - beside other touching contacts, the top of its flight stays inside the
 *    tolerance band: there the other contacts' projections move the body by
 *    up to the tolerance, which feeds such flights forever (a block rocking
 *    on two corners with nanometre amplitudes). A single free contact (the
 *    bouncing ball) keeps its exact Zeno tail. */
static nscd_status resting(nscd_event_driven *ed, double t, const double *y, int32_t r,
                           int32_t count, int *at_rest) {
    double rate = ed->rates[r], gap = ed->gaps[r];
    *at_rest = fabs(rate) <= ed->options.zeno_velocity;
    int coupled = count > 1;
    if (*at_rest || rate < 0.0 || (gap >= 0.0 && !coupled) ||
        ed->model->contacts[ed->impact_contacts[r]].state.mode != NSCD_CONTACT_OPEN) {
        return NSCD_OK;
    }
    double normal = 0.0, tangent[2] = {0.0, 0.0};
    nscd__dynamics_update_modes(&ed->dynamics);
    nscd_status rc = nscd__dynamics_rhs(&ed->dynamics, t, y, ed->ydot);
    if (rc == NSCD_OK) {
        rc = nscd__dynamics_contact_acceleration(&ed->dynamics, ed->impact_contacts[r], t, y,
                                                 ed->ydot, &normal, tangent);
    }
    double top = normal < 0.0 ? gap + rate * rate / (-2.0 * normal) : INFINITY;
    double band = coupled ? ed->options.persistent_gap_tolerance : 0.0;
    *at_rest = rc == NSCD_OK && top <= band;
    return rc;
}

/* Closed contacts that still move along their normal (closed while leaving
 * slowly, see resting()) are brought to rest by the plastic projection of
 * all closed contacts, which also zeroes the slip a sticking contact may
 * keep (below zeno_velocity). */
static nscd_status hold_closed(nscd_event_driven *ed, double t, double *y, int32_t count,
                               int *moved) {
    nscd__model *m = ed->model;
    *moved = 0;
    for (int32_t r = 0; r < count; ++r) {
        *moved |= m->contacts[ed->impact_contacts[r]].state.mode == NSCD_CONTACT_CLOSED &&
                  fabs(ed->rates[r]) > ed->options.zeno_velocity;
    }
    if (!*moved) {
        return NSCD_OK;
    }
    nscd__dynamics_update_modes(&ed->dynamics);
    nscd_status rc = nscd__dynamics_project_velocity(&ed->dynamics, t, y);
    for (int32_t r = 0; r < count && rc == NSCD_OK; ++r) { /* the new gap velocities */
        double gap = 0.0;
        rc = nscd__dynamics_contact(&ed->dynamics, ed->impact_contacts[r], t, y, &gap);
        ed->rates[r] = nscd__rows_dot(&ed->dynamics.entry, 0, y + m->n_q);
    }
    return rc;
}

/* Reports the mode changes of the touching contacts (ed->impact_contacts). */
static nscd_status report_modes(nscd_event_driven *ed, double t, const double *y, int32_t count) {
    nscd__model *m = ed->model;
    nscd_status rc = NSCD_OK;
    for (int32_t r = 0; r < count && rc == NSCD_OK; ++r) {
        int32_t i = ed->impact_contacts[r];
        const nscd__contact_slot *slot = &m->contacts[i];
        int32_t type = 0;
        if (slot->state.mode != ed->mode_before[i]) {
            type = slot->state.mode == NSCD_CONTACT_CLOSED ? NSCD_EVENT_CONTACT_CLOSED
                                                           : NSCD_EVENT_CONTACT_OPENED;
        } else if (slot->state.mode == NSCD_CONTACT_CLOSED &&
                   (slot->state.slip != ed->slip_before[i] ||
                    (slot->state.slip != 0 && ed->slip_stopped[i]))) {
            /* a slide that stopped and starts again (the other way, or in
             * another direction) is a new slip */
            type = slot->state.slip == 0 ? NSCD_EVENT_CONTACT_STICK : NSCD_EVENT_CONTACT_SLIP;
        }
        if (type != 0) {
            rc = report_contact(ed, type, t, y, i, &ed->rates[r]);
        }
    }
    return rc;
}

/* One instant where the contact set may change (Pfeiffer & Glocker's
 * two-stage scheme): stage 1, the impact of the touching contacts if one of
 * them approaches; stage 2, the modes of the touching contacts left at rest
 * (contact_modes.c); contacts that separate open. `firing` marks closed
 * contacts whose watch fired (their transition is the first guess). */
static nscd_status resolve_instant(nscd_event_driven *ed, double t, double *y) {
    nscd__model *m = ed->model;
    int32_t count = 0;
    for (int32_t i = 0; i < m->n_contacts; ++i) {
        ed->mode_before[i] = m->contacts[i].state.mode;
        ed->slip_before[i] = m->contacts[i].state.slip;
        memcpy(ed->direction_before + 2 * i, m->contacts[i].state.slip_direction,
               2 * sizeof(double));
        ed->slip_stopped[i] = 0;
    }
    ed->impact_at_instant = 0;
    nscd_status rc = touching_contacts(ed, t, y, &count);
    if (rc == NSCD_OK && count > 0) {
        rc = impact_stage(ed, t, y, count);
    }
    if (rc != NSCD_OK || count == 0) {
        nscd__dynamics_update_modes(&ed->dynamics);
        return rc;
    }
    int32_t n_rest = 0;
    int zeno = 0;
    for (int32_t r = 0; r < count && rc == NSCD_OK; ++r) {
        int32_t i = ed->impact_contacts[r];
        int at_rest = 0;
        rc = resting(ed, t, y, r, count, &at_rest);
        if (at_rest) {
            ed->rest[n_rest++] = i;
            zeno |= ed->impacting[r]; /* an impact left an open contact at rest */
        } else if (ed->rates[r] > 0.0 && m->contacts[i].kind != NSCD__ENTRY_EQUALITY) {
            /* separating */
            m->contacts[i].state.mode = NSCD_CONTACT_OPEN;
        }
    }
    if (rc == NSCD_OK && zeno) {
        rc = zeno_stop(ed, t, y);
    }
    /* the projection that brings closed contacts to rest changes velocities
     * a little, and with them possibly a slip direction: decide again */
    for (int round = 0; round < MODE_ROUNDS && rc == NSCD_OK; ++round) {
        rc = nscd__decide_contact_modes(ed, t, y, n_rest);
        int moved = 0;
        if (rc == NSCD_OK) {
            rc = hold_closed(ed, t, y, count, &moved);
        }
        if (!moved) {
            break;
        }
        memset(ed->firing, 0, (size_t)m->n_contacts * sizeof(int32_t));
    }
    if (rc == NSCD_OK) {
        rc = report_modes(ed, t, y, count);
    }
    /* new modes, or a new slip direction (a sliding contact takes the
     * direction of its velocity before every step), change f(t, y) */
    for (int32_t i = 0; i < m->n_contacts; ++i) {
        const nscd__contact_slot *slot = &m->contacts[i];
        if (slot->state.mode != ed->mode_before[i] || slot->state.slip != ed->slip_before[i] ||
            (slot->state.slip != 0 && memcmp(slot->state.slip_direction,
                                             ed->direction_before + 2 * i, 2 * sizeof(double)))) {
            ed->fsal_valid = 0;
        }
    }
    nscd__dynamics_update_modes(&ed->dynamics);
    return rc;
}

nscd_status nscd__handle_events(nscd_event_driven *ed, double t, double *y) {
    nscd__model *m = ed->model;
    nscd_status rc = NSCD_OK;
    for (int32_t j = 0; j < ed->options.n_user_events && rc == NSCD_OK; ++j) {
        if (ed->firing[m->n_contacts + j]) {
            nscd_event_info info = event_info(ed, NSCD_EVENT_USER, t, j, y);
            rc = nscd__report(ed, &info);
        }
    }
    for (int32_t i = 0; i < m->n_contacts && rc == NSCD_OK; ++i) {
        const nscd__contact_slot *slot = &m->contacts[i];
        if (!ed->firing[i]) {
            continue;
        }
        if (slot->state.mode == NSCD_CONTACT_COMPLIANT) {
            rc = change_mode(ed, t, y, i, NSCD_CONTACT_OPEN, NSCD_EVENT_COMPLIANT_SEPARATION);
            ed->firing[i] = 0;
        } else if (slot->state.mode == NSCD_CONTACT_OPEN && nscd__slot_compliant(slot)) {
            rc = change_mode(ed, t, y, i, NSCD_CONTACT_COMPLIANT, NSCD_EVENT_COMPLIANT_ONSET);
            ed->firing[i] = 0;
        }
    }
    nscd__dynamics_update_modes(&ed->dynamics);
    /* the event lies inside a step: closed contacts drifted as during a step */
    if (rc == NSCD_OK && ed->dynamics.n_closed > 0) {
        rc = nscd__project_closed(ed, t, y);
    }
    return rc == NSCD_OK ? resolve_instant(ed, t, y) : rc;
}

nscd_status nscd__settle_contacts(nscd_event_driven *ed, double t, double *y) {
    memset(ed->firing, 0, (size_t)ed->n_watches * sizeof(int32_t));
    return resolve_instant(ed, t, y);
}

nscd_status nscd__project_closed(nscd_event_driven *ed, double t, double *y) {
    int32_t count = nscd__closed_entries(ed->model, ed->impact_contacts, 0);
    int projected = 0;
    nscd_status rc = nscd__project_positions(
        ed->model, &ed->impact_work, t, y, count, ed->impact_contacts,
        ed->options.persistent_gap_tolerance, MAX_PROJECTIONS, ed->impulse, ed->y_tmp, &projected);
    if (rc != NSCD_OK || !projected) {
        return rc;
    }
    ed->fsal_valid = 0;
    return nscd__dynamics_project_velocity(&ed->dynamics, t, y); /* and dg/dt back to 0 */
}
