/* Dormand–Prince 5(4) embedded pair with dense output (Hairer, Nørsett,
 * Wanner, Solving ODEs I, Sect. II.5 and II.6; coefficients of DOPRI5). */
#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "integrators/ode/ode.h"

static const double C[7] = {0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0};
static const double A[7][6] = {
    {0},
    {1.0 / 5.0},
    {3.0 / 40.0, 9.0 / 40.0},
    {44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0},
    {19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0},
    {9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0},
    {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0},
};
/* 5th-order weights minus 4th-order weights: the local error estimate. */
static const double E[7] = {71.0 / 57600.0,      0.0,          -71.0 / 16695.0, 71.0 / 1920.0,
                            -17253.0 / 339200.0, 22.0 / 525.0, -1.0 / 40.0};
/* Continuous extension (contd5). */
static const double D[7] = {-12715105075.0 / 11282082432.0,  0.0,
                            87487479700.0 / 32700410799.0,   -10690763975.0 / 1880347072.0,
                            701980252875.0 / 199316789632.0, -1453857185.0 / 822651844.0,
                            69997945.0 / 29380423.0};

nscd_status nscd__dopri5_create(const nscd_allocator *a, int32_t n, nscd__dopri5 *rk) {
    memset(rk, 0, sizeof *rk);
    rk->n = n;
    int ok = 1;
    for (int s = 0; s < 7; ++s) {
        ok &= (rk->k[s] = nscd__alloc_array(a, (size_t)n, sizeof(double))) != NULL;
    }
    for (int s = 0; s < 5; ++s) {
        ok &= (rk->dense[s] = nscd__alloc_array(a, (size_t)n, sizeof(double))) != NULL;
    }
    ok &= (rk->stage = nscd__alloc_array(a, (size_t)n, sizeof(double))) != NULL;
    ok &= (rk->y1 = nscd__alloc_array(a, (size_t)n, sizeof(double))) != NULL;
    if (!ok) {
        nscd__dopri5_destroy(a, rk);
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    return NSCD_OK;
}

void nscd__dopri5_destroy(const nscd_allocator *a, nscd__dopri5 *rk) {
    size_t bytes = (size_t)rk->n * sizeof(double);
    for (int s = 0; s < 7; ++s) {
        nscd__free(a, rk->k[s], bytes);
    }
    for (int s = 0; s < 5; ++s) {
        nscd__free(a, rk->dense[s], bytes);
    }
    nscd__free(a, rk->stage, bytes);
    nscd__free(a, rk->y1, bytes);
    memset(rk, 0, sizeof *rk);
}

nscd_status nscd__dopri5_step(nscd__dopri5 *rk, const nscd__ode *ode, double t, const double *y,
                              double h, double rtol, double atol, double *error_norm) {
    int32_t n = rk->n;
    for (int s = 1; s < 7; ++s) {
        double *target = s == 6 ? rk->y1 : rk->stage; /* stage 7 is the solution (FSAL) */
        for (int32_t i = 0; i < n; ++i) {
            double sum = 0.0;
            for (int j = 0; j < s; ++j) {
                sum += A[s][j] * rk->k[j][i];
            }
            target[i] = y[i] + h * sum;
        }
        nscd_status rc = ode->f(ode->context, t + C[s] * h, target, rk->k[s]);
        if (rc != NSCD_OK) {
            return rc;
        }
    }
    double sum = 0.0;
    for (int32_t i = 0; i < n; ++i) {
        double err = 0.0;
        for (int s = 0; s < 7; ++s) {
            err += E[s] * rk->k[s][i];
        }
        double scale = atol + rtol * fmax(fabs(y[i]), fabs(rk->y1[i]));
        double ratio = h * err / scale;
        sum += ratio * ratio;
    }
    *error_norm = sqrt(sum / (double)n);
    return NSCD_OK;
}

void nscd__dopri5_prepare_dense(nscd__dopri5 *rk, const double *y, double h) {
    for (int32_t i = 0; i < rk->n; ++i) {
        double diff = rk->y1[i] - y[i];
        double bspl = h * rk->k[0][i] - diff;
        double d = 0.0;
        for (int s = 0; s < 7; ++s) {
            d += D[s] * rk->k[s][i];
        }
        rk->dense[0][i] = y[i];
        rk->dense[1][i] = diff;
        rk->dense[2][i] = bspl;
        rk->dense[3][i] = diff - h * rk->k[6][i] - bspl;
        rk->dense[4][i] = h * d;
    }
}

void nscd__dopri5_dense(const nscd__dopri5 *rk, double theta, double *out) {
    double rest = 1.0 - theta;
    for (int32_t i = 0; i < rk->n; ++i) {
        out[i] =
            rk->dense[0][i] +
            theta * (rk->dense[1][i] +
                     rest * (rk->dense[2][i] + theta * (rk->dense[3][i] + rest * rk->dense[4][i])));
    }
}
