/* The time stepper: public API and the step loop. Each step saves the
 * model's state, takes one step of the scheme (integrators/time_stepping/moreau_jean.c,
 * integrators/time_stepping/moreau_midpoint.c, integrators/time_stepping/hets.c)
 * and restores the saved state when the step fails, so that a failed
 * advance leaves the state of the last accepted step. */
#include <math.h>
#include <string.h>

#include "core/check.h"
#include "core/memory.h"
#include "core/struct_sizes.h"
#include "integrators/time_stepping/time_stepping_impl.h"
#include "models/system.h"
#include "world/world_model.h"

/* The documented defaults, in a complete struct of the current size. */
static void option_defaults(nscd_time_stepping_options *options) {
    memset(options, 0, sizeof *options);
    options->struct_size = (uint32_t)sizeof *options;
    options->scheme = NSCD_TS_MOREAU_JEAN;
    options->dt = 1e-3;
    options->theta = 0.5;
    options->gamma = 0.5;
    options->rho_infinity = 1.0;
    options->local_solver = NSCD_TS_SOLVER_AUTO;
    options->max_iterations = 1000;
    options->tolerance = 1e-10;
    options->max_steps = 1000000000;
    options->forces = NSCD_TS_FORCES_AUTO;
    options->level = NSCD_TS_LEVEL_VELOCITY;
    options->start = NSCD_TS_START_CONSISTENT;
    options->alpha_ar = 1.0 / 6.0;
    options->prox_r_mode = NSCD_TS_PROX_R_SCALED;
    options->max_newton_iterations = 50;
    options->newton_tolerance = 1e-10;
    options->prox_r = 1.0;
    options->fc3d_method = NSCD_FC3D_AUTO;
}

nscd_status nscd_time_stepping_options_init(nscd_time_stepping_options *options,
                                            size_t struct_size) {
    nscd_time_stepping_options defaults;
    option_defaults(&defaults);
    return nscd__struct_init(options, struct_size, &defaults, sizeof defaults,
                             NSCD__TIME_STEPPING_OPTIONS_SIZE_0_2);
}

/* Variable steps: off (dt_min = dt_max = 0) or 0 < dt_min <= dt_max. */
static int variable_steps_valid(const nscd_time_stepping_options *o) {
    if (o->dt_max == 0.0) {
        return o->dt_min == 0.0;
    }
    return o->dt_min > 0.0 && o->dt_min <= o->dt_max;
}

static nscd_status validate_options(const nscd_time_stepping_options *o) {
    const double reals[] = {o->dt,
                            o->theta,
                            o->gamma,
                            o->rho_infinity,
                            o->tolerance,
                            o->alpha_ar,
                            o->newton_tolerance,
                            o->prox_r,
                            o->dt_min,
                            o->dt_max};
    const nscd__ts_scheme *scheme = nscd__ts_scheme_of(o->scheme);
    if (scheme == NULL || o->local_solver < NSCD_TS_SOLVER_AUTO ||
        o->local_solver > NSCD_TS_SOLVER_BLOCK_GS || o->forces < NSCD_TS_FORCES_AUTO ||
        o->forces > NSCD_TS_FORCES_IMPLICIT || o->reserved != 0 ||
        o->fc3d_method < NSCD_FC3D_GAUSS_SEIDEL || o->fc3d_method > NSCD_FC3D_AUTO ||
        o->level < NSCD_TS_LEVEL_VELOCITY || o->level > NSCD_TS_LEVEL_ACCELERATION ||
        o->start < NSCD_TS_START_CONSISTENT || o->start > NSCD_TS_START_PAPER ||
        o->prox_r_mode < NSCD_TS_PROX_R_SCALED || o->prox_r_mode > NSCD_TS_PROX_R_PAPER) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    if (!nscd__all_finite(reals, sizeof reals / sizeof reals[0])) {
        return NSCD_ERR_NOT_FINITE;
    }
    if (!(o->dt > 0.0) || o->theta < 0.5 || o->theta > 1.0 || o->gamma < 0.0 || o->gamma > 1.0 ||
        o->rho_infinity < 0.0 || o->rho_infinity > 1.0 || !(o->tolerance > 0.0) ||
        o->max_iterations < 1 || o->max_steps < 1 || o->alpha_ar < 0.0 ||
        o->max_newton_iterations < 1 || !(o->newton_tolerance > 0.0) || !(o->prox_r > 0.0) ||
        !(o->prox_r < 2.0) || !variable_steps_valid(o) || o->impulse_velocities < 0) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    /* only the α schemes have impulsive corrections apart from their stages */
    if (o->impulse_velocities > 0 && !scheme->impulse_subspace) {
        return NSCD_ERR_UNSUPPORTED;
    }
    /* the Moreau schemes' and HETS's unknowns are impulses: velocity level only */
    if (o->level == NSCD_TS_LEVEL_ACCELERATION && !scheme->acceleration_level) {
        return NSCD_ERR_UNSUPPORTED;
    }
    /* the midpoint rule and HETS take the forces explicitly; AUTO means that */
    if (o->forces == NSCD_TS_FORCES_IMPLICIT && !scheme->implicit_forces) {
        return NSCD_ERR_UNSUPPORTED;
    }
    return NSCD_OK;
}

