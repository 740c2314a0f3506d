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
#include "integrators/dynamics.h"

#include <math.h>
#include <string.h>

#include "core/dense.h"
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
    size_t nr = 3 * nc; /* constraint rows: at most a normal and two tangents per contact */
    memset(dyn, 0, sizeof *dyn);
    dyn->model = model;
    dyn->closed = nscd__alloc_array(a, nc, sizeof(int32_t));
    dyn->lambda = nscd__alloc_array(a, nc, sizeof(double));
    dyn->h = nscd__alloc_array(a, nv, sizeof(double));
    dyn->lambda_t = nscd__alloc_array(a, 2 * nc, sizeof(double));
    dyn->direction = nscd__alloc_array(a, 2 * nc, sizeof(double));
    dyn->rows = nscd__alloc_array(a, nr * nv, sizeof(double));
    dyn->force_rows = nscd__alloc_array(a, nr * nv, sizeof(double));
    dyn->row_contact = nscd__alloc_array(a, nr, sizeof(int32_t));
    dyn->row_tangent = nscd__alloc_array(a, nr, sizeof(int32_t));
    dyn->row = nscd__alloc_array(a, nv, sizeof(double));
    dyn->tangents = nscd__alloc_array(a, 2 * nv, sizeof(double));
    dyn->rhs_in = nscd__alloc_array(a, nv * (1 + nr), sizeof(double));
    dyn->rhs_out = nscd__alloc_array(a, nv * (1 + nr), sizeof(double));
    dyn->delassus = nscd__alloc_array(a, nr * nr, sizeof(double));
    dyn->bias = nscd__alloc_array(a, nr, sizeof(double));
    dyn->delassus_copy = nscd__alloc_array(a, nr * nr, sizeof(double));
    dyn->residual = nscd__alloc_array(a, nr, sizeof(double));
    dyn->shifted = nscd__alloc_array(a, nq, sizeof(double));
    dyn->qdot = nscd__alloc_array(a, nq, sizeof(double));
    if (!dyn->closed || !dyn->lambda || !dyn->lambda_t || !dyn->direction || !dyn->h ||
        !dyn->rows || !dyn->force_rows || !dyn->row_contact || !dyn->row_tangent || !dyn->row ||
        !dyn->tangents || !dyn->rhs_in || !dyn->rhs_out || !dyn->delassus || !dyn->bias ||
        !dyn->delassus_copy || !dyn->residual || !dyn->shifted || !dyn->qdot ||
        nscd__least_squares_create(a, (int32_t)nr, &dyn->least_squares) != NSCD_OK) {
        nscd__dynamics_destroy(dyn);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    return NSCD_OK;
}

void nscd__dynamics_destroy(nscd__dynamics *dyn) {
    if (dyn->model == NULL) {
        return;
    }
    const nscd_allocator *a = dyn->model->allocator;
    size_t nq = (size_t)dyn->model->n_q, nv = (size_t)dyn->model->n_v;
    size_t nc = (size_t)dyn->model->n_contacts, nr = 3 * nc;
    nscd__free(a, dyn->closed, nc * sizeof(int32_t));
    nscd__free(a, dyn->lambda, nc * sizeof(double));
    nscd__free(a, dyn->lambda_t, 2 * nc * sizeof(double));
    nscd__free(a, dyn->direction, 2 * nc * sizeof(double));
    nscd__free(a, dyn->h, nv * sizeof(double));
    nscd__free(a, dyn->rows, nr * nv * sizeof(double));
    nscd__free(a, dyn->force_rows, nr * nv * sizeof(double));
    nscd__free(a, dyn->row_contact, nr * sizeof(int32_t));
    nscd__free(a, dyn->row_tangent, nr * sizeof(int32_t));
    nscd__free(a, dyn->row, nv * sizeof(double));
    nscd__free(a, dyn->tangents, 2 * nv * sizeof(double));
    nscd__free(a, dyn->rhs_in, nv * (1 + nr) * sizeof(double));
    nscd__free(a, dyn->rhs_out, nv * (1 + nr) * sizeof(double));
    nscd__free(a, dyn->delassus, nr * nr * sizeof(double));
    nscd__free(a, dyn->bias, nr * sizeof(double));
    nscd__free(a, dyn->delassus_copy, nr * nr * sizeof(double));
    nscd__free(a, dyn->residual, nr * sizeof(double));
    nscd__least_squares_destroy(a, &dyn->least_squares);
    nscd__free(a, dyn->shifted, nq * sizeof(double));
    nscd__free(a, dyn->qdot, nq * sizeof(double));
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
    return m->contact(m->self, index, t, q, gap, dyn->row, dyn->tangents);
}

