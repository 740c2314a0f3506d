/* Threads inside nscd_world_step (docs/world.md, "Threads"): a mixed scene
 * (spheres, boxes and capsules of two frictions in a box) stepped with
 * threads = 1, 2, 3, with a host scheduler that cuts and orders the ranges
 * its own way, and with one that runs every task inline, ends in the same
 * bits (memcmp of positions, orientations, velocities and the contact
 * impulses); two threaded worlds on two threads at once end as each alone;
 * threads = 0 keeps the serial sweep; bad settings are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "collision/radix_sort.h"
#include "core/memory.h"
#include "core/parallel.h"
#include "nscd/world.h"
#include "nscd/world_checkpoint.h"
#include "world_bodies.h"

/* Enough bodies and contacts that every stage is cut into several tasks
 * (colours of more than one chunk of 256 contacts). */
#define FULL_STEPS 80
/* under valgrind (NSCD_TEST_SMALL): fewer steps, the same pile */
static int32_t steps(void) { return getenv("NSCD_TEST_SMALL") != NULL ? 15 : FULL_STEPS; }
#define STEPS steps()
#define SIDE 12
#define LAYERS 8
#define HALF (0.045 * SIDE)

typedef struct state {
    int32_t n, contacts;
    double *x, *q, *v, *w, *impulse;
} state;

static void free_state(state *s) {
    free(s->x), free(s->q), free(s->v), free(s->w), free(s->impulse);
    memset(s, 0, sizeof *s);
}

static uint64_t lcg(uint64_t *seed) {
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    return *seed >> 11;
}

static double uniform(uint64_t *seed) { return (double)lcg(seed) / 9007199254740992.0; }

/* A floor, four walls (static boxes), SIDE x SIDE x LAYERS bodies: spheres, boxes and
 * capsules, every third of friction 0, jittered and thrown. */
static void build(nscd_world *w) {
    int32_t slick = 0;
    assert_int_equal(nscd_world_add_material(w, 0.0, &slick), NSCD_OK);
    nscd_body_desc b;
    nscd_shape_desc s;
    nscd_body_id id;
    const double h = HALF + 0.05; /* the walls' centres */
    double walls[5][6] = {{0, 0, -0.05, h, h, 0.05},
                          {-h, 0, 0.6, 0.05, h, 0.6},
                          {h, 0, 0.6, 0.05, h, 0.6},
                          {0, -h, 0.6, h, 0.05, 0.6},
                          {0, h, 0.6, h, 0.05, 0.6}};
    for (int k = 0; k < 5; ++k) { /* the floor a half-space, the walls boxes */
        if (k == 0) {
            world_floor(w);
            continue;
        }
        nscd_body_desc_init(&b, sizeof b);
        b.type = NSCD_BODY_STATIC;
        memcpy(b.position, walls[k], 3 * sizeof(double));
        nscd_shape_desc_init(&s, sizeof s);
        s.type = NSCD_SHAPE_BOX;
        memcpy(s.half_extents, walls[k] + 3, 3 * sizeof(double));
        assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
    }
    uint64_t seed = 29;
    int32_t i = 0;
    for (int z = 0; z < LAYERS; ++z) {
        for (int y = 0; y < SIDE; ++y) {
            for (int x = 0; x < SIDE; ++x, ++i) {
                nscd_body_desc_init(&b, sizeof b);
                b.position[0] = -HALF + 0.045 + 0.09 * x + 0.01 * uniform(&seed);
                b.position[1] = -HALF + 0.045 + 0.09 * y + 0.01 * uniform(&seed);
                b.position[2] = 0.05 + 0.09 * z;
                for (int k = 0; k < 3; ++k) {
                    b.velocity[k] = 0.5 * (uniform(&seed) - 0.5);
                    b.angular_velocity[k] = 2.0 * (uniform(&seed) - 0.5);
                }
                b.density = 1000.0;
                nscd_shape_desc_init(&s, sizeof s);
                s.material = i % 3 == 0 ? slick : 0;
                if (i % 4 == 1) {
                    s.type = NSCD_SHAPE_BOX;
                    s.half_extents[0] = 0.04, s.half_extents[1] = 0.03, s.half_extents[2] = 0.035;
                } else if (i % 7 == 3) {
                    s.type = NSCD_SHAPE_CAPSULE;
                    s.radius = 0.025, s.half_height = 0.025;
                } else {
                    s.type = NSCD_SHAPE_SPHERE;
                    s.radius = 0.04 + 0.01 * uniform(&seed);
                }
                assert_int_equal(nscd_world_add_body(w, &b, &s, 1, &id), NSCD_OK);
            }
        }
    }
}

