/**
 * @file beam.h
 * @brief A planar flexible beam in the floating frame of reference (seed 003,
 *        Appendices C and D), for assembly into a generic system.
 *
 * The beam of length L lies along the x axis of its body frame, whose origin
 * R and angle θ are its reference coordinates; 2-node Euler–Bernoulli
 * elements with 3 dofs per node (axial u, transverse w, slope w') describe its
 * deformation in that frame by the shape matrix of eq. (110). A material
 * point at x on the neutral axis is at
 *
 *     r(x) = R + A(θ) (x e_1 + S(x) B q_e),                      (116)
 *
 * q_e the elastic coordinates and B the n_nodal x n_e basis: the columns of
 * the identity the reference condition keeps ((184) tangential: the root's
 * u, w, w' are zero; (185) pinned: the root's u, w and the tip's w are zero),
 * or the kept mode shapes of the modal reduction (App. D, eqs. 186–191).
 *
 * A beam works on its coordinates p = (R_x, R_y, θ, q_e), n = 3 + n_e of
 * them, and gives the terms of M(p) dp²/dt² = h(p, ṗ) + (contact forces):
 * the mass matrix (eqs. 124–140), the quadratic-velocity vector (146–153),
 * the stiffness K (160–163) and gravity (167–169), and the position, rows and
 * convective acceleration of a material point (for joints, lumped masses and
 * contacts, eqs. 141, 170–183). A user with other coordinates q and
 * p = p(q) assembles them by the chain rule (see docs/flexible_bodies.md and
 * examples/flexible_slider_crank.c).
 *
 * The element includes the rotary inertia ρ I of the cross-section (a
 * Rayleigh beam) unless ::nscd_beam_desc::rotary_inertia is 0: the rod of
 * seed 003 has the moment of inertia J = m (L² + D²)/12 of a D-high blade,
 * which the slender-beam m L²/12 misses.
 *
 * All functions are pure: a beam holds only constants computed at creation
 * and may be shared by threads. Every function returns an ::nscd_status and
 * writes nothing on failure.
 */
#ifndef NSCD_BEAM_H
#define NSCD_BEAM_H

#include <stddef.h>
#include <stdint.h>

#include "nscd/export.h"
#include "nscd/host.h"
#include "nscd/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque beam handle. */
typedef struct nscd_beam nscd_beam;

/** Largest number of elements of a beam (its matrices are dense). */
#define NSCD_BEAM_MAX_ELEMENTS 200

/** Reference conditions that fix the body frame to the beam (App. C.8). */
typedef enum nscd_beam_reference {
    /** Clamped-free, tangential (eq. 184): u = w = w' = 0 at the root x = 0. */
    NSCD_BEAM_REFERENCE_TANGENT = 0,
    /** Pinned, simply supported (eq. 185): u = w = 0 at the root, w = 0 at the tip. */
    NSCD_BEAM_REFERENCE_PINNED = 1
} nscd_beam_reference;

/** Description of a beam, filled with defaults by nscd_beam_desc_init() (since 0.2). */
typedef struct nscd_beam_desc {
    uint32_t struct_size;  /**< sizeof(nscd_beam_desc), set by nscd_beam_desc_init(). */
    double youngs_modulus; /**< E > 0, N/m² (default 2e11). */
    double density;        /**< ρ > 0, kg/m³ (default 7800). */
    double area;           /**< Cross-section A > 0, m² (default 1e-4). */
    double second_moment;  /**< Second moment of area I > 0 about the neutral axis, m⁴ (default
                              1e-9). */
    double length;         /**< L > 0, m (default 1). */
    int32_t n_elements;    /**< Elements, 1 to ::NSCD_BEAM_MAX_ELEMENTS (default 10). */
    int32_t reference;     /**< A ::nscd_beam_reference (default tangential). */
    /** 1: the element's inertia includes the cross-section's ρ I (default);
     *  0: the slender beam (Euler–Bernoulli inertia, ρ A only). */
    int32_t rotary_inertia;
    /** Modal reduction: keep at most this many of the lowest modes of the
     *  constrained beam (eq. 186); 0 (default): no limit by count. */
    int32_t n_modes;
    /** Modal reduction: keep the modes with ω / 2π below this frequency, Hz;
     *  0 (default): no limit by frequency. With neither limit the beam uses
     *  the nodal coordinates (no reduction). */
    double cutoff_frequency;
    double gravity[2]; /**< Gravitational acceleration in the global frame, m/s² (default 0, 0). */
    nscd_allocator allocator; /**< Memory hooks; zero means malloc/free. */
} nscd_beam_desc;

