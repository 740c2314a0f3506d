/* The colour order of the step's contacts (docs/world.md, "Threads"), the
 * deterministic partition behind the threaded sweeps: as Box2D v3's
 * constraint graph, each contact in contact order takes the lowest colour
 * that none of its dynamic bodies has yet (static and kinematic bodies take
 * no impulse and never conflict); a contact whose bodies hold all
 * NSCD__WORLD_COLOURS colours goes to one more, swept in order by one
 * thread. The colours depend on the contacts and their order only, never on
 * the thread count; the sweep then visits colour 0, colour 1, ..., each in
 * contact order. */
#include <string.h>

#include "core/memory.h"
#include "world/world_impl.h"

void nscd__world_free_colours(nscd_world *w) {
    nscd__free(&w->allocator, w->colour_mask, (size_t)w->colour_mask_capacity * sizeof(uint64_t));
    nscd__free(&w->allocator, w->colour_order, (size_t)w->colour_capacity * sizeof(int32_t));
    nscd__free(&w->allocator, w->colour_of, (size_t)w->colour_capacity * sizeof(int32_t));
    nscd__free(&w->allocator, w->partials, w->partials_capacity * sizeof(double));
    w->colour_mask = NULL;
    w->colour_order = w->colour_of = NULL;
    w->partials = NULL;
    size_t cc = (size_t)w->colour_contacts_capacity;
    nscd__free(&w->allocator, w->colour_contacts, cc * sizeof(nscd__world_contact));
    nscd__free(&w->allocator, w->colour_rows, cc * sizeof(nscd__world_contact_rows));
    w->colour_contacts = NULL;
    w->colour_rows = NULL;
    w->colour_contacts_capacity = 0;
    nscd__free(&w->allocator, w->colour_resist,
               (size_t)w->colour_resist_capacity * sizeof(nscd__bgs_contact_resist));
    w->colour_resist = NULL;
    w->colour_resist_capacity = 0;
    w->permuted = false;
    w->colour_mask_capacity = w->colour_capacity = 0;
    w->partials_capacity = 0;
    w->coloured = false;
}

