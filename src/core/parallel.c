/* The parallel for of parallel.h and the built-in pool.
 *
 * The pool: threads - 1 pthreads (the calling thread is the last worker),
 * made by nscd__parallel_init (the world's creation) and joined by
 * nscd__parallel_free (its destruction); no global state, so two worlds on
 * two threads each have their own. A job is published under the mutex
 * (epoch + 1); a worker copies it under the mutex and counts itself active,
 * then takes blocks by an atomic counter; the caller takes blocks too, waits
 * until every block is done, and publishes the next job only once no worker
 * holds the last one (active == 0, checked under the mutex). Idle workers
 * spin a little on the epoch (a step publishes jobs back to back: the
 * colours of a sweep) and then sleep on the condition variable. */
#include "core/parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "core/memory.h"

/* Spins on the epoch before sleeping (each a relaxed load and a pause). */
#define SPIN_ROUNDS 2000

struct nscd__pool {
    int32_t n_threads; /* pthreads, threads - 1 */
    pthread_t *thread;
    pthread_mutex_t mutex;
    pthread_cond_t wake;
    atomic_uint_fast64_t epoch; /* written under the mutex */
    bool stop;                  /* under the mutex */
    int32_t sleeping;           /* under the mutex */
    /* the job (under the mutex; read-only while anyone is active) */
    nscd__task_fn *task;
    void *ctx;
    int32_t count, block, n_blocks;
    atomic_int_fast32_t next, done, active;
};

typedef struct worker_arg {
    nscd__pool *pool;
    int32_t index;
} worker_arg;

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Takes and runs blocks of the job until none is left. */
static void run_blocks(nscd__pool *p, nscd__task_fn *task, void *ctx, int32_t count, int32_t block,
                       int32_t n_blocks, int32_t worker) {
    for (;;) {
        int32_t b = (int32_t)atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (b >= n_blocks) {
            return;
        }
        int32_t begin = b * block;
        int32_t end = count - begin > block ? begin + block : count;
        task(begin, end, worker, ctx);
        atomic_fetch_add_explicit(&p->done, 1, memory_order_release);
    }
}

static void *worker_main(void *argument) {
    worker_arg *arg = argument;
    nscd__pool *p = arg->pool;
    int32_t index = arg->index;
    uint_fast64_t seen = 0;
    for (;;) {
        for (int spin = 0; spin < SPIN_ROUNDS; ++spin) {
            if (atomic_load_explicit(&p->epoch, memory_order_relaxed) != seen) {
                break;
            }
            cpu_relax();
        }
        pthread_mutex_lock(&p->mutex);
        while (!p->stop && atomic_load_explicit(&p->epoch, memory_order_relaxed) == seen) {
            p->sleeping++;
            pthread_cond_wait(&p->wake, &p->mutex);
            p->sleeping--;
        }
        if (p->stop) {
            pthread_mutex_unlock(&p->mutex);
            return NULL;
        }
        seen = atomic_load_explicit(&p->epoch, memory_order_relaxed);
        nscd__task_fn *task = p->task;
        void *ctx = p->ctx;
        int32_t count = p->count, block = p->block, n_blocks = p->n_blocks;
        atomic_fetch_add_explicit(&p->active, 1, memory_order_relaxed);
        pthread_mutex_unlock(&p->mutex);
        run_blocks(p, task, ctx, count, block, n_blocks, index);
        atomic_fetch_sub_explicit(&p->active, 1, memory_order_release);
    }
}

static void pool_run(nscd__pool *p, int32_t count, int32_t min_range, nscd__task_fn *task,
                     void *ctx) {
    int32_t workers = p->n_threads + 1;
    /* about 4 blocks per worker for balance, never below min_range */
    int32_t block = (count + 4 * workers - 1) / (4 * workers);
    block = block < min_range ? min_range : block;
    block = block < 1 ? 1 : block;
    int32_t n_blocks = (int32_t)(((int64_t)count + block - 1) / block);
    for (;;) { /* no worker may still hold the last job */
        pthread_mutex_lock(&p->mutex);
        if (atomic_load_explicit(&p->active, memory_order_acquire) == 0) {
            break;
        }
        pthread_mutex_unlock(&p->mutex);
        cpu_relax();
    }
    p->task = task;
    p->ctx = ctx;
    p->count = count;
    p->block = block;
    p->n_blocks = n_blocks;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    atomic_store_explicit(&p->done, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&p->epoch, 1, memory_order_relaxed);
    if (p->sleeping > 0) {
        pthread_cond_broadcast(&p->wake);
    }
    pthread_mutex_unlock(&p->mutex);
    run_blocks(p, task, ctx, count, block, n_blocks, p->n_threads);
    int spins = 0;
    while (atomic_load_explicit(&p->done, memory_order_acquire) < n_blocks) {
        if (++spins > SPIN_ROUNDS) {
            sched_yield();
        } else {
            cpu_relax();
        }
    }
}

