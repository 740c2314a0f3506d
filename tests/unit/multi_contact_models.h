/* Multi-contact regression systems shared by the tests (header-only test
 * code): a planar rocking block on two corners, a row of balls on a line
 * (Newton's cradle), and the invariant checker every regression system runs
 * under (energy never increases at an event, no gap below the tolerance). */
#ifndef NSCD_TEST_MULTI_CONTACT_MODELS_H
#define NSCD_TEST_MULTI_CONTACT_MODELS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "nscd/nscd.h"

#define MC_GRAVITY 9.81

/* ------------------------------------------------------------ rocking block
 * Planar rigid block, dofs (x, y, theta), centre of mass at (x, y); the two
 * bottom corners at body coordinates (-a, -b) and (+a, -b) touch the floor
 * y = 0. Contact k: gap = y-coordinate of its corner, one tangential row
 * (x-velocity of the corner). */
typedef struct mc_block {
    double mass, a, b; /* half-width a, half-height b */
} mc_block;

static inline double mc_block_inertia(const mc_block *blk) {
    return blk->mass * (blk->a * blk->a + blk->b * blk->b) / 3.0;
}

static inline nscd_status mc_block_mass(void *user, const double *q, double *M) {
    (void)q;
    const mc_block *blk = user;
    memset(M, 0, 9 * sizeof(double));
    M[0] = M[4] = blk->mass;
    M[8] = mc_block_inertia(blk);
    return NSCD_OK;
}

static inline nscd_status mc_block_forces(void *user, double t, const double *q, const double *v,
                                          double *h) {
    (void)t, (void)q, (void)v;
    const mc_block *blk = user;
    h[0] = 0.0;
    h[1] = -blk->mass * MC_GRAVITY;
    h[2] = 0.0;
    return NSCD_OK;
}

static inline nscd_status mc_block_contact(void *user, int32_t index, double t, const double *q,
                                           double *gap, double *wn, double *wt) {
    (void)t;
    const mc_block *blk = user;
    double s = sin(q[2]), c = cos(q[2]), px = index == 0 ? -blk->a : blk->a, py = -blk->b;
    /* corner = (x, y) + R(theta) (px, py) */
    *gap = q[1] + s * px + c * py;
    wn[0] = 0.0;
    wn[1] = 1.0;
    wn[2] = c * px - s * py;
    if (wt != NULL) {
        wt[0] = 1.0;
        wt[1] = 0.0;
        wt[2] = -s * px - c * py;
    }
    return NSCD_OK;
}

/* Potential + kinetic energy of the block. */
static inline double mc_block_energy(const mc_block *blk, const double *q, const double *v) {
    return blk->mass * MC_GRAVITY * q[1] +
           0.5 * (blk->mass * (v[0] * v[0] + v[1] * v[1]) + mc_block_inertia(blk) * v[2] * v[2]);
}

/* ------------------------------------------------------------ ball row
 * n equal balls of diameter d on a line, dofs x_0..x_{n-1} (centres);
 * contact k between balls k and k+1: gap = x_{k+1} - x_k - d. */
typedef struct mc_row {
    int32_t n;
    double mass, diameter;
} mc_row;

static inline nscd_status mc_row_mass(void *user, const double *q, double *M) {
    (void)q;
    const mc_row *row = user;
    memset(M, 0, (size_t)row->n * (size_t)row->n * sizeof(double));
    for (int32_t i = 0; i < row->n; ++i) {
        M[i * row->n + i] = row->mass;
    }
    return NSCD_OK;
}

static inline nscd_status mc_row_contact(void *user, int32_t index, double t, const double *q,
                                         double *gap, double *wn, double *wt) {
    (void)t, (void)wt;
    const mc_row *row = user;
    *gap = q[index + 1] - q[index] - row->diameter;
    memset(wn, 0, (size_t)row->n * sizeof(double));
    wn[index] = -1.0;
    wn[index + 1] = 1.0;
    return NSCD_OK;
}

/* ------------------------------------------------------------ invariants
 * An on_event observer that checks, at every event, that the total energy
 * after it is not above the energy before (+ tolerance) and that no gap is
 * below -gap_tolerance; it records the worst values seen. */
typedef struct mc_invariants {
    nscd_contact_fn contact;
    double (*energy)(void *model, const double *q, const double *v);
    void *model;
    double energy_tolerance, gap_tolerance;
    double worst_energy_gain; /* largest E_after - E_before at an event */
    double lowest_gap;        /* smallest gap seen at an event */
    int64_t events, impacts;
    int32_t n_dof, n_contacts;
} mc_invariants;

static inline int32_t mc_check_event(void *user, const nscd_event_info *info) {
    mc_invariants *inv = user;
    double before = inv->energy(inv->model, info->q, info->v_before);
    double after = inv->energy(inv->model, info->q, info->v_after);
    inv->worst_energy_gain = fmax(inv->worst_energy_gain, after - before);
    inv->events++;
    inv->impacts += info->type == NSCD_EVENT_IMPACT;
    double wn[64], wt[128];
    for (int32_t k = 0; k < inv->n_contacts && info->n_dof <= 64; ++k) {
        double gap = 0.0;
        if (inv->contact(inv->model, k, info->t, info->q, &gap, wn, wt) == NSCD_OK) {
            inv->lowest_gap = fmin(inv->lowest_gap, gap);
        }
    }
    return NSCD_EVENT_CONTINUE;
}

static inline void mc_invariants_init(mc_invariants *inv, nscd_system *system,
                                      nscd_contact_fn contact,
                                      double (*energy)(void *, const double *, const double *),
                                      void *model) {
    memset(inv, 0, sizeof *inv);
    inv->contact = contact;
    inv->energy = energy;
    inv->model = model;
    inv->lowest_gap = INFINITY;
    inv->worst_energy_gain = -INFINITY;
    nscd_system_get_sizes(system, &inv->n_dof, &inv->n_contacts);
}

#endif
