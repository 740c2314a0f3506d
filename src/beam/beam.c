/* The beam handle (include/nscd/beam.h): its desc, creation from the shape
 * integrals of every element, the reference condition (seed 003, App. C.8,
 * eqs. 184/185) or the modal basis (App. D), and the projection of the
 * integrals on the elastic coordinates, X_e = B' X B. */
#include <math.h>
#include <string.h>

#include "core/check.h"
#include "core/dense.h"
#include "core/memory.h"
#include "core/struct_sizes.h"
#include "beam/beam_impl.h"

nscd_status nscd_beam_desc_init(nscd_beam_desc *desc, size_t struct_size) {
    nscd_beam_desc defaults;
    memset(&defaults, 0, sizeof defaults);
    defaults.youngs_modulus = 2e11;
    defaults.density = 7800.0;
    defaults.area = 1e-4;
    defaults.second_moment = 1e-9;
    defaults.length = 1.0;
    defaults.n_elements = 10;
    defaults.reference = NSCD_BEAM_REFERENCE_TANGENT;
    defaults.rotary_inertia = 1;
    return nscd__struct_init(desc, struct_size, &defaults, sizeof defaults,
                             NSCD__BEAM_DESC_SIZE_0_2);
}

static nscd_status validate(const nscd_beam_desc *d) {
    const double values[] = {d->youngs_modulus, d->density,   d->area,
                             d->second_moment,  d->length,    d->cutoff_frequency,
                             d->gravity[0],     d->gravity[1]};
    if (!nscd__all_finite(values, sizeof values / sizeof values[0])) {
        return NSCD_ERR_NOT_FINITE;
    }
    bool positive = d->youngs_modulus > 0.0 && d->density > 0.0 && d->area > 0.0 &&
                    d->second_moment > 0.0 && d->length > 0.0;
    bool counts = d->n_elements >= 1 && d->n_elements <= NSCD_BEAM_MAX_ELEMENTS &&
                  d->n_modes >= 0 && d->cutoff_frequency >= 0.0;
    bool choices = (d->reference == NSCD_BEAM_REFERENCE_TANGENT ||
                    d->reference == NSCD_BEAM_REFERENCE_PINNED) &&
                   (d->rotary_inertia == 0 || d->rotary_inertia == 1);
    if (!(positive && counts && choices)) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    return nscd__allocator_valid(&d->allocator) ? NSCD_OK : NSCD_ERR_INVALID_ARGUMENT;
}