/* Releases the stepper without touching its model, which may be gone. */
static void free_stepper(nscd_time_stepping *ts) {
    const nscd_allocator *a = &ts->allocator;
    size_t nc = (size_t)ts->n_contacts + 1, nq = (size_t)ts->n_q, nv = (size_t)ts->n_v;
    nscd__model_detach(&ts->link);
    nscd__free(a, ts->active, nc * sizeof(int32_t));
    nscd__free(a, ts->active_before, nc * sizeof(int32_t));
    nscd__free(a, ts->loaded, nc * sizeof(int32_t));
    nscd__free(a, ts->end_q, nq * sizeof(double));
    nscd__free(a, ts->end_v, nv * sizeof(double));
    nscd__free(a, ts->q_theta, nq * sizeof(double));
    nscd__free(a, ts->h, nv * sizeof(double));
    nscd__free(a, ts->v_free, nv * sizeof(double));
    nscd__free(a, ts->v_mid, nv * sizeof(double));
    nscd__free(a, ts->force, 3 * nc * sizeof(double));
    nscd__free(a, ts->alpha.acc, nv * sizeof(double));
    nscd__free(a, ts->alpha.acc_aux, nv * sizeof(double));
    nscd__free(a, ts->alpha.acc_new, nv * sizeof(double));
    nscd__free(a, ts->alpha.acc_aux_new, nv * sizeof(double));
    nscd__free(a, ts->alpha.force_new, 3 * nc * sizeof(double));
    nscd__free(a, ts->remap_flags, nc * sizeof(int32_t));
    nscd__free(a, ts->remap_values, 3 * nc * sizeof(double));
    if (ts->saved.q != NULL) { /* the model may be gone: only its allocator is used */
        nscd__model allocator_only = {.allocator = a};
        nscd__model_state_destroy(&allocator_only, &ts->saved);
    }
    nscd__arena_release(&ts->arena);
    nscd_allocator copy = *a;
    nscd__free(&copy, ts, sizeof *ts);
}

static nscd_status allocate_arrays(nscd_time_stepping *ts) {
    const nscd_allocator *a = &ts->allocator;
    size_t nc = (size_t)ts->n_contacts + 1, nq = (size_t)ts->n_q, nv = (size_t)ts->n_v;
    ts->active = nscd__alloc_array(a, nc, sizeof(int32_t));
    ts->active_before = nscd__alloc_array(a, nc, sizeof(int32_t));
    ts->loaded = nscd__alloc_array(a, nc, sizeof(int32_t));
    ts->end_q = nscd__alloc_array(a, nq, sizeof(double));
    ts->end_v = nscd__alloc_array(a, nv, sizeof(double));
    ts->q_theta = nscd__alloc_array(a, nq, sizeof(double));
    ts->h = nscd__alloc_array(a, nv, sizeof(double));
    ts->v_free = nscd__alloc_array(a, nv, sizeof(double));
    ts->v_mid = nscd__alloc_array(a, nv, sizeof(double));
    ts->force = nscd__alloc_array(a, 3 * nc, sizeof(double));
    ts->alpha.acc = nscd__alloc_array(a, nv, sizeof(double));
    ts->alpha.acc_aux = nscd__alloc_array(a, nv, sizeof(double));
    ts->alpha.acc_new = nscd__alloc_array(a, nv, sizeof(double));
    ts->alpha.acc_aux_new = nscd__alloc_array(a, nv, sizeof(double));
    ts->alpha.force_new = nscd__alloc_array(a, 3 * nc, sizeof(double));
    ts->remap_flags = nscd__alloc_array(a, nc, sizeof(int32_t));
    ts->remap_values = nscd__alloc_array(a, 3 * nc, sizeof(double));
    if (!ts->remap_flags || !ts->remap_values) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    if (!ts->alpha.acc || !ts->alpha.acc_aux || !ts->alpha.acc_new || !ts->alpha.acc_aux_new ||
        !ts->alpha.force_new) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    if (!ts->force || !ts->active || !ts->active_before || !ts->loaded || !ts->end_q ||
        !ts->end_v || !ts->q_theta || !ts->h || !ts->v_free || !ts->v_mid ||
        nscd__model_state_create(ts->model, &ts->saved) != NSCD_OK) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    return NSCD_OK;
}

