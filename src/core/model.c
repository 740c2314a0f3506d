/* Shared operations of the model interface (see model.h). */
#include "core/model.h"

#include <stdint.h>
#include <string.h>

#include "core/memory.h"

nscd_status nscd__model_state_create(const nscd__model *model, nscd__model_state *state) {
    const nscd_allocator *a = model->allocator;
    memset(state, 0, sizeof *state);
    state->n_q = model->n_q;
    state->n_v = model->n_v;
    state->n_entries = model->n_contacts;
    state->q = nscd__alloc_array(a, (size_t)model->n_q, sizeof(double));
    state->v = nscd__alloc_array(a, (size_t)model->n_v, sizeof(double));
    state->entries = nscd__alloc_array(a, (size_t)model->n_contacts, sizeof(nscd__entry_state));
    if (!state->q || !state->v || (model->n_contacts > 0 && !state->entries)) {
        nscd__model_state_destroy(model, state);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    return NSCD_OK;
}

void nscd__model_state_destroy(const nscd__model *model, nscd__model_state *state) {
    const nscd_allocator *a = model->allocator;
    nscd__free(a, state->q, (size_t)state->n_q * sizeof(double));
    nscd__free(a, state->v, (size_t)state->n_v * sizeof(double));
    nscd__free(a, state->entries, (size_t)state->n_entries * sizeof(nscd__entry_state));
    memset(state, 0, sizeof *state);
}

/* A capacity of at least `needed`, doubling `have` so that a set growing
 * one entry a step reallocates O(log n) times. */
static int32_t grown_capacity(int32_t have, int32_t needed) {
    if (needed <= have) {
        return have;
    }
    int64_t cap = have > 0 ? 2 * (int64_t)have : 16;
    cap = cap < needed ? needed : cap;
    return cap > INT32_MAX ? INT32_MAX : (int32_t)cap;
}

nscd_status nscd__model_state_fit(const nscd__model *model, nscd__model_state *state) {
    if (model->n_q <= state->n_q && model->n_v <= state->n_v &&
        model->n_contacts <= state->n_entries) {
        return NSCD_OK;
    }
    nscd__model sized = *model; /* only its sizes and allocator are read */
    sized.n_q = grown_capacity(state->n_q, model->n_q);
    sized.n_v = grown_capacity(state->n_v, model->n_v);
    sized.n_contacts = grown_capacity(state->n_entries, model->n_contacts);
    nscd__model_state grown;
    nscd_status rc = nscd__model_state_create(&sized, &grown);
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd__model_state_destroy(model, state);
    *state = grown;
    return NSCD_OK;
}

void nscd__model_save(const nscd__model *model, nscd__model_state *state) {
    state->t = *model->t;
    memcpy(state->q, model->q, (size_t)model->n_q * sizeof(double));
    memcpy(state->v, model->v, (size_t)model->n_v * sizeof(double));
    for (int32_t i = 0; i < model->n_contacts; ++i) {
        state->entries[i] = model->contacts[i].state;
    }
}

void nscd__model_restore(nscd__model *model, const nscd__model_state *state) {
    *model->t = state->t;
    memcpy(model->q, state->q, (size_t)model->n_q * sizeof(double));
    memcpy(model->v, state->v, (size_t)model->n_v * sizeof(double));
    for (int32_t i = 0; i < model->n_contacts; ++i) {
        model->contacts[i].state = state->entries[i];
    }
}

int32_t nscd__mass_block_of(const nscd__model *model, int32_t column) {
    int32_t lo = 0, hi = model->n_mass_blocks - 1;
    while (lo < hi) { /* the last block whose start is <= column */
        int32_t mid = lo + (hi - lo + 1) / 2;
        if (model->mass_block_start[mid] <= column) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

void nscd__model_attach(nscd__model *model, nscd__model_link *link) {
    link->model = model;
    link->prev = NULL;
    link->next = model->links;
    if (model->links != NULL) {
        model->links->prev = link;
    }
    model->links = link;
}

void nscd__model_detach(nscd__model_link *link) {
    if (link->model == NULL) {
        return;
    }
    if (link->prev != NULL) {
        link->prev->next = link->next;
    } else {
        link->model->links = link->next;
    }
    if (link->next != NULL) {
        link->next->prev = link->prev;
    }
    link->model = NULL;
}

void nscd__model_release(nscd__model *model) {
    for (nscd__model_link *l = model->links; l != NULL;) {
        nscd__model_link *next = l->next;
        l->model = NULL;
        l->prev = l->next = NULL;
        l = next;
    }
    model->links = NULL;
}