/**
 * @brief Fills a desc with defaults.
 * @param desc        The desc to fill.
 * @param struct_size sizeof(nscd_beam_desc) as the caller sees it.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER or ::NSCD_ERR_STRUCT_SIZE.
 */
NSCD_API nscd_status nscd_beam_desc_init(nscd_beam_desc *desc, size_t struct_size);

/**
 * @brief Creates a beam: the shape integrals of every element by Gauss
 *        quadrature, their assembly, the reference condition and, when asked,
 *        the modal reduction.
 * @param desc The description; copied.
 * @param beam Receives the handle; unchanged on failure.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_STRUCT_SIZE,
 *         ::NSCD_ERR_NOT_FINITE, ::NSCD_ERR_OUT_OF_RANGE (a parameter not
 *         positive, n_elements outside 1..::NSCD_BEAM_MAX_ELEMENTS, n_modes or
 *         cutoff_frequency negative, a reference not in ::nscd_beam_reference,
 *         rotary_inertia not 0 or 1), ::NSCD_ERR_INVALID_ARGUMENT (the
 *         reduction keeps no mode), ::NSCD_ERR_NOT_CONVERGED (the eigensolver
 *         failed) or ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_beam_create(const nscd_beam_desc *desc, nscd_beam **beam);

/**
 * @brief Destroys a beam. NULL is accepted and ignored.
 * @param beam The beam.
 */
NSCD_API void nscd_beam_destroy(nscd_beam *beam);

/**
 * @brief Sizes of a beam.
 * @param beam          The beam.
 * @param n_coordinates Receives n = 3 + n_e, the length of p (may be NULL).
 * @param n_elastic     Receives n_e, the elastic (nodal or modal) coordinates
 *                      (may be NULL).
 * @return ::NSCD_OK or ::NSCD_ERR_NULL_POINTER.
 */
NSCD_API nscd_status nscd_beam_get_sizes(const nscd_beam *beam, int32_t *n_coordinates,
                                         int32_t *n_elastic);

/**
 * @brief The angular eigenfrequencies of the beam under its reference
 *        condition (eq. 186, (K_ff − ω² m_ff) φ = 0), lowest first.
 *
 * With the modal reduction these are the kept modes (index < n_e); without
 * it, all n_e modes of the nodal model (computed at this call).
 * @param beam  The beam.
 * @param count How many to write, 1 to n_e.
 * @param omega Receives `count` frequencies ω, rad/s.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_OUT_OF_RANGE,
 *         ::NSCD_ERR_NOT_CONVERGED or ::NSCD_ERR_OUT_OF_MEMORY.
 */
NSCD_API nscd_status nscd_beam_frequencies(const nscd_beam *beam, int32_t count, double *omega);

/**
 * @brief The mass matrix M(p) (eqs. 124–140), n x n, row-major, symmetric
 *        positive definite.
 * @param beam The beam.
 * @param p    Coordinates (R_x, R_y, θ, q_e), length n.
 * @param mass Receives n * n doubles.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER or ::NSCD_ERR_NOT_FINITE.
 */
NSCD_API nscd_status nscd_beam_mass(const nscd_beam *beam, const double *p, double *mass);

