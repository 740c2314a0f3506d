/* What happens at an event: impacts, contact mode changes, Zeno detection,
 * user events, and the projection that keeps closed contacts closed. */
#include <math.h>
#include <string.h>

#include "core/dense.h"
#include "integrators/event_driven_impl.h"

#define MAX_PROJECTIONS 4

nscd_status nscd__report(nscd_event_driven *ed, const nscd_event_info *info) {
    ed->stats.events++;
    if (ed->options.on_event == NULL) {
        return NSCD_OK;
    }
    int32_t answer = ed->options.on_event(ed->options.on_event_user, info);
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
    double rate = nscd__dot(m->n_v, ed->dynamics.row, y + m->n_q);
    if (new_mode == NSCD_CONTACT_COMPLIANT) {
        /* Seed 001: the law captures the impact velocity and the effective
         * mass of the contact (its damping may depend on both, eq. 49). The
         * memory is not cleared: a permanent indentation outlives contacts. */
        rc = nscd__dynamics_effective_mass(&ed->dynamics, y, ed->v_before,
                                           &slot->memory.effective_mass);
        if (rc != NSCD_OK) {
            return rc;
        }
        slot->law.ops->onset(&slot->law, -rate, &slot->memory);
    } else if (slot->mode == NSCD_CONTACT_COMPLIANT) {
        slot->law.ops->separation(&slot->law, &slot->memory, -gap); /* eq. 20 reached */
    }
    slot->mode = new_mode;
    return report_contact(ed, type, t, y, i, &rate);
}

/* Copies the normal rows of `count` contacts into ed->impact_rows. */
static nscd_status gather_rows(nscd_event_driven *ed, double t, const double *q,
                               const int32_t *contacts, int32_t count) {
    int32_t n = ed->model->n_v;
    double gap = 0.0;
    for (int32_t r = 0; r < count; ++r) {
        nscd_status rc = nscd__dynamics_contact(&ed->dynamics, contacts[r], t, q, &gap);
        if (rc != NSCD_OK) {
            return rc;
        }
        memcpy(ed->impact_rows + (size_t)r * (size_t)n, ed->dynamics.row,
               (size_t)n * sizeof(double));
    }
    return NSCD_OK;
}

/* Indices of the closed contacts appended to ed->impact_contacts[count...]. */
static int32_t append_closed(nscd_event_driven *ed, int32_t count) {
    for (int32_t i = 0; i < ed->model->n_contacts; ++i) {
        if (ed->model->contacts[i].mode == NSCD_CONTACT_CLOSED) {
            ed->impact_contacts[count++] = i;
        }
    }
    return count;
}

/* Velocity jump of `count` contacts (ed->impact_contacts) at (t, y). */
static nscd_status apply_impact(nscd_event_driven *ed, double t, double *y, int32_t count,
                                int plastic) {
    nscd__model *m = ed->model;
    nscd_status rc = gather_rows(ed, t, y, ed->impact_contacts, count);
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd__impact impact = {count,       ed->impact_contacts, ed->impact_rows,    plastic,
                           ed->impulse, ed->velocity_before, ed->velocity_after, t};
    return nscd__resolve_impact(m, &ed->impact_work, y, &impact, y + m->n_q);
}

/* Zeno test of contact i just after an impact with gap velocity `after`. */
static int accumulating(nscd_event_driven *ed, int32_t i, double t, double after) {
    const nscd_event_driven_options *o = &ed->options;
    /* a fixed-step method cannot resolve flights shorter than its step */
    double resolution = o->method == NSCD_ED_RK4_LINEAR
                            ? fmax(o->zeno_min_interval, 2.0 * o->fixed_step)
                            : o->zeno_min_interval;
    double interval = t - ed->last_impact[i];
    ed->last_impact[i] = t;
    ed->close_impacts[i] = interval < resolution ? ed->close_impacts[i] + 1 : 0;
    return fabs(after) <= o->zeno_velocity || ed->close_impacts[i] >= o->zeno_max_close_impacts;
}

/* Reports a stick-slip transition of closed contact i. */
static nscd_status report_slip(nscd_event_driven *ed, double t, const double *y, int32_t i) {
    nscd__model *m = ed->model;
    double gap = 0.0;
    nscd_status rc = nscd__dynamics_contact(&ed->dynamics, i, t, y, &gap);
    if (rc != NSCD_OK) {
        return rc;
    }
    double rate = nscd__dot(m->n_v, ed->dynamics.row, y + m->n_q);
    int32_t type = m->contacts[i].slip == 0 ? NSCD_EVENT_CONTACT_STICK : NSCD_EVENT_CONTACT_SLIP;
    return report_contact(ed, type, t, y, i, &rate);
}