nscd_status nscd__dynamics_onset_gap(nscd__dynamics *dyn, int32_t index, double t, const double *q,
                                     double *gap) {
    const nscd__contact_slot *slot = &dyn->model->contacts[index];
    nscd_status rc = nscd__dynamics_contact(dyn, index, t, q, gap);
    if (rc == NSCD_OK && slot->law.ops != NULL && slot->law.ops->kind == NSCD_LAW_COMPLIANT) {
        *gap += slot->law.ops->onset_penetration(&slot->law, &slot->state.memory);
    }
    return rc;
}

nscd_status nscd__dynamics_effective_mass(nscd__dynamics *dyn, const double *q, double *scratch,
                                          double *mass) {
    nscd__model *m = dyn->model;
    nscd_status rc = m->mass_solve(m->self, q, 1, dyn->row, scratch);
    if (rc != NSCD_OK) {
        return rc;
    }
    double inverse = nscd__dot(m->n_v, dyn->row, scratch); /* w M^-1 w' */
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
    double rate = -nscd__dot(dyn->model->n_v, dyn->row, v); /* penetration rate */
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
        for (int32_t k = 0; k < m->n_v; ++k) {
            dyn->h[k] += dyn->row[k] * f;
        }
    }
    return NSCD_OK;
}

int nscd__dynamics_frictional(const nscd__contact_slot *slot) {
    return slot->friction > 0.0 && (slot->n_tangent == 1 || slot->n_tangent == 2);
}

