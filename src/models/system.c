/* The generic Lagrangian system: user callbacks behind the nscd__model interface. */
#include "models/system.h"

#include <string.h>

#include "core/check.h"
#include "core/dense.h"
#include "core/memory.h"
#include "core/struct_sizes.h"

struct nscd_system {
    nscd_system_desc desc;
    nscd_allocator allocator;
    nscd_diag diag;
    nscd__model model;
    double t;
    double *q, *v;
    nscd__contact_slot *contacts;
    /* Cholesky factor of M at `factor_q` (valid when factor_valid). */
    /* Cholesky factor of M at `factor_q` (valid when factor_valid), column-major */
    double *factor, *factor_q;
    int factor_valid;
    double *work;           /* scratch: M, or right-hand sides in column-major order */
    size_t work_size;       /* doubles; grows with the widest solve */
    double *column;         /* n_dof scratch */
    double *rows;           /* 3 x n_dof scratch: a contact's normal and tangential rows */
    int32_t mass_blocks[2]; /* one mass block: {0, n_dof} */
};

/* ------------------------------------------------------------ model callbacks */

static nscd_status callback_failed(nscd_system *s, const char *what, nscd_status code) {
    return nscd__fail(&s->diag, NSCD_ERR_CALLBACK, "%s callback returned %d", what, (int)code);
}

/* The scratch array with room for `count` doubles (grown when needed), or
 * NULL when the allocator fails. */
static double *work(nscd_system *s, size_t count) {
    if (count > s->work_size) {
        double *grown = nscd__alloc_array(&s->allocator, count, sizeof(double));
        if (grown == NULL) {
            return NULL;
        }
        nscd__free(&s->allocator, s->work, s->work_size * sizeof(double));
        s->work = grown;
        s->work_size = count;
    }
    return s->work;
}

/* X = M^-1 B with the cached factor; B and X are n x nrhs, row-major. One
 * right-hand side needs no reordering; several go through column-major
 * scratch, as LAPACKE's row-major interface would take them. */
static nscd_status solve_factored(nscd_system *s, int32_t nrhs, const double *B, double *X) {
    size_t n = (size_t)s->desc.n_dof, m = (size_t)nrhs;
    double *Bc = m == 1 ? X : work(s, n * m);
    if (Bc == NULL) {
        return nscd__fail(&s->diag, NSCD_ERR_OUT_OF_MEMORY, "%d right-hand sides", (int)nrhs);
    }
    for (size_t i = 0; i < n; ++i) {
        for (size_t c = 0; c < m; ++c) {
            Bc[c * n + i] = B[i * m + c];
        }
    }
    nscd_status rc = nscd__cholesky_solve_cm(s->desc.n_dof, s->factor, nrhs, Bc);
    for (size_t i = 0; rc == NSCD_OK && m > 1 && i < n; ++i) {
        for (size_t c = 0; c < m; ++c) {
            X[i * m + c] = Bc[c * n + i];
        }
    }
    return rc == NSCD_OK ? NSCD_OK : nscd__fail(&s->diag, rc, "Cholesky solve failed");
}

/* Factorises M(q) unless the factor for exactly this q is cached. */
static nscd_status factor_mass(nscd_system *s, const double *q) {
    int32_t n = s->desc.n_dof;
    size_t bytes = (size_t)n * sizeof(double);
    if (s->factor_valid && memcmp(s->factor_q, q, bytes) == 0) {
        return NSCD_OK;
    }
    s->factor_valid = 0;
    double *M = work(s, (size_t)n * (size_t)n);
    if (M == NULL) {
        return nscd__fail(&s->diag, NSCD_ERR_OUT_OF_MEMORY, "mass matrix");
    }
    nscd_status rc = s->desc.mass(s->desc.user, q, M);
    if (rc != NSCD_OK) {
        return callback_failed(s, "mass", rc);
    }
    if (!nscd__all_finite(M, (size_t)n * (size_t)n)) {
        return nscd__fail(&s->diag, NSCD_ERR_NOT_FINITE, "mass matrix has non-finite entries");
    }
    if (nscd__cholesky_cm(n, M, s->factor) != NSCD_OK) {
        return nscd__fail(&s->diag, NSCD_ERR_NOT_SPD, "mass matrix is not positive definite");
    }
    memcpy(s->factor_q, q, bytes);
    s->factor_valid = 1;
    return NSCD_OK;
}