/**
 * @brief The generalized forces h(p, ṗ) = Q_v + Q_g − K p: the
 *        quadratic-velocity vector (eqs. 146–153; −Ṁ ṗ + ∂T/∂p), gravity
 *        (eqs. 167–169) and the elastic forces (eq. 159).
 * @param beam     The beam.
 * @param p        Coordinates, length n.
 * @param velocity ṗ, length n.
 * @param forces   Receives n doubles.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER or ::NSCD_ERR_NOT_FINITE.
 */
NSCD_API nscd_status nscd_beam_forces(const nscd_beam *beam, const double *p,
                                      const double *velocity, double *forces);

/**
 * @brief The quadratic-velocity vector Q_v(p, ṗ) = −Ṁ ṗ + ∂T/∂p alone
 *        (eqs. 146–153): centrifugal and Coriolis forces of the moving frame.
 * @param beam     The beam.
 * @param p        Coordinates, length n.
 * @param velocity ṗ, length n.
 * @param forces   Receives n doubles.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER or ::NSCD_ERR_NOT_FINITE.
 */
NSCD_API nscd_status nscd_beam_quadratic_velocity(const nscd_beam *beam, const double *p,
                                                  const double *velocity, double *forces);

/**
 * @brief The stiffness matrix K (eqs. 160–163): zero on the reference
 *        coordinates, K_ff = B' K_nodal B on the elastic ones; n x n, row-major.
 *        Constant; the elastic forces are −K p.
 * @param beam      The beam.
 * @param stiffness Receives n * n doubles.
 * @return ::NSCD_OK or ::NSCD_ERR_NULL_POINTER.
 */
NSCD_API nscd_status nscd_beam_stiffness(const nscd_beam *beam, double *stiffness);

/**
 * @brief Kinetic, strain and gravitational energy at (p, ṗ):
 *        ṗ' M ṗ / 2, q_e' K_ff q_e / 2 and −g · ∫ρ r dV.
 * @param beam     The beam.
 * @param p        Coordinates, length n.
 * @param velocity ṗ, length n.
 * @param energy   Receives (kinetic, strain, gravity), J.
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER or ::NSCD_ERR_NOT_FINITE.
 */
NSCD_API nscd_status nscd_beam_energy(const nscd_beam *beam, const double *p,
                                      const double *velocity, double *energy);

/**
 * @brief A material point of the neutral axis: its position (eq. 116), its
 *        rows L = dr/dp (eq. 119) and its convective acceleration
 *        γ = d²r/dt² − L p̈ = −θ̇² A u + 2 θ̇ A_θ S B q̇_e.
 *
 * A point mass m at x adds m L'L to M and L'(m g − m γ) to h (eq. 141); a
 * contact gap g(r) has the row (∂g/∂r) L (eqs. 179–183).
 * @param beam       The beam.
 * @param x          Axial position in the undeformed beam, 0 <= x <= L.
 * @param p          Coordinates, length n.
 * @param velocity   ṗ, length n; may be NULL when `convective` is NULL.
 * @param position   Receives r (2 doubles; may be NULL).
 * @param rows       Receives L, 2 x n row-major (may be NULL).
 * @param convective Receives γ (2 doubles; may be NULL).
 * @return ::NSCD_OK, ::NSCD_ERR_NULL_POINTER, ::NSCD_ERR_OUT_OF_RANGE (x) or
 *         ::NSCD_ERR_NOT_FINITE.
 */
NSCD_API nscd_status nscd_beam_point(const nscd_beam *beam, double x, const double *p,
                                     const double *velocity, double *position, double *rows,
                                     double *convective);

/**
 * @brief The nodal displacements B q_e of the elastic coordinates: for node
 *        k = 0..n_elements, (u_k, w_k, w'_k) in the body frame.
 * @param beam    The beam.
 * @param elastic q_e, length n_e.
 * @param nodal   Receives 3 (n_elements + 1) doubles.
 * @return ::NSCD_OK or ::NSCD_ERR_NULL_POINTER.
 */
NSCD_API nscd_status nscd_beam_nodal_displacements(const nscd_beam *beam, const double *elastic,
                                                   double *nodal);

#ifdef __cplusplus
}
#endif

#endif /* NSCD_BEAM_H */
