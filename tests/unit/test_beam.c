/* The floating-frame beam (include/nscd/beam.h, seed 003 App. C and D).
 *
 * Reference numbers from tests/unit/beam_reference.py (exact sympy
 * integration of the shape matrix (110), numpy assembly, scipy eigh):
 * - one element's shape integrals (m_ff, K_ff, S̄, I3, I4, S̃) to 1e-14;
 * - a cantilever (tangential reference, slender inertia, 20 elements,
 *   L = 1.2 m, E = 2e11, ρ = 7800, A = 1e-4, I = 2e-9): the static tip
 *   deflection P L³ / 3EI and the first bending frequencies against the
 *   FE reference (1e-9) and Euler-Bernoulli's (βL)² √(EI / ρ A L⁴);
 * - the pinned reference (185): the simply supported π² √(EI / ρ A L⁴).
 * Then by independent computations here: the quadratic-velocity vector
 * against -Ṁ ṗ + ∂T/∂p by central differences of the mass matrix, the
 * point rows against differences of the position, the mass-normalised
 * modal basis (190), energy conservation of a free spinning beam (RK4), and
 * bad inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "assert_near.h"
#include "core/dense.h"
#include "core/memory.h"
#include "beam/beam_impl.h"

#define PI 3.14159265358979323846

static nscd_beam *make(double length, int32_t n, double rho, double area, double inertia, double e,
                       int32_t rotary, int32_t modes) {
    nscd_beam_desc d;
    assert_int_equal(nscd_beam_desc_init(&d, sizeof d), NSCD_OK);
    d.length = length, d.n_elements = n, d.density = rho, d.area = area;
    d.second_moment = inertia, d.youngs_modulus = e, d.rotary_inertia = rotary;
    d.n_modes = modes;
    nscd_beam *b = NULL;
    assert_int_equal(nscd_beam_create(&d, &b), NSCD_OK);
    return b;
}

/* ----------------------------------------------------- element integrals */

static const double REF_MFF[36] = {0.33333333333333326,
                                   0.0,
                                   0.0,
                                   0.16666666666666669,
                                   0.0,
                                   0.0,
                                   0.0,
                                   0.3954285714285717,
                                   0.02719047619047618,
                                   0.0,
                                   0.10457142857142876,
                                   -0.014476190476190587,
                                   0.0,
                                   0.02719047619047618,
                                   0.0030476190476190212,
                                   0.0,
                                   0.014476190476190531,
                                   -0.001952380952380951,
                                   0.16666666666666669,
                                   0.0,
                                   0.0,
                                   0.3333333333333333,
                                   0.0,
                                   0.0,
                                   0.0,
                                   0.10457142857142876,
                                   0.014476190476190531,
                                   0.0,
                                   0.39542857142857135,
                                   -0.02719047619047612,
                                   0.0,
                                   -0.014476190476190587,
                                   -0.001952380952380951,
                                   0.0,
                                   -0.02719047619047612,
                                   0.003047619047619049};
static const double REF_KFF[36] = {6.0,  0.0,   0.0,   -6.0, 0.0,  0.0,  0.0, 1.44,  0.36,
                                   0.0,  -1.44, 0.36,  0.0,  0.36, 0.12, 0.0, -0.36, 0.06,
                                   -6.0, 0.0,   0.0,   6.0,  0.0,  0.0,  0.0, -1.44, -0.36,
                                   0.0,  1.44,  -0.36, 0.0,  0.36, 0.06, 0.0, -0.36, 0.12};
static const double REF_SBAR[12] = {
    0.5, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 0.5, 0.041666666666666685, 0.0, 0.5, -0.04166666666666666};
static const double REF_I3[6] = {0.33333333333333337, 0.0, 0.0, 0.41666666666666663, 0.0, 0.0};
static const double REF_I4[6] = {0.0,   0.31499999999999995, 0.029166666666666688, 0.0,
                                 0.435, -0.03333333333333332};
