/* The append-only promise of the versioned structs (docs/abi.md): every
 * public struct whose first member is struct_size, handed over at the size of
 * its first release (0.1), is accepted and defaulted; *_init writes exactly
 * the caller's size; sizes below the first release or above the current
 * sizeof fail with NSCD_ERR_STRUCT_SIZE and change nothing; output structs
 * receive only the caller's prefix.
 *
 * An old caller's struct lives here in a heap block of exactly its size
 * (old_copy()), so a read beyond it is an error under ASan and valgrind
 * (tests `sanitizers` and `valgrind.test_struct_versions`); output structs
 * and *_init targets sit in buffers of canary bytes, whose bytes beyond the
 * caller's size must stay untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/struct_sizes.h"
#include "models/system.h"
#include "models.h"

enum { CANARY = 0xA5 };

/* Room for the largest public struct and well beyond it. */
typedef union buffer {
    max_align_t align;
    unsigned char bytes[512];
} buffer;

static void fill_canary(buffer *b) { memset(b->bytes, CANARY, sizeof b->bytes); }

/* True when every byte of b from `from` on is still the canary. */
static bool canary_from(const buffer *b, size_t from) {
    for (size_t i = from; i < sizeof b->bytes; ++i) {
        if (b->bytes[i] != CANARY) {
            return false;
        }
    }
    return true;
}

static uint32_t size_field(const void *object) {
    uint32_t size;
    memcpy(&size, object, sizeof size);
    return size;
}

static void set_size_field(void *object, size_t size) {
    uint32_t value = (uint32_t)size;
    memcpy(object, &value, sizeof value);
}

/* What a binary built against an older release hands over: the first `size`
 * bytes of `full` in a heap block of exactly `size` bytes (at least the
 * struct_size member), struct_size stamped. */
static void *old_copy(const void *full, size_t size) {
    size_t block = size < sizeof(uint32_t) ? sizeof(uint32_t) : size;
    unsigned char *p = malloc(block);
    assert_non_null(p);
    memset(p, 0, block);
    memcpy(p, full, size < block ? size : block);
    set_size_field(p, size);
    return p;
}

/* ------------------------------------------------ the first-release sizes */

/* The constants are the ends of the last 0.1 fields; only the stats grew. */
static void first_release_sizes(void **state) {
    (void)state;
    const size_t firsts[] = {NSCD__SYSTEM_DESC_SIZE_0_1,
                             NSCD__CONTACT_DESC_SIZE_0_1,
                             NSCD__EVENT_DRIVEN_OPTIONS_SIZE_0_1,
                             NSCD__FC3D_OPTIONS_SIZE_0_1,
                             NSCD__COULOMB_OPTIONS_SIZE_0_1,
                             NSCD__EVENT_DRIVEN_STATS_SIZE_0_1,
                             NSCD__FC3D_INFO_SIZE_0_1,
                             NSCD__ROUTH_RESULT_SIZE_0_1,
                             NSCD__CENTRAL_IMPACT_RESULT_SIZE_0_1,
                             NSCD__EVENT_INFO_SIZE_0_1};
    const size_t currents[] = {
        sizeof(nscd_system_desc),  sizeof(nscd_contact_desc),    sizeof(nscd_event_driven_options),
        sizeof(nscd_fc3d_options), sizeof(nscd_coulomb_options), sizeof(nscd_event_driven_stats),
        sizeof(nscd_fc3d_info),    sizeof(nscd_routh_result),    sizeof(nscd_central_impact_result),
        sizeof(nscd_event_info)};
    for (size_t i = 0; i < sizeof firsts / sizeof firsts[0]; ++i) {
        assert_true(firsts[i] > sizeof(uint32_t) && firsts[i] <= currents[i]);
    }
    /* the field appended in 0.2 lies beyond the 0.1 struct, padding included */
    assert_true(offsetof(nscd_event_driven_stats, workspace_peak_bytes) >=
                NSCD__EVENT_DRIVEN_STATS_SIZE_0_1);
    assert_true(sizeof(nscd_event_driven_stats) > NSCD__EVENT_DRIVEN_STATS_SIZE_0_1 + 4);
    assert_true(offsetof(nscd_system_desc, n_equalities) >= NSCD__SYSTEM_DESC_SIZE_0_1);
    /* fc3d info grew in 0.2 (Newton): newton_iterations starts at the 0.1 end (36),
     * inside the 0.1 padding (sizeof 40): an old binary passing 40 gets it written
     * into its padding, harmless for an output struct; the 0.1 size 36 gets nothing. */
    assert_true(offsetof(nscd_fc3d_info, newton_iterations) >= NSCD__FC3D_INFO_SIZE_0_1);
    assert_true(offsetof(nscd_fc3d_info, newton_failure) >
                offsetof(nscd_fc3d_info, newton_iterations));
    /* beyond the 0.1 sizeof (32), which old binaries pass */
    assert_true(offsetof(nscd_contact_desc, tangential_restitution) >= 32);
    if (sizeof(void *) == 8) { /* the 64-bit numbers of docs/abi.md */
        assert_int_equal(NSCD__SYSTEM_DESC_SIZE_0_1, 96);
        assert_int_equal(sizeof(nscd_system_desc), 128);
        assert_int_equal(NSCD__CONTACT_DESC_SIZE_0_1, 28);
        assert_int_equal(sizeof(nscd_contact_desc), 40);
        assert_int_equal(NSCD__EVENT_DRIVEN_OPTIONS_SIZE_0_1, 152);
        assert_int_equal(NSCD__FC3D_OPTIONS_SIZE_0_1, 80);
        assert_int_equal(NSCD__COULOMB_OPTIONS_SIZE_0_1, 24);
        assert_int_equal(NSCD__EVENT_DRIVEN_STATS_SIZE_0_1, 60);
        assert_int_equal(sizeof(nscd_event_driven_stats), 72);
        assert_int_equal(NSCD__FC3D_INFO_SIZE_0_1, 36);
        assert_int_equal(sizeof(nscd_fc3d_info), 48);
        assert_int_equal(NSCD__ROUTH_RESULT_SIZE_0_1, 88);
        assert_int_equal(NSCD__CENTRAL_IMPACT_RESULT_SIZE_0_1, 64);
        assert_int_equal(NSCD__EVENT_INFO_SIZE_0_1, 88);
    }
}

