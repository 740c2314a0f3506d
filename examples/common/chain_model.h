/* The 3-dof mass-spring chain of seed 003, eq. (91) (Sect. 2.8, Fig. 14),
 * as an nscd_system, and its exact modal solution.
 *
 *     M q'' + K q = M gamma 1,   M = diag(m1, m2, m3),
 *     K = [[k1 + k2, -k2, 0], [-k2, k2 + k3, -k3], [0, -k3, k3 + k0]],
 *
 * released from rest at q = 0. Model (a): mass 3 on the stiff spring
 * k0 = 1e7 N/m. Model (b): no k0; mass 3 held at q3 = 0 by a bilateral
 * constraint, the system's equality entry 0 (g_B = q3, row (0, 0, 1)), whose
 * force is lambda = -(m3 gamma + k3 (q2 - q3)) on the exact motion. The
 * forces are h = M gamma 1 - K q and the stiffness callback gives K, so the
 * implicit schemes can use it. */
#ifndef NSCD_EXAMPLE_CHAIN_MODEL_H
#define NSCD_EXAMPLE_CHAIN_MODEL_H

#include <nscd/nscd.h>

typedef struct chain_model {
    char model;     /* 'a' or 'b' */
    double mass[3]; /* m1, m2, m3 (kg) */
    double k[4];    /* k0, k1, k2, k3 (N/m); k0 = 0 in model (b) */
    double gravity; /* gamma (m/s^2), along the chain */
    double K[9];    /* the stiffness matrix, row-major */
} chain_model;

/* The paper's data: unit masses, k1 = k2 = k3 = 1 N/m, gamma = 9.81 m/s^2,
 * k0 = 1e7 N/m in model (a). Returns 0, or -1 for a model other than a, b. */
int chain_model_init(chain_model *c, char model);

/* Creates the system (3 dofs, no contacts, one equality entry in model (b)),
 * at rest at q = 0, t = 0. `c` must outlive it. */
nscd_status chain_model_create(const chain_model *c, nscd_system **system);

/* The exact solution: modes of M^-1/2 K M^-1/2 of the free dofs (3 in
 * model (a), q1 and q2 in model (b), where q3 = 0). */
typedef struct chain_exact {
    const chain_model *c;
    int n;           /* free dofs */
    double omega[3]; /* circular eigenfrequencies (rad/s) */
    double shape[9]; /* mass-normalised mode shapes, column j = mode j */
    double q_static[3];
    double modal[3]; /* modal coordinates of q_static */
} chain_exact;

void chain_exact_init(const chain_model *c, chain_exact *e);

/* q, v, a at time t (each of length 3; may be NULL). */
void chain_exact_state(const chain_exact *e, double t, double *q, double *v, double *a);

/* The constraint force of model (b) at t: lambda = -(m3 gamma + k3 q2). */
double chain_exact_lambda(const chain_exact *e, double t);

#endif
