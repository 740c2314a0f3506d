/* Sleeping islands of the rigid-body world (nscd_world_desc::sleep;
 * docs/world.md, "Sleeping").
 *
 * Per dynamic body a timer grows by dt at the end of every step whose
 * velocities leave |v| and |ω| r (r its bounding radius) both below the
 * sleep speed, and restarts at 0 otherwise. The islands are the connected
 * components of the awake dynamic bodies through the step's contacts
 * (static and kinematic bodies do not connect them); bodies with a joint
 * never sleep, and so neither does their island. An island whose every
 * body has a timer of at least sleep_time falls asleep: its velocities
 * become exactly zero and its bodies get the island's label (a serial never
 * reused). A sleeping body:
 *   - is fixed to the collision detection (its pairs with static, kinematic
 *     at rest and sleeping bodies are not even looked at),
 *   - gets no gravity, no load, no integration: its pose stays bitwise,
 *   - has no contact in the solve; the records of its contacts (impulses in
 *     the world frame) are carried unchanged from step to step, so that a
 *     woken island starts warm and nscd_world_get_contacts() still lists them.
 * An island wakes, all of it, timers restarted, when a moving body (awake
 * dynamic, or kinematic with a velocity) has a contact point with one of
 * its bodies at the start of a step (the detection then runs again, the
 * woken bodies being no longer fixed), and when the API changes one of its
 * bodies or what they touch (world_body.c, world.c, world_joint.c).
 *
 * Everything here is serial and in dense order: the threaded step gives
 * the same bits for any number of threads. */
#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "world/world_impl.h"

/* ------------------------------------------------------------ waking */

static void wake_label(nscd_world *w, uint64_t label) {
    for (int32_t i = 0; i < w->n_bodies; ++i) {
        if (w->sleep_island[i] == label) {
            w->sleep_island[i] = 0;
            w->sleep_timer[i] = 0.0;
            w->n_sleeping--;
        }
    }
}

void nscd__world_wake_island(nscd_world *w, int32_t i) {
    if (w->type[i] != NSCD_BODY_DYNAMIC) {
        return;
    }
    if (w->sleep_island[i] != 0) {
        wake_label(w, w->sleep_island[i]);
    }
    w->sleep_timer[i] = 0.0;
}

void nscd__world_wake_all(nscd_world *w) {
    if (w->n_sleeping == 0) {
        return;
    }
    for (int32_t i = 0; i < w->n_bodies; ++i) {
        if (w->sleep_island[i] != 0) {
            w->sleep_island[i] = 0;
            w->sleep_timer[i] = 0.0;
        }
    }
    w->n_sleeping = 0;
}

void nscd__world_wake_touching(nscd_world *w, int32_t i) {
    if (w->n_sleeping == 0) {
        return;
    }
    nscd__world_wake_island(w, i);
    nscd_body_id id = w->id[i];
    for (int32_t j = 0; j < w->n_records && w->n_sleeping > 0; ++j) {
        const nscd__world_record *r = &w->records[j];
        nscd_body_id other = r->id_a == id ? r->id_b : r->id_b == id ? r->id_a : NSCD_BODY_NULL;
        int32_t k = other != NSCD_BODY_NULL ? nscd__world_lookup(w, other) : -1;
        if (k >= 0) {
            nscd__world_wake_island(w, k);
        }
    }
}

/* Whether dense body i moves in this step: awake dynamic, or kinematic
 * with a velocity. */
bool nscd__world_sleep_mover(const nscd_world *w, int32_t i) {
    if (w->type[i] == NSCD_BODY_DYNAMIC) {
        return w->sleep_island[i] == 0;
    }
    if (w->type[i] != NSCD_BODY_KINEMATIC) {
        return false;
    }
    const double *v = w->velocity + 3 * (size_t)i, *om = w->omega + 3 * (size_t)i;
    return v[0] != 0.0 || v[1] != 0.0 || v[2] != 0.0 || om[0] != 0.0 || om[1] != 0.0 ||
           om[2] != 0.0;
}

