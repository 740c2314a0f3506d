/* Stage 2 of an instant: the modes of the contacts that touch at rest.
 *
 * After any impact, the touching contacts whose normal gap velocity is zero
 * (|dg/dt| <= zeno_velocity) must each be either closed — held at g = 0 by a
 * normal force lambda_N >= 0, sticking with ||lambda_T|| <= mu lambda_N or
 * sliding with lambda_T = -mu lambda_N d — or open with a gap that does not
 * start to shrink (d2g/dt2 >= 0). This is the contact problem at the level of
 * accelerations (Pfeiffer & Glocker, "Multibody dynamics with unilateral
 * contacts", ch. 7), solved once for every contact at rest: an LCP in
 * Pfeiffer and Glocker's form by Lemke's algorithm with the lexicographic
 * ratio test when every frictional contact at rest has one tangential row
 * (planar_modes() below), a Coulomb friction problem on the accelerations by
 * the fc3d block Gauss–Seidel when some has two (spatial_modes());
 * docs/multi_contact_events.md derives both. Its solution gives every
 * contact's mode at once. The active-set search on the modes then checks
 * them against the stepper's forces (no change when they agree), and
 * decides alone when the problem was not solved (Lemke's algorithm ended on
 * a ray, fc3d did not converge): starting from the present modes (with the
 * transition a firing watch announced), the smallest-index contact whose
 * conditions fail changes mode, the forces are computed again
 * (integrators/event_driven/dynamics.c, of minimum weighted norm for
 * redundant contacts), until every condition holds. Smallest-index
 * pivoting on the modes is Murty's rule, which terminates for P-matrix
 * problems; a bound on the changes turns the rest (e.g. Painleve's paradox)
 * into an error.
 *
 * The sliding direction d is a sign with one tangential row and a unit
 * vector of the tangent plane with two (slot->state.slip_direction):
 *   - a contact that moves (||s|| > zeno_velocity) slides along s / ||s||;
 *     since the stepper settles the current state before every step, this
 *     refreshes d at every step start, the reference of the stop watch;
 *   - a sticking force outside the cone gives way: the contact slides from
 *     rest along d = -lambda_T / ||lambda_T||, the way the force could not
 *     hold, and must then accelerate that way, d . ds/dt >= 0 (else it
 *     sticks); during the step the friction follows the velocity s itself;
 *   - a slip that stops sticks, then gives way again if the cone says so. */
#include <math.h>

#include "contact/solvers/lemke.h"
#include "nscd/fc3d.h"
#include "integrators/event_driven/event_driven_impl.h"

/* Relative size below which a violated condition counts as satisfied: a
 * little hysteresis in favour of the present guess, so rounding noise cannot
 * make modes chatter. */
#define MODE_TOLERANCE 1e-9

/* Length of a tangent-plane vector (2 components, 0 beyond n_tangent). */
static double norm2(const double x[2]) { return hypot(x[0], x[1]); }

/* Slides contact i along the tangent-plane vector u (not 0): with one
 * tangential row the way of sign(u), with two along u / ||u|| (callers give
 * u != 0; a zero u would keep the previous direction). */
static void slide(nscd__contact_slot *slot, const double u[2]) {
    if (slot->n_tangent == 1) {
        slot->state.slip = u[0] > 0.0 ? 1 : -1;
        slot->state.slip_direction[0] = (double)slot->state.slip;
        slot->state.slip_direction[1] = 0.0;
        return;
    }
    double length = norm2(u);
    slot->state.slip = 1;
    if (length > 0.0) {
        slot->state.slip_direction[0] = u[0] / length;
        slot->state.slip_direction[1] = u[1] / length;
    }
}

/* Slip state of a contact that closes: sliding the way it moves, or sticking
 * when it does not move tangentially. */
static nscd_status closing_slip(nscd_event_driven *ed, double t, const double *y, int32_t i) {
    nscd__model *m = ed->model;
    double s[2] = {0.0, 0.0};
    nscd_status rc = nscd__dynamics_slip_velocity(&ed->dynamics, i, t, y, y + m->n_q, s);
    if (rc == NSCD_OK) {
        if (norm2(s) <= ed->options.zeno_velocity) {
            m->contacts[i].state.slip = 0;
        } else {
            slide(&m->contacts[i], s);
        }
    }
    return rc;
}