/* ------------------------------------------------------ the *_init functions */

typedef nscd_status (*init_fn)(void *object, size_t size);

#define ADAPT_INIT(fn, type)                                                                       \
    static nscd_status adapt_##fn(void *object, size_t size) { return fn((type *)object, size); }
ADAPT_INIT(nscd_system_desc_init, nscd_system_desc)
ADAPT_INIT(nscd_contact_desc_init, nscd_contact_desc)
ADAPT_INIT(nscd_event_driven_options_init, nscd_event_driven_options)
ADAPT_INIT(nscd_fc3d_options_init, nscd_fc3d_options)
ADAPT_INIT(nscd_coulomb_options_init, nscd_coulomb_options)
ADAPT_INIT(nscd_beam_desc_init, nscd_beam_desc)
ADAPT_INIT(nscd_gfc3d_options_init, nscd_gfc3d_options)

typedef struct init_case {
    const char *name;
    init_fn init;
    size_t first, current;
} init_case;

static const init_case init_cases[] = {
    {"system_desc", adapt_nscd_system_desc_init, NSCD__SYSTEM_DESC_SIZE_0_1,
     sizeof(nscd_system_desc)},
    {"contact_desc", adapt_nscd_contact_desc_init, NSCD__CONTACT_DESC_SIZE_0_1,
     sizeof(nscd_contact_desc)},
    {"event_driven_options", adapt_nscd_event_driven_options_init,
     NSCD__EVENT_DRIVEN_OPTIONS_SIZE_0_1, sizeof(nscd_event_driven_options)},
    {"fc3d_options", adapt_nscd_fc3d_options_init, NSCD__FC3D_OPTIONS_SIZE_0_1,
     sizeof(nscd_fc3d_options)},
    {"coulomb_options", adapt_nscd_coulomb_options_init, NSCD__COULOMB_OPTIONS_SIZE_0_1,
     sizeof(nscd_coulomb_options)},
    /* new in 0.2: its first size is its whole 0.2 struct */
    {"beam_desc", adapt_nscd_beam_desc_init, NSCD__BEAM_DESC_SIZE_0_2, sizeof(nscd_beam_desc)},
    {"gfc3d_options", adapt_nscd_gfc3d_options_init, NSCD__GFC3D_OPTIONS_SIZE_0_2,
     sizeof(nscd_gfc3d_options)},
};

/* A size out of range: NSCD_ERR_STRUCT_SIZE and not one byte written. */
static void init_rejects(const init_case *c, size_t size) {
    buffer b;
    fill_canary(&b);
    if (c->init(b.bytes, size) != NSCD_ERR_STRUCT_SIZE || !canary_from(&b, 0)) {
        fail_msg("%s_init(%zu) accepted or wrote", c->name, size);
    }
}

