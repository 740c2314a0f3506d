/* One step of the distributed world (docs/distributed.md, "The step"): the
 * stages of nscd_world_step (world/world_step.c) on each rank's local world,
 * with the exchanges of seed 002's parallel solver between them:
 *
 *   balance            every balance_every steps, the cuts by work (bodies
 *                      and the contacts they resolved in the last step)
 *   migrate            bodies to their owners, shadows refreshed, the plan
 *   prepare            collision on owned bodies and shadows, solver contacts
 *   keep_resolved      each contact kept by exactly one rank: the owner of its
 *                      dynamic body with the smaller global id
 *   free velocities    the same arithmetic on owners and shadows
 *   warm start         applied, then blended across ranks with weight 1
 *   sweeps             Gauss–Seidel inside the rank, then the weighted Jacobi
 *                      blend across ranks v = v0 + ω Σ_r Δv_r (Sect. 3): each
 *                      holder of a shared body sends its change to the other
 *                      holders, and each sums them alike (one exchange,
 *                      point to point)
 *   integrate          the same arithmetic on owners and shadows
 *   remove_outside     the open outlet
 *
 * With one rank no exchange happens and the stages are those of
 * nscd_world_step in the same order: the result is bitwise the serial one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/world_mpi_impl.h"

/* ------------------------------------------------------------ the blend */

static void snapshot_body(nscd_world_mpi *w, size_t i) {
    const nscd_world *l = w->local;
    memcpy(w->start_velocity + 6 * i, l->velocity + 3 * i, 3 * sizeof(double));
    memcpy(w->start_velocity + 6 * i + 3, l->omega + 3 * i, 3 * sizeof(double));
}

void nscd__mpi_snapshot(nscd_world_mpi *w, bool every_body) {
    nscd_world *l = w->local;
    if (!every_body) {
        for (int32_t k = 0; k < w->n_shared; ++k) {
            snapshot_body(w, (size_t)w->shared[k]);
        }
        return;
    }
    for (int32_t i = 0; i < l->n_bodies; ++i) {
        snapshot_body(w, (size_t)i);
    }
    for (int32_t j = 0; j < l->n_contacts; ++j) {
        memcpy(w->start_impulse + 3 * (size_t)j, l->contacts[j].x, 3 * sizeof(double));
    }
}

/* 6 doubles per link of the plan, point to point with the plan's partners
 * (both sides list the same links: the counts are known on both sides). */
static void exchange_reals(nscd_world_mpi *w, const int32_t *send_offset,
                           const int32_t *recv_offset) {
    const nscd__mpi_plan *p = &w->plan;
    int n = 0;
    for (int32_t j = 0; j < p->n_partners; ++j) {
        int r = p->partners[j];
        int recv = 6 * (recv_offset[r + 1] - recv_offset[r]);
        int send = 6 * (send_offset[r + 1] - send_offset[r]);
        if (recv > 0) {
            MPI_Irecv(w->recv_real + 6 * (size_t)recv_offset[r], recv, MPI_DOUBLE, r,
                      NSCD__MPI_TAG_SWEEP, w->comm, &w->requests[n++]);
        }
        if (send > 0) {
            MPI_Isend(w->send_real + 6 * (size_t)send_offset[r], send, MPI_DOUBLE, r,
                      NSCD__MPI_TAG_SWEEP, w->comm, &w->requests[n++]);
        }
    }
    MPI_Waitall(n, w->requests, MPI_STATUSES_IGNORE);
}

/* The blend, one exchange: every holder of a shared body (its owner and
 * its shadows) sends its change since the snapshot to every other holder,
 * and each holder sets v = v0 + weight Σ_r Δv_r over the holders in
 * increasing rank order, its own change in its place. The same doubles are
 * summed in the same order on every holder, so the owner and its shadows
 * stay bitwise equal without sending the blended velocities back (with two
 * holders the sum is the one of the owner's formula, Δv_own + Δv_r, since
 * a + b = b + a). The sum starts at -0.0, the exact identity of IEEE
 * addition (-0 + x = x for every x, also -0). */
static void add_change(nscd_world_mpi *w, size_t i, const double *delta) {
    for (int c = 0; c < 6; ++c) {
        w->change[6 * i + c] += delta[c];
    }
}