nscd_status nscd__world_reserve_partials(nscd_world *w, size_t n) {
    if (n <= w->partials_capacity) {
        return NSCD_OK;
    }
    size_t cap = w->partials_capacity > 0 ? w->partials_capacity : 64;
    while (cap < n) {
        cap *= 2;
    }
    double *p = nscd__alloc_array(&w->allocator, cap, sizeof(double));
    if (p == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    nscd__free(&w->allocator, w->partials, w->partials_capacity * sizeof(double));
    w->partials = p;
    w->partials_capacity = cap;
    return NSCD_OK;
}

static nscd_status reserve(nscd_world *w) {
    if (w->n_bodies > w->colour_mask_capacity) {
        int32_t cap = w->bodies_capacity > w->n_bodies ? w->bodies_capacity : w->n_bodies;
        uint64_t *m = nscd__alloc_array(&w->allocator, (size_t)cap, sizeof(uint64_t));
        if (m == NULL) {
            return NSCD_ERR_OUT_OF_MEMORY;
        }
        nscd__free(&w->allocator, w->colour_mask,
                   (size_t)w->colour_mask_capacity * sizeof(uint64_t));
        w->colour_mask = m;
        w->colour_mask_capacity = cap;
    }
    if (w->n_contacts > w->colour_capacity) {
        int32_t cap = w->contacts_capacity > w->n_contacts ? w->contacts_capacity : w->n_contacts;
        int32_t *order = nscd__alloc_array(&w->allocator, (size_t)cap, sizeof(int32_t));
        int32_t *of = nscd__alloc_array(&w->allocator, (size_t)cap, sizeof(int32_t));
        if (order == NULL || of == NULL) {
            nscd__free(&w->allocator, order, (size_t)cap * sizeof(int32_t));
            nscd__free(&w->allocator, of, (size_t)cap * sizeof(int32_t));
            return NSCD_ERR_OUT_OF_MEMORY;
        }
        nscd__free(&w->allocator, w->colour_order, (size_t)w->colour_capacity * sizeof(int32_t));
        nscd__free(&w->allocator, w->colour_of, (size_t)w->colour_capacity * sizeof(int32_t));
        w->colour_order = order;
        w->colour_of = of;
        w->colour_capacity = cap;
    }
    return nscd__world_reserve_partials(w,
                                        nscd__bgs_partials(w->n_contacts, NSCD__WORLD_COLOURS + 1));
}

/* Lowest clear bit of ~used, or NSCD__WORLD_COLOURS when all are set. */
static int32_t lowest_free(uint64_t used) {
    if (used == UINT64_MAX) {
        return NSCD__WORLD_COLOURS;
    }
    uint64_t free_bits = ~used;
    return (int32_t)__builtin_ctzll(free_bits);
}

nscd_status nscd__world_colour(nscd_world *w) {
    if (reserve(w) != NSCD_OK) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    if (w->n_bodies > 0) {
        memset(w->colour_mask, 0, (size_t)w->n_bodies * sizeof(uint64_t));
    }
    int32_t count[NSCD__WORLD_COLOURS + 1];
    memset(count, 0, sizeof count);
    uint64_t *mask = w->colour_mask;
    for (int32_t j = 0; j < w->n_contacts; ++j) {
        const nscd__world_contact *c = &w->contacts[j];
        uint64_t used = (c->a_moves ? mask[c->a] : 0) | (c->b_moves ? mask[c->b] : 0);
        int32_t colour = lowest_free(used);
        if (colour < NSCD__WORLD_COLOURS) {
            uint64_t bit = (uint64_t)1 << colour;
            if (c->a_moves) {
                mask[c->a] |= bit;
            }
            if (c->b_moves) {
                mask[c->b] |= bit;
            }
        }
        w->colour_of[j] = colour;
        count[colour]++;
    }
    w->colour_start[0] = 0;
    for (int32_t c = 0; c <= NSCD__WORLD_COLOURS; ++c) {
        w->colour_start[c + 1] = w->colour_start[c] + count[c];
        count[c] = w->colour_start[c]; /* the next place of colour c */
    }
    for (int32_t j = 0; j < w->n_contacts; ++j) {
        w->colour_order[count[w->colour_of[j]]++] = j;
    }
    w->coloured = true;
    return NSCD_OK;
}

/* ------------------------------------------------------------ permutation */

typedef struct permute_job {
    nscd_world *w;
    bool back; /* colour order -> key order */
} permute_job;

/* Each contact (and its rows, if general) to its place in the other order. */
static void permute_range(int32_t begin, int32_t end, int32_t worker, void *ctx) {
    (void)worker;
    const permute_job *t = ctx;
    nscd_world *w = t->w;
    const int32_t *order = w->colour_order;
    for (int32_t i = begin; i < end; ++i) {
        int32_t from = t->back ? i : order[i], to = t->back ? order[i] : i;
        w->colour_contacts[to] = w->contacts[from];
        if (!w->contacts[from].diagonal) {
            w->colour_rows[to] = w->contact_rows[from];
        }
        if (w->contacts[from].resist) {
            w->colour_resist[to] = w->contact_resist[from];
        }
    }
}

static void swap_arrays(nscd_world *w) {
    nscd__world_contact *c = w->contacts;
    nscd__world_contact_rows *r = w->contact_rows;
    w->contacts = w->colour_contacts;
    w->contact_rows = w->colour_rows;
    w->colour_contacts = c;
    w->colour_rows = r;
    nscd__bgs_contact_resist *m = w->contact_resist;
    int32_t capacity = w->contact_resist_capacity;
    w->contact_resist = w->colour_resist;
    w->contact_resist_capacity = w->colour_resist_capacity;
    w->colour_resist = m;
    w->colour_resist_capacity = capacity;
}

void nscd__world_permute(nscd_world *w) {
    if (w->parallel.threads < 1 || w->n_contacts == 0 || w->desc.jacobi_groups > 1 || w->permuted) {
        return;
    }
    if (!w->coloured && nscd__world_colour(w) != NSCD_OK) {
        return;
    }
    if (w->colour_contacts_capacity != w->contacts_capacity) {
        /* the rows array too: swapped with the contacts' rows, it must have
         * their capacity (a sphere pile never writes it: untouched pages) */
        size_t cap = (size_t)w->contacts_capacity, old = (size_t)w->colour_contacts_capacity;
        nscd__world_contact *c = nscd__alloc_array(&w->allocator, cap, sizeof *c);
        nscd__world_contact_rows *r = nscd__alloc_array(&w->allocator, cap, sizeof *r);
        if (c == NULL || r == NULL) {
            nscd__free(&w->allocator, c, cap * sizeof *c);
            nscd__free(&w->allocator, r, cap * sizeof *r);
            return; /* the solve reads through the colour order */
        }
        nscd__free(&w->allocator, w->colour_contacts, old * sizeof *c);
        nscd__free(&w->allocator, w->colour_rows, old * sizeof *r);
        w->colour_contacts = c;
        w->colour_rows = r;
        w->colour_contacts_capacity = (int32_t)cap;
    }
    if (w->colour_resist_capacity != w->contact_resist_capacity) {
        /* the angular blocks (resistance), likewise */
        size_t cap = (size_t)w->contact_resist_capacity, old = (size_t)w->colour_resist_capacity;
        nscd__bgs_contact_resist *m = nscd__alloc_array(&w->allocator, cap, sizeof *m);
        if (m == NULL) {
            return; /* the solve reads through the colour order */
        }
        nscd__free(&w->allocator, w->colour_resist, old * sizeof *m);
        w->colour_resist = m;
        w->colour_resist_capacity = (int32_t)cap;
    }
    permute_job job = {w, false};
    nscd__parallel_for(&w->parallel, w->n_contacts, 1024, permute_range, &job);
    swap_arrays(w);
    w->permuted = true;
}

void nscd__world_unpermute(nscd_world *w) {
    if (!w->permuted) {
        return;
    }
    permute_job job = {w, true};
    nscd__parallel_for(&w->parallel, w->n_contacts, 1024, permute_range, &job);
    swap_arrays(w);
    w->permuted = false;
}
