/* Modal reduction of the beam (seed 003, App. D, eqs. 186-191): the
 * generalized eigenproblem (K_ff - ω² m_ff) φ = 0 of the constrained beam,
 * solved in band storage (the nodal ordering couples dofs at most 5 apart),
 * and the basis of the kept, mass-normalised modes. Up to NSCD__DENSE_SMALL free
 * dofs by the library's own Cholesky + Jacobi solve (the same modes on every
 * CPU), above by LAPACK's band solver dsbgv. */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "core/dense_small.h"
#include "core/memory.h"
#include "beam/beam_impl.h"

#define BAND 5 /* two nodes of 3 dofs: |i - j| <= 5 within an element */
#define TWO_PI 6.283185307179586

/* Upper band of half-width kd, column-major (LAPACK's 'U' layout), of the
 * free-dof block. */
static void to_band(const double *full, int32_t n_nodal, const int32_t *free_dofs, int32_t n,
                    int32_t kd, double *band) {
    for (int32_t j = 0; j < n; ++j) {
        for (int32_t i = j - kd < 0 ? 0 : j - kd; i <= j; ++i) {
            band[(size_t)(kd + i - j) + (size_t)(kd + 1) * (size_t)j] =
                full[(size_t)free_dofs[i] * (size_t)n_nodal + (size_t)free_dofs[j]];
        }
    }
}

/* omega: the ascending eigenvalues; ends with omega = sqrt(eigenvalue), or
 * NSCD_ERR_NOT_CONVERGED when one is not > 0. */
static nscd_status frequencies_from_eigenvalues(int32_t n, double *omega) {
    nscd_status rc = NSCD_OK;
    for (int32_t k = 0; k < n; ++k) {
        if (!(omega[k] > 0.0)) { /* K_ff is positive definite once constrained */
            rc = NSCD_ERR_NOT_CONVERGED;
        }
        omega[k] = sqrt(fmax(omega[k], 0.0));
    }
    return rc;
}