static nscd_status system_mass_solve(void *self, const double *q, int32_t block, int32_t nrhs,
                                     const double *B, double *X) {
    nscd_system *s = self;
    (void)block; /* one block: the whole mass matrix */
    int32_t n = s->desc.n_dof;
    if (s->desc.mass_solve == NULL) {
        nscd_status rc = factor_mass(s, q);
        if (rc != NSCD_OK) {
            return rc;
        }
        /* LAPACKE rejects NaN in its arguments as an illegal value (info < 0):
         * report a diverged state or force as what it is */
        if (!nscd__all_finite(B, (size_t)n * (size_t)nrhs)) {
            return nscd__fail(&s->diag, NSCD_ERR_NOT_FINITE,
                              "M^-1 b with a non-finite b (diverged state or forces)");
        }
        return solve_factored(s, nrhs, B, X);
    }
    for (int32_t c = 0; c < nrhs; ++c) {
        for (int32_t i = 0; i < n; ++i) {
            s->column[i] = B[(size_t)i * (size_t)nrhs + (size_t)c];
        }
        double *x = s->factor; /* scratch: unused when mass_solve is given */
        nscd_status rc = s->desc.mass_solve(s->desc.user, q, s->column, x);
        if (rc != NSCD_OK) {
            return callback_failed(s, "mass_solve", rc);
        }
        for (int32_t i = 0; i < n; ++i) {
            X[(size_t)i * (size_t)nrhs + (size_t)c] = x[i];
        }
    }
    return nscd__all_finite(X, (size_t)n * (size_t)nrhs)
               ? NSCD_OK
               : nscd__fail(&s->diag, NSCD_ERR_NOT_FINITE, "mass_solve gave non-finite values");
}

static nscd_status system_mass_times(void *self, const double *q, const double *x, double *y) {
    nscd_system *s = self;
    if (s->desc.mass == NULL) {
        return nscd__fail(&s->diag, NSCD_ERR_UNSUPPORTED, "no mass callback: M v is unknown");
    }
    int32_t n = s->desc.n_dof;
    double *M = work(s, (size_t)n * (size_t)n); /* the cached factor stays */
    if (M == NULL) {
        return nscd__fail(&s->diag, NSCD_ERR_OUT_OF_MEMORY, "mass matrix");
    }
    nscd_status rc = s->desc.mass(s->desc.user, q, M);
    if (rc != NSCD_OK) {
        return callback_failed(s, "mass", rc);
    }
    nscd__gemv(n, n, M, x, y);
    return NSCD_OK;
}

/* M(q) itself for the global form: the whole matrix is the one mass block.
 * Written straight into the caller's array, so the cached factor stays. */
static nscd_status system_mass_block(void *self, const double *q, int32_t block, double *M_bb) {
    nscd_system *s = self;
    (void)block;
    if (s->desc.mass == NULL) {
        return nscd__fail(&s->diag, NSCD_ERR_UNSUPPORTED, "no mass callback: M is unknown");
    }
    nscd_status rc = s->desc.mass(s->desc.user, q, M_bb);
    if (rc != NSCD_OK) {
        return callback_failed(s, "mass", rc);
    }
    size_t n = (size_t)s->desc.n_dof;
    return nscd__all_finite(M_bb, n * n)
               ? NSCD_OK
               : nscd__fail(&s->diag, NSCD_ERR_NOT_FINITE, "mass matrix has non-finite entries");
}

static nscd_status system_forces(void *self, double t, const double *q, const double *v,
                                 double *h) {
    nscd_system *s = self;
    int32_t n = s->desc.n_dof;
    if (s->desc.forces == NULL) {
        memset(h, 0, (size_t)n * sizeof(double));
        return NSCD_OK;
    }
    nscd_status rc = s->desc.forces(s->desc.user, t, q, v, h);
    if (rc != NSCD_OK) {
        return callback_failed(s, "forces", rc);
    }
    return nscd__all_finite(h, (size_t)n)
               ? NSCD_OK
               : nscd__fail(&s->diag, NSCD_ERR_NOT_FINITE, "forces gave non-finite values");
}

/* One force Jacobian from the user's callback, checked. */
static nscd_status force_jacobian(nscd_system *s, nscd_matrix_fn fn, const char *what, double t,
                                  const double *q, const double *v, double *out) {
    size_t n = (size_t)s->desc.n_dof;
    nscd_status rc = fn(s->desc.user, t, q, v, out);
    if (rc != NSCD_OK) {
        return callback_failed(s, what, rc);
    }
    return nscd__all_finite(out, n * n)
               ? NSCD_OK
               : nscd__fail(&s->diag, NSCD_ERR_NOT_FINITE, "%s gave non-finite values", what);
}

