/* The beam's terms of motion at (p, ṗ), p = (R_x, R_y, θ, q_e) (seed 003,
 * App. C): the mass matrix from the shape integrals (eqs. 124-140), the
 * quadratic-velocity vector (146-153), gravity (167-169), the elastic forces
 * (159) and the kinematics of a material point (116, 119). */
#include <math.h>
#include <string.h>

#include "core/check.h"
#include "beam/beam_impl.h"

#define REF 3 /* reference coordinates R_x, R_y, θ */

/* A(θ) and A_θ(θ) (eqs. 114, 120), row-major 2 x 2. */
static void rotation(double theta, double *a, double *a_theta) {
    double c = cos(theta), s = sin(theta);
    a[0] = c, a[1] = -s, a[2] = s, a[3] = c;
    a_theta[0] = -s, a_theta[1] = -c, a_theta[2] = c, a_theta[3] = -s;
}

static void apply(const double *m, const double *x, double *y) {
    y[0] = m[0] * x[0] + m[1] * x[1];
    y[1] = m[2] * x[0] + m[3] * x[1];
}

/* ∫ρ u dV = I1 + S̄ q_e (eq. 130) into ubar; S̄ q̇_e into sbar_rate. */
static void first_moments(const nscd_beam *b, const double *q, const double *qdot, double *ubar,
                          double *sbar_rate) {
    int32_t n = b->n_elastic;
    ubar[0] = b->e.i1[0], ubar[1] = b->e.i1[1];
    sbar_rate[0] = sbar_rate[1] = 0.0;
    for (int32_t j = 0; j < n; ++j) {
        ubar[0] += b->e.sbar[j] * q[j];
        ubar[1] += b->e.sbar[n + j] * q[j];
        if (qdot != NULL) {
            sbar_rate[0] += b->e.sbar[j] * qdot[j];
            sbar_rate[1] += b->e.sbar[n + j] * qdot[j];
        }
    }
}

/* y = X x for the n_e x n_e matrix X. */
static void elastic_product(const nscd_beam *b, const double *x_matrix, const double *x,
                            double *y) {
    int32_t n = b->n_elastic;
    for (int32_t i = 0; i < n; ++i) {
        double sum = 0.0;
        for (int32_t j = 0; j < n; ++j) {
            sum += x_matrix[(size_t)i * (size_t)n + (size_t)j] * x[j];
        }
        y[i] = sum;
    }
}

static bool inputs_ok(const nscd_beam *b, const double *p, const double *v) {
    size_t n = (size_t)(REF + b->n_elastic);
    return nscd__all_finite(p, n) && (v == NULL || nscd__all_finite(v, n));
}