/* Mode of a frictional closed contact that cannot keep its present one at
 * (t, y): sticking if the sticking force lies in Coulomb's cone, else sliding
 * against that force. Sets slot->slip; the forces are left in ed->dynamics. */
static nscd_status choose_slip(nscd_event_driven *ed, double t, const double *y, int32_t i) {
    nscd__contact_slot *slot = &ed->model->contacts[i];
    slot->slip = 0;
    nscd_status rc = nscd__dynamics_rhs(&ed->dynamics, t, y, ed->ydot);
    if (rc != NSCD_OK) {
        return rc;
    }
    double normal = ed->dynamics.lambda[i], tangent = ed->dynamics.lambda_t[i];
    if (fabs(tangent) > slot->friction * normal) {
        slot->slip = tangent > 0.0 ? -1 : 1; /* friction opposes the slip */
        rc = nscd__dynamics_rhs(&ed->dynamics, t, y, ed->ydot);
    }
    return rc;
}

/* The watch of a closed contact fired: its normal force vanished (release),
 * or, with friction, a sticking force reached Coulomb's cone or a slip
 * stopped (seed 000, eq. 30, at the level of forces). */
static nscd_status closed_contact_event(nscd_event_driven *ed, double t, double *y, int32_t i) {
    nscd__contact_slot *slot = &ed->model->contacts[i];
    if (!nscd__dynamics_frictional(slot)) {
        return change_mode(ed, t, y, i, NSCD_CONTACT_OPEN, NSCD_EVENT_CONTACT_OPENED);
    }
    nscd_status rc = nscd__dynamics_rhs(&ed->dynamics, t, y, ed->ydot);
    if (rc == NSCD_OK && ed->dynamics.lambda[i] > 0.0) {
        int32_t before = slot->slip;
        rc = choose_slip(ed, t, y, i);
        if (rc == NSCD_OK && ed->dynamics.lambda[i] > 0.0) {
            return slot->slip != before ? report_slip(ed, t, y, i) : NSCD_OK;
        }
    }
    return rc != NSCD_OK ? rc
                         : change_mode(ed, t, y, i, NSCD_CONTACT_OPEN, NSCD_EVENT_CONTACT_OPENED);
}

/* A frictional contact closes sliding the way it moves; one at rest sticks
 * if friction can hold it (choose_slip). */
static nscd_status initial_slip(nscd_event_driven *ed, double t, const double *y, int32_t i) {
    nscd__model *m = ed->model;
    double gap = 0.0;
    nscd_status rc = nscd__dynamics_contact(&ed->dynamics, i, t, y, &gap);
    if (rc != NSCD_OK) {
        return rc;
    }
    double s = nscd__dot(m->n_v, ed->dynamics.tangents, y + m->n_q);
    m->contacts[i].slip = (s > 0.0) - (s < 0.0);
    return s == 0.0 ? choose_slip(ed, t, y, i) : NSCD_OK;
}

/* Closes the contacts marked in ed->firing (Zeno): plastic projection of all
 * closed contacts, then keeps closed only those held by a force >= 0. */
static nscd_status close_contacts(nscd_event_driven *ed, double t, double *y) {
    nscd__model *m = ed->model;
    for (int32_t i = 0; i < m->n_contacts; ++i) {
        if (ed->firing[i]) {
            m->contacts[i].mode = NSCD_CONTACT_CLOSED;
        }
    }
    nscd_status rc = apply_impact(ed, t, y, append_closed(ed, 0), 1);
    nscd__dynamics_update_modes(&ed->dynamics);
    for (int32_t i = 0; i < m->n_contacts && rc == NSCD_OK; ++i) {
        if (ed->firing[i] && nscd__dynamics_frictional(&m->contacts[i])) {
            rc = initial_slip(ed, t, y, i);
        }
    }
    if (rc == NSCD_OK) {
        rc = nscd__dynamics_rhs(&ed->dynamics, t, y, ed->ydot);
    }
    for (int32_t i = 0; i < m->n_contacts && rc == NSCD_OK; ++i) {
        if (!ed->firing[i]) {
            continue;
        }
        if (ed->dynamics.lambda[i] < 0.0) { /* pulled away: not a resting contact */
            m->contacts[i].mode = NSCD_CONTACT_OPEN;
            continue;
        }
        rc = report_contact(ed, NSCD_EVENT_CONTACT_CLOSED, t, y, i, NULL);
    }
    nscd__dynamics_update_modes(&ed->dynamics);
    return rc;
}