static state capture(const nscd_world *w) {
    state s;
    memset(&s, 0, sizeof s);
    assert_int_equal(nscd_world_get_bodies(w, 0, &s.n, NULL, NULL, NULL, NULL, NULL, NULL),
                     NSCD_ERR_BUFFER_TOO_SMALL);
    s.x = calloc(3 * (size_t)s.n, sizeof(double));
    s.q = calloc(4 * (size_t)s.n, sizeof(double));
    s.v = calloc(3 * (size_t)s.n, sizeof(double));
    s.w = calloc(3 * (size_t)s.n, sizeof(double));
    assert_int_equal(nscd_world_get_bodies(w, s.n, &s.n, NULL, NULL, s.x, s.q, s.v, s.w), NSCD_OK);
    nscd_world_get_contacts(w, 0, &s.contacts, NULL, NULL, NULL, NULL, NULL, NULL);
    s.impulse = calloc(3 * (size_t)s.contacts + 1, sizeof(double));
    assert_int_equal(nscd_world_get_contacts(w, s.contacts, &s.contacts, NULL, NULL, NULL, NULL,
                                             NULL, s.impulse),
                     NSCD_OK);
    return s;
}

static void assert_same(const state *a, const state *b) {
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->contacts, b->contacts);
    size_t n = (size_t)a->n;
    assert_memory_equal(a->x, b->x, 3 * n * sizeof(double));
    assert_memory_equal(a->q, b->q, 4 * n * sizeof(double));
    assert_memory_equal(a->v, b->v, 3 * n * sizeof(double));
    assert_memory_equal(a->w, b->w, 3 * n * sizeof(double));
    assert_memory_equal(a->impulse, b->impulse, 3 * (size_t)a->contacts * sizeof(double));
}

/* A host scheduler: runs the ranges of min_range items from the last to
 * the first, each on "worker" (range index mod threads), inline. */
typedef struct host {
    int32_t threads;
    int tasks, inline_only;
} host;

static void *reverse_enqueue(nscd_task_fn task, int32_t count, int32_t min_range, void *ctx,
                             void *user) {
    host *h = user;
    h->tasks++;
    if (h->inline_only) {
        task(0, count, 0, ctx);
        return NULL;
    }
    int32_t ranges = (count + min_range - 1) / min_range;
    for (int32_t r = ranges - 1; r >= 0; --r) {
        int32_t begin = r * min_range, end = begin + min_range < count ? begin + min_range : count;
        task(begin, end, r % h->threads, ctx);
    }
    return h; /* any non-NULL handle */
}

static void reverse_finish(void *handle, void *user) { assert_ptr_equal(handle, user); }

/* A host scheduler with real threads: each task runs on two pthreads of its
 * own, taking ranges of min_range items from an atomic counter; finish
 * joins them (a handle per task, at most one task in flight). */
typedef struct pthread_task {
    nscd_task_fn task;
    void *ctx;
    int32_t count, min_range;
    int32_t next; /* under the mutex */
    pthread_mutex_t mutex;
    pthread_t thread[2];
} pthread_task;

typedef struct pthread_worker {
    pthread_task *t;
    int32_t index;
} pthread_worker;

static pthread_worker workers[2];

static void *pthread_worker_main(void *arg) {
    pthread_worker *wk = arg;
    pthread_task *t = wk->t;
    for (;;) {
        pthread_mutex_lock(&t->mutex);
        int32_t begin = t->next;
        t->next += t->min_range;
        pthread_mutex_unlock(&t->mutex);
        if (begin >= t->count) {
            return NULL;
        }
        int32_t end = begin + t->min_range < t->count ? begin + t->min_range : t->count;
        t->task(begin, end, wk->index, t->ctx);
    }
}