nscd_status nscd_time_stepping_create(nscd_system *system,
                                      const nscd_time_stepping_options *options,
                                      nscd_time_stepping **stepper) {
    if (system == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    return nscd__time_stepping_create(nscd__system_model(system), options, stepper);
}

nscd_status nscd_time_stepping_create_world(nscd_world *world,
                                            const nscd_time_stepping_options *options,
                                            nscd_time_stepping **stepper) {
    if (world == NULL || stepper == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__model *model = NULL;
    nscd_status rc = nscd__world_model(world, &model);
    if (rc != NSCD_OK) {
        return rc;
    }
    return nscd__time_stepping_create(model, options, stepper);
}

nscd_status nscd__time_stepping_create(nscd__model *model,
                                       const nscd_time_stepping_options *options,
                                       nscd_time_stepping **stepper) {
    if (model == NULL || stepper == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd_time_stepping_options opt;
    option_defaults(&opt);
    if (options != NULL) { /* an older, shorter struct: defaults for the rest */
        nscd_status rc =
            nscd__struct_read(&opt, sizeof opt, options, NSCD__TIME_STEPPING_OPTIONS_SIZE_0_2);
        if (rc != NSCD_OK) {
            return rc;
        }
    }
    nscd_status rc = validate_options(&opt);
    if (rc != NSCD_OK) {
        return rc;
    }
    /* A changing entry set (a world): the α schemes keep accelerations and
     * HETS its stages over entry-indexed arrays that the remap at each step
     * (refresh_model) does not carry; the Moreau schemes do. */
    const nscd__ts_scheme *scheme = nscd__ts_scheme_of(opt.scheme);
    if (model->update_entries != NULL && !scheme->changing_entries) {
        return nscd__fail(model->diag, NSCD_ERR_UNSUPPORTED,
                          "a changing entry set (a world) is driven by Moreau–Jean or the "
                          "midpoint rule only");
    }
    if (opt.impulse_velocities > model->n_v) {
        return nscd__fail(model->diag, NSCD_ERR_OUT_OF_RANGE,
                          "impulse_velocities %d exceeds the model's %d velocities",
                          (int)opt.impulse_velocities, (int)model->n_v);
    }
    if (opt.impulse_velocities > 0 && (model->mass_block == NULL || model->n_mass_blocks != 1)) {
        return nscd__fail(model->diag, NSCD_ERR_UNSUPPORTED,
                          "impulse_velocities needs a model with one mass block it gives");
    }
    nscd_time_stepping *ts = nscd__alloc(model->allocator, sizeof *ts);
    if (ts == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    memset(ts, 0, sizeof *ts);
    if (scheme->linearised_gaps) { /* eq. (22b): q_n = q_{n-1} + h q̇_n */
        opt.theta = 1.0;
    }
    ts->options = opt;
    ts->scheme = scheme;
    ts->model = model;
    ts->jacobians = -1; /* probed at the first step */
    ts->n_contacts = model->n_contacts;
    ts->n_q = model->n_q;
    ts->n_v = model->n_v;
    ts->allocator = *model->allocator;
    nscd__arena_init(&ts->arena, &ts->allocator);
    ts->diag.log = model->diag->log;
    ts->diag.log_user = model->diag->log_user;
    if (allocate_arrays(ts) != NSCD_OK) {
        free_stepper(ts);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    ts->report.struct_size = (uint32_t)sizeof ts->report;
    nscd__model_attach(model, &ts->link);
    *stepper = ts;
    return NSCD_OK;
}

void nscd_time_stepping_destroy(nscd_time_stepping *stepper) {
    /* from a callback of its own advance: freed when the advance returns */
    if (stepper != NULL && !nscd__diag_keep_alive(&stepper->diag, "nscd_time_stepping_destroy")) {
        free_stepper(stepper);
    }
}

const char *nscd_time_stepping_last_error(const nscd_time_stepping *stepper) {
    return stepper == NULL ? "null stepper handle" : stepper->diag.last_error;
}

/* ------------------------------------------------------------ advance */

/* The state and the loaded contacts after an accepted step (a normal
 * impulse, or for the α schemes a normal force of the last stage). */
static void remember_end(nscd_time_stepping *ts) {
    const nscd__model *m = ts->model;
    for (int32_t e = 0; e < m->n_contacts; ++e) {
        ts->loaded[e] = m->contacts[e].kind == NSCD__ENTRY_UNILATERAL &&
                        (m->contacts[e].state.impulse[0] > 0.0 ||
                         (ts->scheme->staged && ts->force[3 * e] > 0.0));
    }
    memcpy(ts->end_q, m->q, (size_t)m->n_q * sizeof(double));
    memcpy(ts->end_v, m->v, (size_t)m->n_v * sizeof(double));
    ts->end_n_q = m->n_q;
    ts->end_n_v = m->n_v;
    ts->end_t = *m->t;
    ts->has_end = 1;
}

/* Forgets the loaded contacts when the state is not the one the last step
 * left (nscd_system_set_state, another stepper): a moved body must not meet
 * a phantom contact. */
static void check_end(nscd_time_stepping *ts) {
    const nscd__model *m = ts->model;
    int same = ts->has_end && ts->end_t == *m->t && ts->end_n_q == m->n_q &&
               ts->end_n_v == m->n_v &&
               memcmp(ts->end_q, m->q, (size_t)m->n_q * sizeof(double)) == 0 &&
               memcmp(ts->end_v, m->v, (size_t)m->n_v * sizeof(double)) == 0;
    if (!same) {
        memset(ts->loaded, 0, (size_t)m->n_contacts * sizeof(int32_t));
        ts->alpha.has_history = 0; /* the α schemes restart from a_0 */
    }
}

/* The Moreau schemes' and HETS's unknowns are impulses: their force is
 * impulse / dt, and an impact is a contact that became active in the step. */
void nscd__ts_commit_impulses(nscd_time_stepping *ts, double dt) {
    const nscd__model *m = ts->model;
    for (int32_t e = 0; e < m->n_contacts; ++e) {
        for (int k = 0; k < 3; ++k) {
            ts->force[3 * e + k] = m->contacts[e].state.impulse[k] / dt;
        }
    }
    ts->report.impact = ts->report.new_contacts > 0;
}

/* The α schemes stage their accelerations and forces until the step is
 * accepted: a failed step leaves the history and the forces as they were. */
void nscd__ts_commit_staged(nscd_time_stepping *ts, double dt) {
    (void)dt;
    size_t nv = (size_t)ts->model->n_v, nc = (size_t)ts->model->n_contacts;
    memcpy(ts->alpha.acc, ts->alpha.acc_new, nv * sizeof(double));
    memcpy(ts->alpha.acc_aux, ts->alpha.acc_aux_new, nv * sizeof(double));
    memcpy(ts->force, ts->alpha.force_new, 3 * nc * sizeof(double));
    ts->alpha.has_history = 1;
}

/* ------------------------------------------------ changing entry sets */

/* Replaces the arrays *slots[k] of `have` elements of sizes[k] bytes by
 * arrays of `need` elements keeping their content: all or none (on
 * failure every array and its capacity stay as they were). */
static nscd_status grow_arrays(nscd_time_stepping *ts, void **slots[], const size_t sizes[],
                               int count, size_t have, size_t need) {
    void *grown[16];
    for (int k = 0; k < count; ++k) {
        grown[k] = nscd__alloc_array(&ts->allocator, need, sizes[k]);
        if (grown[k] == NULL) {
            for (int j = 0; j < k; ++j) {
                nscd__free(&ts->allocator, grown[j], need * sizes[j]);
            }
            return NSCD_ERR_OUT_OF_MEMORY;
        }
    }
    for (int k = 0; k < count; ++k) {
        memcpy(grown[k], *slots[k], have * sizes[k]);
        nscd__free(&ts->allocator, *slots[k], have * sizes[k]);
        *slots[k] = grown[k];
    }
    return NSCD_OK;
}

/* Doubling growth: a set that grows by one entry a step reallocates
 * O(log n) times. */
static size_t grown_count(size_t have, size_t need) {
    size_t cap = 2 * have > need ? 2 * have : need;
    return cap > (size_t)INT32_MAX ? (size_t)INT32_MAX : cap;
}

/* Room for the model's current n_q and n_v in every state-sized array. */
static nscd_status reserve_state_arrays(nscd_time_stepping *ts) {
    const nscd__model *m = ts->model;
    if (m->n_q > ts->n_q) {
        void **slots[] = {(void **)&ts->end_q, (void **)&ts->q_theta};
        const size_t sizes[] = {sizeof(double), sizeof(double)};
        size_t cap = grown_count((size_t)ts->n_q, (size_t)m->n_q);
        if (grow_arrays(ts, slots, sizes, 2, (size_t)ts->n_q, cap) != NSCD_OK) {
            return NSCD_ERR_OUT_OF_MEMORY;
        }
        ts->n_q = (int32_t)cap;
    }
    if (m->n_v > ts->n_v) {
        void **slots[] = {(void **)&ts->end_v,         (void **)&ts->h,
                          (void **)&ts->v_free,        (void **)&ts->v_mid,
                          (void **)&ts->alpha.acc,     (void **)&ts->alpha.acc_aux,
                          (void **)&ts->alpha.acc_new, (void **)&ts->alpha.acc_aux_new};
        size_t sizes[8];
        for (int k = 0; k < 8; ++k) {
            sizes[k] = sizeof(double);
        }
        size_t cap = grown_count((size_t)ts->n_v, (size_t)m->n_v);
        if (grow_arrays(ts, slots, sizes, 8, (size_t)ts->n_v, cap) != NSCD_OK) {
            return NSCD_ERR_OUT_OF_MEMORY;
        }
        ts->n_v = (int32_t)cap;
    }
    return NSCD_OK;
}

/* Room for the model's current entries in every per-entry array. */
static nscd_status reserve_entry_arrays(nscd_time_stepping *ts) {
    const nscd__model *m = ts->model;
    if (m->n_contacts <= ts->n_contacts) {
        return NSCD_OK;
    }
    void **slots[] = {(void **)&ts->active,      (void **)&ts->active_before,
                      (void **)&ts->loaded,      (void **)&ts->remap_flags,
                      (void **)&ts->force,       (void **)&ts->alpha.force_new,
                      (void **)&ts->remap_values};
    const size_t i = sizeof(int32_t), d3 = 3 * sizeof(double);
    const size_t sizes[] = {i, i, i, i, d3, d3, d3};
    size_t cap = grown_count((size_t)ts->n_contacts, (size_t)m->n_contacts);
    if (grow_arrays(ts, slots, sizes, 7, (size_t)ts->n_contacts + 1, cap + 1) != NSCD_OK) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    ts->n_contacts = (int32_t)cap;
    return NSCD_OK;
}

/* The stepper's own per-entry arrays after the model's update: entry e
 * takes what entry entry_previous[e] had (nothing for a new one; a model
 * that gives no map makes every entry new). Their state (impulses, law
 * memory) the model carries itself, by key. */
static void remap_entries(nscd_time_stepping *ts, int32_t n_before) {
    const nscd__model *m = ts->model;
    int32_t *arrays[] = {ts->active, ts->loaded};
    for (int k = 0; k < 2; ++k) {
        memcpy(ts->remap_flags, arrays[k], (size_t)n_before * sizeof(int32_t));
        for (int32_t e = 0; e < m->n_contacts; ++e) {
            int32_t p = m->entry_previous != NULL ? m->entry_previous[e] : -1;
            arrays[k][e] = p >= 0 && p < n_before ? ts->remap_flags[p] : 0;
        }
    }
    memcpy(ts->remap_values, ts->force, 3 * (size_t)n_before * sizeof(double));
    for (int32_t e = 0; e < m->n_contacts; ++e) {
        int32_t p = m->entry_previous != NULL ? m->entry_previous[e] : -1;
        for (int c = 0; c < 3; ++c) {
            ts->force[3 * e + c] = p >= 0 && p < n_before ? ts->remap_values[3 * p + c] : 0.0;
        }
    }
}

/* A model whose entry set changes (a world) is refreshed before each step,
 * before the state is saved: its state from its owner (pull_state: bodies
 * may have been added, removed or moved since), the stepper's arrays to its
 * sizes, the entry set at (t, q) (update_entries) and the stepper's
 * per-entry arrays after it. The save that follows holds that set, so a
 * rejected step restores exactly what it saved and the retry finds the same
 * set again (the update is a function of the state). Nothing for models
 * with a fixed set: their path is unchanged. */
static nscd_status refresh_model(nscd_time_stepping *ts) {
    nscd__model *m = ts->model;
    if (m->update_entries == NULL) {
        return NSCD_OK;
    }
    nscd_status rc = m->pull_state != NULL ? m->pull_state(m->self) : NSCD_OK;
    if (rc != NSCD_OK) {
        return rc; /* the model's message says why */
    }
    if (reserve_state_arrays(ts) != NSCD_OK) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "state of %d positions", (int)m->n_q);
    }
    check_end(ts); /* moved from outside since the last step: no loaded contacts */
    int32_t n_before = m->n_contacts;
    rc = m->update_entries(m->self, *m->t, m->q);
    if (rc != NSCD_OK) {
        return rc;
    }
    if (reserve_entry_arrays(ts) != NSCD_OK || nscd__model_state_fit(m, &ts->saved) != NSCD_OK) {
        return nscd__fail(&ts->diag, NSCD_ERR_OUT_OF_MEMORY, "arrays of %d entries",
                          (int)m->n_contacts);
    }
    remap_entries(ts, n_before);
    return NSCD_OK;
}

/* The end of the next step: t_fixed for fixed steps, else the variable
 * rule's choice (step_size.c) at the refreshed state. */
static nscd_status next_step_end(nscd_time_stepping *ts, double t_fixed, double t_end,
                                 double *t_next, int32_t *rule, int32_t *predicted) {
    *t_next = t_fixed;
    *rule = NSCD_TS_STEP_FIXED;
    *predicted = 0;
    if (!(ts->options.dt_max > 0.0)) {
        return NSCD_OK; /* integrate() checked that t_fixed advances */
    }
    nscd_status rc = nscd__ts_choose_step(ts, t_end, t_next, rule, predicted);
    if (rc == NSCD_OK && !(*t_next > *ts->model->t)) {
        return nscd__fail(&ts->diag, NSCD_ERR_STEP_TOO_SMALL, "dt does not advance t = %.17g",
                          *ts->model->t);
    }
    return rc;
}

/* One step with save and restore: a failed step changes nothing. */
static nscd_status guarded_step(nscd_time_stepping *ts, double t_fixed, double t_end) {
    nscd__model *m = ts->model;
    nscd_status rc = refresh_model(ts);
    double t_next = t_fixed;
    int32_t rule = NSCD_TS_STEP_FIXED, predicted = 0;
    if (rc == NSCD_OK) {
        rc = next_step_end(ts, t_fixed, t_end, &t_next, &rule, &predicted);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd_time_stepping_report before = ts->report;
    ts->report.momentum_residual = -1.0; /* set by the schemes that compute it */
    nscd__model_save(m, &ts->saved);
    memcpy(ts->active_before, ts->active, (size_t)m->n_contacts * sizeof(int32_t));
    double dt = t_next - *m->t;
    rc = ts->scheme->step(ts, dt);
    if (rc != NSCD_OK) {
        nscd__model_restore(m, &ts->saved);
        memcpy(ts->active, ts->active_before, (size_t)m->n_contacts * sizeof(int32_t));
        ts->report = before;
        return rc;
    }
    *m->t = t_next; /* exactly t_0 + n dt, or t_end */
    ts->scheme->commit(ts, dt);
    remember_end(ts);
    ts->report.struct_size = (uint32_t)sizeof ts->report;
    ts->report.step = ts->steps++;
    ts->report.t = t_next;
    ts->report.dt = dt;
    ts->report.step_rule = rule;
    ts->report.predicted_contacts = predicted;
    /* the owner (a world) takes the accepted step; its error (a joint
     * projection that did not converge) is the call's, with its message */
    return m->push_state != NULL ? m->push_state(m->self) : NSCD_OK;
}

/* The counters of an accepted step into the call's stats. */
static void count_step(const nscd_time_stepping_report *r, nscd_time_stepping_stats *stats) {
    stats->dt_smallest = stats->steps == 0 ? r->dt : fmin(stats->dt_smallest, r->dt);
    stats->dt_largest = fmax(stats->dt_largest, r->dt);
    stats->steps++;
    stats->solver_iterations += r->iterations;
    stats->max_penetration = fmax(stats->max_penetration, r->max_penetration);
    stats->contact_steps += r->step_rule == NSCD_TS_STEP_CONTACT;
    stats->max_equality_violation = fmax(stats->max_equality_violation, r->equality_violation);
    stats->max_momentum_residual = fmax(stats->max_momentum_residual, r->momentum_residual);
}

/* Calls the observer: 0 goes on, 1 stops (*stop), anything else fails. */
static nscd_status observe(nscd_time_stepping *ts, int *stop) {
    if (ts->options.on_step == NULL) {
        return NSCD_OK;
    }
    int32_t action = ts->options.on_step(ts->options.on_step_user, &ts->report);
    if (action != 0 && action != 1) {
        return nscd__fail(&ts->diag, NSCD_ERR_CALLBACK, "on_step returned %d", (int)action);
    }
    *stop = action == 1;
    return NSCD_OK;
}

/* A destroy from a callback (on_step, the system's callbacks, a log hook)
 * while the stepper advances: the stepper or its system is doomed, and the
 * advance stops after the step that called it (docs/hostile_input.md). */
static nscd_status check_doomed(nscd_time_stepping *ts) {
    if (ts->diag.doomed || ts->model->diag->doomed) {
        return nscd__fail(
            &ts->diag, NSCD_ERR_STALE_HANDLE,
            "the %s was destroyed inside a callback; the advance stopped at t = %.17g",
            ts->diag.doomed ? "stepper" : "stepper's system or world", *ts->model->t);
    }
    return NSCD_OK;
}

/* Steps to t_end. Fixed steps end at t_0 + n dt (no sum of rounded steps
 * drifts), the last one shortened to end exactly at t_end; variable steps
 * (dt_max > 0) are chosen step by step (next_step_end) and land on t_end. */
static nscd_status integrate(nscd_time_stepping *ts, double t_end,
                             nscd_time_stepping_stats *stats) {
    nscd__model *m = ts->model;
    double t0 = *m->t, dt = ts->options.dt;
    int stop = 0;
    for (int64_t n = 1; !stop && *m->t < t_end; ++n) {
        double t = *m->t, t_next = t0 + (double)n * dt;
        if (t_next + 1e-6 * dt >= t_end) {
            t_next = t_end;
        }
        if (n > ts->options.max_steps) {
            return nscd__fail(&ts->diag, NSCD_ERR_MAX_STEPS, "%lld steps reached at t = %.17g",
                              (long long)ts->options.max_steps, t);
        }
        if (!(t_next > t) && !(ts->options.dt_max > 0.0)) {
            return nscd__fail(&ts->diag, NSCD_ERR_STEP_TOO_SMALL, "dt does not advance t = %.17g",
                              t);
        }
        nscd_status rc = guarded_step(ts, t_next, t_end);
        if (rc != NSCD_OK) {
            return rc;
        }
        count_step(&ts->report, stats);
        rc = check_doomed(ts); /* a system callback or log hook of the step */
        if (rc == NSCD_OK) {
            rc = observe(ts, &stop);
        }
        if (rc == NSCD_OK) {
            rc = check_doomed(ts);
        }
        if (rc != NSCD_OK) {
            return rc;
        }
    }
    stats->stopped = stop;
    return NSCD_OK;
}

static nscd_status advance(nscd_time_stepping *ts, double t_end, nscd_time_stepping_stats *stats) {
    nscd__model *m = ts->model;
    if (stats != NULL && !nscd__struct_size_ok(stats->struct_size,
                                               NSCD__TIME_STEPPING_STATS_SIZE_0_2, sizeof *stats)) {
        return nscd__fail(&ts->diag, NSCD_ERR_STRUCT_SIZE, "stats struct_size %u",
                          (unsigned)stats->struct_size);
    }
    if (!isfinite(t_end)) {
        return nscd__fail(&ts->diag, NSCD_ERR_NOT_FINITE, "t_end is not finite");
    }
    if (t_end < *m->t) {
        return nscd__fail(&ts->diag, NSCD_ERR_INVALID_ARGUMENT, "t_end %.17g before t %.17g", t_end,
                          *m->t);
    }
    nscd_time_stepping_stats result;
    memset(&result, 0, sizeof result);
    result.struct_size = (uint32_t)sizeof result;
    result.max_momentum_residual = -1.0; /* none computed yet */
    nscd__diag_clear(m->diag);           /* stepping acts on the system: so does its message */
    check_end(ts);
    nscd_status rc = integrate(ts, t_end, &result);
    result.t = *m->t;
    result.workspace_peak_bytes = (int64_t)ts->arena.peak;
    if (stats != NULL) { /* only the fields the caller's release has */
        nscd__struct_write(stats, &result, sizeof result, NSCD__TIME_STEPPING_STATS_SIZE_0_2);
    }
    if (rc != NSCD_OK) { /* both handles tell what went wrong, wherever it was noticed */
        if (ts->diag.last_error[0] == '\0') {
            memcpy(ts->diag.last_error, m->diag->last_error, sizeof ts->diag.last_error);
        } else {
            memcpy(m->diag->last_error, ts->diag.last_error, sizeof ts->diag.last_error);
        }
    }
    return rc;
}

nscd_status nscd_time_stepping_advance(nscd_time_stepping *stepper, double t_end,
                                       nscd_time_stepping_stats *stats) {
    if (stepper == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd_time_stepping *ts = stepper;
    nscd__diag_clear(&ts->diag); /* the message describes this call */
    if (ts->link.model == NULL) {
        return nscd__fail(&ts->diag, NSCD_ERR_STALE_HANDLE, "the stepper's system was destroyed");
    }
    /* Re-entrancy: the stepper and the object it drives are busy until the
     * advance returns; a nested advance or step fails, a destroy is
     * deferred to here. */
    nscd__model *m = ts->model;
    if (!nscd__diag_enter(&ts->diag, "nscd_time_stepping_advance")) {
        return NSCD_ERR_STATE;
    }
    if (!nscd__diag_enter(m->diag, "nscd_time_stepping_advance")) {
        memcpy(ts->diag.last_error, m->diag->last_error, sizeof ts->diag.last_error);
        nscd__diag_leave(&ts->diag);
        return NSCD_ERR_STATE;
    }
    nscd_status rc = advance(ts, t_end, stats);
    if (nscd__diag_leave(m->diag)) {
        m->destroy_owner(m->self); /* clears ts->link: later calls see a stale handle */
        rc = NSCD_ERR_STALE_HANDLE;
    }
    if (nscd__diag_leave(&ts->diag)) {
        free_stepper(ts);
        return NSCD_ERR_STALE_HANDLE;
    }
    return rc;
}

nscd_status nscd_time_stepping_get_report(const nscd_time_stepping *stepper,
                                          nscd_time_stepping_report *report) {
    if (stepper == NULL || report == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    return nscd__struct_write(report, &stepper->report, sizeof stepper->report,
                              NSCD__TIME_STEPPING_REPORT_SIZE_0_2);
}

/* Copies one entry's three components (normal, then its n_tangent
 * tangential ones) from values[3 * index] after the common checks. */
static nscd_status read_entry(nscd_time_stepping *ts, int32_t index, const double *values,
                              double *normal, double *tangent) {
    nscd__diag_clear(&ts->diag);
    if (ts->link.model == NULL) {
        return nscd__fail(&ts->diag, NSCD_ERR_STALE_HANDLE, "the stepper's system was destroyed");
    }
    const nscd__model *m = ts->model;
    if (index < 0 || index >= m->n_contacts) {
        return nscd__fail(&ts->diag, NSCD_ERR_INDEX, "entry %d of %d", (int)index,
                          (int)m->n_contacts);
    }
    if (values == NULL) { /* the impulses live in the entry's state */
        values = m->contacts[index].state.impulse;
    } else {
        values += 3 * (size_t)index;
    }
    if (normal != NULL) {
        *normal = values[0];
    }
    int32_t n_t = m->contacts[index].n_tangent < 2 ? m->contacts[index].n_tangent : 2;
    for (int32_t k = 0; tangent != NULL && k < n_t; ++k) {
        tangent[k] = values[1 + k];
    }
    return NSCD_OK;
}

nscd_status nscd_time_stepping_get_contact_impulse(nscd_time_stepping *stepper, int32_t index,
                                                   double *normal, double *tangent) {
    if (stepper == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    return read_entry(stepper, index, NULL, normal, tangent);
}

nscd_status nscd_time_stepping_get_contact_force(nscd_time_stepping *stepper, int32_t index,
                                                 double *normal, double *tangent) {
    if (stepper == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    return read_entry(stepper, index, stepper->force, normal, tangent);
}
