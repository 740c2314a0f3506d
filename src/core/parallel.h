/* Threads inside one step (docs/world.md, "Threads"): a parallel for over
 * item ranges, run by the host's task callbacks (nscd_world_desc's
 * enqueue_task / finish_task) or by the built-in pool of pthreads.
 *
 * Determinism: a task may be cut into ranges in any way, run on any
 * worker, in any order. Everything run through nscd__parallel_for writes
 * per item (or per fixed chunk of items, NSCD__CHUNK) and never depends on
 * the ranges or the worker: reductions are per-chunk partials combined in
 * chunk order by the caller, so the results are the same bits for every
 * thread count. */
#ifndef NSCD_CORE_PARALLEL_H
#define NSCD_CORE_PARALLEL_H

#include <stdint.h>

#include "nscd/host.h"
#include "nscd/status.h"

/* Items of one chunk of a reduction (a fixed rule of the item count, never of
 * the thread count). */
#define NSCD__CHUNK 256

typedef void nscd__task_fn(int32_t begin, int32_t end, int32_t worker, void *ctx);
typedef void *nscd__enqueue_fn(nscd__task_fn *task, int32_t item_count, int32_t min_range,
                               void *task_ctx, void *user);
typedef void nscd__finish_fn(void *handle, void *user);

typedef struct nscd__pool nscd__pool;

typedef struct nscd__parallel {
    int32_t threads; /* 0: no threading (the serial pipeline); >= 1: workers */
    nscd__enqueue_fn *enqueue;
    nscd__finish_fn *finish;
    void *user;
    nscd__pool *pool; /* the built-in pool (threads >= 2 and no callbacks) */
} nscd__parallel;

/* threads >= 0; enqueue and finish both or neither. With callbacks no pool
 * is made. NSCD_ERR_OUT_OF_MEMORY (or a pthread failure: NSCD_ERR_STATE),
 * nothing left, on failure. */
nscd_status nscd__parallel_init(nscd__parallel *p, const nscd_allocator *al, int32_t threads,
                                nscd__enqueue_fn *enqueue, nscd__finish_fn *finish, void *user);
/* Joins and frees the pool. */
void nscd__parallel_free(nscd__parallel *p, const nscd_allocator *al);
/* Runs task over [0, count) cut in ranges of at least min_range items (but
 * the last); returns when every item ran. Inline when there is one worker. */
void nscd__parallel_for(const nscd__parallel *p, int32_t count, int32_t min_range,
                        nscd__task_fn *task, void *ctx);
/* Chunks of NSCD__CHUNK items covering n items. */
static inline int32_t nscd__chunks(int32_t n) { return (n + NSCD__CHUNK - 1) / NSCD__CHUNK; }

#endif