nscd_status nscd__world_sleep_wake_touched(nscd_world *w) {
    /* each pass wakes at least one island, or ends */
    while (w->n_sleeping > 0) {
        bool woke = false;
        const nscd__collision *col = &w->collision;
        for (int32_t j = 0; j < col->n_contacts; ++j) {
            const nscd__contact_point *p = &col->contacts[j];
            int32_t a = w->shapes[p->shape_a].body, b = w->shapes[p->shape_b].body;
            if (w->sleep_island[a] != 0 && nscd__world_sleep_mover(w, b)) {
                wake_label(w, w->sleep_island[a]);
                woke = true;
            } else if (w->sleep_island[b] != 0 && nscd__world_sleep_mover(w, a)) {
                wake_label(w, w->sleep_island[b]);
                woke = true;
            }
        }
        if (!woke) {
            break;
        }
        /* the woken bodies' own contacts (they were fixed to the detection) */
        w->speculative = true;
        nscd_status rc = nscd__world_detect_contacts(w);
        w->speculative = false;
        if (rc != NSCD_OK) {
            return rc;
        }
    }
    return NSCD_OK;
}

/* ------------------------------------------------------------ records */

/* Whether a record belongs to sleeping bodies only (with static or
 * kinematic ones at rest): carried unsolved. Records of removed bodies go. */
static bool carried(const nscd_world *w, const nscd__world_record *r) {
    int32_t a = nscd__world_lookup(w, r->id_a), b = nscd__world_lookup(w, r->id_b);
    if (a < 0 || b < 0 || w->type[a] < 0 || w->type[b] < 0) {
        return false;
    }
    return (w->sleep_island[a] != 0 || w->sleep_island[b] != 0) && !nscd__world_sleep_mover(w, a) &&
           !nscd__world_sleep_mover(w, b);
}

nscd_status nscd__world_sleep_carry(nscd_world *w) {
    w->n_carried = 0;
    if (w->n_sleeping == 0) {
        return NSCD_OK;
    }
    int32_t n = 0;
    for (int32_t j = 0; j < w->n_records; ++j) {
        n += carried(w, &w->records[j]);
    }
    if (n == 0) {
        return NSCD_OK;
    }
    if (n > w->carried_capacity) {
        nscd__world_record *c = nscd__alloc_array(&w->allocator, (size_t)n, sizeof *c);
        if (c == NULL) {
            return NSCD_ERR_OUT_OF_MEMORY;
        }
        nscd__free(&w->allocator, w->carried, (size_t)w->carried_capacity * sizeof *c);
        w->carried = c;
        w->carried_capacity = n;
    }
    for (int32_t j = 0; j < w->n_records; ++j) {
        if (carried(w, &w->records[j])) {
            w->carried[w->n_carried++] = w->records[j];
        }
    }
    if (w->n_contacts > INT32_MAX - n) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    return nscd__world_reserve_records(w, w->n_contacts + n);
}

static bool before(const nscd__world_record *a, const nscd__world_record *b) {
    if (a->key_a != b->key_a) {
        return a->key_a < b->key_a;
    }
    if (a->key_b != b->key_b) {
        return a->key_b < b->key_b;
    }
    return a->feature < b->feature;
}

void nscd__world_sleep_merge(nscd_world *w) {
    if (w->n_carried == 0) {
        return;
    }
    /* both lists in key order (a key is in one of them only: a carried
     * contact's bodies were fixed to the detection): merged from the back */
    int32_t i = w->n_records - 1, j = w->n_carried - 1, out = w->n_records + w->n_carried - 1;
    while (j >= 0) {
        if (i >= 0 && before(&w->carried[j], &w->records[i])) {
            w->records[out--] = w->records[i--];
        } else {
            w->records[out--] = w->carried[j--];
        }
    }
    w->n_records += w->n_carried;
    w->n_carried = 0;
}

/* ------------------------------------------------------------ falling asleep */