/* Acceleration scale of the contacts at rest, and per contact the inverse
 * effective mass w M^-1 w' (force tolerance = acceleration tolerance / it). */
static nscd_status tolerances(nscd_event_driven *ed, double t, const double *y, int32_t n_rest,
                              double *acceleration_tolerance) {
    double scale = 0.0;
    for (int32_t r = 0; r < n_rest; ++r) {
        int32_t i = ed->rest[r];
        double gap = 0.0, mass = 0.0, normal = 0.0, tangent[2] = {0.0, 0.0};
        nscd_status rc =
            nscd__dynamics_contact_acceleration(&ed->dynamics, i, t, y, ed->ydot, &normal, tangent);
        if (rc == NSCD_OK) {
            rc = nscd__dynamics_contact(&ed->dynamics, i, t, y, &gap);
        }
        if (rc == NSCD_OK) {
            rc = nscd__dynamics_effective_mass(&ed->dynamics, y, &mass);
        }
        if (rc != NSCD_OK) {
            return rc;
        }
        ed->inverse_mass[i] = mass > 0.0 ? 1.0 / mass : 0.0;
        double lambda = fabs(ed->dynamics.lambda[i]) + norm2(ed->dynamics.lambda_t + 2 * i);
        scale = fmax(scale, fmax(fabs(normal), fmax(fabs(tangent[0]), fabs(tangent[1]))));
        scale = fmax(scale, lambda * ed->inverse_mass[i]);
    }
    *acceleration_tolerance = MODE_TOLERANCE * scale;
    return NSCD_OK;
}

/* The transition a closed contact's watch announced (it fired): release when
 * its normal force vanished, sliding when a sticking force reached the cone
 * (the way that force would not hold, -lambda_T), sticking when a slip
 * stopped. With two tangential rows the stop watch is the component of s
 * along the direction of the step start: should it fire while s is still
 * fast (s turned by a right angle within one step), the contact slides on
 * along s. */
static nscd_status announced_transition(nscd_event_driven *ed, double t, const double *y,
                                        int32_t i) {
    nscd__contact_slot *slot = &ed->model->contacts[i];
    const double *lambda_t = ed->dynamics.lambda_t + 2 * i;
    if (!nscd__dynamics_frictional(slot) || ed->dynamics.lambda[i] <= 0.0) {
        slot->state.mode = NSCD_CONTACT_OPEN;
    } else if (slot->state.slip == 0) {
        if (slot->n_tangent == 1) {
            slot->state.slip = lambda_t[0] > 0.0 ? -1 : 1; /* friction opposes the slip */
            slot->state.slip_direction[0] = (double)slot->state.slip;
            slot->state.slip_direction[1] = 0.0;
        } else if (norm2(lambda_t) > 0.0) {
            const double u[2] = {-lambda_t[0], -lambda_t[1]};
            slide(slot, u);
        }
    } else if (slot->n_tangent == 1) {
        slot->state.slip = 0;
        ed->slip_stopped[i] = 1;
    } else {
        double s[2] = {0.0, 0.0};
        nscd_status rc =
            nscd__dynamics_slip_velocity(&ed->dynamics, i, t, y, y + ed->model->n_q, s);
        if (rc != NSCD_OK) {
            return rc;
        }
        if (norm2(s) <= ed->options.zeno_velocity) {
            slot->state.slip = 0;
            ed->slip_stopped[i] = 1;
        } else {
            slide(slot, s);
        }
    }
    return NSCD_OK;
}

/* Conditions of a closed frictional contact at rest: a sticking one stays
 * inside the cone, ||lambda_T|| <= mu lambda_N, and does not move
 * tangentially; a sliding one slides along its velocity s, or, when it
 * starts from rest, accelerates the way it slides (d . ds/dt >= 0). */