static const double REF_STILDE[36] = {0.0,
                                      0.35,
                                      0.025,
                                      0.0,
                                      0.15,
                                      -0.016666666666666663,
                                      -0.35,
                                      0.0,
                                      0.0,
                                      -0.15,
                                      0.0,
                                      0.0,
                                      -0.025,
                                      0.0,
                                      0.0,
                                      -0.016666666666666663,
                                      0.0,
                                      0.0,
                                      0.0,
                                      0.15,
                                      0.016666666666666663,
                                      0.0,
                                      0.35,
                                      -0.025,
                                      -0.15,
                                      0.0,
                                      0.0,
                                      -0.35,
                                      0.0,
                                      0.0,
                                      0.016666666666666663,
                                      0.0,
                                      0.0,
                                      0.025,
                                      0.0,
                                      0.0};

/* The second element of L = 1, 2 elements, ρA = 2, ρI = 0.01, EA = 3,
 * EI = 0.015: its block of the nodal integrals (rows/cols 3..8). */
static void element_integrals_match_sympy(void **state) {
    (void)state;
    nscd_beam_desc d;
    nscd_beam_desc_init(&d, sizeof d);
    d.length = 1.0, d.n_elements = 2, d.density = 2.0, d.area = 1.0, d.second_moment = 0.005;
    d.youngs_modulus = 3.0;
    nscd_allocator a = nscd__allocator_resolve(&d.allocator);
    nscd__beam_integrals x;
    assert_int_equal(nscd__beam_integrals_alloc(&a, 9, &x), NSCD_OK);
    nscd__beam_add_element(&d, 1, &x);
    for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 6; ++j) {
            assert_near(x.mff[(3 + i) * 9 + 3 + j], REF_MFF[6 * i + j], 1e-14);
            assert_near(x.kff[(3 + i) * 9 + 3 + j], REF_KFF[6 * i + j], 1e-13);
            assert_near(x.stilde[(3 + i) * 9 + 3 + j], REF_STILDE[6 * i + j], 1e-14);
        }
        assert_near(x.sbar[3 + i], REF_SBAR[i], 1e-14);
        assert_near(x.sbar[9 + 3 + i], REF_SBAR[6 + i], 1e-14);
        assert_near(x.i3[3 + i], REF_I3[i], 1e-14);
        assert_near(x.i4[3 + i], REF_I4[i], 1e-14);
    }
    /* the element's rigid integrals: m = ρA h, ∫ρ x = ρA (x1² - x0²)/2,
     * ∫ρ (x² + y²) = ρA (x1³ - x0³)/3 + ρI h */
    assert_near(x.mass, 1.0, 1e-14);
    assert_near(x.i1[0], 0.75, 1e-14);
    assert_near(x.i1[1], 0.0, 1e-15);
    assert_near(x.i2, 2.0 * (1.0 - 0.125) / 3.0 + 0.01 * 0.5, 1e-14);
    nscd__beam_integrals_free(&a, &x);
}

/* ------------------------------------------------------------ cantilever */

#define CL 1.2
#define CE 2e11
#define CRHO 7800.0
#define CA 1e-4
#define CI 2e-9