/* After an impact: Zeno detection on the contacts that bounced. */
static nscd_status detect_zeno(nscd_event_driven *ed, double t, double *y, int32_t count) {
    nscd__model *m = ed->model;
    int any = 0;
    memset(ed->firing, 0, (size_t)ed->n_watches * sizeof(int32_t));
    for (int32_t r = 0; r < count; ++r) {
        int32_t i = ed->impact_contacts[r];
        if (m->contacts[i].mode == NSCD_CONTACT_OPEN &&
            accumulating(ed, i, t, ed->velocity_after[r])) {
            ed->firing[i] = 1;
            any = 1;
        }
    }
    if (!any) {
        return NSCD_OK;
    }
    if (ed->options.zeno_policy == NSCD_ZENO_STOP) {
        nscd_event_info info = event_info(ed, NSCD_EVENT_ZENO_STOP, t, -1, y);
        nscd_status rc = nscd__report(ed, &info);
        if (rc != NSCD_OK) {
            return rc;
        }
        return nscd__fail(&ed->diag, NSCD_ERR_ZENO,
                          "impacts accumulate at t = %.17g; stopped (zeno_policy = STOP)", t);
    }
    return close_contacts(ed, t, y);
}

/* Impact of the open impulsive contacts ed->impact_contacts[0..count). */
static nscd_status impact(nscd_event_driven *ed, double t, double *y, int32_t count) {
    nscd__model *m = ed->model;
    int32_t total = append_closed(ed, count);
    memcpy(ed->v_before, y + m->n_q, (size_t)m->n_v * sizeof(double));
    nscd_status rc = apply_impact(ed, t, y, total, 0);
    if (rc != NSCD_OK) {
        memcpy(y + m->n_q, ed->v_before, (size_t)m->n_v * sizeof(double));
        return rc;
    }
    ed->stats.impacts++;
    nscd_event_info info = event_info(ed, NSCD_EVENT_IMPACT, t, ed->impact_contacts[0], y);
    info.n_contacts = total;
    info.contacts = ed->impact_contacts;
    info.gap_velocity_before = ed->velocity_before;
    info.gap_velocity_after = ed->velocity_after;
    info.impulse = ed->impulse;
    info.v_before = ed->v_before;
    rc = nscd__report(ed, &info);
    return rc == NSCD_OK ? detect_zeno(ed, t, y, count) : rc;
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
    int32_t count = 0;
    for (int32_t i = 0; i < m->n_contacts && rc == NSCD_OK; ++i) {
        if (!ed->firing[i]) {
            continue;
        }
        const nscd__contact_slot *slot = &m->contacts[i];
        if (slot->mode == NSCD_CONTACT_CLOSED) {
            rc = closed_contact_event(ed, t, y, i);
        } else if (slot->mode == NSCD_CONTACT_COMPLIANT) {
            rc = change_mode(ed, t, y, i, NSCD_CONTACT_OPEN, NSCD_EVENT_COMPLIANT_SEPARATION);
        } else if (slot->law.ops != NULL && slot->law.ops->kind == NSCD_LAW_COMPLIANT) {
            rc = change_mode(ed, t, y, i, NSCD_CONTACT_COMPLIANT, NSCD_EVENT_COMPLIANT_ONSET);
        } else {
            ed->impact_contacts[count++] = i;
        }
    }
    nscd__dynamics_update_modes(&ed->dynamics);
    if (rc == NSCD_OK && count > 0) {
        rc = impact(ed, t, y, count);
    }
    return rc;
}

/* Whether an open contact touching now (g <= 0) must be handled: it
 * approaches, or it rests (|dg/dt| <= zeno_velocity) and is pushed in. */
static nscd_status closing(nscd_event_driven *ed, double t, const double *y, double rate,
                           int *fire) {
    *fire = rate < -ed->options.zeno_velocity;
    if (*fire || rate > ed->options.zeno_velocity) {
        return NSCD_OK;
    }
    double *row = ed->v_before; /* scratch copy: the accelerations reuse dyn->row */
    memcpy(row, ed->dynamics.row, (size_t)ed->model->n_v * sizeof(double));
    nscd_status rc = nscd__dynamics_rhs(&ed->dynamics, t, y, ed->ydot);
    *fire = rc == NSCD_OK && nscd__dot(ed->model->n_v, row, ed->ydot + ed->model->n_q) < 0.0;
    return rc;
}

