/* The stepper on a large sparse model: memory grows with the active
 * contacts, not with n_contacts x n_dof (issue: architecture step).
 *
 * The model is defined here through the internal model interface: 10 000
 * bodies with 6 velocities each (n_v = 60 000) and block-diagonal masses,
 * stacked along z, and 10 000 contacts, each between two bodies (two row
 * blocks of 6: 12 velocities). Bodies 0 (mass 1) and 1 (mass 2) start 1e-4
 * apart and approach at 2 m/s: one elastic impact (Newton, e = 1) at
 * t = 5e-5 turns their z velocities (1, -1) into (-5/3, 1/3) (relative to
 * the common free fall; momentum -1 and energy 3/2 kept); every other body
 * falls freely. Peak memory and results are
 * checked against the analytic answer. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/model.h"
#include "integrators/event_driven/event_driven_impl.h"
#include "nscd/nscd.h"

#define BODIES 10000
#define DOF 6
#define N_V (BODIES * DOF)
#define GRAVITY 9.81
#define T_END 1e-3

/* ------------------------------------------------------------ counting allocator */

typedef struct counter {
    size_t current, peak;
} counter;

static void *count_allocate(void *user, size_t size) {
    counter *c = user;
    c->current += size;
    c->peak = c->current > c->peak ? c->current : c->peak;
    return malloc(size);
}

static void count_release(void *user, void *block, size_t size) {
    counter *c = user;
    c->current -= size;
    free(block);
}

/* ------------------------------------------------------------ the model */

typedef struct stack {
    nscd__model model;
    double t, q[N_V], v[N_V];
    nscd__contact_slot contacts[BODIES];
    int32_t mass_block_start[BODIES + 1];
    nscd_diag diag;
    nscd_allocator allocator;
} stack;

/* Body b: mass 1 + b % 3 (translations) and inertia 0.1 (rotations). */
static double mass_of(int32_t velocity) {
    int32_t b = velocity / DOF, k = velocity % DOF;
    return k < 3 ? 1.0 + b % 3 : 0.1;
}

static nscd_status stack_mass_solve(void *self, const double *q, int32_t block, int32_t nrhs,
                                    const double *B, double *X) {
    (void)self, (void)q;
    for (int32_t i = 0; i < DOF; ++i) {
        double m = mass_of(block * DOF + i);
        for (int32_t c = 0; c < nrhs; ++c) {
            X[i * nrhs + c] = B[i * nrhs + c] / m;
        }
    }
    return NSCD_OK;
}

static nscd_status stack_mass_times(void *self, const double *q, const double *x, double *y) {
    (void)self, (void)q;
    for (int32_t i = 0; i < N_V; ++i) {
        y[i] = mass_of(i) * x[i];
    }
    return NSCD_OK;
}

static nscd_status stack_forces(void *self, double t, const double *q, const double *v, double *h) {
    (void)self, (void)t, (void)q, (void)v;
    for (int32_t i = 0; i < N_V; ++i) {
        h[i] = i % DOF == 2 ? -GRAVITY * mass_of(i) : 0.0;
    }
    return NSCD_OK;
}

static void stack_position_rate(void *self, const double *q, const double *v, double *qdot) {
    (void)self, (void)q;
    memcpy(qdot, v, N_V * sizeof(double));
}

static void stack_displace(void *self, const double *q, const double *dq, double *q_out) {
    (void)self;
    for (int32_t i = 0; i < N_V; ++i) {
        q_out[i] = q[i] + dq[i];
    }
}

/* Contact i: z_{i+1} - z_i - 1 >= 0 between bodies i and i + 1 (the last
 * one between body BODIES - 1 and body 0, far apart). */
static nscd_status stack_entry(void *self, int32_t index, double t, const double *q, double *gap,
                               nscd__rows *rows) {
    (void)self, (void)t;
    int32_t lower = index < BODIES - 1 ? index : 0;
    int32_t upper = index < BODIES - 1 ? index + 1 : BODIES - 1;
    rows->n_rows = 1;
    rows->n_blocks = 2;
    rows->width_total = 2 * DOF;
    rows->column[0] = lower * DOF;
    rows->column[1] = upper * DOF;
    rows->width[0] = rows->width[1] = DOF;
    memset(rows->values, 0, 2 * DOF * sizeof(double));
    rows->values[2] = -1.0;
    rows->values[DOF + 2] = 1.0;
    *gap = q[upper * DOF + 2] - q[lower * DOF + 2] - 1.0;
    return NSCD_OK;
}