/* K = -dh/dq and C = -dh/dv: refused as a whole, before any callback, when
 * a wanted matrix has no callback (the stepper must not guess a zero). */
static nscd_status system_tangent(void *self, double t, const double *q, const double *v, double *K,
                                  double *C) {
    nscd_system *s = self;
    if ((K != NULL && s->desc.stiffness == NULL) || (C != NULL && s->desc.damping == NULL)) {
        return nscd__fail(&s->diag, NSCD_ERR_UNSUPPORTED, "no %s callback",
                          K != NULL && s->desc.stiffness == NULL ? "stiffness" : "damping");
    }
    nscd_status rc = NSCD_OK;
    if (K != NULL) {
        rc = force_jacobian(s, s->desc.stiffness, "stiffness", t, q, v, K);
    }
    if (rc == NSCD_OK && C != NULL) {
        rc = force_jacobian(s, s->desc.damping, "damping", t, q, v, C);
    }
    return rc;
}

static void system_position_rate(void *self, const double *q, const double *v, double *qdot) {
    nscd_system *s = self;
    (void)q;
    memcpy(qdot, v, (size_t)s->desc.n_dof * sizeof(double));
}

static void system_displace(void *self, const double *q, const double *dq, double *q_out) {
    nscd_system *s = self;
    for (int32_t i = 0; i < s->desc.n_dof; ++i) {
        q_out[i] = q[i] + dq[i];
    }
}

/* The user's dense rows: one block of n_dof columns, normal row first. */
static nscd_status system_contact(nscd_system *s, int32_t index, double t, const double *q,
                                  double *gap, double *w_normal, double *w_tangent) {
    int32_t n = s->desc.n_dof;
    int32_t n_tangent = s->contacts[index].n_tangent;
    double *tangent = n_tangent > 0 ? w_tangent : NULL;
    nscd_status rc = s->desc.contact(s->desc.user, index, t, q, gap, w_normal, tangent);
    if (rc != NSCD_OK) {
        return callback_failed(s, "contact", rc);
    }
    if (!isfinite(*gap) || !nscd__all_finite(w_normal, (size_t)n) ||
        (tangent != NULL && !nscd__all_finite(tangent, (size_t)n * (size_t)n_tangent))) {
        return nscd__fail(&s->diag, NSCD_ERR_NOT_FINITE, "contact %d gave non-finite values",
                          (int)index);
    }
    return NSCD_OK;
}

/* Equality constraint k (entry n_contacts + k): its value and dense row. */
static nscd_status system_equality(nscd_system *s, int32_t k, double t, const double *q, double *g,
                                   double *w) {
    int32_t n = s->desc.n_dof;
    nscd_status rc = s->desc.equality(s->desc.user, k, t, q, g, w);
    if (rc != NSCD_OK) {
        return callback_failed(s, "equality", rc);
    }
    if (!isfinite(*g) || !nscd__all_finite(w, (size_t)n)) {
        return nscd__fail(&s->diag, NSCD_ERR_NOT_FINITE, "equality %d gave non-finite values",
                          (int)k);
    }
    return NSCD_OK;
}

static nscd_status system_entry(void *self, int32_t index, double t, const double *q, double *gap,
                                nscd__rows *rows) {
    nscd_system *s = self;
    int32_t n = s->desc.n_dof;
    nscd__rows_dense(rows, 1 + s->contacts[index].n_tangent, n, rows->values);
    if (index >= s->desc.n_contacts) { /* the equalities follow the contacts */
        return system_equality(s, index - s->desc.n_contacts, t, q, gap, rows->values);
    }
    return system_contact(s, index, t, q, gap, rows->values, rows->values + n);
}

/* ------------------------------------------------------------ public API */

nscd_status nscd_system_desc_init(nscd_system_desc *desc, size_t struct_size) {
    nscd_system_desc defaults; /* everything zero or NULL */
    memset(&defaults, 0, sizeof defaults);
    return nscd__struct_init(desc, struct_size, &defaults, sizeof defaults,
                             NSCD__SYSTEM_DESC_SIZE_0_1);
}