static nscd_status fix_friction(nscd_event_driven *ed, double t, const double *y, int32_t i,
                                double acceleration_tolerance, double force_tolerance,
                                int *changed) {
    nscd__model *m = ed->model;
    nscd__contact_slot *slot = &m->contacts[i];
    const double *lambda_t = ed->dynamics.lambda_t + 2 * i;
    double lambda = ed->dynamics.lambda[i], s[2] = {0.0, 0.0};
    nscd_status rc = nscd__dynamics_slip_velocity(&ed->dynamics, i, t, y, y + m->n_q, s);
    if (rc != NSCD_OK) {
        return rc;
    }
    double speed = norm2(s);
    if (slot->state.slip == 0) {
        double friction_force = norm2(lambda_t);
        if (friction_force > 0.0 && friction_force > slot->friction * lambda + force_tolerance) {
            /* outside the cone */
            const double u[2] = {-lambda_t[0], -lambda_t[1]}; /* the way it would not hold */
            slide(slot, u);
            *changed = 1;
        } else if (ed->impact_at_instant && speed > ed->options.zeno_velocity) {
            /* an impact at this instant left it sliding (an accumulation
             * of impacts closes a contact sticking, an impact elsewhere
             * passes through it): it is not at rest tangentially. Without
             * an impact, a slip left is the error of the located stop. */
            slide(slot, s);
            *changed = 1;
        }
        return NSCD_OK;
    }
    if (speed > ed->options.zeno_velocity) { /* sliding: the direction is the velocity's */
        const double *d = slot->state.slip_direction;
        /* the forces at hand used s itself as the direction, unless s points
         * against the previous direction (or, planar, the sign changed) */
        *changed = d[0] * s[0] + d[1] * s[1] < 0.0;
        slide(slot, s);
        return NSCD_OK;
    }
    /* starting to slide from rest: it must accelerate the way it slides */
    double normal = 0.0, tangent[2] = {0.0, 0.0};
    rc = nscd__dynamics_contact_acceleration(&ed->dynamics, i, t, y, ed->ydot, &normal, tangent);
    const double *d = slot->state.slip_direction;
    if (rc == NSCD_OK && d[0] * tangent[0] + d[1] * tangent[1] < -acceleration_tolerance) {
        slot->state.slip = 0;
        ed->slip_stopped[i] = 1;
        *changed = 1;
    }
    return rc;
}

/* Whether contact i (at rest) violates its mode's conditions; if so, changes
 * its mode and returns 1. The forces and ed->ydot are those of the present
 * modes at (t, y). */
static nscd_status fix_contact(nscd_event_driven *ed, double t, const double *y, int32_t i,
                               double acceleration_tolerance, int *changed) {
    nscd__model *m = ed->model;
    nscd__contact_slot *slot = &m->contacts[i];
    double force_tolerance =
        acceleration_tolerance / (ed->inverse_mass[i] > 0.0 ? ed->inverse_mass[i] : 1.0);
    double lambda = ed->dynamics.lambda[i];
    *changed = 0;
    if (slot->kind == NSCD__ENTRY_EQUALITY) { /* always closed, forces of either sign */
        return NSCD_OK;
    }
    if (slot->state.mode == NSCD_CONTACT_CLOSED) {
        if (lambda < -force_tolerance) { /* pulls: must open */
            slot->state.mode = NSCD_CONTACT_OPEN;
            *changed = 1;
            return NSCD_OK;
        }
        return nscd__dynamics_frictional(slot)
                   ? fix_friction(ed, t, y, i, acceleration_tolerance, force_tolerance, changed)
                   : NSCD_OK;
    }
    double normal = 0.0, tangent[2] = {0.0, 0.0};
    nscd_status rc =
        nscd__dynamics_contact_acceleration(&ed->dynamics, i, t, y, ed->ydot, &normal, tangent);
    if (rc == NSCD_OK && normal < -acceleration_tolerance) { /* would penetrate: must close */
        slot->state.mode = NSCD_CONTACT_CLOSED;
        *changed = 1;
        rc = nscd__dynamics_frictional(slot) ? closing_slip(ed, t, y, i) : NSCD_OK;
    }
    return rc;
}