/* Every size from the first release to the current one: the defaults of the
 * caller's bytes, struct_size = size, nothing written beyond. */
static void init_writes_exactly_the_callers_size(void **state) {
    (void)state;
    for (size_t k = 0; k < sizeof init_cases / sizeof init_cases[0]; ++k) {
        const init_case *c = &init_cases[k];
        buffer full;
        memset(&full, 0, sizeof full);
        assert_int_equal(c->init(full.bytes, c->current), NSCD_OK);
        assert_int_equal(size_field(full.bytes), c->current);
        for (size_t size = c->first; size <= c->current; ++size) {
            buffer b;
            fill_canary(&b);
            assert_int_equal(c->init(b.bytes, size), NSCD_OK);
            assert_int_equal(size_field(b.bytes), size);
            assert_memory_equal(b.bytes + 4, full.bytes + 4, size - 4); /* the defaults */
            if (!canary_from(&b, size)) {
                fail_msg("%s_init(%zu) wrote beyond the caller's struct", c->name, size);
            }
        }
        init_rejects(c, c->first - 1);
        init_rejects(c, 0);
        init_rejects(c, c->current + 1);
        init_rejects(c, sizeof(buffer));
        if (SIZE_MAX > UINT32_MAX) { /* no truncation to the uint32_t struct_size */
            init_rejects(c, (size_t)((uint64_t)1 << 32) + c->first);
        }
        assert_int_equal(c->init(NULL, c->current), NSCD_ERR_NULL_POINTER);
    }
}

/* ---------------------------------------------------------- the system desc */

static nscd_system_desc ball_desc(ball_model *b) {
    nscd_system_desc d;
    nscd_system_desc_init(&d, sizeof d);
    d.n_dof = 1;
    d.n_contacts = 1;
    d.user = b;
    d.mass = ball_mass;
    d.forces = ball_forces;
    d.contact = ball_floor;
    return d;
}

/* A 0.1 desc creates the system it describes (sizes, the mass and contact
 * callbacks with their user pointer); the contacts start with their defaults
 * (Newton e = 0, frictionless, open). */
static void system_desc_of_the_first_release(void **state) {
    (void)state;
    ball_model b = {2.0, 9.81, 0.0, 0.0, 1};
    nscd_system_desc full = ball_desc(&b);
    nscd_system_desc *old = old_copy(&full, NSCD__SYSTEM_DESC_SIZE_0_1);
    nscd_system *sys = NULL;
    assert_int_equal(nscd_system_create(old, &sys), NSCD_OK);
    int32_t n_dof = 0, n_contacts = 0;
    assert_int_equal(nscd_system_get_sizes(sys, &n_dof, &n_contacts), NSCD_OK);
    assert_int_equal(n_dof, 1);
    assert_int_equal(n_contacts, 1);
    double q = 0.5, v = 3.0, energy = 0.0, gap = 0.0, rate = 0.0;
    assert_int_equal(nscd_system_set_state(sys, 0.0, &q, &v), NSCD_OK);
    assert_int_equal(nscd_system_kinetic_energy(sys, &energy), NSCD_OK); /* mass, user read */
    assert_true(energy == 0.5 * 2.0 * 9.0);
    int32_t mode = -1;
    assert_int_equal(nscd_system_get_contact(sys, 0, &gap, &rate, &mode), NSCD_OK);
    assert_true(gap == 0.5 && rate == 3.0);
    assert_int_equal(mode, NSCD_CONTACT_OPEN);
    nscd__model *model = nscd__system_model(sys);
    assert_null(model->contacts[0].law.ops); /* default law: Newton e = 0 */
    assert_true(model->contacts[0].friction == 0.0);
    assert_int_equal(model->n_contacts, 1); /* 0.2: no equality constraints */
    assert_int_equal(nscd_system_get_equality(sys, 0, NULL, NULL), NSCD_ERR_INDEX);
    double k = 7.0; /* 0.2: no stiffness callback, so K is unknown */
    assert_int_equal(model->tangent(model->self, 0.0, &q, &v, &k, NULL), NSCD_ERR_UNSUPPORTED);
    assert_true(k == 7.0);
    nscd_system_destroy(sys);

    nscd_system *untouched = (nscd_system *)&b; /* sentinel */
    const size_t bad[] = {NSCD__SYSTEM_DESC_SIZE_0_1 - 1, sizeof full + 1, 0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        set_size_field(old, bad[i]);
        assert_int_equal(nscd_system_create(old, &untouched), NSCD_ERR_STRUCT_SIZE);
        assert_true(untouched == (nscd_system *)&b);
    }
    free(old);
}