static int32_t find(int32_t *parent, int32_t i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

static void unite(int32_t *parent, int32_t a, int32_t b) {
    a = find(parent, a);
    b = find(parent, b);
    if (a != b) { /* the smaller index is the root: a rule of the scene */
        if (a < b) {
            parent[b] = a;
        } else {
            parent[a] = b;
        }
    }
}

void nscd__world_sleep_update(nscd_world *w) {
    int32_t n = w->n_bodies;
    if (n == 0) {
        return;
    }
    double dt = w->desc.dt, limit = w->desc.sleep_speed, limit2 = limit * limit;
    /* the timers */
    for (int32_t i = 0; i < n; ++i) {
        if (w->type[i] != NSCD_BODY_DYNAMIC || w->sleep_island[i] != 0) {
            continue;
        }
        const double *v = w->velocity + 3 * (size_t)i, *om = w->omega + 3 * (size_t)i;
        double r = w->bound_radius[i];
        double v2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        double w2 = (om[0] * om[0] + om[1] * om[1] + om[2] * om[2]) * r * r;
        w->sleep_timer[i] = v2 < limit2 && w2 < limit2 ? w->sleep_timer[i] + dt : 0.0;
    }
    for (int32_t k = 0; k < w->n_joints; ++k) { /* a body with a joint never sleeps */
        for (int s = 0; s < 2; ++s) {
            int32_t i = nscd__world_lookup(w, w->joints[k].body[s]);
            if (i >= 0) {
                w->sleep_timer[i] = 0.0;
            }
        }
    }
    /* the islands: the step's contacts between awake dynamic bodies (the
     * solver's scratch blend_group, 2n ints, is free after the solve) */
    int32_t *parent = w->blend_group, *awake = w->blend_group + n;
    for (int32_t i = 0; i < n; ++i) {
        parent[i] = i;
        awake[i] = 0;
    }
    for (int32_t j = 0; j < w->n_contacts; ++j) {
        const nscd__world_contact *c = &w->contacts[j];
        if (c->a_moves && c->b_moves && w->type[c->a] == NSCD_BODY_DYNAMIC &&
            w->type[c->b] == NSCD_BODY_DYNAMIC) {
            unite(parent, c->a, c->b);
        }
    }
    /* an island stays awake while one of its bodies is young */
    for (int32_t i = 0; i < n; ++i) {
        if (w->type[i] == NSCD_BODY_DYNAMIC && w->sleep_island[i] == 0 &&
            w->sleep_timer[i] < w->desc.sleep_time) {
            awake[find(parent, i)] = 1;
        }
    }
    /* the others fall asleep, each under a new label (given in order of
     * their roots, the smallest index of each) */
    for (int32_t i = 0; i < n; ++i) {
        if (w->type[i] != NSCD_BODY_DYNAMIC || w->sleep_island[i] != 0) {
            continue;
        }
        int32_t root = find(parent, i);
        if (awake[root]) {
            continue;
        }
        if (root == i) {
            w->sleep_island[i] = ++w->sleep_serial;
        } else {
            w->sleep_island[i] = w->sleep_island[root]; /* root < i: labelled */
        }
        memset(w->velocity + 3 * (size_t)i, 0, 3 * sizeof(double));
        memset(w->omega + 3 * (size_t)i, 0, 3 * sizeof(double));
        w->n_sleeping++;
    }
}

/* ------------------------------------------------------------ API */

nscd_status nscd_world_body_sleeping(const nscd_world *w, nscd_body_id id, int32_t *sleeping) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(nscd__world_diag(w));
    if (sleeping == NULL) {
        return nscd__world_read_fail(w, NSCD_ERR_NULL_POINTER,
                                     "nscd_world_body_sleeping: sleeping is NULL");
    }
    int32_t i = nscd__world_lookup(w, id);
    if (i < 0) {
        return nscd__world_read_fail(w, NSCD_ERR_STALE_HANDLE,
                                     "nscd_world_body_sleeping: body id %llu is not alive",
                                     (unsigned long long)id);
    }
    *sleeping = w->sleep_island[i] != 0;
    return NSCD_OK;
}

nscd_status nscd_world_wake_body(nscd_world *w, nscd_body_id id) {
    if (w == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__diag_clear(&w->diag);
    int32_t i = nscd__world_lookup(w, id);
    if (i < 0) {
        return nscd__fail(&w->diag, NSCD_ERR_STALE_HANDLE,
                          "nscd_world_wake_body: body id %llu is not alive",
                          (unsigned long long)id);
    }
    if (w->type[i] == NSCD_BODY_DYNAMIC) {
        nscd__world_wake_island(w, i);
    } else {
        nscd__world_wake_touching(w, i);
    }
    return NSCD_OK;
}
