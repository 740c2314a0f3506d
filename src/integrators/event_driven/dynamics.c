/* Accelerations of a model with closed (bilateral) and compliant contacts.
 *
 * With closed contacts C the equations are M dv/dt = h + W_C' lambda and
 * d2g_C/dt2 = W_C dv/dt + (dW_C/dt) v = 0, hence
 *     (W_C M^-1 W_C') lambda = -(W_C M^-1 h + (dW_C/dt) v).
 * (dW_C/dt) v is obtained by a central difference of W_C along dq/dt, so the
 * user never has to supply second derivatives of the gaps.
 *
 * Coulomb friction (a closed contact with friction mu > 0 and one or two
 * tangential rows W_T, s = W_T v in the tangent plane) makes the rows that
 * constrain (C) differ from the rows along which the forces act (F):
 *   - sliding along the unit direction d: C = W_N, F = W_N - mu d' W_T
 *     (lambda_T = -mu lambda_N d);
 *   - sticking: C = F = [W_N; W_T], with ||lambda_T|| <= mu lambda_N to be watched;
 * and (C M^-1 F') lambda = -(C M^-1 h + (dC/dt) v).
 *
 * The sliding direction follows the sliding velocity: d is evaluated from s
 * in every evaluation,
 *     d = (sigma s + eps d_ref) / ||sigma s + eps d_ref||,
 *     sigma = sign(s . d_ref) (+1 at 0),  eps = slip_velocity,
 * with d_ref = slot->state.slip_direction, the direction of s at the start of the
 * step (or of the sliding that starts from rest), kept fixed during the step:
 *   - while the contact slides (||s|| >> eps), d = s/||s|| up to eps/||s||;
 *   - a slide that starts from rest (s = 0, or rounding noise) starts along
 *     d_ref, the direction the mode decision chose, instead of the noise's;
 *   - past a stop (s . d_ref < 0) sigma continues the motion smoothly in the
 *     direction it had, as the planar slip sign does, so that the stop watch
 *     s . d_ref crosses zero on a smooth solution and is located like the
 *     planar one. With one tangential row d = d_ref = slip exactly. */
#include "integrators/event_driven/dynamics.h"

#include <math.h>
#include <string.h>

#include "contact/assembly/assembly.h"
#include "contact/assembly/projection.h"
#include "core/least_squares.h"
#include "core/memory.h"

/* Singular values of the contact matrix below this fraction of the largest
 * count as zero (dependent contact rows). */
#define RANK_TOLERANCE 1e-10
/* Largest residual, relative to the data, of forces that hold the contacts. */
#define CONSISTENCY_TOLERANCE 1e-8