/* ------------------------------------------ the contact desc and the options */

static nscd_system *make_test_ball(ball_model *b) {
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(b, 1.0, 0.0, &sys), NSCD_OK);
    return sys;
}

/* A 0.1 contact desc (28 bytes: without its trailing padding) sets the law
 * and friction it holds; out-of-range sizes leave the contact as it was. */
static void contact_desc_of_the_first_release(void **state) {
    (void)state;
    ball_model b = {1.0, 9.81, 0.0, 0.0, 1};
    nscd_system *sys = make_test_ball(&b);
    nscd_contact_law *newton = NULL;
    assert_int_equal(nscd_contact_law_create_newton(0.5, NULL, &newton), NSCD_OK);
    nscd_contact_desc full;
    nscd_contact_desc_init(&full, sizeof full);
    full.law = newton;
    full.friction = 0.25;
    nscd_contact_desc *old = old_copy(&full, NSCD__CONTACT_DESC_SIZE_0_1);
    assert_int_equal(nscd_system_set_contact(sys, 0, old), NSCD_OK);
    nscd_contact_law_destroy(newton);
    const nscd__contact_slot *slot = &nscd__system_model(sys)->contacts[0];
    assert_true(slot->friction == 0.25);
    assert_int_equal(slot->n_tangent, 0);
    assert_true(slot->tangential_restitution == 0.0); /* 0.2 field: its default */

    /* the law was read: the first impact reverses the velocity with e = 0.5 */
    event_log log;
    memset(&log, 0, sizeof log);
    log.stop_at = 1;
    nscd_event_driven_options o;
    nscd_event_driven_options_init(&o, sizeof o);
    o.on_event = log_event;
    o.on_event_user = &log;
    nscd_event_driven *ed = NULL;
    assert_int_equal(nscd_event_driven_create(sys, &o, &ed), NSCD_OK);
    assert_int_equal(nscd_event_driven_advance(ed, 2.0, NULL), NSCD_OK);
    assert_int_equal(log.type[0], NSCD_EVENT_IMPACT);
    assert_true(fabs(log.after[0] + 0.5 * log.before[0]) < 1e-12 * fabs(log.before[0]));
    nscd_event_driven_destroy(ed);

    double friction = 0.75; /* memcpy: the block is shorter than the struct */
    memcpy((unsigned char *)old + offsetof(nscd_contact_desc, friction), &friction,
           sizeof friction);
    const size_t bad[] = {NSCD__CONTACT_DESC_SIZE_0_1 - 1, sizeof full + 1, 0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        set_size_field(old, bad[i]);
        assert_int_equal(nscd_system_set_contact(sys, 0, old), NSCD_ERR_STRUCT_SIZE);
        assert_true(slot->friction == 0.25);
    }
    free(old);
    nscd_system_destroy(sys);
}

/* Runs a fresh ball (h0 = 1 m, e = 0.5) to t_end with the given options and
 * stats; returns the status, the final state and the events seen. */
static nscd_status run_ball(const nscd_event_driven_options *o, nscd_event_driven_stats *stats,
                            double t_end, double *q, double *v) {
    ball_model b = {1.0, 9.81, 0.0, 0.0, 1};
    nscd_system *sys = NULL;
    assert_int_equal(make_ball(&b, 1.0, 0.5, &sys), NSCD_OK);
    nscd_event_driven *ed = NULL;
    nscd_status rc = nscd_event_driven_create(sys, o, &ed);
    if (rc == NSCD_OK) {
        rc = nscd_event_driven_advance(ed, t_end, stats);
        nscd_system_get_state(sys, NULL, q, v);
    }
    nscd_event_driven_destroy(ed);
    nscd_system_destroy(sys);
    return rc;
}

/* 0.1 options: what they hold is used (max_steps, on_event), the rest keeps
 * its defaults: bitwise the same run as the same options at today's size. */