static void own_change(const nscd_world_mpi *w, size_t i, double delta[6]) {
    const nscd_world *l = w->local;
    for (int c = 0; c < 3; ++c) {
        delta[c] = l->velocity[3 * i + c] - w->start_velocity[6 * i + c];
        delta[3 + c] = l->omega[3 * i + c] - w->start_velocity[6 * i + 3 + c];
    }
}

nscd_status nscd__mpi_blend(nscd_world_mpi *w, double weight) {
    nscd_world *l = w->local;
    const nscd__mpi_plan *p = &w->plan;
    for (int32_t k = 0; k < p->n_send; ++k) {
        own_change(w, (size_t)l->slot_dense[p->send[k].slot], w->send_real + 6 * (size_t)k);
    }
    exchange_reals(w, p->send_offset, p->send_offset);
    bool every_body = weight != 1.0;
    int32_t n = every_body ? l->n_bodies : w->n_shared;
    for (int32_t k = 0; k < n; ++k) {
        size_t i = (size_t)(every_body ? k : w->shared[k]);
        for (int c = 0; c < 6; ++c) {
            w->change[6 * i + c] = -0.0;
        }
    }
    int32_t before = p->send_offset[w->rank], after = p->send_offset[w->rank + 1];
    for (int32_t k = 0; k < before; ++k) { /* the ranks below this one */
        add_change(w, (size_t)l->slot_dense[p->send[k].slot], w->recv_real + 6 * (size_t)k);
    }
    for (int32_t k = 0; k < n; ++k) {
        size_t i = (size_t)(every_body ? k : w->shared[k]);
        double delta[6];
        own_change(w, i, delta);
        add_change(w, i, delta);
    }
    for (int32_t k = after; k < p->n_send; ++k) { /* the ranks above */
        add_change(w, (size_t)l->slot_dense[p->send[k].slot], w->recv_real + 6 * (size_t)k);
    }
    for (int32_t k = 0; k < n; ++k) {
        size_t i = (size_t)(every_body ? k : w->shared[k]);
        if (l->type[i] != NSCD_BODY_DYNAMIC) {
            continue;
        }
        for (int c = 0; c < 3; ++c) {
            l->velocity[3 * i + c] = w->start_velocity[6 * i + c] + weight * w->change[6 * i + c];
            l->omega[3 * i + c] =
                w->start_velocity[6 * i + 3 + c] + weight * w->change[6 * i + 3 + c];
        }
    }
    return NSCD_OK;
}

/* The impulses of this rank's contacts, blended like the velocities, so
 * that impulses and velocities stay consistent: x = x0 + weight (x - x0). */
static void blend_impulses(nscd_world_mpi *w, double weight) {
    nscd_world *l = w->local;
    for (int32_t j = 0; j < l->n_contacts; ++j) {
        double *x = l->contacts[j].x;
        const double *x0 = w->start_impulse + 3 * (size_t)j;
        for (int k = 0; k < 3; ++k) {
            x[k] = x0[k] + weight * (x[k] - x0[k]);
        }
    }
}

/* ------------------------------------------------------------ stages */

