/* Accelerations of a model with closed (bilateral) and compliant contacts.
 *
 * With closed contacts C the equations are M dv/dt = h + W_C' lambda and
 * d2g_C/dt2 = W_C dv/dt + (dW_C/dt) v = 0, hence
 *     (W_C M^-1 W_C') lambda = -(W_C M^-1 h + (dW_C/dt) v).
 * (dW_C/dt) v is obtained by a central difference of W_C along dq/dt, so the
 * user never has to supply second derivatives of the gaps. */
#include "integrators/dynamics.h"

#include <math.h>
#include <string.h>

#include "core/dense.h"
#include "core/memory.h"

nscd_status nscd__dynamics_create(nscd__model *model, nscd__dynamics *dyn) {
    const nscd_allocator *a = model->allocator;
    size_t nq = (size_t)model->n_q, nv = (size_t)model->n_v, nc = (size_t)model->n_contacts;
    memset(dyn, 0, sizeof *dyn);
    dyn->model = model;
    dyn->closed = nscd__alloc_array(a, nc, sizeof(int32_t));
    dyn->lambda = nscd__alloc_array(a, nc, sizeof(double));
    dyn->h = nscd__alloc_array(a, nv, sizeof(double));
    dyn->rows = nscd__alloc_array(a, nc * nv, sizeof(double));
    dyn->row = nscd__alloc_array(a, nv, sizeof(double));
    dyn->tangents = nscd__alloc_array(a, 2 * nv, sizeof(double));
    dyn->rhs_in = nscd__alloc_array(a, nv * (1 + nc), sizeof(double));
    dyn->rhs_out = nscd__alloc_array(a, nv * (1 + nc), sizeof(double));
    dyn->delassus = nscd__alloc_array(a, nc * nc, sizeof(double));
    dyn->bias = nscd__alloc_array(a, nc, sizeof(double));
    dyn->pivots = nscd__alloc_array(a, nc, sizeof(int32_t));
    dyn->shifted = nscd__alloc_array(a, nq, sizeof(double));
    dyn->qdot = nscd__alloc_array(a, nq, sizeof(double));
    if (!dyn->closed || !dyn->lambda || !dyn->h || !dyn->rows || !dyn->row || !dyn->tangents ||
        !dyn->rhs_in || !dyn->rhs_out || !dyn->delassus || !dyn->bias || !dyn->pivots ||
        !dyn->shifted || !dyn->qdot) {
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
    size_t nc = (size_t)dyn->model->n_contacts;
    nscd__free(a, dyn->closed, nc * sizeof(int32_t));
    nscd__free(a, dyn->lambda, nc * sizeof(double));
    nscd__free(a, dyn->h, nv * sizeof(double));
    nscd__free(a, dyn->rows, nc * nv * sizeof(double));
    nscd__free(a, dyn->row, nv * sizeof(double));
    nscd__free(a, dyn->tangents, 2 * nv * sizeof(double));
    nscd__free(a, dyn->rhs_in, nv * (1 + nc) * sizeof(double));
    nscd__free(a, dyn->rhs_out, nv * (1 + nc) * sizeof(double));
    nscd__free(a, dyn->delassus, nc * nc * sizeof(double));
    nscd__free(a, dyn->bias, nc * sizeof(double));
    nscd__free(a, dyn->pivots, nc * sizeof(int32_t));
    nscd__free(a, dyn->shifted, nq * sizeof(double));
    nscd__free(a, dyn->qdot, nq * sizeof(double));
    memset(dyn, 0, sizeof *dyn);
}

void nscd__dynamics_update_modes(nscd__dynamics *dyn) {
    dyn->n_closed = 0;
    for (int32_t i = 0; i < dyn->model->n_contacts; ++i) {
        dyn->lambda[i] = 0.0;
        if (dyn->model->contacts[i].mode == NSCD_CONTACT_CLOSED) {
            dyn->closed[dyn->n_closed++] = i;
        }
    }
}

nscd_status nscd__dynamics_contact(nscd__dynamics *dyn, int32_t index, double t, const double *q,
                                   double *gap) {
    nscd__model *m = dyn->model;
    return m->contact(m->self, index, t, q, gap, dyn->row, dyn->tangents);
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
    *force = slot->law.ops->force(&slot->law, &slot->memory, -gap, rate);
    return NSCD_OK;
}

/* h += W' f for every contact in compliant mode. */
static nscd_status add_compliant_forces(nscd__dynamics *dyn, double t, const double *q,
                                        const double *v) {
    nscd__model *m = dyn->model;
    for (int32_t i = 0; i < m->n_contacts; ++i) {
        if (m->contacts[i].mode != NSCD_CONTACT_COMPLIANT) {
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

/* (dW_i/dt) v by a central difference along dq/dt with step ~ cbrt(eps). */
static nscd_status row_rate_times_v(nscd__dynamics *dyn, int32_t index, double t, const double *q,
                                    const double *v, double *out) {
    nscd__model *m = dyn->model;
    double qscale = 1.0, rate = 0.0;
    for (int32_t k = 0; k < m->n_q; ++k) {
        qscale = fmax(qscale, fabs(q[k]));
        rate = fmax(rate, fabs(dyn->qdot[k]));
    }
    *out = 0.0;
    if (rate == 0.0) {
        return NSCD_OK;
    }
    double s = 6e-6 * qscale / rate, gap = 0.0, side[2];
    for (int sign = 0; sign < 2; ++sign) {
        double step = sign == 0 ? s : -s;
        for (int32_t k = 0; k < m->n_q; ++k) {
            dyn->shifted[k] = q[k] + step * dyn->qdot[k];
        }
        nscd_status rc = nscd__dynamics_contact(dyn, index, t, dyn->shifted, &gap);
        if (rc != NSCD_OK) {
            return rc;
        }
        side[sign] = nscd__dot(m->n_v, dyn->row, v);
    }
    *out = (side[0] - side[1]) / (2.0 * s);
    return NSCD_OK;
}

/* Bilateral forces of the closed contacts; on return dyn->rhs_out holds
 * M^-1 [h, W_C'] (n_v x (1 + n_closed)). */
static nscd_status closed_contact_forces(nscd__dynamics *dyn, double t, const double *q,
                                         const double *v) {
    nscd__model *m = dyn->model;
    int32_t n = m->n_v, k = dyn->n_closed, cols = 1 + k;
    double gap = 0.0;
    for (int32_t r = 0; r < k; ++r) {
        nscd_status rc = nscd__dynamics_contact(dyn, dyn->closed[r], t, q, &gap);
        if (rc == NSCD_OK) {
            memcpy(dyn->rows + (size_t)r * (size_t)n, dyn->row, (size_t)n * sizeof(double));
            rc = row_rate_times_v(dyn, dyn->closed[r], t, q, v, &dyn->bias[r]);
        }
        if (rc != NSCD_OK) {
            return rc;
        }
    }
    for (int32_t i = 0; i < n; ++i) {
        dyn->rhs_in[(size_t)i * (size_t)cols] = dyn->h[i];
        for (int32_t r = 0; r < k; ++r) {
            dyn->rhs_in[(size_t)i * (size_t)cols + 1 + (size_t)r] =
                dyn->rows[(size_t)r * (size_t)n + (size_t)i];
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
            double sum = 0.0; /* column 0: W_r M^-1 h, column c: (W M^-1 W')_r,c-1 */
            for (int32_t i = 0; i < n; ++i) {
                sum += w[i] * dyn->rhs_out[(size_t)i * (size_t)cols + (size_t)c];
            }
            if (c == 0) {
                lam[r] = -(sum + lam[r]);
            } else {
                dyn->delassus[r * k + c - 1] = sum;
            }
        }
    }
    if (nscd__lu_solve(k, dyn->delassus, dyn->pivots, 1, lam) != NSCD_OK) {
        return nscd__fail(m->diag, NSCD_ERR_SINGULAR,
                          "the %d persistent contacts have dependent rows", (int)k);
    }
    for (int32_t r = 0; r < k; ++r) {
        dyn->lambda[dyn->closed[r]] = lam[r];
    }
    return NSCD_OK;
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
    int32_t cols = 1 + dyn->n_closed;
    for (int32_t i = 0; i < m->n_v; ++i) {
        const double *row = dyn->rhs_out + (size_t)i * (size_t)cols;
        double a = row[0];
        for (int32_t r = 0; r < dyn->n_closed; ++r) {
            a += row[1 + r] * dyn->lambda[dyn->closed[r]];
        }
        vdot[i] = a;
    }
    memcpy(qdot, dyn->qdot, (size_t)m->n_q * sizeof(double));
    return NSCD_OK;
}
