/* One beam element: the shape matrix (seed 003, eq. 110) and its shape
 * integrals (eqs. 127-140, 160-163) by Gauss quadrature. */
#include <math.h>
#include <string.h>

#include "beam/beam_impl.h"

#define ELEMENT_DOF 6

/* Gauss-Legendre on [-1, 1], 4 points. */
static const double GAUSS_T[NSCD__BEAM_GAUSS] = {-0.86113631159405257522, -0.33998104358485626480,
                                                 0.33998104358485626480, 0.86113631159405257522};
static const double GAUSS_W[NSCD__BEAM_GAUSS] = {0.34785484513745385737, 0.65214515486254614263,
                                                 0.65214515486254614263, 0.34785484513745385737};

void nscd__beam_shape(double xi, double length, double *s, double *sy) {
    double xi2 = xi * xi, xi3 = xi2 * xi;
    const double row0[ELEMENT_DOF] = {1.0 - xi, 0.0, 0.0, xi, 0.0, 0.0};
    const double row1[ELEMENT_DOF] = {
        0.0, 1.0 - 3.0 * xi2 + 2.0 * xi3, length * (xi - 2.0 * xi2 + xi3),
        0.0, 3.0 * xi2 - 2.0 * xi3,       length * (xi3 - xi2)};
    memcpy(s, row0, sizeof row0);
    memcpy(s + ELEMENT_DOF, row1, sizeof row1);
    if (sy != NULL) {
        /* -(d/dx) of the transverse row: a cross-section stays normal to the
         * neutral axis (Euler-Bernoulli), so the point at height y moves
         * axially by -y w'. */
        const double slope[ELEMENT_DOF] = {
            0.0, (6.0 * xi - 6.0 * xi2) / length, -(1.0 - 4.0 * xi + 3.0 * xi2),
            0.0, (6.0 * xi2 - 6.0 * xi) / length, -(3.0 * xi2 - 2.0 * xi)};
        memcpy(sy, slope, sizeof slope);
    }
}

/* Adds w * (a' b) into the n x n matrix at rows/cols `base`. */
static void add_outer(nscd__beam_integrals *x, double *m, int32_t base, double w, const double *a,
                      const double *b) {
    for (int i = 0; i < ELEMENT_DOF; ++i) {
        for (int j = 0; j < ELEMENT_DOF; ++j) {
            m[(size_t)(base + i) * (size_t)x->n + (size_t)(base + j)] += w * a[i] * b[j];
        }
    }
}

/* One quadrature point (x, y) of weight w (mass): the inertia integrals. */
static void add_inertia_point(nscd__beam_integrals *nodal, int32_t base, double x, double y,
                              double w, const double *s, const double *sy) {
    double row0[ELEMENT_DOF], row1[ELEMENT_DOF];
    for (int k = 0; k < ELEMENT_DOF; ++k) {
        row0[k] = s[k] + y * sy[k];
        row1[k] = s[ELEMENT_DOF + k];
    }
    nodal->mass += w;
    nodal->i1[0] += w * x;
    nodal->i1[1] += w * y;
    nodal->i2 += w * (x * x + y * y);
    add_outer(nodal, nodal->mff, base, w, row0, row0);
    add_outer(nodal, nodal->mff, base, w, row1, row1);
    add_outer(nodal, nodal->stilde, base, w, row0, row1); /* S'ĨS = S0'S1 - S1'S0 */
    add_outer(nodal, nodal->stilde, base, -w, row1, row0);
    for (int k = 0; k < ELEMENT_DOF; ++k) {
        nodal->sbar[base + k] += w * row0[k];
        nodal->sbar[nodal->n + base + k] += w * row1[k];
        nodal->i3[base + k] += w * (x * row0[k] + y * row1[k]);
        nodal->i4[base + k] += w * (-y * row0[k] + x * row1[k]); /* u0'Ĩ = (-y, x) */
    }
}

/* Strain energy density of eq. (161) at one point: EA u'² + EI w''². */
static void add_stiffness_point(const nscd_beam_desc *d, nscd__beam_integrals *nodal, int32_t base,
                                double xi, double w, double h) {
    double axial[ELEMENT_DOF] = {-1.0 / h, 0.0, 0.0, 1.0 / h, 0.0, 0.0}; /* eq. (163) */
    double bend[ELEMENT_DOF] = {0.0, (-6.0 + 12.0 * xi) / (h * h), (-4.0 + 6.0 * xi) / h,
                                0.0, (6.0 - 12.0 * xi) / (h * h),  (6.0 * xi - 2.0) / h};
    add_outer(nodal, nodal->kff, base, w * d->youngs_modulus * d->area, axial, axial);
    add_outer(nodal, nodal->kff, base, w * d->youngs_modulus * d->second_moment, bend, bend);
}

void nscd__beam_add_element(const nscd_beam_desc *d, int32_t index, nscd__beam_integrals *nodal) {
    double h = d->length / d->n_elements, x0 = h * index;
    /* the cross-section by two points at y = ±sqrt(I/A) of half the mass
     * each: exact for its moments ∫dA, ∫y dA, ∫y² dA, the only ones the
     * integrands (at most quadratic in y) need */
    double radius = d->rotary_inertia ? sqrt(d->second_moment / d->area) : 0.0;
    int32_t base = 3 * index;
    for (int g = 0; g < NSCD__BEAM_GAUSS; ++g) {
        double xi = 0.5 * (1.0 + GAUSS_T[g]), wx = 0.5 * GAUSS_W[g] * h;
        double s[2 * ELEMENT_DOF], sy[ELEMENT_DOF];
        nscd__beam_shape(xi, h, s, sy);
        double w = 0.5 * wx * d->density * d->area;
        add_inertia_point(nodal, base, x0 + xi * h, radius, w, s, sy);
        add_inertia_point(nodal, base, x0 + xi * h, -radius, w, s, sy);
        add_stiffness_point(d, nodal, base, xi, wx, h);
    }
}