static int compare_int(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* The bodies of the plan, by dense index, each once. */
static nscd_status list_shared(nscd_world_mpi *w) {
    const nscd__mpi_plan *p = &w->plan;
    const nscd_world *l = w->local;
    size_t n = (size_t)p->n_send;
    nscd_status rc =
        nscd__mpi_reserve(w, (void **)&w->shared, &w->shared_capacity, n + 1, sizeof *w->shared);
    w->n_shared = 0;
    if (rc != NSCD_OK) {
        return rc;
    }
    for (int32_t k = 0; k < p->n_send; ++k) {
        w->shared[w->n_shared++] = l->slot_dense[p->send[k].slot];
    }
    qsort(w->shared, (size_t)w->n_shared, sizeof *w->shared, compare_int);
    int32_t kept = 0;
    for (int32_t k = 0; k < w->n_shared; ++k) {
        if (kept == 0 || w->shared[k] != w->shared[kept - 1]) {
            w->shared[kept++] = w->shared[k];
        }
    }
    w->n_shared = kept;
    return NSCD_OK;
}

static nscd_status reserve_scratch(nscd_world_mpi *w) {
    const nscd__mpi_plan *p = &w->plan;
    size_t links = (size_t)p->n_send;
    size_t bodies = 6 * ((size_t)w->local->n_bodies + 1);
    nscd_status rc = nscd__mpi_reserve(w, (void **)&w->send_real, &w->send_real_capacity,
                                       6 * links + 1, sizeof(double));
    if (rc == NSCD_OK) {
        rc = nscd__mpi_reserve(w, (void **)&w->recv_real, &w->recv_real_capacity, 6 * links + 1,
                               sizeof(double));
    }
    if (rc == NSCD_OK) {
        rc = nscd__mpi_reserve(w, (void **)&w->start_velocity, &w->velocity_capacity, bodies,
                               sizeof(double));
    }
    if (rc == NSCD_OK) {
        rc = nscd__mpi_reserve(w, (void **)&w->change, &w->change_capacity, bodies, sizeof(double));
    }
    if (rc == NSCD_OK) {
        rc = nscd__mpi_reserve(w, (void **)&w->start_impulse, &w->impulse_capacity,
                               3 * ((size_t)w->local->n_contacts + 1), sizeof(double));
    }
    if (rc == NSCD_OK) {
        rc = list_shared(w);
    }
    return rc;
}

/* Keeps, in order, the contacts this rank resolves: those whose dynamic
 * body with the smaller global id it owns. */
static void keep_resolved(nscd_world_mpi *w) {
    nscd_world *l = w->local;
    int32_t kept = 0;
    for (int32_t j = 0; j < l->n_contacts; ++j) {
        if (nscd__mpi_owned(w, nscd__mpi_resolver(l, &l->contacts[j]))) {
            if (j != kept) { /* a contact in place stays */
                nscd__world_move_contact(l, j, kept);
            }
            ++kept;
        }
    }
    l->n_contacts = kept;
}

/* Sweeps until max_sweeps or the merit (the largest over the ranks) falls
 * below the tolerance, as nscd__world_solve does. With tolerance 0 every
 * rank does max_sweeps sweeps and the merits are reduced only for the report. */
static nscd_status sweep(nscd_world_mpi *w, int any_contacts, int32_t max_sweeps, int32_t *sweeps,
                         double *merit) {
    nscd_world *l = w->local;
    *sweeps = 0;
    *merit = 0.0;
    if (!any_contacts) {
        return NSCD_OK;
    }
    double weight = l->desc.relaxation;
    for (int32_t s = 0; s < max_sweeps; ++s) {
        if (w->size > 1) {
            nscd__mpi_snapshot(w, weight != 1.0);
        }
        double m = nscd__world_sweep(l);
        *merit = m;
        if (w->size > 1) {
            /* the largest merit travels while the blend's messages do; with
             * tolerance 0 the report takes the maximum once */
            MPI_Request request = MPI_REQUEST_NULL;
            if (l->desc.tolerance > 0.0) {
                MPI_Iallreduce(&m, merit, 1, MPI_DOUBLE, MPI_MAX, w->comm, &request);
            }
            if (weight != 1.0) {
                blend_impulses(w, weight);
            }
            nscd__mpi_blend(w, weight);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
        }
        *sweeps = s + 1;
        if (l->desc.tolerance > 0.0 && *merit < l->desc.tolerance) {
            break;
        }
    }
    return NSCD_OK;
}

/* Dynamic bodies whose centre left the domain box leave (owners and
 * shadows alike: they see the same position); the owned ones are counted. */
static int32_t remove_outside(nscd_world_mpi *w) {
    nscd_world *l = w->local;
    if (!l->desc.use_domain) {
        return 0;
    }
    int32_t removed = 0;
    const double *lo = l->desc.domain_min, *hi = l->desc.domain_max;
    for (int32_t i = 0; i < l->n_bodies; ++i) {
        const double *x = l->position + 3 * (size_t)i;
        if (l->type[i] == NSCD_BODY_DYNAMIC && !(x[0] >= lo[0] && x[0] <= hi[0] && x[1] >= lo[1] &&
                                                 x[1] <= hi[1] && x[2] >= lo[2] && x[2] <= hi[2])) {
            removed += nscd__mpi_owned(w, i);
            nscd__world_kill(l, i);
        }
    }
    return removed;
}

/* The deep-penetration guard of world_step.c over the ranks: while any
 * rank's sweeps leave a contact deeper than deep_penetration closing, every
 * rank sweeps on (one reduction of the flag per batch); the sweeps added,
 * this rank's contacts still closing. */
static int32_t guard_deep_contacts(nscd_world_mpi *w, int any_contacts, int32_t *added,
                                   double *merit) {
    nscd_world *l = w->local;
    *added = 0;
    if (l->desc.deep_sweeps < 1 || !any_contacts) {
        return 0;
    }
    for (;;) {
        int32_t mine = nscd__world_deep_contacts(l).count;
        int closing = mine > 0, any = closing;
        if (w->size > 1) {
            MPI_Allreduce(&closing, &any, 1, MPI_INT, MPI_MAX, w->comm);
        }
        if (!any || *added >= l->desc.deep_sweeps) {
            return mine;
        }
        int32_t left = l->desc.deep_sweeps - *added, sweeps = 0;
        sweep(w, any_contacts, left < l->desc.max_sweeps ? left : l->desc.max_sweeps, &sweeps,
              merit);
        *added += sweeps;
    }
}

/* The solve, the relax pass, the agreed finiteness, the move. The figures
 * of the report known before the move are reduced with the finiteness in one
 * collective; the bodies removed at the outlet in another. */
static nscd_status solve_and_move(nscd_world_mpi *w, int any_contacts, nscd_world_step_report *r) {
    nscd_world *l = w->local;
    nscd__world_step_free_velocities(l);
    if (w->size > 1) {
        nscd__mpi_snapshot(w, false);
        nscd__world_warm_start(l);
        nscd__mpi_blend(w, 1.0);
    } else {
        nscd__world_warm_start(l);
    }
    sweep(w, any_contacts, l->desc.max_sweeps, &r->sweeps, &r->merit);
    int32_t deep = guard_deep_contacts(w, any_contacts, &r->deep_sweeps, &r->merit);
    r->sweeps += r->deep_sweeps;
    /* the relax pass (world_step.c): when any rank's contacts had a
     * penetration correction, every rank sweeps again without it */
    int corrected =
            l->desc.relax_sweeps > 0 && nscd__world_step_finite(l) && nscd__world_step_relax(l),
        any = corrected;
    if (w->size > 1 && l->desc.relax_sweeps > 0) {
        MPI_Allreduce(&corrected, &any, 1, MPI_INT, MPI_MAX, w->comm);
    }
    if (any) {
        nscd__world_step_keep_position_velocities(l);
        double relax_merit = 0.0;
        sweep(w, any_contacts, l->desc.relax_sweeps, &r->relax_sweeps, &relax_merit);
        r->merit = relax_merit > r->merit ? relax_merit : r->merit;
    }
    r->contacts = l->n_contacts;
    r->broad_pairs = l->collision.n_pairs;
    double v[NSCD__MPI_MIXED] = {!nscd__world_step_finite(l),
                                 r->merit,
                                 r->max_penetration,
                                 0.0,
                                 (double)r->contacts,
                                 (double)r->broad_pairs,
                                 (double)deep,
                                 0.0};
    if (w->size > 1) {
        nscd__mpi_mixed(w, v);
    }
    if (v[0] != 0.0) {
        nscd__world_step_restore(l);
        return NSCD_ERR_NOT_FINITE;
    }
    r->merit = v[1];
    r->max_penetration = v[2];
    r->contacts = (int32_t)(v[4] > INT32_MAX ? INT32_MAX : v[4]);
    r->broad_pairs = (int32_t)(v[5] > INT32_MAX ? INT32_MAX : v[5]);
    r->deep_contacts = (int32_t)(v[6] > INT32_MAX ? INT32_MAX : v[6]);
    nscd__world_step_integrate(l);
    int64_t removed = remove_outside(w), all = removed;
    if (w->size > 1) {
        MPI_Allreduce(&removed, &all, 1, MPI_INT64_T, MPI_SUM, w->comm);
    }
    r->bodies_removed = (int32_t)(all > INT32_MAX ? INT32_MAX : all);
    l->steps++;
    l->time = (double)l->steps * l->desc.dt;
    return NSCD_OK;
}

/* The collectives of a step with R > 1 ranks and tolerance 0
 * (docs/distributed.md): the start (status, largest bound), the balance
 * every balance_every steps (a histogram), the migration (statuses and
 * whether a body needs a copy beyond the near ranks), the prepare (statuses,
 * any contact), the relax pass (with relax_sweeps > 0), the report
 * (finiteness and figures) and the outlet's count: 6, the rest point to
 * point with the ranks sharing bodies. */
nscd_status nscd_world_mpi_step(nscd_world_mpi *w, nscd_world_step_report *report) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    int bad_report =
        report != NULL && !nscd__struct_size_ok(nscd__struct_size_of(report),
                                                NSCD__WORLD_STEP_REPORT_SIZE_0_2, sizeof *report);
    nscd_status rc = bad_report ? NSCD_ERR_STRUCT_SIZE : w->broken ? NSCD_ERR_STATE : NSCD_OK;
    double start[2] = {-(double)rc, rc == NSCD_OK ? nscd__mpi_local_bound(w) : 0.0}, all[2];
    MPI_Allreduce(start, all, 2, MPI_DOUBLE, MPI_MAX, w->comm);
    rc = (nscd_status) - (int)all[0];
    if (rc != NSCD_OK) {
        return nscd__fail(&w->diag, rc, "report struct_size, or a failed migration");
    }
    w->max_bound = all[1];
    if (w->local->desc.on_unconverged == NSCD_UNCONVERGED_REJECT) { /* same desc everywhere */
        return nscd__fail(&w->diag, NSCD_ERR_UNSUPPORTED,
                          "on_unconverged REJECT: the distributed world keeps every step");
    }
    if (w->local->desc.sleep) { /* the same desc everywhere */
        return nscd__fail(&w->diag, NSCD_ERR_UNSUPPORTED,
                          "sleeping (nscd_world_desc::sleep): not in the distributed world yet");
    }
    if (w->local->resistant_materials > 0) { /* the same materials everywhere */
        return nscd__fail(&w->diag, NSCD_ERR_UNSUPPORTED,
                          "rolling or spinning resistance: not in the distributed world yet");
    }
    if (w->balance_every > 0 && w->local->steps % w->balance_every == 0) {
        nscd__mpi_balance(w);
    }
    nscd_status migrated = nscd__mpi_migrate(w), prepared = NSCD_OK;
    nscd_world_step_report r;
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    if (migrated == NSCD_OK) {
        prepared = nscd__world_step_prepare(w->local, &r.max_penetration);
        if (prepared == NSCD_OK) {
            keep_resolved(w);
            prepared = reserve_scratch(w);
        }
    }
    int mine[3] = {-(int)migrated, -(int)prepared, w->local->n_contacts > 0}, agreed[3];
    MPI_Allreduce(mine, agreed, 3, MPI_INT, MPI_MAX, w->comm);
    if (agreed[0] != 0) {
        w->broken = 1;
        w->local->n_contacts = 0;
        return nscd__fail(&w->diag, (nscd_status)-agreed[0],
                          "migration failed; the world must be destroyed");
    }
    if (agreed[1] != 0) {
        w->local->n_contacts = 0;
        return nscd__fail(&w->diag, (nscd_status)-agreed[1],
                          "collision detection or step scratch: out of memory");
    }
    rc = solve_and_move(w, agreed[2], &r);
    if (rc != NSCD_OK) {
        return nscd__fail(&w->diag, rc, "a velocity became non-finite");
    }
    const nscd_world_desc *d = &w->local->desc;
    r.converged = d->tolerance > 0.0 && r.merit < d->tolerance && r.deep_contacts == 0;
    if (report != NULL) {
        nscd__struct_write(report, &r, sizeof r, NSCD__WORLD_STEP_REPORT_SIZE_0_2);
    }
    if (!r.converged && d->tolerance > 0.0) {
#define UNCONVERGED                                                                                \
    "step kept but not converged: merit %g (tolerance %g), %d contact(s) still closing deeper "    \
    "than %g m"
        if (d->on_unconverged == NSCD_UNCONVERGED_FAIL) {
            return nscd__fail(&w->diag, NSCD_ERR_NOT_CONVERGED, UNCONVERGED, r.merit, d->tolerance,
                              (int)r.deep_contacts, d->deep_penetration);
        }
        snprintf(w->diag.last_error, sizeof w->diag.last_error, UNCONVERGED, r.merit, d->tolerance,
                 (int)r.deep_contacts, d->deep_penetration);
#undef UNCONVERGED
        nscd__log(&w->diag, NSCD_LOG_WARNING, "%s", w->diag.last_error);
    }
    return NSCD_OK;
}