/* ---- The contact problem at the level of accelerations ----
 *
 * The modes of the contacts at rest come from one contact problem in
 * Pfeiffer and Glocker's form (docs/multi_contact_events.md, "The contact
 * problem at the level of accelerations"). Per contact p, with a_N, a_T its
 * normal and tangential contact accelerations and lambda_N, lambda_T its
 * forces:
 *   - frictionless:            lambda_N >= 0 _|_ a_N >= 0;
 *   - sliding (||s|| > zeno_velocity, d = s / ||s||): the same with
 *     lambda_T = -mu lambda_N d;
 *   - at rest tangentially: Coulomb's law on the accelerations,
 *     ||lambda_T|| <= mu lambda_N with a_T = 0 (sticking) or
 *     lambda_T = -mu lambda_N a_T / ||a_T|| (starting to slide).
 * The accelerations are affine in the forces, a = G lambda + b; G and b are
 * measured on the dynamics itself (every contact at rest open; then a probe
 * force along each contact row), so closed equality rows elsewhere in the
 * model are held. Where every frictional contact at rest has one tangential
 * row the problem is an LCP (planar_modes(): Lemke's algorithm with the
 * lexicographic ratio test, which cannot cycle, contact/solvers/lemke.c);
 * with two (spatial_modes()) it is a Coulomb friction problem on (G, b),
 * solved by the fc3d block Gauss–Seidel, whose sweeps do not pivot on modes
 * and so neither cycle nor meet a singular basis on redundant contacts (a
 * point in a V-groove, a box on four corners). */

/* One contact at rest in the problem. */
typedef struct rest_contact {
    int32_t index; /* the contact */
    int32_t kind;  /* 0 frictionless, 1 sliding, 2 at rest tangentially */
    int32_t rows;  /* rows measured: the normal, then the tangents (kind > 0) */
    double sigma;  /* sliding: sign of s (planar) */
    double d[2];   /* sliding: s / ||s|| */
    double mu;     /* friction coefficient */
    double mass;   /* effective normal mass (scale of the forces) */
    int32_t var;   /* planar: first LCP variable: lambda_N, then lambda_R, a_T- */
    double b[3];   /* a_N, a_T with the contacts at rest open */
    double *g[3];  /* columns: response of (a_N, a_T) of every contact to a unit
                    * force along row k of this one: g[k][3 p + c] */
} rest_contact;

typedef struct rest_problem {
    int32_t n, n_var; /* contacts; planar LCP variables */
    int spatial;      /* some frictional contact has two tangential rows */
    rest_contact *c;
    double scale; /* of the accelerations; forces in units of mass * scale */
} rest_problem;

/* Contact accelerations (a_N, a_T) of every contact of the problem at (t, y)
 * with the present modes and probe into out[3 p + c]. */
static nscd_status rest_accelerations(nscd_event_driven *ed, double t, const double *y,
                                      const rest_contact *c, int32_t n, double *out) {
    nscd_status rc = nscd__dynamics_rhs(&ed->dynamics, t, y, ed->ydot);
    for (int32_t p = 0; p < n && rc == NSCD_OK; ++p) {
        double normal = 0.0, tangent[2] = {0.0, 0.0};
        rc = nscd__dynamics_contact_acceleration(&ed->dynamics, c[p].index, t, y, ed->ydot, &normal,
                                                 tangent);
        out[3 * p] = normal;
        out[3 * p + 1] = tangent[0];
        out[3 * p + 2] = tangent[1];
    }
    return rc;
}

/* Measures b and G of the contacts at rest into P (in the arena). P->n = 0
 * (and nothing changed) when there is nothing to decide, or a contact that
 * nothing moves leaves it to the search. */