/* The pool and its workers' arguments, one block. */
typedef struct pool_block {
    nscd__pool pool; /* first: the block's address */
    worker_arg *args;
} pool_block;

/* Stops and joins the first `started` workers and frees the block. */
static void pool_free(pool_block *b, const nscd_allocator *al, int32_t started) {
    nscd__pool *p = &b->pool;
    pthread_mutex_lock(&p->mutex);
    p->stop = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mutex);
    for (int32_t i = 0; i < started; ++i) {
        pthread_join(p->thread[i], NULL);
    }
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->mutex);
    nscd__free(al, b->args, (size_t)p->n_threads * sizeof *b->args);
    nscd__free(al, p->thread, (size_t)p->n_threads * sizeof *p->thread);
    nscd__free(al, b, sizeof *b);
}

nscd_status nscd__parallel_init(nscd__parallel *par, const nscd_allocator *al, int32_t threads,
                                nscd__enqueue_fn *enqueue, nscd__finish_fn *finish, void *user) {
    memset(par, 0, sizeof *par);
    par->threads = threads;
    par->enqueue = enqueue;
    par->finish = finish;
    par->user = user;
    if (threads < 2 || enqueue != NULL) {
        return NSCD_OK;
    }
    pool_block *b = nscd__alloc(al, sizeof *b);
    if (b == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    nscd__pool *p = &b->pool;
    p->n_threads = threads - 1;
    p->thread = nscd__alloc_array(al, (size_t)p->n_threads, sizeof *p->thread);
    b->args = nscd__alloc_array(al, (size_t)p->n_threads, sizeof *b->args);
    if (p->thread == NULL || b->args == NULL) {
        nscd__free(al, p->thread, (size_t)p->n_threads * sizeof *p->thread);
        nscd__free(al, b->args, (size_t)p->n_threads * sizeof *b->args);
        nscd__free(al, b, sizeof *b);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    pthread_mutex_init(&p->mutex, NULL);
    pthread_cond_init(&p->wake, NULL);
    atomic_init(&p->epoch, 0);
    atomic_init(&p->next, 0);
    atomic_init(&p->done, 0);
    atomic_init(&p->active, 0);
    for (int32_t i = 0; i < p->n_threads; ++i) {
        b->args[i].pool = p;
        b->args[i].index = i;
        if (pthread_create(&p->thread[i], NULL, worker_main, &b->args[i]) != 0) {
            pool_free(b, al, i);
            return NSCD_ERR_STATE;
        }
    }
    par->pool = p;
    return NSCD_OK;
}

void nscd__parallel_free(nscd__parallel *par, const nscd_allocator *al) {
    if (par->pool != NULL) {
        pool_block *b = (pool_block *)(void *)par->pool;
        pool_free(b, al, b->pool.n_threads);
        par->pool = NULL;
    }
}

void nscd__parallel_for(const nscd__parallel *par, int32_t count, int32_t min_range,
                        nscd__task_fn *task, void *ctx) {
    if (count <= 0) {
        return;
    }
    min_range = min_range < 1 ? 1 : min_range;
    if (par == NULL || par->threads < 2 || count <= min_range) {
        task(0, count, 0, ctx);
        return;
    }
    if (par->enqueue != NULL) {
        void *handle = par->enqueue(task, count, min_range, ctx, par->user);
        if (handle != NULL) {
            par->finish(handle, par->user);
        }
        return;
    }
    pool_run(par->pool, count, min_range, task, ctx);
}