static void cantilever_static_tip_deflection(void **state) {
    (void)state;
    nscd_beam *b = make(CL, 20, CRHO, CA, CI, CE, 0, 0);
    int32_t n, ne;
    assert_int_equal(nscd_beam_get_sizes(b, &n, &ne), NSCD_OK);
    assert_int_equal(ne, 60); /* 21 nodes x 3 minus the clamped root (184) */
    double *k = calloc((size_t)(n * n), sizeof(double)),
           *kf = calloc((size_t)(ne * ne), sizeof(double));
    double f[60] = {0.0};
    int32_t piv[60];
    assert_int_equal(nscd_beam_stiffness(b, k), NSCD_OK);
    for (int i = 0; i < n; ++i) { /* the reference block is zero */
        for (int j = 0; j < 3; ++j) {
            assert_true(k[i * n + j] == 0.0 && k[j * n + i] == 0.0);
        }
    }
    for (int i = 0; i < ne; ++i) {
        memcpy(kf + i * ne, k + (3 + i) * n + 3, (size_t)ne * sizeof(double));
    }
    f[ne - 2] = 1.0; /* unit load on the tip's w */
    assert_int_equal(nscd__lu_solve(ne, kf, piv, 1, f), NSCD_OK);
    double exact = CL * CL * CL / (3.0 * CE * CI); /* 1.44e-3 m */
    assert_near(f[ne - 2] / exact, 1.0, 1e-9);
    /* the tip's slope P L² / 2EI, also nodally exact */
    assert_near(f[ne - 1] / (CL * CL / (2.0 * CE * CI)), 1.0, 1e-9);
    /* through the point function: the tip's y equals w(L) */
    double p[63] = {0.0}, r[2];
    memcpy(p + 3, f, sizeof f);
    assert_int_equal(nscd_beam_point(b, CL, p, NULL, r, NULL, NULL), NSCD_OK);
    assert_near(r[1] / exact, 1.0, 1e-9);
    free(k);
    free(kf);
    nscd_beam_destroy(b);
}

static void cantilever_frequencies(void **state) {
    (void)state;
    nscd_beam *b = make(CL, 20, CRHO, CA, CI, CE, 0, 0);
    double omega[60];
    assert_int_equal(nscd_beam_frequencies(b, 60, omega), NSCD_OK);
    const double fe[4] = {55.29310490444107, 346.51668183143033, 970.270589558939,
                          1901.4307552918042};
    const double beta[4] = {1.8751040687119611, 4.6940911329741745, 7.8547574382376126,
                            10.995540734875467};
    /* the FE discretisation error of 20 cubic elements (h⁴): 5.3e-8,
     * 2.1e-6, 1.6e-5, 6.2e-5 relative; asserted with a margin of 1.5 */
    const double discretisation[4] = {8e-8, 3.2e-6, 2.5e-5, 9.4e-5};
    double scale = sqrt(CE * CI / (CRHO * CA * CL * CL * CL * CL));
    for (int k = 0; k < 4; ++k) {
        assert_near(omega[k] / fe[k], 1.0, 1e-9);
        double analytic = beta[k] * beta[k] * scale;
        assert_true(omega[k] >= analytic); /* Rayleigh-Ritz: from above */
        assert_near(omega[k] / analytic, 1.0, discretisation[k]);
    }
    /* the first axial mode among them: π/2 √(E/ρ) / L = 6628.36 rad/s for
     * the bar; 20 linear elements with consistent mass give exactly
     * (c/h) √(6 (1 - cos κh) / (2 + cos κh)), κ = π / 2L (2.6e-4 above) */
    double c = sqrt(CE / CRHO), h = CL / 20.0, kh = PI / 2.0 / CL * h;
    double axial = c / h * sqrt(6.0 * (1.0 - cos(kh)) / (2.0 + cos(kh))), nearest = INFINITY;
    for (int k = 0; k < 60; ++k) {
        nearest = fmin(nearest, fabs(omega[k] / axial - 1.0));
    }
    assert_true(nearest < 1e-9);
    assert_near(axial / (PI / 2.0 / CL * c), 1.0, 3e-4);
    nscd_beam_destroy(b);
}