nscd_status nscd_beam_mass(const nscd_beam *beam, const double *p, double *mass) {
    if (beam == NULL || p == NULL || mass == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (!inputs_ok(beam, p, NULL)) {
        return NSCD_ERR_NOT_FINITE;
    }
    int32_t ne = beam->n_elastic, n = REF + ne;
    const double *q = p + REF;
    double a[4], at[4], ubar[2], unused[2], col[2];
    rotation(p[2], a, at);
    first_moments(beam, q, NULL, ubar, unused);
    memset(mass, 0, (size_t)n * (size_t)n * sizeof(double));
    mass[0] = mass[(size_t)n + 1] = beam->e.mass; /* m_RR (129) */
    apply(at, ubar, col);                         /* m_Rθ = A_θ (I1 + S̄ q) (130) */
    double m_tt = beam->e.i2;                     /* m_θθ (133)-(137) */
    for (int32_t j = 0; j < ne; ++j) {
        double mq = 0.0, row = beam->e.i4[j]; /* m_θf = I4 + q' S̃ (139) */
        for (int32_t i = 0; i < ne; ++i) {
            mq += beam->e.mff[(size_t)j * (size_t)ne + (size_t)i] * q[i];
            row += q[i] * beam->e.stilde[(size_t)i * (size_t)ne + (size_t)j];
        }
        m_tt += (2.0 * beam->e.i3[j] + mq) * q[j];
        double s0 = beam->e.sbar[j], s1 = beam->e.sbar[ne + j];
        size_t c = (size_t)(REF + j);
        mass[c] = mass[c * (size_t)n] = a[0] * s0 + a[1] * s1; /* m_Rf = A S̄ (132) */
        mass[(size_t)n + c] = mass[c * (size_t)n + 1] = a[2] * s0 + a[3] * s1;
        mass[2 * (size_t)n + c] = mass[c * (size_t)n + 2] = row;
        for (int32_t i = 0; i < ne; ++i) {
            mass[c * (size_t)n + (size_t)(REF + i)] =
                beam->e.mff[(size_t)j * (size_t)ne + (size_t)i];
        }
    }
    mass[2] = mass[2 * (size_t)n] = col[0];
    mass[(size_t)n + 2] = mass[2 * (size_t)n + 1] = col[1];
    mass[2 * (size_t)n + 2] = m_tt;
    return NSCD_OK;
}

/* Q_v = -∫ρ L'γ dV, γ = -θ̇² A u + 2 θ̇ A_θ S q̇_e the convective acceleration:
 *   Q_R = θ̇² A (I1 + S̄ q) - 2 θ̇ A_θ S̄ q̇,
 *   Q_θ = -2 θ̇ (I3 + q' m_ff) q̇,
 *   Q_f = θ̇² (I3' + m_ff q) + 2 θ̇ S̃ q̇       (A'A_θ = -Ĩ, A_θ'A_θ = I). */
static void quadratic_velocity(const nscd_beam *b, const double *p, const double *v, double *out) {
    int32_t ne = b->n_elastic;
    const double *q = p + REF, *qdot = v + REF;
    double w = v[2], a[4], at[4], ubar[2], srate[2], t1[2], t2[2];
    rotation(p[2], a, at);
    first_moments(b, q, qdot, ubar, srate);
    apply(a, ubar, t1);
    apply(at, srate, t2);
    out[0] = w * w * t1[0] - 2.0 * w * t2[0];
    out[1] = w * w * t1[1] - 2.0 * w * t2[1];
    double *qf = out + REF;
    elastic_product(b, b->e.mff, q, qf); /* m_ff q */
    double q_theta = 0.0;
    for (int32_t j = 0; j < ne; ++j) {
        q_theta += (b->e.i3[j] + qf[j]) * qdot[j]; /* m_ff symmetric: q' m_ff = (m_ff q)' */
    }
    out[2] = -2.0 * w * q_theta;
    for (int32_t i = 0; i < ne; ++i) {
        double skew = 0.0;
        for (int32_t j = 0; j < ne; ++j) {
            skew += b->e.stilde[(size_t)i * (size_t)ne + (size_t)j] * qdot[j];
        }
        qf[i] = w * w * (b->e.i3[i] + qf[i]) + 2.0 * w * skew;
    }
}

nscd_status nscd_beam_quadratic_velocity(const nscd_beam *beam, const double *p,
                                         const double *velocity, double *forces) {
    if (beam == NULL || p == NULL || velocity == NULL || forces == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (!inputs_ok(beam, p, velocity)) {
        return NSCD_ERR_NOT_FINITE;
    }
    quadratic_velocity(beam, p, velocity, forces);
    return NSCD_OK;
}

/* Q_g = ∫ρ L' g dV (eq. 167): (m g, g · A_θ (I1 + S̄ q), S̄' A' g). */
static void add_gravity(const nscd_beam *b, const double *p, double *out) {
    const double *g = b->desc.gravity;
    int32_t ne = b->n_elastic;
    double a[4], at[4], ubar[2], unused[2], t[2];
    rotation(p[2], a, at);
    first_moments(b, p + REF, NULL, ubar, unused);
    apply(at, ubar, t);
    out[0] += b->e.mass * g[0];
    out[1] += b->e.mass * g[1];
    out[2] += g[0] * t[0] + g[1] * t[1];
    double local[2] = {a[0] * g[0] + a[2] * g[1], a[1] * g[0] + a[3] * g[1]}; /* A' g */
    for (int32_t j = 0; j < ne; ++j) {
        out[REF + j] += b->e.sbar[j] * local[0] + b->e.sbar[ne + j] * local[1];
    }
}

nscd_status nscd_beam_forces(const nscd_beam *beam, const double *p, const double *velocity,
                             double *forces) {
    if (beam == NULL || p == NULL || velocity == NULL || forces == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (!inputs_ok(beam, p, velocity)) {
        return NSCD_ERR_NOT_FINITE;
    }
    int32_t ne = beam->n_elastic;
    quadratic_velocity(beam, p, velocity, forces);
    add_gravity(beam, p, forces);
    for (int32_t i = 0; i < ne; ++i) { /* -K_ff q_e (eq. 159) */
        double sum = 0.0;
        for (int32_t j = 0; j < ne; ++j) {
            sum += beam->e.kff[(size_t)i * (size_t)ne + (size_t)j] * p[REF + j];
        }
        forces[REF + i] -= sum;
    }
    return NSCD_OK;
}

nscd_status nscd_beam_stiffness(const nscd_beam *beam, double *stiffness) {
    if (beam == NULL || stiffness == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    int32_t ne = beam->n_elastic, n = REF + ne;
    memset(stiffness, 0, (size_t)n * (size_t)n * sizeof(double));
    for (int32_t i = 0; i < ne; ++i) {
        memcpy(stiffness + (size_t)(REF + i) * (size_t)n + REF,
               beam->e.kff + (size_t)i * (size_t)ne, (size_t)ne * sizeof(double));
    }
    return NSCD_OK;
}

nscd_status nscd_beam_energy(const nscd_beam *beam, const double *p, const double *velocity,
                             double *energy) {
    if (beam == NULL || p == NULL || velocity == NULL || energy == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (!inputs_ok(beam, p, velocity)) {
        return NSCD_ERR_NOT_FINITE;
    }
    int32_t ne = beam->n_elastic, n = REF + ne;
    /* ṗ' M ṗ without storing M: the blocks of eq. (126) */
    double a[4], at[4], ubar[2], srate[2], t[2], s[2];
    rotation(p[2], a, at);
    first_moments(beam, p + REF, velocity + REF, ubar, srate);
    const double *q = p + REF, *qd = velocity + REF, *v = velocity;
    double m_tt = beam->e.i2, coupling = 0.0, elastic = 0.0, strain = 0.0;
    for (int32_t j = 0; j < ne; ++j) {
        double mq = 0.0, mqd = 0.0, kq = 0.0, sq = 0.0;
        for (int32_t i = 0; i < ne; ++i) {
            size_t ji = (size_t)j * (size_t)ne + (size_t)i;
            mq += beam->e.mff[ji] * q[i];
            mqd += beam->e.mff[ji] * qd[i];
            kq += beam->e.kff[ji] * q[i];
            sq += q[i] * beam->e.stilde[(size_t)i * (size_t)ne + (size_t)j];
        }
        m_tt += (2.0 * beam->e.i3[j] + mq) * q[j];
        coupling += (beam->e.i4[j] + sq) * qd[j];
        elastic += mqd * qd[j];
        strain += kq * q[j];
    }
    apply(at, ubar, t);
    apply(a, srate, s);
    double kinetic = beam->e.mass * (v[0] * v[0] + v[1] * v[1]) + m_tt * v[2] * v[2] + elastic +
                     2.0 * v[2] * (t[0] * v[0] + t[1] * v[1]) + 2.0 * (s[0] * v[0] + s[1] * v[1]) +
                     2.0 * v[2] * coupling;
    double centre[2];
    apply(a, ubar, centre); /* ∫ρ r dV = m R + A (I1 + S̄ q) */
    const double *g = beam->desc.gravity;
    energy[0] = 0.5 * kinetic;
    energy[1] = 0.5 * strain;
    energy[2] =
        -(g[0] * (beam->e.mass * p[0] + centre[0]) + g[1] * (beam->e.mass * p[1] + centre[1]));
    (void)n;
    return NSCD_OK;
}

/* The row block S(x) B (2 x n_e) of the material point x. */
static void point_shape(const nscd_beam *b, double x, double *sb) {
    int32_t ne = b->n_elastic, n_el = b->desc.n_elements;
    double h = b->desc.length / n_el;
    int32_t e = (int32_t)floor(x / h);
    e = e < 0 ? 0 : (e >= n_el ? n_el - 1 : e);
    double s[12];
    nscd__beam_shape(x / h - e, h, s, NULL);
    /* a loop, not memset: gcc -O3 cannot see ne >= 0 and rejects the size */
    for (int32_t j = 0; j < 2 * ne; ++j) {
        sb[j] = 0.0;
    }
    for (int k = 0; k < 6; ++k) {
        const double *brow = b->basis + (size_t)(3 * e + k) * (size_t)ne;
        for (int32_t j = 0; j < ne; ++j) {
            sb[j] += s[k] * brow[j];
            sb[ne + j] += s[6 + k] * brow[j];
        }
    }
}

nscd_status nscd_beam_point(const nscd_beam *beam, double x, const double *p,
                            const double *velocity, double *position, double *rows,
                            double *convective) {
    if (beam == NULL || p == NULL || (convective != NULL && velocity == NULL)) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (!(x >= 0.0 && x <= beam->desc.length)) {
        return isnan(x) ? NSCD_ERR_NOT_FINITE : NSCD_ERR_OUT_OF_RANGE;
    }
    if (!inputs_ok(beam, p, convective != NULL ? velocity : NULL)) {
        return NSCD_ERR_NOT_FINITE;
    }
    int32_t ne = beam->n_elastic, n = REF + ne;
    double sb[2 * 3 * (NSCD_BEAM_MAX_ELEMENTS + 1)]; /* n_e <= n_nodal */
    point_shape(beam, x, sb);
    double u[2] = {x, 0.0}, rate[2] = {0.0, 0.0}, a[4], at[4], au[2], atu[2];
    for (int32_t j = 0; j < ne; ++j) {
        u[0] += sb[j] * p[REF + j];
        u[1] += sb[ne + j] * p[REF + j];
        if (convective != NULL) {
            rate[0] += sb[j] * velocity[REF + j];
            rate[1] += sb[ne + j] * velocity[REF + j];
        }
    }
    rotation(p[2], a, at);
    apply(a, u, au);
    apply(at, u, atu);
    if (position != NULL) {
        position[0] = p[0] + au[0];
        position[1] = p[1] + au[1];
    }
    if (rows != NULL) { /* L = [I, A_θ u, A S B] (eq. 119) */
        memset(rows, 0, 2 * (size_t)n * sizeof(double));
        rows[0] = rows[n + 1] = 1.0;
        rows[2] = atu[0];
        rows[n + 2] = atu[1];
        for (int32_t j = 0; j < ne; ++j) {
            rows[REF + j] = a[0] * sb[j] + a[1] * sb[ne + j];
            rows[n + REF + j] = a[2] * sb[j] + a[3] * sb[ne + j];
        }
    }
    if (convective != NULL) { /* γ = -θ̇² A u + 2 θ̇ A_θ S B q̇ */
        double w = velocity[2], atr[2];
        apply(at, rate, atr);
        convective[0] = -w * w * au[0] + 2.0 * w * atr[0];
        convective[1] = -w * w * au[1] + 2.0 * w * atr[1];
    }
    return NSCD_OK;
}