static nscd_status validate_desc(const nscd_system_desc *d) {
    if (d->n_dof <= 0 || d->n_contacts < 0 || d->n_dof > (1 << 20) || d->n_contacts > (1 << 20) ||
        d->n_equalities < 0 || d->n_equalities > (1 << 20)) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    if ((d->mass == NULL && d->mass_solve == NULL) || (d->n_contacts > 0 && d->contact == NULL) ||
        (d->n_equalities > 0 && d->equality == NULL)) {
        return NSCD_ERR_NULL_POINTER;
    }
    return nscd__allocator_valid(&d->allocator) ? NSCD_OK : NSCD_ERR_INVALID_ARGUMENT;
}

/* Contacts, then equality constraints: the model's entries. */
static size_t n_entries(const nscd_system *s) {
    return (size_t)s->desc.n_contacts + (size_t)s->desc.n_equalities;
}

static void free_system(nscd_system *s) {
    nscd_allocator a = s->allocator;
    nscd__model_release(&s->model); /* its steppers now fail with STALE_HANDLE */
    size_t n = (size_t)s->desc.n_dof;
    nscd__free(&a, s->q, n * sizeof(double));
    nscd__free(&a, s->v, n * sizeof(double));
    nscd__free(&a, s->factor, n * n * sizeof(double));
    nscd__free(&a, s->work, s->work_size * sizeof(double));
    nscd__free(&a, s->factor_q, n * sizeof(double));
    nscd__free(&a, s->column, n * sizeof(double));
    nscd__free(&a, s->rows, 3 * n * sizeof(double));
    nscd__free(&a, s->contacts, n_entries(s) * sizeof(nscd__contact_slot));
    nscd__free(&a, s, sizeof *s);
}

/* The deferred destroy (nscd__model::destroy_owner): a callback destroyed
 * the system while a stepper advanced it. */
static void destroy_owner(void *self) { free_system(self); }

static void init_model(nscd_system *s) {
    nscd__model *m = &s->model;
    m->self = s;
    m->n_q = m->n_v = s->desc.n_dof;
    m->n_contacts = (int32_t)n_entries(s);
    m->row_width = s->desc.n_dof;
    s->mass_blocks[0] = 0;
    s->mass_blocks[1] = s->desc.n_dof;
    m->n_mass_blocks = 1;
    m->mass_block_start = s->mass_blocks;
    m->t = &s->t;
    m->q = s->q;
    m->v = s->v;
    m->contacts = s->contacts;
    m->diag = &s->diag;
    m->allocator = &s->allocator;
    m->mass_solve = system_mass_solve;
    m->mass_times = system_mass_times;
    m->mass_block = system_mass_block;
    m->forces = system_forces;
    m->tangent = system_tangent;
    m->position_rate = system_position_rate;
    m->displace = system_displace;
    m->entry = system_entry;
    m->destroy_owner = destroy_owner;
    for (int32_t i = 0; i < m->n_contacts; ++i) {
        s->contacts[i].key = (uint64_t)i; /* the set is fixed: the index is the key */
    }
    for (int32_t i = s->desc.n_contacts; i < m->n_contacts; ++i) {
        s->contacts[i].kind = NSCD__ENTRY_EQUALITY; /* held at all times */
        s->contacts[i].state.mode = NSCD_CONTACT_CLOSED;
    }
}