static void pinned_reference_is_simply_supported(void **state) {
    (void)state;
    nscd_beam_desc d;
    nscd_beam_desc_init(&d, sizeof d);
    d.length = CL, d.n_elements = 20, d.density = CRHO, d.area = CA, d.second_moment = CI;
    d.youngs_modulus = CE, d.rotary_inertia = 0, d.reference = NSCD_BEAM_REFERENCE_PINNED;
    nscd_beam *b = NULL;
    assert_int_equal(nscd_beam_create(&d, &b), NSCD_OK);
    int32_t ne;
    nscd_beam_get_sizes(b, NULL, &ne);
    assert_int_equal(ne, 60); /* root u, w and tip w removed, root slope kept */
    double omega[1];
    assert_int_equal(nscd_beam_frequencies(b, 1, omega), NSCD_OK);
    double scale = sqrt(CE * CI / (CRHO * CA * CL * CL * CL * CL));
    assert_near(omega[0] / 155.21015446364913, 1.0, 1e-9);
    assert_near(omega[0] / (PI * PI * scale), 1.0, 1e-6);
    nscd_beam_destroy(b);
}

/* One and two elements: fewer free dofs than the band's half-width (5);
 * Hermite elements are nodally exact for a tip load. */
static void few_elements(void **state) {
    (void)state;
    for (int32_t n = 1; n <= 2; ++n) {
        nscd_beam *b = make(CL, n, CRHO, CA, CI, CE, 0, 0);
        int32_t ne;
        nscd_beam_get_sizes(b, NULL, &ne);
        assert_int_equal(ne, 3 * n);
        double omega[6], k[81], kf[36], f[6] = {0.0};
        int32_t piv[6];
        assert_int_equal(nscd_beam_frequencies(b, ne, omega), NSCD_OK);
        for (int i = 1; i < ne; ++i) {
            assert_true(omega[i] >= omega[i - 1] && omega[0] > 0.0);
        }
        nscd_beam_stiffness(b, k);
        for (int i = 0; i < ne; ++i) {
            memcpy(kf + i * ne, k + (3 + i) * (3 + ne) + 3, (size_t)ne * sizeof(double));
        }
        f[ne - 2] = 1.0;
        assert_int_equal(nscd__lu_solve(ne, kf, piv, 1, f), NSCD_OK);
        assert_near(f[ne - 2] / (CL * CL * CL / (3.0 * CE * CI)), 1.0, 1e-12);
        nscd_beam_destroy(b);
        b = make(CL, n, CRHO, CA, CI, CE, 0, 2); /* modal */
        double wm[2];
        assert_int_equal(nscd_beam_frequencies(b, 2, wm), NSCD_OK);
        assert_near(wm[0] / omega[0], 1.0, 1e-12);
        nscd_beam_destroy(b);
    }
}

/* ------------------------------------------------------- modal reduction */

static void modal_basis_is_mass_normalised(void **state) {
    (void)state;
    nscd_beam *full = make(1.0, 8, 7800.0, 1e-4, 2e-8, 2e11, 1, 0);
    nscd_beam *modal = make(1.0, 8, 7800.0, 1e-4, 2e-8, 2e11, 1, 5);
    int32_t ne;
    nscd_beam_get_sizes(modal, NULL, &ne);
    assert_int_equal(ne, 5);
    double wf[5], wm[5];
    assert_int_equal(nscd_beam_frequencies(full, 5, wf), NSCD_OK);
    assert_int_equal(nscd_beam_frequencies(modal, 5, wm), NSCD_OK);
    assert_int_equal(nscd_beam_frequencies(modal, 6, wm), NSCD_ERR_OUT_OF_RANGE);
    for (int i = 0; i < 5; ++i) {
        assert_near(wm[i] / wf[i], 1.0, 1e-12);
        for (int j = 0; j < 5; ++j) { /* eq. (190) */
            assert_near(modal->e.mff[i * 5 + j], i == j ? 1.0 : 0.0, 1e-12);
            assert_near(modal->e.kff[i * 5 + j] / (wm[i] * wm[i]), i == j ? 1.0 : 0.0, 1e-10);
        }
    }
    /* a cut-off between modes 3 and 4 keeps 3 */
    nscd_beam_desc d;
    nscd_beam_desc_init(&d, sizeof d);
    d.length = 1.0, d.n_elements = 8, d.area = 1e-4, d.second_moment = 2e-8;
    d.cutoff_frequency = 0.5 * (wf[2] + wf[3]) / (2.0 * PI);
    nscd_beam *cut = NULL;
    assert_int_equal(nscd_beam_create(&d, &cut), NSCD_OK);
    nscd_beam_get_sizes(cut, NULL, &ne);
    assert_int_equal(ne, 3);
    nscd_beam_destroy(cut);
    d.cutoff_frequency = 0.5 * wf[0] / (2.0 * PI); /* below every mode */
    cut = (nscd_beam *)&d;
    assert_int_equal(nscd_beam_create(&d, &cut), NSCD_ERR_INVALID_ARGUMENT);
    assert_ptr_equal(cut, (nscd_beam *)&d);
    nscd_beam_destroy(full);
    nscd_beam_destroy(modal);
}