static void event_driven_options_of_the_first_release(void **state) {
    (void)state;
    event_log log_full, log_old;
    memset(&log_full, 0, sizeof log_full);
    memset(&log_old, 0, sizeof log_old);
    nscd_event_driven_options full;
    nscd_event_driven_options_init(&full, sizeof full);
    full.on_event = log_event;
    full.on_event_user = &log_full;
    double q_full = 0.0, v_full = 0.0, q_old = 1.0, v_old = 1.0;
    assert_int_equal(run_ball(&full, NULL, 1.0, &q_full, &v_full), NSCD_OK);
    nscd_event_driven_options *old = old_copy(&full, NSCD__EVENT_DRIVEN_OPTIONS_SIZE_0_1);
    old->on_event_user = &log_old;
    assert_int_equal(run_ball(old, NULL, 1.0, &q_old, &v_old), NSCD_OK);
    assert_true(q_old == q_full && v_old == v_full);
    assert_true(log_old.count == log_full.count && log_old.count >= 2);
    assert_memory_equal(log_old.t, log_full.t, (size_t)log_old.count * sizeof(double));
    old->max_steps = 1; /* read from the old struct: the budget runs out */
    assert_int_equal(run_ball(old, NULL, 1.0, &q_old, &v_old), NSCD_ERR_MAX_STEPS);

    const size_t bad[] = {NSCD__EVENT_DRIVEN_OPTIONS_SIZE_0_1 - 1, sizeof full + 1, 0};
    ball_model b = {1.0, 9.81, 0.0, 0.0, 1};
    nscd_system *sys = make_test_ball(&b);
    nscd_event_driven *untouched = (nscd_event_driven *)&b; /* sentinel */
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        set_size_field(old, bad[i]);
        assert_int_equal(nscd_event_driven_create(sys, old, &untouched), NSCD_ERR_STRUCT_SIZE);
        assert_true(untouched == (nscd_event_driven *)&b);
    }
    nscd_system_destroy(sys);
    free(old);
}

/* Two coupled contacts (W SPD, diagonal blocks 2 I, normal-normal and
 * tangent-tangent coupling): a few Gauss-Seidel sweeps. */
static const double fc3d_W[36] = {2.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.3, 0.0,
                                  0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 2.0, 0.0, 0.0,
                                  0.0, 0.3, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0};
static const double fc3d_q[6] = {-1.0, 0.3, 0.1, -0.5, -0.2, 0.4};
static const double fc3d_mu[2] = {0.5, 0.3};

/* 0.1 fc3d options: read as given, the same solve as today's struct;
 * out-of-range sizes leave r, u and info unchanged. */
static void fc3d_options_of_the_first_release(void **state) {
    (void)state;
    nscd_fc3d_options full;
    nscd_fc3d_options_init(&full, sizeof full);
    full.max_iterations = 2; /* read from the old struct: not converged after 2 sweeps */
    full.tolerance = 1e-15;
    nscd_fc3d_options *old = old_copy(&full, NSCD__FC3D_OPTIONS_SIZE_0_1);
    double r_full[6] = {0}, u_full[6], r_old[6] = {0}, u_old[6];
    nscd_fc3d_info info_full = {.struct_size = sizeof info_full};
    nscd_fc3d_info info_old = {.struct_size = sizeof info_old};
    assert_int_equal(
        nscd_fc3d_solve_dense(2, fc3d_W, fc3d_q, fc3d_mu, &full, r_full, u_full, &info_full),
        NSCD_ERR_NOT_CONVERGED);
    assert_int_equal(
        nscd_fc3d_solve_dense(2, fc3d_W, fc3d_q, fc3d_mu, old, r_old, u_old, &info_old),
        NSCD_ERR_NOT_CONVERGED);
    assert_int_equal(info_old.iterations, 2);
    assert_memory_equal(r_old, r_full, sizeof r_old);
    assert_memory_equal(u_old, u_full, sizeof u_old);

    const size_t bad[] = {NSCD__FC3D_OPTIONS_SIZE_0_1 - 1, sizeof full + 1, 0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        set_size_field(old, bad[i]);
        double r[6] = {7, 7, 7, 7, 7, 7}, u[6] = {8, 8, 8, 8, 8, 8};
        nscd_fc3d_info info = {.struct_size = sizeof info, .iterations = 9};
        assert_int_equal(nscd_fc3d_solve_dense(2, fc3d_W, fc3d_q, fc3d_mu, old, r, u, &info),
                         NSCD_ERR_STRUCT_SIZE);
        assert_true(r[5] == 7.0 && u[0] == 8.0 && info.iterations == 9);
    }
    free(old);
}

/* 0.1 Coulomb options: read as given (no iterations allowed), the same
 * solution as today's struct; out-of-range sizes leave x unchanged. */