nscd_status nscd__settle_contacts(nscd_event_driven *ed, double t, double *y) {
    nscd__model *m = ed->model;
    int any = 0;
    if (ed->dynamics.n_closed > 0) {
        nscd_status rc = nscd__dynamics_rhs(&ed->dynamics, t, y, ed->ydot);
        if (rc != NSCD_OK) {
            return rc;
        }
    }
    for (int32_t i = 0; i < m->n_contacts; ++i) {
        int32_t mode = m->contacts[i].mode;
        int fire = 0;
        if (mode == NSCD_CONTACT_CLOSED) {
            double watch = 0.0;
            nscd_status rc =
                nscd__dynamics_closed_watch(&ed->dynamics, i, t, y, y + m->n_q, &watch);
            if (rc != NSCD_OK) {
                return rc;
            }
            fire = watch < 0.0;
        } else if (mode == NSCD_CONTACT_OPEN) {
            double gap = 0.0;
            nscd_status rc = nscd__dynamics_onset_gap(&ed->dynamics, i, t, y, &gap);
            if (rc != NSCD_OK) {
                return rc;
            }
            double rate = nscd__dot(m->n_v, ed->dynamics.row, y + m->n_q);
            rc = gap <= 0.0 ? closing(ed, t, y, rate, &fire) : NSCD_OK;
            if (rc != NSCD_OK) {
                return rc;
            }
        }
        ed->firing[i] = fire;
        any |= fire;
    }
    for (int32_t j = 0; j < ed->options.n_user_events; ++j) {
        ed->firing[m->n_contacts + j] = 0;
    }
    return any ? nscd__handle_events(ed, t, y) : NSCD_OK;
}

/* Largest |g| of the closed contacts; their rows go to ed->impact_rows. */
static nscd_status closed_gaps(nscd_event_driven *ed, double t, const double *q, int32_t count,
                               double *gaps, double *largest) {
    int32_t n = ed->model->n_v;
    *largest = 0.0;
    for (int32_t r = 0; r < count; ++r) {
        nscd_status rc =
            nscd__dynamics_contact(&ed->dynamics, ed->impact_contacts[r], t, q, &gaps[r]);
        if (rc != NSCD_OK) {
            return rc;
        }
        memcpy(ed->impact_rows + (size_t)r * (size_t)n, ed->dynamics.row,
               (size_t)n * sizeof(double));
        *largest = fmax(*largest, fabs(gaps[r]));
    }
    return NSCD_OK;
}

nscd_status nscd__project_closed(nscd_event_driven *ed, double t, double *y) {
    nscd__model *m = ed->model;
    nscd__impact_work *w = &ed->impact_work;
    int32_t count = append_closed(ed, 0), n = m->n_v;
    double *gaps = ed->impulse, largest = 0.0;
    int projected = 0;
    for (int it = 0; it < MAX_PROJECTIONS && count > 0; ++it) {
        nscd_status rc = closed_gaps(ed, t, y, count, gaps, &largest);
        if (rc != NSCD_OK || largest <= ed->options.persistent_gap_tolerance) {
            if (rc != NSCD_OK || !projected) {
                return rc;
            }
            break;
        }
        /* mass-weighted Gauss–Newton step: dq = -M^-1 W' (W M^-1 W')^-1 g */
        rc = nscd__impact_delassus(m, w, y, count, ed->impact_rows);
        for (int32_t r = 0; r < count; ++r) {
            gaps[r] = -gaps[r];
        }
        if (rc == NSCD_OK && nscd__lu_solve(count, w->delassus, ed->pivots, 1, gaps) != NSCD_OK) {
            rc = nscd__fail(&ed->diag, NSCD_ERR_SINGULAR, "closed contacts have dependent rows");
        }
        if (rc != NSCD_OK) {
            return rc;
        }
        nscd__gemv(n, count, w->minv_wt, gaps, w->dv);
        m->displace(m->self, y, w->dv, ed->y_tmp);
        memcpy(y, ed->y_tmp, (size_t)m->n_q * sizeof(double));
        projected = 1;
    }
    if (!projected) {
        return NSCD_OK;
    }
    ed->fsal_valid = 0;
    return apply_impact(ed, t, y, count, 1); /* and the gap velocities back to >= 0 */
}