nscd_status nscd_system_create(const nscd_system_desc *desc, nscd_system **system) {
    if (desc == NULL || system == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    /* A desc of an older release is read as far as it goes; the fields it
     * lacks keep their defaults. */
    nscd_system_desc given;
    nscd_system_desc_init(&given, sizeof given);
    nscd_status rc = nscd__struct_read(&given, sizeof given, desc, NSCD__SYSTEM_DESC_SIZE_0_1);
    if (rc == NSCD_OK) {
        rc = validate_desc(&given);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    desc = &given;
    nscd_allocator a = nscd__allocator_resolve(&desc->allocator);
    nscd_system *s = nscd__alloc(&a, sizeof *s);
    if (s == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    s->desc = *desc;
    s->allocator = a;
    s->diag.log = desc->log;
    s->diag.log_user = desc->log_user;
    size_t n = (size_t)desc->n_dof;
    s->q = nscd__alloc_array(&a, n, sizeof(double));
    s->v = nscd__alloc_array(&a, n, sizeof(double));
    s->factor = nscd__alloc_array(&a, n * n, sizeof(double));
    s->factor_q = nscd__alloc_array(&a, n, sizeof(double));
    s->column = nscd__alloc_array(&a, n, sizeof(double));
    s->rows = nscd__alloc_array(&a, 3 * n, sizeof(double));
    s->contacts = nscd__alloc_array(&a, n_entries(s), sizeof(nscd__contact_slot));
    if (!s->q || !s->v || !s->factor || !s->factor_q || !s->column || !s->rows || !s->contacts) {
        free_system(s);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    init_model(s);
    *system = s;
    return NSCD_OK;
}

void nscd_system_destroy(nscd_system *system) {
    /* from a callback of a stepper advancing the system: freed when the
     * advance returns */
    if (system != NULL && !nscd__diag_keep_alive(&system->diag, "nscd_system_destroy")) {
        free_system(system);
    }
}

const char *nscd_system_last_error(const nscd_system *system) {
    return system == NULL ? "null system handle" : system->diag.last_error;
}

nscd_status nscd_contact_desc_init(nscd_contact_desc *desc, size_t struct_size) {
    nscd_contact_desc defaults; /* Newton e = 0 (law NULL), frictionless */
    memset(&defaults, 0, sizeof defaults);
    return nscd__struct_init(desc, struct_size, &defaults, sizeof defaults,
                             NSCD__CONTACT_DESC_SIZE_0_1);
}

nscd_status nscd_system_set_contact(nscd_system *system, int32_t index,
                                    const nscd_contact_desc *desc) {
    if (system == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd_diag *d = &system->diag;
    nscd__diag_clear(d);
    if (desc == NULL) {
        return nscd__fail(d, NSCD_ERR_NULL_POINTER, "contact desc is NULL");
    }
    nscd_contact_desc given; /* an older, shorter desc: defaults for the rest */
    nscd_contact_desc_init(&given, sizeof given);
    if (nscd__struct_read(&given, sizeof given, desc, NSCD__CONTACT_DESC_SIZE_0_1) != NSCD_OK) {
        return nscd__fail(d, NSCD_ERR_STRUCT_SIZE, "contact desc struct_size %u",
                          (unsigned)desc->struct_size);
    }
    desc = &given;
    if (index < 0 || index >= system->desc.n_contacts) {
        return nscd__fail(d, NSCD_ERR_INDEX, "contact %d of %d", (int)index,
                          (int)system->desc.n_contacts);
    }
    if (!isfinite(desc->friction) || !isfinite(desc->tangential_restitution)) {
        return nscd__fail(d, NSCD_ERR_NOT_FINITE,
                          "friction or tangential restitution coefficient is not finite");
    }
    if (desc->friction < 0.0 || desc->n_tangent < 0 || desc->n_tangent > 2) {
        return nscd__fail(d, NSCD_ERR_OUT_OF_RANGE, "friction %g or n_tangent %d out of range",
                          desc->friction, (int)desc->n_tangent);
    }
    if (!(desc->tangential_restitution >= 0.0 && desc->tangential_restitution <= 1.0)) {
        return nscd__fail(d, NSCD_ERR_OUT_OF_RANGE, "tangential restitution %g not in [0, 1]",
                          desc->tangential_restitution);
    }
    /* Routh's method is planar: it builds its 2x2 impact problem from exactly
     * one tangential row. Refused here rather than at the first impact. */
    const nscd__law_ops *ops = desc->law != NULL ? desc->law->ops : NULL;
    if (ops != NULL && ops->kind == NSCD_LAW_IMPULSIVE && ops->impact_rule == NSCD__IMPACT_ROUTH &&
        desc->n_tangent != 1) {
        return nscd__fail(d, NSCD_ERR_INVALID_ARGUMENT,
                          "contact %d: Routh's law needs one tangential row, n_tangent is %d",
                          (int)index, (int)desc->n_tangent);
    }
    nscd__contact_slot *slot = &system->contacts[index];
    memset(slot, 0, sizeof *slot);
    slot->key = (uint64_t)index;
    slot->kind = NSCD__ENTRY_UNILATERAL;
    if (desc->law != NULL) {
        slot->law = *desc->law;
    }
    slot->friction = desc->friction;
    slot->n_tangent = desc->n_tangent;
    slot->tangential_restitution = desc->tangential_restitution;
    slot->state.mode = NSCD_CONTACT_OPEN;
    return NSCD_OK;
}

nscd_status nscd_system_get_sizes(const nscd_system *system, int32_t *n_dof, int32_t *n_contacts) {
    if (system == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (n_dof != NULL) {
        *n_dof = system->desc.n_dof;
    }
    if (n_contacts != NULL) {
        *n_contacts = system->desc.n_contacts;
    }
    return NSCD_OK;
}

nscd_status nscd_system_set_state(nscd_system *system, double t, const double *q, const double *v) {
    if (system == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&system->diag);
    size_t n = (size_t)system->desc.n_dof;
    if (q == NULL || v == NULL) {
        return nscd__fail(&system->diag, NSCD_ERR_NULL_POINTER, "q or v is NULL");
    }
    if (!isfinite(t) || !nscd__all_finite(q, n) || !nscd__all_finite(v, n)) {
        return nscd__fail(&system->diag, NSCD_ERR_NOT_FINITE, "state has NaN or infinity");
    }
    if (system->desc.mass_solve == NULL) {
        nscd_status rc = factor_mass(system, q); /* rejects a non-SPD (e.g. negative) mass */
        if (rc != NSCD_OK) {
            return rc;
        }
    }
    memcpy(system->q, q, n * sizeof(double));
    memcpy(system->v, v, n * sizeof(double));
    system->t = t;
    for (int32_t i = 0; i < (int32_t)n_entries(system); ++i) {
        int equality = system->contacts[i].kind == NSCD__ENTRY_EQUALITY; /* never released */
        system->contacts[i].state.mode = equality ? NSCD_CONTACT_CLOSED : NSCD_CONTACT_OPEN;
        memset(&system->contacts[i].state.memory, 0, sizeof system->contacts[i].state.memory);
    }
    return NSCD_OK;
}

nscd_status nscd_system_get_state(const nscd_system *system, double *t, double *q, double *v) {
    if (system == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    size_t bytes = (size_t)system->desc.n_dof * sizeof(double);
    if (t != NULL) {
        *t = system->t;
    }
    if (q != NULL) {
        memcpy(q, system->q, bytes);
    }
    if (v != NULL) {
        memcpy(v, system->v, bytes);
    }
    return NSCD_OK;
}

nscd_status nscd_system_get_contact(nscd_system *system, int32_t index, double *gap,
                                    double *velocity, int32_t *mode) {
    if (system == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&system->diag);
    if (index < 0 || index >= system->desc.n_contacts) {
        return nscd__fail(&system->diag, NSCD_ERR_INDEX, "contact %d of %d", (int)index,
                          (int)system->desc.n_contacts);
    }
    size_t n = (size_t)system->desc.n_dof;
    nscd__contact_slot *slot = &system->contacts[index];
    double *w = system->rows;
    double g = 0.0;
    nscd_status rc = system_contact(system, index, system->t, system->q, &g, w, w + n);
    if (rc != NSCD_OK) {
        return rc;
    }
    if (gap != NULL) {
        *gap = g;
    }
    if (velocity != NULL) {
        *velocity = nscd__dot((int32_t)n, w, system->v);
    }
    if (mode != NULL) {
        *mode = slot->state.mode;
    }
    return NSCD_OK;
}

nscd_status nscd_system_get_equality(nscd_system *system, int32_t index, double *g,
                                     double *velocity) {
    if (system == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&system->diag);
    if (index < 0 || index >= system->desc.n_equalities) {
        return nscd__fail(&system->diag, NSCD_ERR_INDEX, "equality %d of %d", (int)index,
                          (int)system->desc.n_equalities);
    }
    double *w = system->rows, value = 0.0;
    nscd_status rc = system_equality(system, index, system->t, system->q, &value, w);
    if (rc != NSCD_OK) {
        return rc;
    }
    if (g != NULL) {
        *g = value;
    }
    if (velocity != NULL) {
        *velocity = nscd__dot(system->desc.n_dof, w, system->v);
    }
    return NSCD_OK;
}

nscd_status nscd_system_kinetic_energy(nscd_system *system, double *energy) {
    if (system == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&system->diag);
    if (energy == NULL) {
        return nscd__fail(&system->diag, NSCD_ERR_NULL_POINTER, "energy is NULL");
    }
    int32_t n = system->desc.n_dof;
    nscd_status rc = system_mass_times(system, system->q, system->v, system->column);
    if (rc != NSCD_OK) {
        return rc;
    }
    *energy = 0.5 * nscd__dot(n, system->v, system->column);
    return NSCD_OK;
}

nscd__model *nscd__system_model(nscd_system *system) { return &system->model; }