static void coulomb_options_of_the_first_release(void **state) {
    (void)state;
    const double A[9] = {2.0, 0.3, 0.1, 0.3, 1.5, 0.2, 0.1, 0.2, 1.8};
    const double b[3] = {1.0, 1.2, -0.4}; /* outside the cone: sliding */
    nscd_coulomb_options full;
    nscd_coulomb_options_init(&full, sizeof full);
    nscd_coulomb_options *old = old_copy(&full, NSCD__COULOMB_OPTIONS_SIZE_0_1);
    double x_full[3], x_old[3];
    nscd_coulomb_info info_full, info_old;
    assert_int_equal(nscd_coulomb_single_contact(A, b, 0.4, &full, x_full, &info_full), NSCD_OK);
    assert_int_equal(nscd_coulomb_single_contact(A, b, 0.4, old, x_old, &info_old), NSCD_OK);
    assert_memory_equal(x_old, x_full, sizeof x_old);
    assert_int_equal(info_old.iterations, info_full.iterations);
    assert_true(info_old.iterations > 0);
    old->max_iterations = 0; /* read from the old struct */
    old->enumeration_safeguard = 0;
    assert_int_equal(nscd_coulomb_single_contact(A, b, 0.4, old, x_old, NULL),
                     NSCD_ERR_NOT_CONVERGED);

    const size_t bad[] = {NSCD__COULOMB_OPTIONS_SIZE_0_1 - 1, sizeof full + 1, 0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        set_size_field(old, bad[i]);
        double x[3] = {7.0, 7.0, 7.0};
        assert_int_equal(nscd_coulomb_single_contact(A, b, 0.4, old, x, NULL),
                         NSCD_ERR_STRUCT_SIZE);
        assert_true(x[0] == 7.0 && x[1] == 7.0 && x[2] == 7.0);
    }
    free(old);
}

/* ------------------------------------------------------- the output structs */

/* The stats grew in 0.2: a 0.1 caller (60 bytes, or its sizeof 64 with the
 * padding) receives the 0.1 counters and not one byte beyond. */
static void stats_of_the_first_release(void **state) {
    (void)state;
    nscd_event_driven_stats full = {.struct_size = sizeof full};
    double q_full, v_full, q, v;
    assert_int_equal(run_ball(NULL, &full, 2.0, &q_full, &v_full), NSCD_OK);
    assert_true(full.steps_accepted > 0 && full.impacts > 5 && full.t == 2.0);
    assert_true(full.workspace_peak_bytes >= 0);
    const size_t sizes[] = {NSCD__EVENT_DRIVEN_STATS_SIZE_0_1,
                            offsetof(nscd_event_driven_stats, workspace_peak_bytes)};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        buffer b;
        fill_canary(&b);
        set_size_field(b.bytes, sizes[i]);
        nscd_event_driven_stats *old = (nscd_event_driven_stats *)b.bytes;
        assert_int_equal(run_ball(NULL, old, 2.0, &q, &v), NSCD_OK);
        assert_int_equal(old->struct_size, sizes[i]); /* kept: reusable */
        assert_true(old->steps_accepted == full.steps_accepted &&
                    old->steps_rejected == full.steps_rejected &&
                    old->rhs_evaluations == full.rhs_evaluations && old->impacts == full.impacts &&
                    old->events == full.events && old->t == full.t && old->stopped == full.stopped);
        assert_true(canary_from(&b, sizes[i]));
    }

    const size_t bad[] = {NSCD__EVENT_DRIVEN_STATS_SIZE_0_1 - 1, sizeof full + 1, 0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        buffer b;
        fill_canary(&b);
        set_size_field(b.bytes, bad[i]);
        q = v = 42.0;
        assert_int_equal(run_ball(NULL, (nscd_event_driven_stats *)b.bytes, 2.0, &q, &v),
                         NSCD_ERR_STRUCT_SIZE);
        assert_int_equal(size_field(b.bytes), bad[i]);
        assert_true(canary_from(&b, sizeof(uint32_t)));
        assert_true(q == 1.0 && v == 0.0); /* nothing integrated */
    }
}