static nscd_status measure_problem(nscd_event_driven *ed, double t, const double *y, int32_t n_rest,
                                   rest_problem *P) {
    nscd__model *m = ed->model;
    int32_t n = 0;
    P->n = P->n_var = 0;
    P->spatial = 0;
    for (int32_t r = 0; r < n_rest; ++r) {
        const nscd__contact_slot *slot = &m->contacts[ed->rest[r]];
        if (slot->kind != NSCD__ENTRY_UNILATERAL) {
            continue;
        }
        P->spatial |= nscd__dynamics_frictional(slot) && slot->n_tangent == 2;
        ++n;
    }
    if (n == 0) {
        return NSCD_OK;
    }
    nscd__arena_reset(&ed->arena);
    rest_contact *c = nscd__arena_alloc(&ed->arena, (size_t)n, sizeof(rest_contact));
    double *acc = nscd__arena_array(&ed->arena, (size_t)(3 * n), sizeof(double));
    double *columns = nscd__arena_array(&ed->arena, (size_t)(9 * n * n), sizeof(double));
    int32_t *mode = nscd__arena_alloc(&ed->arena, (size_t)n, sizeof(int32_t));
    if (!c || !acc || !columns || !mode) {
        return nscd__fail(&ed->diag, NSCD_ERR_OUT_OF_MEMORY, "contact problem of %d contacts",
                          (int)n);
    }
    nscd_status rc = NSCD_OK;
    int32_t p = 0, n_var = 0;
    for (int32_t r = 0; r < n_rest && rc == NSCD_OK; ++r) {
        int32_t i = ed->rest[r];
        nscd__contact_slot *slot = &m->contacts[i];
        if (slot->kind != NSCD__ENTRY_UNILATERAL) {
            continue;
        }
        rest_contact *k = &c[p];
        k->index = i;
        k->mu = slot->friction;
        k->kind = 0;
        k->rows = 1;
        k->sigma = 0.0;
        k->d[0] = k->d[1] = 0.0;
        k->var = n_var;
        for (int32_t row = 0; row < 3; ++row) {
            k->g[row] = columns + (size_t)(3 * p + row) * (size_t)(3 * n);
        }
        double gap = 0.0, s[2] = {0.0, 0.0};
        if (nscd__dynamics_frictional(slot)) {
            rc = nscd__dynamics_slip_velocity(&ed->dynamics, i, t, y, y + m->n_q, s);
            double speed = slot->n_tangent == 1 ? fabs(s[0]) : norm2(s);
            k->kind = speed > ed->options.zeno_velocity ? 1 : 2;
            k->rows = 1 + slot->n_tangent;
            k->sigma = s[0] > 0.0 ? 1.0 : -1.0;
            if (speed > 0.0) {
                k->d[0] = s[0] / speed;
                k->d[1] = s[1] / speed;
            }
        }
        if (rc == NSCD_OK) {
            rc = nscd__dynamics_contact(&ed->dynamics, i, t, y, &gap);
        }
        if (rc == NSCD_OK) {
            rc = nscd__dynamics_effective_mass(&ed->dynamics, y, &k->mass);
        }
        if (rc == NSCD_OK && !(k->mass > 0.0 && isfinite(k->mass))) {
            return NSCD_OK; /* a contact that nothing moves: leave it to the search */
        }
        n_var += k->kind == 2 ? 3 : 1;
        ++p;
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    /* b: every contact at rest open; then the response to probe forces */
    for (p = 0; p < n; ++p) {
        mode[p] = m->contacts[c[p].index].state.mode;
        m->contacts[c[p].index].state.mode = NSCD_CONTACT_OPEN;
    }
    double scale = 0.0;
    nscd__dynamics_update_modes(&ed->dynamics);
    rc = rest_accelerations(ed, t, y, c, n, acc);
    for (p = 0; p < n && rc == NSCD_OK; ++p) {
        for (int32_t row = 0; row < 3; ++row) {
            c[p].b[row] = acc[3 * p + row];
            scale = fmax(scale, fabs(c[p].b[row]));
        }
    }
    if (!(scale > 0.0) || !isfinite(scale)) {
        scale = 1.0;
    }
    for (p = 0; p < n && rc == NSCD_OK; ++p) {
        for (int32_t row = 0; row < (c[p].kind == 0 ? 1 : c[p].rows) && rc == NSCD_OK; ++row) {
            double f = c[p].mass * scale;
            ed->dynamics.probe_contact = c[p].index + 1;
            ed->dynamics.probe_row = row;
            ed->dynamics.probe_force = f;
            rc = rest_accelerations(ed, t, y, c, n, c[p].g[row]);
            ed->dynamics.probe_contact = 0;
            for (int32_t k = 0; k < 3 * n && rc == NSCD_OK; ++k) {
                c[p].g[row][k] = (c[p].g[row][k] - acc[k]) / f;
            }
        }
    }
    for (p = 0; p < n; ++p) {
        m->contacts[c[p].index].state.mode = mode[p];
    }
    if (rc == NSCD_OK) {
        P->n = n;
        P->n_var = n_var;
        P->c = c;
        P->scale = scale;
    }
    return rc;
}

/* The mode of contact a from its normal force and acceleration and, at rest
 * tangentially, its tangential acceleration a_t (n_t components) and force
 * lambda_t (all in the problem's units); a degenerate contact (no force and
 * no acceleration) keeps the present mode, like the search's hysteresis. */
static void set_mode(nscd_event_driven *ed, const rest_contact *a, double lambda_n, double a_n,
                     const double a_t[2], const double lambda_t[2]) {
    nscd__contact_slot *slot = &ed->model->contacts[a->index];
    if (lambda_n > MODE_TOLERANCE) {
        slot->state.mode = NSCD_CONTACT_CLOSED;
    } else if (a_n > MODE_TOLERANCE) {
        slot->state.mode = NSCD_CONTACT_OPEN;
    }
    if (slot->state.mode != NSCD_CONTACT_CLOSED || a->kind == 0) {
        return;
    }
    int32_t slip_was = slot->state.slip;
    if (a->kind == 1) {
        const double u[2] = {slot->n_tangent == 1 ? a->sigma : a->d[0],
                             slot->n_tangent == 1 ? 0.0 : a->d[1]};
        slide(slot, u);
        return;
    }
    const double *d_was = slot->state.slip_direction;
    if (norm2(a_t) > MODE_TOLERANCE) {
        slide(slot, a_t);
    } else if (slip_was != 0 && norm2((const double[2]){
                                    lambda_t[0] + a->mu * lambda_n * d_was[0],
                                    lambda_t[1] + a->mu * lambda_n * d_was[1]}) <= MODE_TOLERANCE) {
        /* starting to slide (a stick that reached the cone): keep it */
    } else {
        slot->state.slip = 0;
        if (slip_was != 0) {
            ed->slip_stopped[a->index] = 1;
        }
    }
}

/* The planar problem as an LCP in Pfeiffer and Glocker's form: per contact
 * at rest tangentially also lambda_R = mu lambda_N + lambda_T >= 0 _|_
 * a_T+ = a_T + a_T- >= 0, and a_T- >= 0 _|_ lambda_L = 2 mu lambda_N -
 * lambda_R >= 0 (a_T > 0 forces lambda_T = -mu lambda_N, a_T < 0 forces
 * lambda_T = +mu lambda_N, a_T = 0 leaves |lambda_T| <= mu lambda_N).
 * *solved = 0 (and nothing changed) when Lemke's algorithm ends on a ray. */
static nscd_status planar_modes(nscd_event_driven *ed, const rest_problem *P, int *solved) {
    int32_t n = P->n, n_var = P->n_var;
    const rest_contact *c = P->c;
    double scale = P->scale;
    double *M = nscd__arena_array(&ed->arena, (size_t)(n_var * n_var), sizeof(double));
    double *q = nscd__arena_array(&ed->arena, (size_t)n_var, sizeof(double));
    double *z = nscd__arena_array(&ed->arena, (size_t)n_var, sizeof(double));
    double *w = nscd__arena_array(&ed->arena, (size_t)n_var, sizeof(double));
    double *T = nscd__arena_array(&ed->arena, (size_t)(n_var * (2 * n_var + 2)), sizeof(double));
    int32_t *basis = nscd__arena_alloc(&ed->arena, (size_t)n_var, sizeof(int32_t));
    if (!M || !q || !z || !w || !T || !basis) {
        return nscd__fail(&ed->diag, NSCD_ERR_OUT_OF_MEMORY, "contact problem of %d contacts",
                          (int)n);
    }
    for (int32_t k = 0; k < n_var * n_var; ++k) {
        M[k] = 0.0;
    }
    for (int32_t p = 0; p < n; ++p) { /* rows of contact p */
        const rest_contact *a = &c[p];
        int32_t v = a->var;
        for (int32_t rr = 0; rr < (a->kind == 2 ? 2 : 1); ++rr) { /* a_N, then a_T+ */
            int32_t row = v + rr;
            q[row] = a->b[rr] / scale;
            for (int32_t o = 0; o < n; ++o) { /* columns of contact o */
                const rest_contact *b = &c[o];
                double gn = b->g[0][3 * p + rr], gt = b->kind == 0 ? 0.0 : b->g[1][3 * p + rr];
                double unit = b->mass; /* a force unknown of o is mass * scale * z */
                if (b->kind == 0) {
                    M[row * n_var + b->var] = gn * unit;
                } else if (b->kind == 1) {
                    M[row * n_var + b->var] = (gn - b->mu * b->sigma * gt) * unit;
                } else { /* lambda_T = lambda_R - mu lambda_N */
                    M[row * n_var + b->var] = (gn - b->mu * gt) * unit;
                    M[row * n_var + b->var + 1] = gt * unit;
                }
            }
            if (rr == 1) {
                M[row * n_var + v + 2] = 1.0; /* a_T+ = a_T + a_T- */
            }
        }
        if (a->kind == 2) { /* lambda_L = 2 mu lambda_N - lambda_R */
            int32_t row = v + 2;
            q[row] = 0.0;
            M[row * n_var + v] = 2.0 * a->mu;
            M[row * n_var + v + 1] = -1.0;
        }
    }
    if (nscd__lemke(n_var, M, q, T, basis, z, w) != NSCD_OK) {
        return NSCD_OK; /* no solution found: the search decides */
    }
    for (int32_t p = 0; p < n; ++p) {
        const rest_contact *a = &c[p];
        int32_t v = a->var;
        double lambda_n = z[v];
        double a_t[2] = {0.0, 0.0}, lambda_t[2] = {0.0, 0.0};
        if (a->kind == 2) {
            a_t[0] = w[v + 1] - z[v + 2];
            lambda_t[0] = z[v + 1] - a->mu * lambda_n; /* in units of mass * scale */
        }
        set_mode(ed, a, lambda_n, w[v], a_t, lambda_t);
    }
    *solved = 1;
    return NSCD_OK;
}

/* The spatial problem as a Coulomb friction problem a = W lambda + q on
 * 3x3 blocks (forces in units of mass * scale, accelerations of scale):
 * a contact at rest tangentially with friction mu, the others with mu = 0
 * and their normal column the response to the force they take (sliding:
 * W_N - mu d' W_T). Rows that carry no unknown (a missing second tangent,
 * the tangents of sliding and frictionless contacts) are dummies: zero
 * coupling, the diagonal of the normal, zero right-hand side, as in the
 * frictional impacts (docs/frictional_impacts.md). *solved = 0 (nothing
 * changed) when fc3d does not reach its tolerance. */
static nscd_status spatial_modes(nscd_event_driven *ed, const rest_problem *P, int *solved) {
    nscd__model *m = ed->model;
    int32_t n = P->n, dim = 3 * n;
    size_t mm = (size_t)dim;
    const rest_contact *c = P->c;
    double *W = nscd__arena_array(&ed->arena, mm * mm, sizeof(double));
    double *q = nscd__arena_array(&ed->arena, mm, sizeof(double));
    double *r = nscd__arena_array(&ed->arena, mm, sizeof(double));
    double *u = nscd__arena_array(&ed->arena, mm, sizeof(double));
    double *mu = nscd__arena_array(&ed->arena, (size_t)n, sizeof(double));
    if (!W || !q || !r || !u || !mu) {
        return nscd__fail(&ed->diag, NSCD_ERR_OUT_OF_MEMORY, "contact problem of %d contacts",
                          (int)n);
    }
    for (int32_t o = 0; o < n; ++o) { /* the columns of contact o */
        const rest_contact *b = &c[o];
        for (int32_t k = 0; k < 3; ++k) {
            int real = k == 0 || (b->kind == 2 && k < b->rows);
            for (int32_t row = 0; row < dim; ++row) {
                const rest_contact *a = &c[row / 3];
                int32_t rr = row % 3;
                double value = 0.0;
                if (real && (rr == 0 || (a->kind == 2 && rr < a->rows))) {
                    value = b->g[k][row];
                    if (k == 0 && b->kind == 1) { /* sliding: the force row W_N - mu d' W_T */
                        value -= b->mu * (b->d[0] * b->g[1][row] +
                                          (b->rows > 2 ? b->d[1] * b->g[2][row] : 0.0));
                    }
                    value *= b->mass;
                }
                W[(size_t)row * mm + (size_t)(3 * o + k)] = value;
            }
        }
    }
    for (int32_t p = 0; p < n; ++p) {
        const rest_contact *a = &c[p];
        size_t nn = (size_t)(3 * p) * mm + (size_t)(3 * p);
        mu[p] = a->kind == 2 ? a->mu : 0.0;
        for (int32_t rr = 0; rr < 3; ++rr) {
            int real = rr == 0 || (a->kind == 2 && rr < a->rows);
            size_t row = (size_t)(3 * p + rr);
            q[row] = real ? a->b[rr] / P->scale : 0.0;
            if (!real) {
                W[row * mm + row] = W[nn];
            }
        }
    }
    nscd_fc3d_options o;
    nscd_fc3d_options_init(&o, sizeof o);
    o.friction_law = NSCD_FC3D_COULOMB;
    o.tolerance = 1e-12;
    o.max_iterations = 10000;
    o.warm_start = 0;
    o.allocator = *m->allocator;
    nscd_fc3d_info info = {.struct_size = sizeof info};
    if (nscd_fc3d_solve_dense(n, W, q, mu, &o, r, u, &info) != NSCD_OK) {
        return NSCD_OK; /* not solved: the search decides */
    }
    for (int32_t p = 0; p < n; ++p) {
        const rest_contact *a = &c[p];
        const double *z = r + 3 * p, *w = u + 3 * p;
        double a_t[2] = {0.0, 0.0}, lambda_t[2] = {0.0, 0.0};
        for (int32_t k = 0; a->kind == 2 && k + 1 < a->rows; ++k) {
            a_t[k] = w[1 + k];
            lambda_t[k] = z[1 + k];
        }
        set_mode(ed, a, z[0], w[0], a_t, lambda_t);
    }
    *solved = 1;
    return NSCD_OK;
}

/* Decides the modes of the contacts at rest by the acceleration-level
 * problem. *solved = 0 (and nothing changed) when the problem could not be
 * solved: the caller then searches the modes as before. */
static nscd_status acceleration_modes(nscd_event_driven *ed, double t, const double *y,
                                      int32_t n_rest, int *solved) {
    rest_problem P;
    *solved = 0;
    nscd_status rc = measure_problem(ed, t, y, n_rest, &P);
    if (rc != NSCD_OK || P.n == 0) {
        return rc;
    }
    return P.spatial ? spatial_modes(ed, &P, solved) : planar_modes(ed, &P, solved);
}

nscd_status nscd__decide_contact_modes(nscd_event_driven *ed, double t, const double *y,
                                       int32_t n_rest) {
    nscd__model *m = ed->model;
    nscd__dynamics_update_modes(&ed->dynamics);
    if (n_rest == 0) {
        return NSCD_OK;
    }
    nscd_status rc = nscd__dynamics_rhs(&ed->dynamics, t, y, ed->ydot);
    double acceleration_tolerance = 0.0;
    if (rc == NSCD_OK) {
        rc = tolerances(ed, t, y, n_rest, &acceleration_tolerance);
    }
    int announced = 0;
    for (int32_t r = 0; r < n_rest && rc == NSCD_OK; ++r) {
        int32_t i = ed->rest[r];
        if (ed->firing[i] && m->contacts[i].state.mode == NSCD_CONTACT_CLOSED) {
            rc = announced_transition(ed, t, y, i);
            announced = 1;
        }
    }
    int solved = 0;
    if (rc == NSCD_OK) {
        rc = acceleration_modes(ed, t, y, n_rest, &solved);
        announced = 1; /* the problem's evaluations replaced the forces at hand */
    }
    const int32_t max_changes = 16 + 8 * n_rest;
    for (int32_t changes = 0; rc == NSCD_OK && changes <= max_changes; ++changes) {
        if (changes > 0 || announced) {
            nscd__dynamics_update_modes(&ed->dynamics);
            rc = nscd__dynamics_rhs(&ed->dynamics, t, y, ed->ydot);
        }
        int changed = 0;
        for (int32_t r = 0; r < n_rest && rc == NSCD_OK && !changed; ++r) {
            rc = fix_contact(ed, t, y, ed->rest[r], acceleration_tolerance, &changed);
        }
        if (rc != NSCD_OK || !changed) {
            return rc;
        }
    }
    return rc != NSCD_OK ? rc
                         : nscd__fail(&ed->diag, NSCD_ERR_NOT_CONVERGED,
                                      "no consistent contact modes for %d contacts at rest at "
                                      "t = %.17g (Painleve's paradox?)",
                                      (int)n_rest, t);
}
