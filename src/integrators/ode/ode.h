/* Explicit Runge–Kutta steps for y' = f(t, y) with an interpolant over the step. */
#ifndef NSCD_INTEGRATORS_ODE_H
#define NSCD_INTEGRATORS_ODE_H

#include <stdint.h>

#include "nscd/host.h"
#include "nscd/status.h"

typedef nscd_status (*nscd__ode_fn)(void *context, double t, const double *y, double *ydot);

typedef struct nscd__ode {
    nscd__ode_fn f;
    void *context;
    int32_t n;
} nscd__ode;

/* Dormand–Prince 5(4) with Hairer's 4th-order continuous extension. */
typedef struct nscd__dopri5 {
    int32_t n;
    double *k[7];     /* stage derivatives; k[0] = f(t, y) on entry (FSAL) */
    double *stage;    /* stage argument */
    double *y1;       /* solution at t + h */
    double *dense[5]; /* interpolation coefficients of the last accepted step */
} nscd__dopri5;

nscd_status nscd__dopri5_create(const nscd_allocator *a, int32_t n, nscd__dopri5 *rk);
void nscd__dopri5_destroy(const nscd_allocator *a, nscd__dopri5 *rk);

/* Trial step of size h from (t, y); rk->k[0] must hold f(t, y). Writes y1,
 * k[6] = f(t + h, y1) and the weighted RMS error norm (<= 1 means accept). */
nscd_status nscd__dopri5_step(nscd__dopri5 *rk, const nscd__ode *ode, double t, const double *y,
                              double h, double rtol, double atol, double *error_norm);
/* Prepares the interpolant of the step just taken from y with size h. */
void nscd__dopri5_prepare_dense(nscd__dopri5 *rk, const double *y, double h);
/* y(t + theta h), theta in [0, 1]. */
void nscd__dopri5_dense(const nscd__dopri5 *rk, double theta, double *out);

/* Classical fixed-step RK4: y1 = y + h (k1 + 2 k2 + 2 k3 + k4) / 6. */
typedef struct nscd__rk4 {
    int32_t n;
    double *k[4];
    double *stage;
} nscd__rk4;

nscd_status nscd__rk4_create(const nscd_allocator *a, int32_t n, nscd__rk4 *rk);
void nscd__rk4_destroy(const nscd_allocator *a, nscd__rk4 *rk);
nscd_status nscd__rk4_step(nscd__rk4 *rk, const nscd__ode *ode, double t, const double *y, double h,
                           double *y1);

#endif