/* 0.1 fc3d info (36 bytes, without its padding): the 0.1 fields, nothing beyond. */
static void fc3d_info_of_the_first_release(void **state) {
    (void)state;
    nscd_fc3d_info full = {.struct_size = sizeof full};
    double r[6] = {0}, u[6];
    assert_int_equal(nscd_fc3d_solve_dense(2, fc3d_W, fc3d_q, fc3d_mu, NULL, r, u, &full), NSCD_OK);
    assert_true(full.iterations > 1 && full.converged == 1);
    buffer b;
    fill_canary(&b);
    set_size_field(b.bytes, NSCD__FC3D_INFO_SIZE_0_1);
    nscd_fc3d_info *old = (nscd_fc3d_info *)b.bytes;
    memset(r, 0, sizeof r); /* the same warm start */
    assert_int_equal(nscd_fc3d_solve_dense(2, fc3d_W, fc3d_q, fc3d_mu, NULL, r, u, old), NSCD_OK);
    assert_int_equal(old->struct_size, NSCD__FC3D_INFO_SIZE_0_1);
    assert_true(old->iterations == full.iterations && old->merit == full.merit &&
                old->converged == full.converged &&
                old->merit_evaluations == full.merit_evaluations &&
                old->last_update == full.last_update && old->local_failures == full.local_failures);
    assert_true(canary_from(&b, NSCD__FC3D_INFO_SIZE_0_1));

    const size_t bad[] = {NSCD__FC3D_INFO_SIZE_0_1 - 1, sizeof full + 1};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        fill_canary(&b);
        set_size_field(b.bytes, bad[i]);
        double r2[6] = {7, 7, 7, 7, 7, 7};
        assert_int_equal(nscd_fc3d_solve_dense(2, fc3d_W, fc3d_q, fc3d_mu, NULL, r2, u, old),
                         NSCD_ERR_STRUCT_SIZE);
        assert_true(canary_from(&b, sizeof(uint32_t)) && r2[0] == 7.0);
    }
}

/* 0.1 Routh result: the whole result, nothing beyond; other sizes: unchanged. */
static void routh_result_of_the_first_release(void **state) {
    (void)state;
    const double G[4] = {1.0, 0.1, 0.1, 2.0}, u0[2] = {0.5, -1.0};
    double P[2], u1[2];
    assert_int_equal(nscd_routh_impact(G, u0, 0.3, 0.5, P, u1), NSCD_OK);
    buffer b;
    fill_canary(&b);
    set_size_field(b.bytes, NSCD__ROUTH_RESULT_SIZE_0_1);
    nscd_routh_result *old = (nscd_routh_result *)b.bytes;
    assert_int_equal(nscd_routh_impact_ex(G, u0, 0.3, 0.5, old), NSCD_OK);
    assert_int_equal(old->struct_size, NSCD__ROUTH_RESULT_SIZE_0_1);
    assert_true(old->impulse[0] == P[0] && old->impulse[1] == P[1] && P[1] > 0.0);
    assert_true(old->velocity[0] == u1[0] && old->velocity[1] == u1[1]);
    assert_true(old->energy_change < 0.0 && old->slip_before == 1);
    assert_true(canary_from(&b, NSCD__ROUTH_RESULT_SIZE_0_1));

    const size_t bad[] = {NSCD__ROUTH_RESULT_SIZE_0_1 - 1, sizeof *old + 1, 0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        fill_canary(&b);
        set_size_field(b.bytes, bad[i]);
        assert_int_equal(nscd_routh_impact_ex(G, u0, 0.3, 0.5, old), NSCD_ERR_STRUCT_SIZE);
        assert_true(canary_from(&b, sizeof(uint32_t)));
    }
}

/* 0.1 central-impact result: the whole result, nothing beyond. */
static void central_impact_result_of_the_first_release(void **state) {
    (void)state;
    nscd_contact_law *law = NULL;
    assert_int_equal(
        nscd_contact_law_create_kelvin_voigt(1e5, 20.0, NSCD_INDENTATION_TEMPORARY, NULL, &law),
        NSCD_OK);
    nscd_central_impact_result full = {.struct_size = sizeof full};
    assert_int_equal(nscd_central_impact(law, 1.0, 1.0, &full), NSCD_OK);
    assert_true(full.e_out > 0.0 && full.e_out < 1.0 && full.steps > 0);
    buffer b;
    fill_canary(&b);
    set_size_field(b.bytes, NSCD__CENTRAL_IMPACT_RESULT_SIZE_0_1);
    nscd_central_impact_result *old = (nscd_central_impact_result *)b.bytes;
    assert_int_equal(nscd_central_impact(law, 1.0, 1.0, old), NSCD_OK);
    assert_int_equal(old->struct_size, NSCD__CENTRAL_IMPACT_RESULT_SIZE_0_1);
    assert_true(old->e_out == full.e_out && old->duration == full.duration &&
                old->max_penetration == full.max_penetration &&
                old->residual_penetration == full.residual_penetration &&
                old->peak_force == full.peak_force && old->damping == full.damping &&
                old->steps == full.steps);
    assert_true(canary_from(&b, NSCD__CENTRAL_IMPACT_RESULT_SIZE_0_1));

    const size_t bad[] = {NSCD__CENTRAL_IMPACT_RESULT_SIZE_0_1 - 1, sizeof full + 1, 0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        fill_canary(&b);
        set_size_field(b.bytes, bad[i]);
        assert_int_equal(nscd_central_impact(law, 1.0, 1.0, old), NSCD_ERR_STRUCT_SIZE);
        assert_true(canary_from(&b, sizeof(uint32_t)));
    }
    nscd_contact_law_destroy(law);
}