static void *pthread_enqueue(nscd_task_fn task, int32_t count, int32_t min_range, void *ctx,
                             void *user) {
    pthread_task *t = user;
    t->task = task, t->ctx = ctx, t->count = count, t->min_range = min_range, t->next = 0;
    pthread_mutex_init(&t->mutex, NULL);
    for (int k = 0; k < 2; ++k) {
        workers[k].t = t, workers[k].index = k;
        assert_int_equal(pthread_create(&t->thread[k], NULL, pthread_worker_main, &workers[k]), 0);
    }
    return t;
}

static void pthread_finish(void *handle, void *user) {
    pthread_task *t = handle;
    assert_ptr_equal(handle, user);
    for (int k = 0; k < 2; ++k) {
        pthread_join(t->thread[k], NULL);
    }
    pthread_mutex_destroy(&t->mutex);
}

/* Rolling and spinning resistance on both materials of the scene (the
 * angular blocks in the colour sweep): set by test_threads_with_resistance. */
static int with_resistance;

static nscd_world *make(int32_t threads, host *h) {
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    d.threads = threads;
    if (h != NULL) {
        d.enqueue_task = reverse_enqueue;
        d.finish_task = reverse_finish;
        d.task_user = h;
    }
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    build(w);
    if (with_resistance) {
        assert_int_equal(nscd_world_set_material_resistance(w, 0, 1e-3, 5e-4), NSCD_OK);
        assert_int_equal(nscd_world_set_material_resistance(w, 1, 2e-4, 0.0), NSCD_OK);
    }
    return w;
}

static state run(int32_t threads, host *h) {
    nscd_world *w = make(threads, h);
    for (int k = 0; k < STEPS; ++k) {
        assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
    }
    state s = capture(w);
    nscd_world_destroy(w);
    return s;
}

/* Threads 2 and 3, then a host scheduler with 3, end in the bits of `one`
 * (threads 1); the host's tasks are counted. */
static void assert_thread_counts_agree(const state *one) {
    for (int32_t t = 2; t <= 3; ++t) {
        state other = run(t, NULL);
        assert_same(one, &other);
        free_state(&other);
    }
    host h = {3, 0, 0};
    state hosted = run(3, &h);
    assert_true(h.tasks > STEPS); /* the stages went through the scheduler */
    assert_same(one, &hosted);
    free_state(&hosted);
}

static void test_host_threads(void **unused) {
    (void)unused;
    state one = run(1, NULL);
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    pthread_task t;
    d.threads = 2;
    d.enqueue_task = pthread_enqueue;
    d.finish_task = pthread_finish;
    d.task_user = &t;
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    build(w);
    for (int k = 0; k < STEPS; ++k) {
        assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
    }
    state hosted = capture(w);
    nscd_world_destroy(w);
    assert_same(&one, &hosted);
    free_state(&one), free_state(&hosted);
}

static void test_threads_bitwise(void **unused) {
    (void)unused;
    state one = run(1, NULL);
    print_message("%d bodies, %d contacts\n", one.n, one.contacts);
    if (STEPS == FULL_STEPS) {
        assert_true(one.contacts > 2000); /* a pile, not a free fall */
    }
    assert_thread_counts_agree(&one);
    host inl = {2, 0, 1};
    state inlined = run(2, &inl);
    assert_same(&one, &inlined);
    free_state(&inlined);
    /* the pile is sane: every body inside the box, none fast */
    for (int32_t i = 5; i < one.n; ++i) { /* after the walls */
        double speed = sqrt(one.v[3 * i] * one.v[3 * i] + one.v[3 * i + 1] * one.v[3 * i + 1] +
                            one.v[3 * i + 2] * one.v[3 * i + 2]);
        assert_true(speed < 2.0);
        assert_true(fabs(one.x[3 * i]) < HALF + 0.01 && fabs(one.x[3 * i + 1]) < HALF + 0.01);
        assert_true(one.x[3 * i + 2] > -0.01);
    }
    free_state(&one);
}