nscd_status nscd__beam_integrals_alloc(const nscd_allocator *a, int32_t n,
                                       nscd__beam_integrals *x) {
    size_t nn = (size_t)n * (size_t)n;
    memset(x, 0, sizeof *x);
    x->n = n;
    x->mff = nscd__alloc_array(a, nn, sizeof(double));
    x->kff = nscd__alloc_array(a, nn, sizeof(double));
    x->stilde = nscd__alloc_array(a, nn, sizeof(double));
    x->sbar = nscd__alloc_array(a, 2 * (size_t)n, sizeof(double));
    x->i3 = nscd__alloc_array(a, (size_t)n, sizeof(double));
    x->i4 = nscd__alloc_array(a, (size_t)n, sizeof(double));
    if (!x->mff || !x->kff || !x->stilde || !x->sbar || !x->i3 || !x->i4) {
        nscd__beam_integrals_free(a, x);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    memset(x->mff, 0, nn * sizeof(double));
    memset(x->kff, 0, nn * sizeof(double));
    memset(x->stilde, 0, nn * sizeof(double));
    memset(x->sbar, 0, 2 * (size_t)n * sizeof(double));
    memset(x->i3, 0, (size_t)n * sizeof(double));
    memset(x->i4, 0, (size_t)n * sizeof(double));
    return NSCD_OK;
}

void nscd__beam_integrals_free(const nscd_allocator *a, nscd__beam_integrals *x) {
    size_t nn = (size_t)x->n * (size_t)x->n;
    nscd__free(a, x->mff, nn * sizeof(double));
    nscd__free(a, x->kff, nn * sizeof(double));
    nscd__free(a, x->stilde, nn * sizeof(double));
    nscd__free(a, x->sbar, 2 * (size_t)x->n * sizeof(double));
    nscd__free(a, x->i3, (size_t)x->n * sizeof(double));
    nscd__free(a, x->i4, (size_t)x->n * sizeof(double));
    memset(x, 0, sizeof *x);
}

int32_t nscd__beam_free_dofs(const nscd_beam_desc *d, int32_t *free_dofs) {
    int32_t n_nodal = 3 * (d->n_elements + 1), count = 0;
    int32_t tip_w = n_nodal - 2;
    for (int32_t i = 3; i < n_nodal; ++i) { /* node 0's u, w (both conditions) */
        if (d->reference == NSCD_BEAM_REFERENCE_PINNED && i == tip_w) {
            continue; /* eq. (185): the tip moves along the frame's x only */
        }
        free_dofs[count++] = i;
    }
    if (d->reference == NSCD_BEAM_REFERENCE_PINNED) { /* the root's slope is free */
        memmove(free_dofs + 1, free_dofs, (size_t)count * sizeof(int32_t));
        free_dofs[0] = 2;
        ++count;
    }
    return count;
}

/* B: the identity's columns of the free dofs (no reduction). */
static nscd_status selection_basis(nscd_beam *beam, const int32_t *free_dofs, int32_t n) {
    beam->n_elastic = n;
    beam->basis =
        nscd__alloc_array(&beam->allocator, (size_t)beam->n_nodal * (size_t)n, sizeof(double));
    if (beam->basis == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    memset(beam->basis, 0, (size_t)beam->n_nodal * (size_t)n * sizeof(double));
    for (int32_t k = 0; k < n; ++k) {
        beam->basis[(size_t)free_dofs[k] * (size_t)n + (size_t)k] = 1.0;
    }
    return NSCD_OK;
}

/* out = B' X B (n_e x n_e), with `tmp` n_nodal x n_e. */
static void project_matrix(const nscd_beam *b, const double *x, double *tmp, double *out) {
    int32_t n = b->n_nodal, m = b->n_elastic;
    nscd__gemm_nn(n, m, n, x, b->basis, tmp);
    nscd__gemm_tn(m, m, n, b->basis, tmp, out);
}

/* out = x B for `rows` rows of length n_nodal. */
static void project_rows(const nscd_beam *b, int32_t rows, const double *x, double *out) {
    nscd__gemm_nn(rows, b->n_elastic, b->n_nodal, x, b->basis, out);
}

static nscd_status project(nscd_beam *beam, const nscd__beam_integrals *nodal) {
    nscd_status rc = nscd__beam_integrals_alloc(&beam->allocator, beam->n_elastic, &beam->e);
    size_t tmp_size = (size_t)beam->n_nodal * (size_t)beam->n_elastic;
    double *tmp =
        rc == NSCD_OK ? nscd__alloc_array(&beam->allocator, tmp_size, sizeof(double)) : NULL;
    if (tmp == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    beam->e.mass = nodal->mass;
    memcpy(beam->e.i1, nodal->i1, sizeof nodal->i1);
    beam->e.i2 = nodal->i2;
    project_matrix(beam, nodal->mff, tmp, beam->e.mff);
    project_matrix(beam, nodal->kff, tmp, beam->e.kff);
    project_matrix(beam, nodal->stilde, tmp, beam->e.stilde);
    project_rows(beam, 2, nodal->sbar, beam->e.sbar);
    project_rows(beam, 1, nodal->i3, beam->e.i3);
    project_rows(beam, 1, nodal->i4, beam->e.i4);
    nscd__free(&beam->allocator, tmp, tmp_size * sizeof(double));
    return NSCD_OK;
}

static bool reduced(const nscd_beam_desc *d) { return d->n_modes > 0 || d->cutoff_frequency > 0.0; }

/* Everything after the handle itself: integrals, basis, projection. */
static nscd_status build(nscd_beam *beam) {
    const nscd_allocator *a = &beam->allocator;
    nscd__beam_integrals nodal;
    nscd_status rc = nscd__beam_integrals_alloc(a, beam->n_nodal, &nodal);
    int32_t *free_dofs = nscd__alloc_array(a, (size_t)beam->n_nodal, sizeof(int32_t));
    if (rc == NSCD_OK && free_dofs == NULL) {
        rc = NSCD_ERR_OUT_OF_MEMORY;
    }
    if (rc == NSCD_OK) {
        for (int32_t k = 0; k < beam->desc.n_elements; ++k) {
            nscd__beam_add_element(&beam->desc, k, &nodal);
        }
        int32_t n_free = nscd__beam_free_dofs(&beam->desc, free_dofs);
        rc = reduced(&beam->desc) ? nscd__beam_modal_basis(beam, &nodal, free_dofs, n_free)
                                  : selection_basis(beam, free_dofs, n_free);
    }
    if (rc == NSCD_OK) {
        rc = project(beam, &nodal);
    }
    nscd__free(a, free_dofs, (size_t)beam->n_nodal * sizeof(int32_t));
    nscd__beam_integrals_free(a, &nodal);
    return rc;
}

nscd_status nscd_beam_create(const nscd_beam_desc *desc, nscd_beam **beam) {
    if (desc == NULL || beam == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd_beam_desc given;
    nscd_beam_desc_init(&given, sizeof given);
    nscd_status rc = nscd__struct_read(&given, sizeof given, desc, NSCD__BEAM_DESC_SIZE_0_2);
    if (rc == NSCD_OK) {
        rc = validate(&given);
    }
    if (rc != NSCD_OK) {
        return rc;
    }
    nscd_allocator a = nscd__allocator_resolve(&given.allocator);
    nscd_beam *b = nscd__alloc(&a, sizeof *b);
    if (b == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    memset(b, 0, sizeof *b);
    b->desc = given;
    b->allocator = a;
    b->n_nodal = 3 * (given.n_elements + 1);
    rc = build(b);
    if (rc != NSCD_OK) {
        nscd_beam_destroy(b);
        return rc;
    }
    *beam = b;
    return NSCD_OK;
}

void nscd_beam_destroy(nscd_beam *beam) {
    if (beam == NULL) {
        return;
    }
    nscd_allocator a = beam->allocator;
    nscd__beam_integrals_free(&a, &beam->e);
    nscd__free(&a, beam->basis, (size_t)beam->n_nodal * (size_t)beam->n_elastic * sizeof(double));
    nscd__free(&a, beam->omega, (size_t)beam->n_elastic * sizeof(double));
    nscd__free(&a, beam, sizeof *beam);
}

nscd_status nscd_beam_get_sizes(const nscd_beam *beam, int32_t *n_coordinates, int32_t *n_elastic) {
    if (beam == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (n_coordinates != NULL) {
        *n_coordinates = 3 + beam->n_elastic;
    }
    if (n_elastic != NULL) {
        *n_elastic = beam->n_elastic;
    }
    return NSCD_OK;
}

nscd_status nscd_beam_nodal_displacements(const nscd_beam *beam, const double *elastic,
                                          double *nodal) {
    if (beam == NULL || elastic == NULL || nodal == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd__gemv(beam->n_nodal, beam->n_elastic, beam->basis, elastic, nodal);
    return NSCD_OK;
}

nscd_status nscd_beam_frequencies(const nscd_beam *beam, int32_t count, double *omega) {
    if (beam == NULL || omega == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (count < 1 || count > beam->n_elastic) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    if (beam->omega != NULL) {
        memcpy(omega, beam->omega, (size_t)count * sizeof(double));
        return NSCD_OK;
    }
    /* the nodal model: its eigenproblem now, on a rebuilt nodal set */
    const nscd_allocator *a = &beam->allocator;
    nscd__beam_integrals nodal;
    nscd_status rc = nscd__beam_integrals_alloc(a, beam->n_nodal, &nodal);
    int32_t *free_dofs = nscd__alloc_array(a, (size_t)beam->n_nodal, sizeof(int32_t));
    double *all = nscd__alloc_array(a, (size_t)beam->n_nodal, sizeof(double));
    if (rc == NSCD_OK && (free_dofs == NULL || all == NULL)) {
        rc = NSCD_ERR_OUT_OF_MEMORY;
    }
    if (rc == NSCD_OK) {
        for (int32_t k = 0; k < beam->desc.n_elements; ++k) {
            nscd__beam_add_element(&beam->desc, k, &nodal);
        }
        int32_t n_free = nscd__beam_free_dofs(&beam->desc, free_dofs);
        rc = nscd__beam_eigen(a, &nodal, free_dofs, n_free, all, NULL);
    }
    if (rc == NSCD_OK) {
        memcpy(omega, all, (size_t)count * sizeof(double));
    }
    nscd__free(a, all, (size_t)beam->n_nodal * sizeof(double));
    nscd__free(a, free_dofs, (size_t)beam->n_nodal * sizeof(int32_t));
    nscd__beam_integrals_free(a, &nodal);
    return rc;
}