/* -------------------------------------------- Lagrange and kinematics */

/* ṗ' M(p) ṗ / 2 */
static double kinetic(const nscd_beam *b, int32_t n, const double *p, const double *v) {
    double m[64 * 64], t = 0.0;
    nscd_beam_mass(b, p, m);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            t += 0.5 * v[i] * m[i * n + j] * v[j];
        }
    }
    return t;
}

/* Q_v = -Ṁ ṗ + ∂T/∂p, by central differences of the mass matrix. */
static void check_lagrange(const nscd_beam *b) {
    int32_t n;
    nscd_beam_get_sizes(b, &n, NULL);
    double p[64], v[64], qv[64], plus[64], minus[64], mp[64 * 64], mm[64 * 64];
    for (int i = 0; i < n; ++i) {
        p[i] = i < 3 ? 0.3 * (i + 1) : 1e-3 * sin(1.0 + i);
        v[i] = i < 3 ? 1.5 + i : 0.05 * cos(2.0 + i);
    }
    assert_int_equal(nscd_beam_quadratic_velocity(b, p, v, qv), NSCD_OK);
    const double h = 1e-6;
    double scale = 0.0;
    for (int i = 0; i < n; ++i) {
        scale = fmax(scale, fabs(qv[i]));
    }
    for (int i = 0; i < n; ++i) {
        memcpy(plus, p, sizeof p);
        memcpy(minus, p, sizeof p);
        plus[i] += h, minus[i] -= h;
        double dtdq = (kinetic(b, n, plus, v) - kinetic(b, n, minus, v)) / (2.0 * h);
        /* (Ṁ ṗ)_i = Σ_k (∂M/∂p_k ṗ_k) ṗ: the difference along ṗ */
        for (int k = 0; k < n; ++k) {
            plus[k] = p[k] + h * v[k];
            minus[k] = p[k] - h * v[k];
        }
        nscd_beam_mass(b, plus, mp);
        nscd_beam_mass(b, minus, mm);
        double mdot_v = 0.0;
        for (int j = 0; j < n; ++j) {
            mdot_v += (mp[i * n + j] - mm[i * n + j]) / (2.0 * h) * v[j];
        }
        assert_near(qv[i], -mdot_v + dtdq, 1e-7 * scale);
    }
}

static void quadratic_velocity_is_lagrange(void **state) {
    (void)state;
    nscd_beam *nodal = make(0.8, 3, 2000.0, 1e-3, 1e-7, 1e8, 1, 0);
    nscd_beam *modal = make(0.8, 6, 2000.0, 1e-3, 1e-7, 1e8, 1, 4);
    nscd_beam_desc d;
    nscd_beam_desc_init(&d, sizeof d);
    d.length = 0.8, d.n_elements = 3, d.reference = NSCD_BEAM_REFERENCE_PINNED;
    nscd_beam *pinned = NULL;
    assert_int_equal(nscd_beam_create(&d, &pinned), NSCD_OK);
    check_lagrange(nodal);
    check_lagrange(modal);
    check_lagrange(pinned);
    nscd_beam_destroy(nodal);
    nscd_beam_destroy(modal);
    nscd_beam_destroy(pinned);
}

