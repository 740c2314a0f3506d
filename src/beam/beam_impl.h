/* The beam's constants (include/nscd/beam.h): the shape integrals of seed
 * 003, App. C, eqs. (127)-(140), assembled over the elements and projected on
 * the elastic coordinates q_e by the basis B (q_nodal = B q_e). */
#ifndef NSCD_MODELS_BEAM_IMPL_H
#define NSCD_MODELS_BEAM_IMPL_H

#include <stdint.h>

#include "nscd/beam.h"

/* Shape integrals in nodal coordinates (n_nodal = 3 (n_elements + 1)). */
typedef struct nscd__beam_integrals {
    int32_t n;      /* n_nodal */
    double mass;    /* ∫ρ dV (eq. 129) */
    double i1[2];   /* ∫ρ u0 (eq. 131) */
    double i2;      /* ∫ρ u0'u0 (eq. 134) */
    double *mff;    /* n x n: ∫ρ S'S (eq. 138), with ρI S_y'S_y when asked */
    double *kff;    /* n x n: eq. (160) */
    double *sbar;   /* 2 x n: ∫ρ S (eq. 131) */
    double *i3;     /* n: ∫ρ u0'S (eq. 135) */
    double *i4;     /* n: ∫ρ u0' Ĩ S (eq. 140) */
    double *stilde; /* n x n: ∫ρ S' Ĩ S (eq. 140), skew */
} nscd__beam_integrals;

struct nscd_beam {
    nscd_beam_desc desc;
    nscd_allocator allocator;
    int32_t n_nodal, n_elastic; /* 3 (n_elements + 1); the columns of B */
    double *basis;              /* n_nodal x n_e, row-major */
    double *omega;              /* n_e angular frequencies of the kept modes, or NULL */
    nscd__beam_integrals e;     /* projected: n = n_e, every matrix B'XB, row B */
};

/* Gauss-Legendre points on [0, 1]: 4 are exact to degree 7 (eq. 127's
 * integrands have degree <= 6). */
#define NSCD__BEAM_GAUSS 4

/* The shape matrix S(ξ) of eq. (110), 2 x 6 row-major, and the axial shift
 * of the cross-section per unit height, S_y(ξ) = -(dS_2/dx) (first row; the
 * second is zero): the point at height y moves by y S_y q axially. */
void nscd__beam_shape(double xi, double length, double *s, double *sy);

/* Adds the shape integrals of element `index` to the nodal integrals. */
void nscd__beam_add_element(const nscd_beam_desc *d, int32_t index, nscd__beam_integrals *nodal);

/* Allocates the arrays of integrals of size n (zeroed); frees them. */
nscd_status nscd__beam_integrals_alloc(const nscd_allocator *a, int32_t n, nscd__beam_integrals *x);
void nscd__beam_integrals_free(const nscd_allocator *a, nscd__beam_integrals *x);

/* The kept columns of the reference condition (eqs. 184/185): writes the
 * nodal indices of the free dofs into `free_dofs` and returns their count. */
int32_t nscd__beam_free_dofs(const nscd_beam_desc *d, int32_t *free_dofs);

/* The modal basis (App. D): the lowest modes of (K_ff - ω² m_ff) φ = 0 on
 * the free dofs, mass-normalised (eq. 190), kept by count and cut-off.
 * Allocates beam->basis and beam->omega, sets beam->n_elastic. */
nscd_status nscd__beam_modal_basis(nscd_beam *beam, const nscd__beam_integrals *nodal,
                                   const int32_t *free_dofs, int32_t n_free);

/* All eigenfrequencies of the free-dof structure, ascending, into omega
 * (n_free of them). */
nscd_status nscd__beam_eigen(const nscd_allocator *a, const nscd__beam_integrals *nodal,
                             const int32_t *free_dofs, int32_t n_free, double *omega,
                             double *vectors);

#endif