/* threads = 0 is the serial sweep, which the colour order changes: the two
 * differ (so the test above is not vacuous), and 0 gives what a desc of the
 * size before `threads` gives. */
static void test_threads_zero_is_serial(void **unused) {
    (void)unused;
    state zero = run(0, NULL);
    state one = run(1, NULL);
    assert_int_equal(zero.n, one.n);
    assert_true(memcmp(zero.v, one.v, 3 * (size_t)zero.n * sizeof(double)) != 0);
    nscd_world_desc d;
    nscd_world_desc_init(&d, offsetof(nscd_world_desc, threads));
    d.struct_size = (uint32_t)offsetof(nscd_world_desc, threads);
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    build(w);
    for (int k = 0; k < STEPS; ++k) {
        assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
    }
    state old = capture(w);
    nscd_world_destroy(w);
    assert_same(&zero, &old);
    free_state(&zero), free_state(&one), free_state(&old);
}

typedef struct concurrent {
    int32_t threads;
    state result;
} concurrent;

static void *run_thread(void *arg) {
    concurrent *c = arg;
    c->result = run(c->threads, NULL);
    return NULL;
}

static void test_two_worlds_two_threads(void **unused) {
    (void)unused;
    state alone = run(2, NULL);
    concurrent c[2] = {{2, {0}}, {3, {0}}};
    pthread_t t[2];
    for (int k = 0; k < 2; ++k) {
        assert_int_equal(pthread_create(&t[k], NULL, run_thread, &c[k]), 0);
    }
    for (int k = 0; k < 2; ++k) {
        pthread_join(t[k], NULL);
        assert_same(&alone, &c[k].result);
        free_state(&c[k].result);
    }
    free_state(&alone);
}

/* A threaded run saved halfway and loaded into a world of another thread
 * count (the loading world's threads are kept) ends as the uninterrupted one. */
static void test_checkpoint_across_thread_counts(void **unused) {
    (void)unused;
    int32_t half = STEPS / 2;
    state whole = run(2, NULL);
    nscd_world *w = make(2, NULL);
    for (int k = 0; k < half; ++k) {
        assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
    }
    size_t size = 0;
    assert_int_equal(nscd_world_save_to_buffer(w, NULL, 0, NULL, 0, &size),
                     NSCD_ERR_BUFFER_TOO_SMALL);
    void *buffer = malloc(size);
    assert_int_equal(nscd_world_save_to_buffer(w, NULL, 0, buffer, size, &size), NSCD_OK);
    nscd_world_destroy(w);
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    d.threads = 3;
    nscd_world *r = NULL;
    assert_int_equal(nscd_world_create(&d, &r), NSCD_OK);
    assert_int_equal(nscd_world_load_from_buffer(r, buffer, size, NULL, 0, NULL), NSCD_OK);
    free(buffer);
    for (int k = half; k < STEPS; ++k) {
        assert_int_equal(nscd_world_step(r, NULL), NSCD_OK);
    }
    state resumed = capture(r);
    nscd_world_destroy(r);
    assert_same(&whole, &resumed);
    free_state(&whole), free_state(&resumed);
}

static void no_task(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)begin, (void)end, (void)worker, (void)ctx;
}

static void test_bad_settings(void **unused) {
    (void)unused;
    nscd_world_desc d;
    nscd_world *w = NULL;
    nscd_world_desc_init(&d, sizeof d);
    assert_int_equal(d.threads, 0);
    assert_null(d.enqueue_task);
    d.threads = -1;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_ERR_OUT_OF_RANGE);
    d.threads = 257;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_ERR_OUT_OF_RANGE);
    d.threads = 2;
    d.enqueue_task = reverse_enqueue; /* without finish_task */
    assert_int_equal(nscd_world_create(&d, &w), NSCD_ERR_INVALID_ARGUMENT);
    d.finish_task = reverse_finish;
    d.threads = 0; /* callbacks need workers */
    assert_int_equal(nscd_world_create(&d, &w), NSCD_ERR_INVALID_ARGUMENT);
    assert_null(w);
    (void)no_task;
    /* a pool made and joined with nothing stepped */
    nscd_world_desc_init(&d, sizeof d);
    d.threads = 4;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    nscd_world_destroy(w);
}