/* The rows of a material point are the derivative of its position; its
 * convective term is d(L)/dt ṗ; the rigid mass properties. */
static void point_rows_and_rigid_mass(void **state) {
    (void)state;
    nscd_beam *b = make(0.8, 4, 2000.0, 1e-3, 1e-7, 1e8, 1, 0);
    int32_t n;
    nscd_beam_get_sizes(b, &n, NULL);
    double p[15], v[15], r[2], rows[30], gamma[2], rp[2], rm[2], lp[30], lm[30];
    for (int i = 0; i < n; ++i) {
        p[i] = i < 3 ? 0.2 * (i + 1) : 2e-3 * sin(3.0 + i);
        v[i] = i < 3 ? 1.0 + i : 0.1 * cos(i);
    }
    const double h = 1e-6;
    for (double x = 0.0; x <= 0.8; x += 0.13) {
        assert_int_equal(nscd_beam_point(b, x, p, v, r, rows, gamma), NSCD_OK);
        double lv_dot[2] = {0.0, 0.0};
        double pp[15], pm[15];
        for (int k = 0; k < n; ++k) {
            pp[k] = p[k] + h * v[k];
            pm[k] = p[k] - h * v[k];
        }
        nscd_beam_point(b, x, pp, NULL, NULL, lp, NULL);
        nscd_beam_point(b, x, pm, NULL, NULL, lm, NULL);
        for (int k = 0; k < n; ++k) {
            lv_dot[0] += (lp[k] - lm[k]) / (2.0 * h) * v[k];
            lv_dot[1] += (lp[n + k] - lm[n + k]) / (2.0 * h) * v[k];
        }
        assert_near(gamma[0], lv_dot[0], 1e-7);
        assert_near(gamma[1], lv_dot[1], 1e-7);
        for (int k = 0; k < n; ++k) {
            memcpy(pp, p, sizeof pp);
            memcpy(pm, p, sizeof pm);
            pp[k] += h, pm[k] -= h;
            nscd_beam_point(b, x, pp, NULL, rp, NULL, NULL);
            nscd_beam_point(b, x, pm, NULL, rm, NULL, NULL);
            assert_near(rows[k], (rp[0] - rm[0]) / (2.0 * h), 1e-8);
            assert_near(rows[n + k], (rp[1] - rm[1]) / (2.0 * h), 1e-8);
        }
    }
    /* q_e = 0: m = ρAL, m_Rθ from I1 = m L/2, m_θθ = m L²/3 + ρ I L */
    double zero[15] = {0.0}, m[225];
    nscd_beam_mass(b, zero, m);
    double mass = 2000.0 * 1e-3 * 0.8;
    assert_near(m[0], mass, 1e-14);
    assert_near(m[2 * n + 2], mass * 0.64 / 3.0 + 2000.0 * 1e-7 * 0.8, 1e-14);
    assert_near(m[1 * n + 2], mass * 0.4, 1e-14);
    nscd_beam_destroy(b);
}

/* ---------------------------------------------------- energy conservation */

typedef struct spin {
    const nscd_beam *beam;
    int32_t n;
} spin;

/* ẏ = (ṗ, M⁻¹ h) */
static void rate(const spin *s, const double *y, double *dy) {
    int32_t n = s->n;
    double m[15 * 15], h[15];
    int32_t piv[15];
    nscd_beam_mass(s->beam, y, m);
    nscd_beam_forces(s->beam, y, y + n, h);
    assert_int_equal(nscd__lu_solve(n, m, piv, 1, h), NSCD_OK);
    memcpy(dy, y + n, (size_t)n * sizeof(double));
    memcpy(dy + n, h, (size_t)n * sizeof(double));
}