static void stack_init(stack *s, counter *c, const nscd_contact_law *elastic) {
    memset(s, 0, sizeof *s);
    s->allocator = (nscd_allocator){count_allocate, count_release, c};
    nscd__model *m = &s->model;
    m->self = s;
    m->n_q = m->n_v = N_V;
    m->n_contacts = BODIES;
    m->row_width = 2 * DOF;
    m->n_mass_blocks = BODIES;
    for (int32_t b = 0; b <= BODIES; ++b) {
        s->mass_block_start[b] = b * DOF;
    }
    m->mass_block_start = s->mass_block_start;
    m->t = &s->t;
    m->q = s->q;
    m->v = s->v;
    m->contacts = s->contacts;
    m->diag = &s->diag;
    m->allocator = &s->allocator;
    m->mass_solve = stack_mass_solve;
    m->mass_times = stack_mass_times;
    m->forces = stack_forces;
    m->position_rate = stack_position_rate;
    m->displace = stack_displace;
    m->entry = stack_entry;
    for (int32_t i = 0; i < BODIES; ++i) {
        s->contacts[i].key = (uint64_t)i;
        s->contacts[i].law = *elastic;
        s->q[i * DOF + 2] = 2.0 * i; /* gaps of 1 */
    }
    s->q[DOF + 2] = 1.0 + 1e-4; /* bodies 0 and 1 nearly touch ... */
    s->v[2] = 1.0;              /* ... and approach at 2 m/s */
    s->v[DOF + 2] = -1.0;
}

static void stepper_runs_in_memory_that_grows_with_the_active_set(void **state) {
    (void)state;
    static stack s; /* 1 MB of state: not on the stack */
    counter c = {0, 0};
    nscd_contact_law *elastic = NULL;
    assert_int_equal(nscd_contact_law_create_newton(1.0, NULL, &elastic), NSCD_OK);
    stack_init(&s, &c, elastic);
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd__event_driven_create(&s.model, NULL, &ed), NSCD_OK);
    nscd_event_driven_stats stats = {.struct_size = sizeof stats};
    nscd_status st = nscd_event_driven_advance(ed, T_END, &stats);
    if (st != NSCD_OK) {
        printf("# %s: %s\n", nscd_status_string(st), nscd_event_driven_last_error(ed));
    }
    assert_int_equal(st, NSCD_OK);
    assert_int_equal(stats.impacts, 1);
    assert_true(stats.workspace_peak_bytes > 0 && stats.workspace_peak_bytes < 16 << 20);
    assert_true(s.t == T_END);

    /* the elastic impact at t = 5e-5, all else free fall */
    const double t_hit = 5e-5, gt = GRAVITY * T_END;
    assert_true(fabs(s.v[2] - (-5.0 / 3.0 - gt)) < 1e-12);
    assert_true(fabs(s.v[DOF + 2] - (1.0 / 3.0 - gt)) < 1e-12);
    double z0 = t_hit - 5.0 / 3.0 * (T_END - t_hit) - 0.5 * GRAVITY * T_END * T_END;
    assert_true(fabs(s.q[2] - z0) < 1e-12);
    for (int32_t b = 2; b < BODIES; b += 997) {
        assert_true(fabs(s.v[b * DOF + 2] + gt) < 1e-12);
        assert_true(fabs(s.q[b * DOF + 2] - (2.0 * b - 0.5 * GRAVITY * T_END * T_END)) < 1e-12);
    }

    /* Dense rows would need n_contacts x n_v doubles (4.8 GB) in each of
     * several arrays; the stepper holds O(n_v + n_contacts). */
    double dense = (double)BODIES * N_V * sizeof(double);
    printf("# large model: n_v = %d, contacts = %d, peak %.1f MB (dense rows: %.0f MB), "
           "workspace peak %lld bytes\n",
           N_V, BODIES, c.peak / 1e6, dense / 1e6, (long long)stats.workspace_peak_bytes);
    assert_true(c.peak < (size_t)64 << 20);
    nscd_event_driven_destroy(ed);
    assert_int_equal(c.current, 0);
    nscd_contact_law_destroy(elastic);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stepper_runs_in_memory_that_grows_with_the_active_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