/* The small case: full free-dof blocks, the own pencil solver. */
static nscd_status small_eigen(const nscd_allocator *a, const nscd__beam_integrals *nodal,
                               const int32_t *free_dofs, int32_t n, double *omega,
                               double *vectors) {
    size_t nn = (size_t)n * (size_t)n;
    double *work = nscd__alloc_array(a, 5 * nn, sizeof(double));
    if (work == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    double *K = work, *M = work + nn;
    for (int32_t i = 0; i < n; ++i) {
        for (int32_t j = 0; j < n; ++j) {
            size_t at = (size_t)free_dofs[i] * (size_t)nodal->n + (size_t)free_dofs[j];
            K[(size_t)i * (size_t)n + (size_t)j] = nodal->kff[at];
            M[(size_t)i * (size_t)n + (size_t)j] = nodal->mff[at];
        }
    }
    nscd_status rc = nscd__small_sygv(n, K, M, omega, vectors, work + 2 * nn);
    rc = rc == NSCD_OK ? frequencies_from_eigenvalues(n, omega) : NSCD_ERR_NOT_CONVERGED;
    nscd__free(a, work, 5 * nn * sizeof(double));
    return rc;
}

nscd_status nscd__beam_eigen(const nscd_allocator *a, const nscd__beam_integrals *nodal,
                             const int32_t *free_dofs, int32_t n, double *omega, double *vectors) {
    if (n <= NSCD__DENSE_SMALL) {
        return small_eigen(a, nodal, free_dofs, n, omega, vectors);
    }
    int32_t kd = n - 1 < BAND ? n - 1 : BAND; /* LAPACK wants kd < n */
    size_t band = (size_t)(kd + 1) * (size_t)n;
    double *ab = nscd__alloc_array(a, band, sizeof(double));
    double *bb = nscd__alloc_array(a, band, sizeof(double));
    double *work = nscd__alloc_array(a, 3 * (size_t)n, sizeof(double));
    double *z =
        vectors != NULL ? nscd__alloc_array(a, (size_t)n * (size_t)n, sizeof(double)) : NULL;
    nscd_status rc = NSCD_ERR_OUT_OF_MEMORY;
    if (ab != NULL && bb != NULL && work != NULL && (vectors == NULL || z != NULL)) {
        memset(ab, 0, band * sizeof(double));
        memset(bb, 0, band * sizeof(double));
        to_band(nodal->kff, nodal->n, free_dofs, n, kd, ab);
        to_band(nodal->mff, nodal->n, free_dofs, n, kd, bb);
        lapack_int info =
            LAPACKE_dsbgv_work(LAPACK_COL_MAJOR, vectors ? 'V' : 'N', 'U', n, kd, kd, ab, kd + 1,
                               bb, kd + 1, omega, z, vectors ? n : 1, work);
        rc = info == 0 ? frequencies_from_eigenvalues(n, omega) : NSCD_ERR_NOT_CONVERGED;
        if (rc == NSCD_OK && vectors != NULL) {
            memcpy(vectors, z, (size_t)n * (size_t)n * sizeof(double)); /* column k: mode k */
        }
    }
    nscd__free(a, z, (size_t)n * (size_t)n * sizeof(double));
    nscd__free(a, work, 3 * (size_t)n * sizeof(double));
    nscd__free(a, bb, band * sizeof(double));
    nscd__free(a, ab, band * sizeof(double));
    return rc;
}

/* How many of the ascending frequencies the desc keeps. */
static int32_t kept_modes(const nscd_beam_desc *d, const double *omega, int32_t n) {
    int32_t keep = d->n_modes > 0 && d->n_modes < n ? d->n_modes : n;
    if (d->cutoff_frequency > 0.0) {
        int32_t below = 0;
        while (below < keep && omega[below] / TWO_PI < d->cutoff_frequency) {
            ++below;
        }
        keep = below;
    }
    return keep;
}

nscd_status nscd__beam_modal_basis(nscd_beam *beam, const nscd__beam_integrals *nodal,
                                   const int32_t *free_dofs, int32_t n) {
    const nscd_allocator *a = &beam->allocator;
    double *omega = nscd__alloc_array(a, (size_t)n, sizeof(double));
    double *z = nscd__alloc_array(a, (size_t)n * (size_t)n, sizeof(double));
    nscd_status rc =
        omega && z ? nscd__beam_eigen(a, nodal, free_dofs, n, omega, z) : NSCD_ERR_OUT_OF_MEMORY;
    int32_t keep = rc == NSCD_OK ? kept_modes(&beam->desc, omega, n) : 0;
    if (rc == NSCD_OK && keep == 0) {
        rc = NSCD_ERR_INVALID_ARGUMENT; /* nothing below the cut-off */
    }
    if (rc == NSCD_OK) {
        beam->n_elastic = keep; /* before the arrays: their size for the free */
        beam->basis = nscd__alloc_array(a, (size_t)nodal->n * (size_t)keep, sizeof(double));
        beam->omega = nscd__alloc_array(a, (size_t)keep, sizeof(double));
        rc = beam->basis && beam->omega ? NSCD_OK : NSCD_ERR_OUT_OF_MEMORY;
    }
    if (rc == NSCD_OK) {
        memset(beam->basis, 0, (size_t)nodal->n * (size_t)keep * sizeof(double));
        for (int32_t k = 0; k < keep; ++k) {
            beam->omega[k] = omega[k];
            /* a deterministic sign: the largest component positive */
            double big = 0.0;
            for (int32_t i = 0; i < n; ++i) {
                double c = z[(size_t)k * (size_t)n + (size_t)i];
                big = fabs(c) > fabs(big) ? c : big;
            }
            double sign = big < 0.0 ? -1.0 : 1.0;
            for (int32_t i = 0; i < n; ++i) {
                beam->basis[(size_t)free_dofs[i] * (size_t)keep + (size_t)k] =
                    sign * z[(size_t)k * (size_t)n + (size_t)i];
            }
        }
    }
    nscd__free(a, z, (size_t)n * (size_t)n * sizeof(double));
    nscd__free(a, omega, (size_t)n * sizeof(double));
    return rc;
}