static double total_energy(const spin *s, const double *y) {
    double e[3];
    assert_int_equal(nscd_beam_energy(s->beam, y, y + s->n, e), NSCD_OK);
    assert_near(e[0], kinetic(s->beam, s->n, y, y + s->n), 1e-12 * fabs(e[0]));
    return e[0] + e[1] + e[2];
}

/* A beam spun at 10 rad/s in gravity, free: centrifugal stretch and
 * bending waves exchange energy with the rotation; classical RK4 with a
 * small step conserves T + U + V to its truncation error (4.5e-9 relative
 * at 5e-5 s over 0.2 s, 16 times less at half the step). The spin stays
 * below the first frequency (70.8 rad/s): the linear floating frame has no
 * geometric stiffening, so a spin above it grows the deformation without
 * bound (spin softening; docs/flexible_bodies.md). */
static void free_spinning_beam_conserves_energy(void **state) {
    (void)state;
    nscd_beam_desc d;
    nscd_beam_desc_init(&d, sizeof d);
    d.length = 1.0, d.n_elements = 4, d.density = 1000.0, d.area = 1e-3, d.second_moment = 1e-8;
    d.youngs_modulus = 1e9, d.gravity[1] = -9.81;
    nscd_beam *b = NULL;
    assert_int_equal(nscd_beam_create(&d, &b), NSCD_OK);
    spin s = {b, 0};
    nscd_beam_get_sizes(b, &s.n, NULL);
    assert_int_equal(s.n, 15);
    double y[30] = {0.0}, k1[30], k2[30], k3[30], k4[30], tmp[30];
    y[s.n + 0] = 0.3, y[s.n + 2] = 10.0; /* Ṙ_x, θ̇ */
    double e0 = total_energy(&s, y), dt = 2.5e-5, strain_max = 0.0;
    for (int step = 0; step < 8000; ++step) {
        rate(&s, y, k1);
        for (int i = 0; i < 2 * s.n; ++i)
            tmp[i] = y[i] + 0.5 * dt * k1[i];
        rate(&s, tmp, k2);
        for (int i = 0; i < 2 * s.n; ++i)
            tmp[i] = y[i] + 0.5 * dt * k2[i];
        rate(&s, tmp, k3);
        for (int i = 0; i < 2 * s.n; ++i)
            tmp[i] = y[i] + dt * k3[i];
        rate(&s, tmp, k4);
        for (int i = 0; i < 2 * s.n; ++i) {
            y[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        double e[3];
        nscd_beam_energy(b, y, y + s.n, e);
        strain_max = fmax(strain_max, e[1]);
    }
    double e1 = total_energy(&s, y);
    assert_true(strain_max > 1e-6 * e0); /* the beam did deform */
    assert_near(e1, e0, 1e-9 * e0);
    nscd_beam_destroy(b);
}

/* ------------------------------------------------------------ bad inputs */

static void bad_inputs(void **state) {
    (void)state;
    nscd_beam_desc d;
    nscd_beam *b = (nscd_beam *)&d, *sentinel = (nscd_beam *)&d;
    assert_int_equal(nscd_beam_desc_init(NULL, sizeof d), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_beam_desc_init(&d, 3), NSCD_ERR_STRUCT_SIZE);
    nscd_beam_desc_init(&d, sizeof d);
    assert_int_equal(nscd_beam_create(NULL, &b), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_beam_create(&d, NULL), NSCD_ERR_NULL_POINTER);
    struct {
        size_t offset;
        double value;
        nscd_status expected;
    } doubles[] = {{offsetof(nscd_beam_desc, youngs_modulus), -1.0, NSCD_ERR_OUT_OF_RANGE},
                   {offsetof(nscd_beam_desc, density), 0.0, NSCD_ERR_OUT_OF_RANGE},
                   {offsetof(nscd_beam_desc, area), NAN, NSCD_ERR_NOT_FINITE},
                   {offsetof(nscd_beam_desc, second_moment), -1e-9, NSCD_ERR_OUT_OF_RANGE},
                   {offsetof(nscd_beam_desc, length), INFINITY, NSCD_ERR_NOT_FINITE},
                   {offsetof(nscd_beam_desc, cutoff_frequency), -1.0, NSCD_ERR_OUT_OF_RANGE},
                   {offsetof(nscd_beam_desc, gravity), NAN, NSCD_ERR_NOT_FINITE}};
    for (size_t k = 0; k < sizeof doubles / sizeof doubles[0]; ++k) {
        nscd_beam_desc bad = d;
        memcpy((char *)&bad + doubles[k].offset, &doubles[k].value, sizeof(double));
        assert_int_equal(nscd_beam_create(&bad, &b), doubles[k].expected);
    }
    const int32_t elements[] = {0, -3, NSCD_BEAM_MAX_ELEMENTS + 1};
    for (size_t k = 0; k < 3; ++k) {
        nscd_beam_desc bad = d;
        bad.n_elements = elements[k];
        assert_int_equal(nscd_beam_create(&bad, &b), NSCD_ERR_OUT_OF_RANGE);
    }
    nscd_beam_desc bad = d;
    bad.reference = 2;
    assert_int_equal(nscd_beam_create(&bad, &b), NSCD_ERR_OUT_OF_RANGE);
    bad = d, bad.rotary_inertia = 2;
    assert_int_equal(nscd_beam_create(&bad, &b), NSCD_ERR_OUT_OF_RANGE);
    bad = d, bad.n_modes = -1;
    assert_int_equal(nscd_beam_create(&bad, &b), NSCD_ERR_OUT_OF_RANGE);
    bad = d, bad.struct_size = 8;
    assert_int_equal(nscd_beam_create(&bad, &b), NSCD_ERR_STRUCT_SIZE);
    assert_ptr_equal(b, sentinel);
    /* the functions */
    assert_int_equal(nscd_beam_create(&d, &b), NSCD_OK);
    int32_t n;
    nscd_beam_get_sizes(b, &n, NULL);
    double p[64] = {0.0}, v[64] = {0.0}, out[64 * 64], r[2] = {7.0, 7.0};
    assert_int_equal(nscd_beam_get_sizes(NULL, &n, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_beam_mass(b, NULL, out), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_beam_forces(b, p, NULL, out), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_beam_stiffness(NULL, out), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_beam_energy(b, p, v, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_beam_frequencies(b, 0, out), NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_beam_point(b, 1.5, p, NULL, r, NULL, NULL), NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_beam_point(b, NAN, p, NULL, r, NULL, NULL), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_beam_point(b, 0.5, p, NULL, r, NULL, out), NSCD_ERR_NULL_POINTER);
    assert_true(r[0] == 7.0 && r[1] == 7.0);
    p[5] = NAN;
    out[0] = 42.0;
    assert_int_equal(nscd_beam_mass(b, p, out), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_beam_forces(b, p, v, out), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_beam_quadratic_velocity(b, p, v, out), NSCD_ERR_NOT_FINITE);
    assert_true(out[0] == 42.0);
    nscd_beam_destroy(b);
    nscd_beam_destroy(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(element_integrals_match_sympy),
        cmocka_unit_test(cantilever_static_tip_deflection),
        cmocka_unit_test(cantilever_frequencies),
        cmocka_unit_test(pinned_reference_is_simply_supported),
        cmocka_unit_test(few_elements),
        cmocka_unit_test(modal_basis_is_mass_normalised),
        cmocka_unit_test(quadratic_velocity_is_lagrange),
        cmocka_unit_test(point_rows_and_rigid_mass),
        cmocka_unit_test(free_spinning_beam_conserves_energy),
        cmocka_unit_test(bad_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