/* ------------------------------------------ the struct the library hands out */

static int32_t record_info_size(void *user, const nscd_event_info *info) {
    uint32_t *size = user;
    *size = info->struct_size;
    return NSCD_EVENT_STOP;
}

/* Event info carries the library's sizeof (handlers compare before reading
 * an appended field), at least the 0.1 size. */
static void event_info_carries_the_library_size(void **state) {
    (void)state;
    uint32_t size = 0;
    nscd_event_driven_options o;
    nscd_event_driven_options_init(&o, sizeof o);
    o.on_event = record_info_size;
    o.on_event_user = &size;
    double q, v;
    assert_int_equal(run_ball(&o, NULL, 2.0, &q, &v), NSCD_OK);
    assert_int_equal(size, sizeof(nscd_event_info));
    assert_true(size >= NSCD__EVENT_INFO_SIZE_0_1);
}

/* -------------------------------------------- the shared helpers themselves */

/* A struct that grew: release 1 ends at `b`, release 2 appended `added`. */
typedef struct grown {
    uint32_t struct_size;
    int32_t a;
    double b;
    double added;
} grown;

#define GROWN_SIZE_1 NSCD__SIZE_THROUGH(grown, b)

/* nscd__struct_read keeps the defaults of the fields an older struct lacks;
 * nscd__struct_write fills only the older struct's fields; both refuse other
 * sizes and change nothing. */
static void helpers_default_and_write_only_the_prefix(void **state) {
    (void)state;
    grown source = {.struct_size = sizeof source, .a = 3, .b = 4.5, .added = 6.5};
    grown *old = old_copy(&source, GROWN_SIZE_1);
    grown dst = {.struct_size = 0, .a = -1, .b = -1.0, .added = 9.25}; /* the defaults */
    assert_int_equal(nscd__struct_read(&dst, sizeof dst, old, GROWN_SIZE_1), NSCD_OK);
    assert_true(dst.struct_size == sizeof dst && dst.a == 3 && dst.b == 4.5 && dst.added == 9.25);
    set_size_field(old, GROWN_SIZE_1 - 1);
    assert_int_equal(nscd__struct_read(&dst, sizeof dst, old, GROWN_SIZE_1), NSCD_ERR_STRUCT_SIZE);
    set_size_field(old, sizeof dst + 1);
    assert_int_equal(nscd__struct_read(&dst, sizeof dst, old, GROWN_SIZE_1), NSCD_ERR_STRUCT_SIZE);
    assert_true(dst.struct_size == sizeof dst && dst.a == 3 && dst.added == 9.25);
    free(old);

    buffer b;
    fill_canary(&b);
    set_size_field(b.bytes, GROWN_SIZE_1);
    assert_int_equal(nscd__struct_write(b.bytes, &source, sizeof source, GROWN_SIZE_1), NSCD_OK);
    grown got;
    memcpy(&got, b.bytes, GROWN_SIZE_1);
    assert_true(got.struct_size == GROWN_SIZE_1 && got.a == 3 && got.b == 4.5);
    assert_true(canary_from(&b, GROWN_SIZE_1));
    set_size_field(b.bytes, sizeof source + 1);
    assert_int_equal(nscd__struct_write(b.bytes, &source, sizeof source, GROWN_SIZE_1),
                     NSCD_ERR_STRUCT_SIZE);
    assert_true(canary_from(&b, GROWN_SIZE_1));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_release_sizes),
        cmocka_unit_test(init_writes_exactly_the_callers_size),
        cmocka_unit_test(system_desc_of_the_first_release),
        cmocka_unit_test(contact_desc_of_the_first_release),
        cmocka_unit_test(event_driven_options_of_the_first_release),
        cmocka_unit_test(fc3d_options_of_the_first_release),
        cmocka_unit_test(coulomb_options_of_the_first_release),
        cmocka_unit_test(stats_of_the_first_release),
        cmocka_unit_test(fc3d_info_of_the_first_release),
        cmocka_unit_test(routh_result_of_the_first_release),
        cmocka_unit_test(central_impact_result_of_the_first_release),
        cmocka_unit_test(event_info_carries_the_library_size),
        cmocka_unit_test(helpers_default_and_write_only_the_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