nscd_status nscd__dynamics_create(nscd__model *model, nscd__dynamics *dyn) {
    const nscd_allocator *a = model->allocator;
    size_t nq = (size_t)model->n_q, nv = (size_t)model->n_v, nc = (size_t)model->n_contacts;
    size_t width = (size_t)model->row_width;
    memset(dyn, 0, sizeof *dyn);
    dyn->model = model;
    dyn->allocator = *a;
    dyn->n_q = model->n_q;
    dyn->n_v = model->n_v;
    dyn->n_contacts = model->n_contacts;
    dyn->row_width = model->row_width;
    nscd__arena_init(&dyn->arena, &dyn->allocator);
    dyn->closed = nscd__alloc_array(a, nc, sizeof(int32_t));
    dyn->lambda = nscd__alloc_array(a, nc, sizeof(double));
    dyn->lambda_t = nscd__alloc_array(a, 2 * nc, sizeof(double));
    dyn->direction = nscd__alloc_array(a, 2 * nc, sizeof(double));
    dyn->entry.values = nscd__alloc_array(a, NSCD__MAX_ENTRY_ROWS * width, sizeof(double));
    dyn->h = nscd__alloc_array(a, nv, sizeof(double));
    dyn->shifted = nscd__alloc_array(a, nq, sizeof(double));
    dyn->qdot = nscd__alloc_array(a, nq, sizeof(double));
    if ((nc > 0 && (!dyn->closed || !dyn->lambda || !dyn->lambda_t || !dyn->direction)) ||
        !dyn->entry.values || !dyn->h || !dyn->shifted || !dyn->qdot ||
        nscd__least_squares_create(&dyn->allocator, 3, &dyn->least_squares) != NSCD_OK) {
        nscd__dynamics_destroy(dyn);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    return NSCD_OK;
}

void nscd__dynamics_destroy(nscd__dynamics *dyn) {
    if (dyn->model == NULL) {
        return;
    }
    const nscd_allocator *a = &dyn->allocator;
    size_t nq = (size_t)dyn->n_q, nv = (size_t)dyn->n_v;
    size_t nc = (size_t)dyn->n_contacts, width = (size_t)dyn->row_width;
    nscd__free(a, dyn->closed, nc * sizeof(int32_t));
    nscd__free(a, dyn->lambda, nc * sizeof(double));
    nscd__free(a, dyn->lambda_t, 2 * nc * sizeof(double));
    nscd__free(a, dyn->direction, 2 * nc * sizeof(double));
    nscd__free(a, dyn->entry.values, NSCD__MAX_ENTRY_ROWS * width * sizeof(double));
    nscd__free(a, dyn->h, nv * sizeof(double));
    nscd__free(a, dyn->shifted, nq * sizeof(double));
    nscd__free(a, dyn->qdot, nq * sizeof(double));
    nscd__least_squares_destroy(&dyn->least_squares);
    nscd__arena_release(&dyn->arena);
    memset(dyn, 0, sizeof *dyn);
}

void nscd__dynamics_update_modes(nscd__dynamics *dyn) {
    dyn->n_closed = 0;
    for (int32_t i = 0; i < dyn->model->n_contacts; ++i) {
        dyn->lambda[i] = 0.0;
        dyn->lambda_t[2 * i] = dyn->lambda_t[2 * i + 1] = 0.0;
        dyn->direction[2 * i] = dyn->direction[2 * i + 1] = 0.0;
        if (dyn->model->contacts[i].state.mode == NSCD_CONTACT_CLOSED) {
            dyn->closed[dyn->n_closed++] = i;
        }
    }
}

nscd_status nscd__dynamics_contact(nscd__dynamics *dyn, int32_t index, double t, const double *q,
                                   double *gap) {
    nscd__model *m = dyn->model;
    return m->entry(m->self, index, t, q, gap, &dyn->entry);
}

nscd_status nscd__dynamics_onset_gap(nscd__dynamics *dyn, int32_t index, double t, const double *q,
                                     double *gap) {
    const nscd__contact_slot *slot = &dyn->model->contacts[index];
    nscd_status rc = nscd__dynamics_contact(dyn, index, t, q, gap);
    if (rc == NSCD_OK && nscd__slot_compliant(slot)) {
        *gap += slot->law.ops->onset_penetration(&slot->law, &slot->state.memory);
    }
    return rc;
}

nscd_status nscd__dynamics_effective_mass(nscd__dynamics *dyn, const double *q, double *mass) {
    nscd__rows normal = nscd__rows_row(&dyn->entry, 0);
    nscd__response response;
    nscd__arena_reset(&dyn->arena);
    nscd_status rc = nscd__response_build(dyn->model, &dyn->arena, q, NULL, 1, &normal, &response);
    if (rc != NSCD_OK) {
        return rc;
    }
    double inverse = nscd__response_dot(&response, &normal); /* w M^-1 w' */
    *mass = inverse > 0.0 ? 1.0 / inverse : 0.0;
    return NSCD_OK;
}

nscd_status nscd__dynamics_compliant_force(nscd__dynamics *dyn, int32_t index, double t,
                                           const double *q, const double *v, double *force) {
    const nscd__contact_slot *slot = &dyn->model->contacts[index];
    double gap = 0.0;
    nscd_status rc = nscd__dynamics_contact(dyn, index, t, q, &gap);
    if (rc != NSCD_OK) {
        return rc;
    }
    double rate = -nscd__rows_dot(&dyn->entry, 0, v); /* penetration rate */
    *force = slot->law.ops->force(&slot->law, &slot->state.memory, -gap, rate);
    return NSCD_OK;
}

/* h += W' f for every contact in compliant mode. */
static nscd_status add_compliant_forces(nscd__dynamics *dyn, double t, const double *q,
                                        const double *v) {
    nscd__model *m = dyn->model;
    for (int32_t i = 0; i < m->n_contacts; ++i) {
        if (m->contacts[i].state.mode != NSCD_CONTACT_COMPLIANT) {
            continue;
        }
        double f = 0.0;
        nscd_status rc = nscd__dynamics_compliant_force(dyn, i, t, q, v, &f);
        if (rc != NSCD_OK) {
            return rc;
        }
        nscd__rows_add_to(&dyn->entry, 0, f, dyn->h);
    }
    return NSCD_OK;
}

int nscd__dynamics_frictional(const nscd__contact_slot *slot) {
    return slot->kind == NSCD__ENTRY_UNILATERAL && slot->friction > 0.0 &&
           (slot->n_tangent == 1 || slot->n_tangent == 2);
}

nscd_status nscd__dynamics_slip_velocity(nscd__dynamics *dyn, int32_t index, double t,
                                         const double *q, const double *v, double s[2]) {
    nscd__model *m = dyn->model;
    int32_t n_tangent = m->contacts[index].n_tangent;
    double gap = 0.0;
    nscd_status rc = nscd__dynamics_contact(dyn, index, t, q, &gap);
    for (int32_t k = 0; k < 2; ++k) {
        s[k] = rc == NSCD_OK && k < n_tangent ? nscd__rows_dot(&dyn->entry, 1 + k, v) : 0.0;
    }
    return rc;
}

/* (dW_N/dt) v and (dW_Tk/dt) v of contact `index` by a central difference
 * along dq/dt with step ~ cbrt(eps); tangential rates for the contact's
 * tangential rows (0 for the others). */
static nscd_status row_rates_times_v(nscd__dynamics *dyn, int32_t index, double t, const double *q,
                                     const double *v, double *normal, double tangent[2]) {
    nscd__model *m = dyn->model;
    int32_t n_tangent = m->contacts[index].n_tangent;
    double qscale = 1.0, rate = 0.0;
    for (int32_t k = 0; k < m->n_q; ++k) {
        qscale = fmax(qscale, fabs(q[k]));
        rate = fmax(rate, fabs(dyn->qdot[k]));
    }
    *normal = tangent[0] = tangent[1] = 0.0;
    if (rate == 0.0) {
        return NSCD_OK;
    }
    double s = 6e-6 * qscale / rate, gap = 0.0, side[2][3] = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    for (int sign = 0; sign < 2; ++sign) {
        double step = sign == 0 ? s : -s;
        for (int32_t k = 0; k < m->n_q; ++k) {
            dyn->shifted[k] = q[k] + step * dyn->qdot[k];
        }
        nscd_status rc = nscd__dynamics_contact(dyn, index, t, dyn->shifted, &gap);
        if (rc != NSCD_OK) {
            return rc;
        }
        side[sign][0] = nscd__rows_dot(&dyn->entry, 0, v);
        for (int32_t k = 0; k < n_tangent && k < 2; ++k) {
            side[sign][1 + k] = nscd__rows_dot(&dyn->entry, 1 + k, v);
        }
    }
    *normal = (side[0][0] - side[1][0]) / (2.0 * s);
    tangent[0] = (side[0][1] - side[1][1]) / (2.0 * s);
    tangent[1] = (side[0][2] - side[1][2]) / (2.0 * s);
    return NSCD_OK;
}

/* Friction direction d of a sliding contact with sliding velocity s (see the
 * top of the file); with one tangential row, d = slip_direction = slip. */
static void sliding_direction(const nscd__dynamics *dyn, const nscd__contact_slot *slot,
                              const double s[2], double d[2]) {
    const double *ref = slot->state.slip_direction;
    double eps = dyn->slip_velocity;
    double sigma = s[0] * ref[0] + s[1] * ref[1] < 0.0 ? -1.0 : 1.0;
    double a = sigma * s[0] + eps * ref[0], b = sigma * s[1] + eps * ref[1];
    double norm = hypot(a, b);
    if (norm > 0.0 && isfinite(norm)) {
        d[0] = a / norm;
        d[1] = b / norm;
    } else {
        d[0] = ref[0];
        d[1] = ref[1];
    }
}

/* Row k of the closed contacts' problem: a copy of `src`'s row r (with its
 * pattern) as constraint row, and `force` (or the same) as force row. */
static void add_row(nscd__dynamics *dyn, int32_t k, int32_t r, const double *subtract, int32_t i,
                    int32_t tangent, double bias) {
    size_t width = (size_t)dyn->model->row_width;
    dyn->rows[k].values = dyn->row_values + 2 * (size_t)k * width;
    dyn->force_rows[k].values = dyn->rows[k].values + width;
    nscd__rows_copy_row(&dyn->entry, r, &dyn->rows[k]);
    if (subtract != NULL) {
        nscd__rows_subtract(&dyn->entry, subtract, &dyn->force_rows[k]);
    } else {
        nscd__rows_copy_row(&dyn->entry, r, &dyn->force_rows[k]);
    }
    dyn->bias[k] = bias;
    dyn->row_contact[k] = i;
    dyn->row_tangent[k] = tangent;
}

/* Appends the constraint and force rows of closed contact i (see the top of
 * the file) at row *k; the rows' biases (dC/dt) v go to dyn->bias. */
static nscd_status closed_rows(nscd__dynamics *dyn, int32_t i, double t, const double *q,
                               const double *v, int32_t *k) {
    nscd__model *m = dyn->model;
    const nscd__contact_slot *slot = &m->contacts[i];
    double normal_rate = 0.0, tangent_rate[2] = {0.0, 0.0}, slip[2] = {0.0, 0.0};
    nscd_status rc = row_rates_times_v(dyn, i, t, q, v, &normal_rate, tangent_rate);
    if (rc == NSCD_OK) { /* after the shifted calls: the rows at q itself */
        rc = nscd__dynamics_slip_velocity(dyn, i, t, q, v, slip);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    int frictional = nscd__dynamics_frictional(slot);
    int32_t n_tangent = frictional ? slot->n_tangent : 0;
    double *d = dyn->direction + 2 * (size_t)i;
    d[0] = d[1] = 0.0;
    if (frictional && slot->state.slip != 0) {
        sliding_direction(dyn, slot, slip, d);
    }
    /* F = W_N - mu d' W_T (d = 0 unless sliding) */
    double mu = slot->friction;
    double subtract[3] = {0.0, n_tangent >= 1 ? mu * d[0] : 0.0, n_tangent == 2 ? mu * d[1] : 0.0};
    add_row(dyn, (*k)++, 0, subtract, i, 0, normal_rate);
    if (frictional && slot->state.slip == 0) { /* sticking: s = W_T v held at 0 too */
        for (int32_t r = 0; r < n_tangent; ++r) {
            add_row(dyn, (*k)++, 1 + r, NULL, i, 1 + r, tangent_rate[r]);
        }
    }
    return NSCD_OK;
}

/* The closed contacts' rows (C, F, biases) at (q, v) into the arena. */
static nscd_status closed_problem(nscd__dynamics *dyn, double t, const double *q, const double *v) {
    nscd__arena *a = &dyn->arena;
    size_t max_rows = 3 * (size_t)dyn->n_closed, width = (size_t)dyn->model->row_width;
    dyn->rows = nscd__arena_alloc(a, 2 * max_rows, sizeof(nscd__rows));
    dyn->row_contact = nscd__arena_alloc(a, 2 * max_rows, sizeof(int32_t));
    dyn->bias = nscd__arena_alloc(a, max_rows * (1 + 2 * width), sizeof(double));
    if (!dyn->rows || !dyn->row_contact || !dyn->bias) {
        return nscd__fail(dyn->model->diag, NSCD_ERR_OUT_OF_MEMORY, "closed-contact rows");
    }
    dyn->force_rows = dyn->rows + max_rows;
    dyn->row_tangent = dyn->row_contact + max_rows;
    dyn->row_values = dyn->bias + max_rows;
    int32_t k = 0;
    for (int32_t r = 0; r < dyn->n_closed; ++r) {
        nscd_status rc = closed_rows(dyn, dyn->closed[r], t, q, v, &k);
        if (rc != NSCD_OK) {
            return rc;
        }
    }
    dyn->n_rows = k;
    return NSCD_OK;
}

/* Solves (C M^-1 F') lambda = rhs (dyn->delassus, column-major; lam holds
 * rhs) for the forces of minimum norm: redundant persistent contacts (a block
 * flat on two sticking corners) have many force distributions that give the
 * same motion (the caller weighs the unknowns, see force_scale()). A
 * right-hand side outside the range of the matrix means contact conditions
 * that no force satisfies (e.g. Painleve's paradox). */
static nscd_status solve_forces(nscd__dynamics *dyn, int32_t k, double *A, double *lam) {
    nscd__model *m = dyn->model;
    size_t kk = (size_t)k * (size_t)k;
    double *copy = nscd__arena_array(&dyn->arena, kk, sizeof(double));
    double *rhs = nscd__arena_array(&dyn->arena, (size_t)k, sizeof(double));
    if (copy == NULL || rhs == NULL) {
        return nscd__fail(m->diag, NSCD_ERR_OUT_OF_MEMORY, "closed-contact forces");
    }
    memcpy(copy, A, kk * sizeof(double));
    double rhs_size = 0.0, matrix_size = 0.0;
    for (int32_t r = 0; r < k; ++r) {
        rhs_size = fmax(rhs_size, fabs(lam[r]));
        rhs[r] = lam[r];
    }
    for (size_t j = 0; j < kk; ++j) {
        matrix_size = fmax(matrix_size, fabs(A[j]));
    }
    int32_t rank = 0;
    nscd_status rc =
        nscd__least_squares_solve(&dyn->least_squares, k, A, lam, RANK_TOLERANCE, &rank);
    double force_size = 0.0, residual = 0.0;
    for (int32_t r = 0; rc == NSCD_OK && r < k; ++r) {
        force_size = fmax(force_size, fabs(lam[r]));
    }
    for (int32_t r = 0; rc == NSCD_OK && r < k; ++r) {
        double sum = -rhs[r];
        for (int32_t c = 0; c < k; ++c) {
            sum += copy[(size_t)c * (size_t)k + (size_t)r] * lam[c];
        }
        residual = fmax(residual, fabs(sum));
    }
    if (rc == NSCD_ERR_OUT_OF_MEMORY) {
        return nscd__fail(m->diag, rc, "least-squares work for %d rows", (int)k);
    }
    if (rc != NSCD_OK ||
        !(residual <= CONSISTENCY_TOLERANCE * (rhs_size + matrix_size * force_size))) {
        return nscd__fail(m->diag, NSCD_ERR_SINGULAR,
                          "no forces hold the %d persistent contacts (rank %d of %d rows, "
                          "residual %.3g)",
                          (int)dyn->n_closed, (int)rank, (int)k, residual);
    }
    return NSCD_OK;
}
/* Redundant sticking contacts (a point in a V-groove, a box on four
 * corners) have many force distributions that hold them. The minimum-norm
 * one would mix normal and friction forces evenly: in a groove whose walls
 * are steeper than the friction angle it leans on friction beyond the cone,
 * although the normal forces alone hold the point, and the mode decision
 * then lets it slide where it cannot move. The forces are therefore those of
 * minimum weighted norm sum lambda_N^2 + w^2 sum lambda_T^2: friction only
 * as far as the motion needs it (to O(1/w^2) of the normal forces). With
 * the unknowns lambda_T = mu_T / w the weighted problem is a plain
 * minimum-norm one; w stays moderate so that the scaled columns remain far
 * above the rank tolerance. */
#define FRICTION_WEIGHT 1e3

/* Scale of the unknown of row r: lambda_r = scale * (minimum-norm unknown). */
static double force_scale(const nscd__dynamics *dyn, int32_t r) {
    return dyn->row_tangent[r] ? 1.0 / FRICTION_WEIGHT : 1.0;
}

/* C M^-1 F' of the closed contacts' problem, column-major for LAPACK,
 * with column c scaled by `scale` (NULL: 1). */
static double *column_major_delassus(nscd__dynamics *dyn, const nscd__response *response,
                                     int weighted) {
    size_t k = (size_t)dyn->n_rows;
    double *W = nscd__arena_array(&dyn->arena, k * k, sizeof(double));
    double *A = nscd__arena_array(&dyn->arena, k * k, sizeof(double));
    if (W == NULL || A == NULL) {
        return NULL;
    }
    nscd__response_delassus(response, dyn->n_rows, dyn->rows, W);
    for (size_t r = 0; r < k; ++r) {
        for (size_t c = 0; c < k; ++c) {
            double w = W[r * k + c];
            A[c * k + r] = weighted ? w * force_scale(dyn, (int32_t)c) : w;
        }
    }
    return A;
}

/* Forces of the closed contacts at (q, v) into dyn->lambda, dyn->lambda_t;
 * `response` receives M^-1 [h, F']. */
static nscd_status closed_contact_forces(nscd__dynamics *dyn, double t, const double *q,
                                         const double *v, nscd__response *response) {
    nscd__model *m = dyn->model;
    nscd_status rc = closed_problem(dyn, t, q, v);
    if (rc == NSCD_OK) {
        rc =
            nscd__response_build(m, &dyn->arena, q, dyn->h, dyn->n_rows, dyn->force_rows, response);
    }
    int32_t k = dyn->n_rows;
    if (rc != NSCD_OK || k == 0) {
        return rc;
    }
    double *lam = dyn->bias; /* right-hand side, then solution, in place */
    for (int32_t r = 0; r < k; ++r) {
        lam[r] = -(nscd__response_free(response, &dyn->rows[r]) + lam[r]);
    }
    double *A = column_major_delassus(dyn, response, 1); /* in the weighted unknowns */
    rc = A != NULL ? solve_forces(dyn, k, A, lam)
                   : nscd__fail(m->diag, NSCD_ERR_OUT_OF_MEMORY, "closed-contact forces");
    for (int32_t r = 0; rc == NSCD_OK && r < k; ++r) {
        int32_t i = dyn->row_contact[r];
        lam[r] *= force_scale(dyn, r);
        if (dyn->row_tangent[r]) {
            dyn->lambda_t[2 * i + dyn->row_tangent[r] - 1] = lam[r];
        } else { /* sliding: lambda_T = -mu lambda_N d (d = 0 unless sliding) */
            double mu = m->contacts[i].friction;
            dyn->lambda[i] = lam[r];
            dyn->lambda_t[2 * i] = -mu * dyn->direction[2 * i] * lam[r];
            dyn->lambda_t[2 * i + 1] = -mu * dyn->direction[2 * i + 1] * lam[r];
        }
    }
    return rc;
}

nscd_status nscd__dynamics_closed_watch(nscd__dynamics *dyn, int32_t index, double t,
                                        const double *q, const double *v, double *value) {
    const nscd__contact_slot *slot = &dyn->model->contacts[index];
    double normal = dyn->lambda[index];
    if (slot->kind == NSCD__ENTRY_EQUALITY) { /* holds with forces of either sign */
        *value = 1.0;
        return NSCD_OK;
    }
    if (!nscd__dynamics_frictional(slot)) {
        *value = normal;
        return NSCD_OK;
    }
    if (slot->state.slip == 0) { /* Coulomb's cone */
        const double *lambda_t = dyn->lambda_t + 2 * (size_t)index;
        *value = fmin(normal, slot->friction * normal - hypot(lambda_t[0], lambda_t[1]));
        return NSCD_OK;
    }
    /* sliding: until s stops (or the force vanishes). ||s|| does not change
     * sign at a stop; its component along the direction of the step start
     * does (planar: slip s). */
    double s[2] = {0.0, 0.0};
    nscd_status rc = nscd__dynamics_slip_velocity(dyn, index, t, q, v, s);
    if (rc == NSCD_OK) {
        *value = fmin(normal,
                      slot->state.slip_direction[0] * s[0] + slot->state.slip_direction[1] * s[1]);
    }
    return rc;
}

nscd_status nscd__dynamics_rhs(nscd__dynamics *dyn, double t, const double *y, double *ydot) {
    nscd__model *m = dyn->model;
    const double *q = y, *v = y + m->n_q;
    double *qdot = ydot, *vdot = ydot + m->n_q;
    dyn->evaluations++;
    nscd__arena_reset(&dyn->arena);
    m->position_rate(m->self, q, v, dyn->qdot);
    nscd_status rc = m->forces(m->self, t, q, v, dyn->h);
    if (rc == NSCD_OK) {
        rc = add_compliant_forces(dyn, t, q, v);
    }
    if (rc == NSCD_OK && dyn->probe_contact > 0) {
        double gap = 0.0;
        rc = nscd__dynamics_contact(dyn, dyn->probe_contact - 1, t, q, &gap);
        if (rc == NSCD_OK) {
            nscd__rows_add_to(&dyn->entry, dyn->probe_row, dyn->probe_force, dyn->h);
        }
    }
    nscd__response response;
    if (rc == NSCD_OK) {
        rc = closed_contact_forces(dyn, t, q, v, &response);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    /* dyn->bias holds the multiplier of each force row */
    nscd__response_acceleration(&response, dyn->bias, vdot);
    memcpy(qdot, dyn->qdot, (size_t)m->n_q * sizeof(double));
    return NSCD_OK;
}

nscd_status nscd__dynamics_contact_acceleration(nscd__dynamics *dyn, int32_t index, double t,
                                                const double *y, const double *ydot, double *normal,
                                                double tangent[2]) {
    nscd__model *m = dyn->model;
    const double *q = y, *v = y + m->n_q, *vdot = ydot + m->n_q;
    double normal_rate = 0.0, tangent_rate[2] = {0.0, 0.0}, gap = 0.0;
    nscd_status rc = row_rates_times_v(dyn, index, t, q, v, &normal_rate, tangent_rate);
    if (rc == NSCD_OK) { /* after the shifted calls: the rows at q itself */
        rc = nscd__dynamics_contact(dyn, index, t, q, &gap);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    int32_t n_tangent = m->contacts[index].n_tangent;
    *normal = nscd__rows_dot(&dyn->entry, 0, vdot) + normal_rate;
    for (int32_t k = 0; k < 2; ++k) {
        tangent[k] =
            k < n_tangent ? nscd__rows_dot(&dyn->entry, 1 + k, vdot) + tangent_rate[k] : 0.0;
    }
    return NSCD_OK;
}

/* The plastic velocity projection as the one projection's velocity stage
 * (contact/assembly/projection.h): rows C of the closed contacts (normal,
 * and tangential of the sticking ones; all equalities), b = C v,
 * (C M^-1 C' + δ I) p = -b, v <- v + M^-1 C' p. The projected v is unique
 * (the closest in the kinetic metric); dependent rows only split p. */
typedef struct velocity_projection {
    nscd__dynamics *dyn;
    double t;
    const double *q;
    double *v;
    nscd__response response; /* M^-1 C' */
} velocity_projection;

static nscd_status velocity_gather(void *self, int stage, nscd__projection_system *sys) {
    velocity_projection *vp = self;
    nscd__dynamics *dyn = vp->dyn;
    nscd__model *m = dyn->model;
    (void)stage; /* velocities only */
    nscd__arena_reset(&dyn->arena);
    m->position_rate(m->self, vp->q, vp->v, dyn->qdot);
    nscd_status rc = closed_problem(dyn, vp->t, vp->q, vp->v);
    int32_t k = dyn->n_rows;
    sys->m = 0;
    if (rc != NSCD_OK || k == 0) {
        return rc;
    }
    rc = nscd__response_build(m, &dyn->arena, vp->q, NULL, k, dyn->rows, &vp->response);
    if (rc != NSCD_OK) {
        return rc;
    }
    double *b = dyn->bias;
    for (int32_t r = 0; r < k; ++r) {
        b[r] = nscd__rows_dot(&dyn->rows[r], 0, vp->v);
    }
    sys->m = k;
    sys->gap = NULL;
    sys->b = b;
    sys->W = nscd__arena_alloc(&dyn->arena, (size_t)k * (size_t)k, sizeof(double));
    sys->p = nscd__arena_alloc(&dyn->arena, (size_t)k, sizeof(double));
    sys->work = nscd__arena_alloc(&dyn->arena, NSCD__PROJECTION_WORK(k), sizeof(double));
    sys->residual = 0.0;
    if (sys->W == NULL || sys->p == NULL || sys->work == NULL) {
        return nscd__fail(m->diag, NSCD_ERR_OUT_OF_MEMORY, "velocity projection");
    }
    return NSCD_OK;
}

static nscd_status velocity_delassus(void *self, const nscd__projection_system *sys) {
    velocity_projection *vp = self;
    nscd__response_delassus(&vp->response, sys->m, vp->dyn->rows, sys->W);
    return NSCD_OK;
}

static nscd_status velocity_apply(void *self, int stage, const nscd__projection_system *sys) {
    velocity_projection *vp = self;
    (void)stage;
    nscd__response_add_dot(&vp->response, sys->p, vp->v);
    return NSCD_OK;
}

nscd_status nscd__dynamics_project_velocity(nscd__dynamics *dyn, double t, double *y) {
    velocity_projection vp;
    vp.dyn = dyn;
    vp.t = t;
    vp.q = y;
    vp.v = y + dyn->model->n_q;
    nscd__projection_ops ops = {&vp, velocity_gather, velocity_delassus, NULL, velocity_apply, 1,
                                0};
    return nscd__project_velocities(&ops);
}