nscd_status nscd__dynamics_slip_velocity(nscd__dynamics *dyn, int32_t index, double t,
                                         const double *q, const double *v, double s[2]) {
    nscd__model *m = dyn->model;
    int32_t n_tangent = m->contacts[index].n_tangent;
    double gap = 0.0;
    nscd_status rc = nscd__dynamics_contact(dyn, index, t, q, &gap);
    for (int32_t k = 0; k < 2; ++k) {
        s[k] = rc == NSCD_OK && k < n_tangent
                   ? nscd__dot(m->n_v, dyn->tangents + (size_t)k * (size_t)m->n_v, v)
                   : 0.0;
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
    size_t n = (size_t)m->n_v;
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
        side[sign][0] = nscd__dot(m->n_v, dyn->row, v);
        for (int32_t k = 0; k < n_tangent && k < 2; ++k) {
            side[sign][1 + k] = nscd__dot(m->n_v, dyn->tangents + (size_t)k * n, v);
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

/* Appends the constraint and force rows of closed contact i (see the top of
 * the file) at row *k; the rows' biases (dC/dt) v go to dyn->bias. */
static nscd_status closed_rows(nscd__dynamics *dyn, int32_t i, double t, const double *q,
                               const double *v, int32_t *k) {
    nscd__model *m = dyn->model;
    const nscd__contact_slot *slot = &m->contacts[i];
    size_t n = (size_t)m->n_v;
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
    double *c = dyn->rows + (size_t)*k * n, *f = dyn->force_rows + (size_t)*k * n;
    const double *t1 = dyn->tangents, *t2 = dyn->tangents + n;
    double mu = slot->friction;
    for (size_t j = 0; j < n; ++j) {
        c[j] = dyn->row[j];
        f[j] = dyn->row[j];
        if (n_tangent >= 1 && d[0] != 0.0) {
            f[j] -= mu * d[0] * t1[j];
        }
        if (n_tangent == 2 && d[1] != 0.0) {
            f[j] -= mu * d[1] * t2[j];
        }
    }
    dyn->bias[*k] = normal_rate;
    dyn->row_contact[*k] = i;
    dyn->row_tangent[*k] = 0;
    ++*k;
    if (frictional && slot->state.slip == 0) { /* sticking: s = W_T v held at 0 too */
        for (int32_t r = 0; r < n_tangent; ++r) {
            memcpy(dyn->rows + (size_t)*k * n, dyn->tangents + (size_t)r * n, n * sizeof(double));
            memcpy(dyn->force_rows + (size_t)*k * n, dyn->tangents + (size_t)r * n,
                   n * sizeof(double));
            dyn->bias[*k] = tangent_rate[r];
            dyn->row_contact[*k] = i;
            dyn->row_tangent[*k] = 1 + r;
            ++*k;
        }
    }
    return NSCD_OK;
}

/* Solves (C M^-1 F') lambda = rhs (dyn->delassus, column-major; lam holds
 * rhs) for the forces of minimum norm: redundant persistent contacts (a block
 * flat on two sticking corners) have many force distributions that give the
 * same motion (the caller weighs the unknowns, see force_scale()). A
 * right-hand side outside the range of the matrix means contact conditions
 * that no force satisfies (e.g. Painleve's paradox). */
static nscd_status solve_forces(nscd__dynamics *dyn, int32_t k, double *lam) {
    nscd__model *m = dyn->model;
    size_t kk = (size_t)k * (size_t)k;
    memcpy(dyn->delassus_copy, dyn->delassus, kk * sizeof(double));
    double rhs_size = 0.0, matrix_size = 0.0;
    for (int32_t r = 0; r < k; ++r) {
        rhs_size = fmax(rhs_size, fabs(lam[r]));
        dyn->residual[r] = lam[r];
    }
    for (size_t j = 0; j < kk; ++j) {
        matrix_size = fmax(matrix_size, fabs(dyn->delassus[j]));
    }
    int32_t rank = 0;
    nscd_status rc = nscd__least_squares_solve(&dyn->least_squares, k, dyn->delassus, lam,
                                               RANK_TOLERANCE, &rank);
    double force_size = 0.0, residual = 0.0;
    for (int32_t r = 0; rc == NSCD_OK && r < k; ++r) {
        force_size = fmax(force_size, fabs(lam[r]));
    }
    for (int32_t r = 0; rc == NSCD_OK && r < k; ++r) {
        double sum = -dyn->residual[r];
        for (int32_t c = 0; c < k; ++c) {
            sum += dyn->delassus_copy[(size_t)c * (size_t)k + (size_t)r] * lam[c];
        }
        residual = fmax(residual, fabs(sum));
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

/* Forces of the closed contacts; on return dyn->rhs_out holds
 * M^-1 [h, F'] (n_v x (1 + n_rows)). */
static nscd_status closed_contact_forces(nscd__dynamics *dyn, double t, const double *q,
                                         const double *v) {
    nscd__model *m = dyn->model;
    int32_t n = m->n_v, k = 0;
    for (int32_t r = 0; r < dyn->n_closed; ++r) {
        nscd_status rc = closed_rows(dyn, dyn->closed[r], t, q, v, &k);
        if (rc != NSCD_OK) {
            return rc;
        }
    }
    dyn->n_rows = k;
    int32_t cols = 1 + k;
    for (int32_t i = 0; i < n; ++i) {
        dyn->rhs_in[(size_t)i * (size_t)cols] = dyn->h[i];
        for (int32_t r = 0; r < k; ++r) {
            dyn->rhs_in[(size_t)i * (size_t)cols + 1 + (size_t)r] =
                dyn->force_rows[(size_t)r * (size_t)n + (size_t)i];
        }
    }
    nscd_status rc = m->mass_solve(m->self, q, cols, dyn->rhs_in, dyn->rhs_out);
    if (rc != NSCD_OK || k == 0) {
        return rc;
    }
    double *lam = dyn->bias; /* right-hand side, then solution, in place */
    for (int32_t r = 0; r < k; ++r) {
        const double *w = dyn->rows + (size_t)r * (size_t)n;
        for (int32_t c = 0; c < cols; ++c) {
            double sum = 0.0; /* column 0: C_r M^-1 h, column c: (C M^-1 F')_r,c-1 */
            for (int32_t i = 0; i < n; ++i) {
                sum += w[i] * dyn->rhs_out[(size_t)i * (size_t)cols + (size_t)c];
            }
            if (c == 0) {
                lam[r] = -(sum + lam[r]);
            } else { /* column-major for LAPACK, in the weighted unknowns */
                dyn->delassus[(c - 1) * k + r] = sum * force_scale(dyn, c - 1);
            }
        }
    }
    rc = solve_forces(dyn, k, lam);
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
        *value = fmin(normal, slot->state.slip_direction[0] * s[0] + slot->state.slip_direction[1] * s[1]);
    }
    return rc;
}

nscd_status nscd__dynamics_rhs(nscd__dynamics *dyn, double t, const double *y, double *ydot) {
    nscd__model *m = dyn->model;
    const double *q = y, *v = y + m->n_q;
    double *qdot = ydot, *vdot = ydot + m->n_q;
    dyn->evaluations++;
    m->position_rate(m->self, q, v, dyn->qdot);
    nscd_status rc = m->forces(m->self, t, q, v, dyn->h);
    if (rc == NSCD_OK) {
        rc = add_compliant_forces(dyn, t, q, v);
    }
    if (rc == NSCD_OK) {
        rc = closed_contact_forces(dyn, t, q, v);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    int32_t cols = 1 + dyn->n_rows;
    for (int32_t i = 0; i < m->n_v; ++i) {
        const double *row = dyn->rhs_out + (size_t)i * (size_t)cols;
        double a = row[0];
        for (int32_t r = 0; r < dyn->n_rows; ++r) {
            int32_t c = dyn->row_contact[r], k = dyn->row_tangent[r];
            a += row[1 + r] * (k ? dyn->lambda_t[2 * c + k - 1] : dyn->lambda[c]);
        }
        vdot[i] = a;
    }
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
    *normal = nscd__dot(m->n_v, dyn->row, vdot) + normal_rate;
    for (int32_t k = 0; k < 2; ++k) {
        tangent[k] = k < n_tangent
                         ? nscd__dot(m->n_v, dyn->tangents + (size_t)k * (size_t)m->n_v, vdot) +
                               tangent_rate[k]
                         : 0.0;
    }
    return NSCD_OK;
}

nscd_status nscd__dynamics_project_velocity(nscd__dynamics *dyn, double t, double *y) {
    nscd__model *m = dyn->model;
    const double *q = y;
    double *v = y + m->n_q;
    int32_t n = m->n_v, k = 0;
    m->position_rate(m->self, q, v, dyn->qdot);
    for (int32_t r = 0; r < dyn->n_closed; ++r) {
        nscd_status rc = closed_rows(dyn, dyn->closed[r], t, q, v, &k);
        if (rc != NSCD_OK) {
            return rc;
        }
    }
    if (k == 0) {
        return NSCD_OK;
    }
    for (int32_t i = 0; i < n; ++i) {
        for (int32_t r = 0; r < k; ++r) {
            dyn->rhs_in[(size_t)i * (size_t)k + (size_t)r] =
                dyn->rows[(size_t)r * (size_t)n + (size_t)i];
        }
    }
    nscd_status rc = m->mass_solve(m->self, q, k, dyn->rhs_in, dyn->rhs_out); /* M^-1 C' */
    if (rc != NSCD_OK) {
        return rc;
    }
    double *impulse = dyn->bias;
    for (int32_t r = 0; r < k; ++r) {
        const double *w = dyn->rows + (size_t)r * (size_t)n;
        impulse[r] = -nscd__dot(n, w, v);
        for (int32_t c = 0; c < k; ++c) {
            double sum = 0.0;
            for (int32_t i = 0; i < n; ++i) {
                sum += w[i] * dyn->rhs_out[(size_t)i * (size_t)k + (size_t)c];
            }
            dyn->delassus[(size_t)c * (size_t)k + (size_t)r] = sum;
        }
    }
    rc = solve_forces(dyn, k, impulse);
    for (int32_t i = 0; rc == NSCD_OK && i < n; ++i) {
        v[i] += nscd__dot(k, dyn->rhs_out + (size_t)i * (size_t)k, impulse);
    }
    return rc;
}