/* The threaded radix sort (the broad phase's cells, the shapes' ranks, the
 * pairs) gives the serial sort's bits, equal keys in input order. */
static void test_radix_sort_parallel(void **unused) {
    (void)unused;
    const int32_t n = 100003;
    uint64_t *k1 = malloc(n * sizeof *k1), *k2 = malloc(n * sizeof *k2);
    uint64_t *sk = malloc(n * sizeof *sk);
    int32_t *v1 = malloc(n * sizeof *v1), *v2 = malloc(n * sizeof *v2);
    int32_t *sv = malloc(n * sizeof *sv);
    void *scratch = malloc(nscd__radix_scratch_bytes());
    uint64_t seed = 7;
    for (int32_t i = 0; i < n; ++i) {
        k1[i] = k2[i] = (lcg(&seed) % 5000) << 20 | (lcg(&seed) & 0x3); /* many equal keys */
        v1[i] = v2[i] = i;
    }
    nscd_allocator none = {0};
    nscd_allocator al = nscd__allocator_resolve(&none);
    nscd__parallel par;
    assert_int_equal(nscd__parallel_init(&par, &al, 3, NULL, NULL, NULL), NSCD_OK);
    nscd__radix_sort(k1, v1, sk, sv, n);
    nscd__radix_sort_parallel(&par, scratch, k2, v2, sk, sv, n);
    assert_memory_equal(k1, k2, n * sizeof *k1);
    assert_memory_equal(v1, v2, n * sizeof *v1);
    for (int32_t i = 1; i < n; ++i) {
        assert_true(k1[i - 1] < k1[i] || (k1[i - 1] == k1[i] && v1[i - 1] < v1[i]));
    }
    nscd__parallel_free(&par, &al);
    free(k1), free(k2), free(sk), free(v1), free(v2), free(sv), free(scratch);
}

/* The angular blocks of rolling and spinning resistance in the colour
 * sweep: threads 1, 2, 3 and a host's scheduler end in the same bits, which
 * differ from those without resistance; the Jacobi blend (threads 0, four
 * groups) keeps the pile sane. */
static void test_threads_with_resistance(void **unused) {
    (void)unused;
    state plain = run(1, NULL);
    with_resistance = 1;
    state one = run(1, NULL);
    assert_int_equal(one.n, plain.n);
    assert_memory_not_equal(one.w, plain.w, 3 * (size_t)one.n * sizeof(double));
    assert_thread_counts_agree(&one);
    nscd_world_desc d;
    nscd_world_desc_init(&d, sizeof d);
    d.jacobi_groups = 4;
    nscd_world *w = NULL;
    assert_int_equal(nscd_world_create(&d, &w), NSCD_OK);
    build(w);
    assert_int_equal(nscd_world_set_material_resistance(w, 0, 1e-3, 5e-4), NSCD_OK);
    for (int k = 0; k < STEPS; ++k) {
        assert_int_equal(nscd_world_step(w, NULL), NSCD_OK);
    }
    state jacobi = capture(w);
    nscd_world_destroy(w);
    for (int32_t i = 5; i < jacobi.n; ++i) {
        const double *v = jacobi.v + 3 * i;
        assert_true(sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) < 2.0);
    }
    with_resistance = 0;
    free_state(&jacobi), free_state(&one), free_state(&plain);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_bitwise),
        cmocka_unit_test(test_threads_zero_is_serial),
        cmocka_unit_test(test_two_worlds_two_threads),
        cmocka_unit_test(test_bad_settings),
        cmocka_unit_test(test_radix_sort_parallel),
        cmocka_unit_test(test_host_threads),
        cmocka_unit_test(test_checkpoint_across_thread_counts),
        cmocka_unit_test(test_threads_with_resistance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
