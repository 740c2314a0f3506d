/* Envelope (profile) Cholesky factor and solves (envelope.h). */
#include "core/envelope.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "core/dense_small.h"

/* Systems of solve_lockstep at a time. */
#define NSCD__ENVELOPE_MANY 8

static int32_t imax(int32_t a, int32_t b) { return a > b ? a : b; }

/* The length of column i's transposed dot: the rows below the diagonal up
 * to the last 4-block of nscd__small_dot's partial sums that reaches the
 * envelope (the rest of the dense dot adds zeros). */
static int32_t column_length(const nscd__envelope *e, int32_t i) {
    int32_t len = e->n - i - 1, band = (e->last[i] - i + 3) & ~3;
    return band < len ? band : len;
}

int32_t nscd__envelope_layout(nscd__envelope *e) {
    int32_t n = e->n, total = 0;
    for (int32_t i = 0; i < n; ++i) {
        e->offset[i] = total;
        total += i - e->start[i] + 1;
        e->last[i] = i;
    }
    e->offset[n] = total;
    for (int32_t k = 0; k < n; ++k) { /* rows ascending: the largest k stays */
        for (int32_t j = e->start[k]; j < k; ++j) {
            e->last[j] = k;
        }
    }
    e->toff[0] = 0;
    for (int32_t i = 0; i < n; ++i) {
        e->toff[i + 1] = e->toff[i] + column_length(e, i);
    }
    return total;
}

/* The arithmetic of nscd__small_cholesky_cm (left-looking by columns, the
 * updates of an entry in ascending order, the zero multipliers skipped) on
 * the envelope only: an entry outside it is zero in the factor as in A, so
 * the dense factor's updates with it add zeros. Row-oriented, in place. */
nscd_status nscd__envelope_factor(nscd__envelope *e) {
    for (int32_t i = 0; i < e->n; ++i) {
        int32_t si = e->start[i];
        double *Li = e->L + e->offset[i];
        for (int32_t j = si; j <= i; ++j) {
            int32_t sj = e->start[j];
            const double *Lj = e->L + e->offset[j];
            double v = Li[j - si];
            for (int32_t k = imax(si, sj); k < j; ++k) {
                double l_jk = Lj[k - sj];
                if (l_jk != 0.0) {
                    v += -l_jk * Li[k - si];
                }
            }
            if (j < i) {
                Li[j - si] = v / Lj[j - sj];
            } else if (!(v > 0.0) || !isfinite(v)) {
                return NSCD_ERR_NOT_SPD;
            } else {
                Li[i - si] = sqrt(v);
            }
        }
    }
    for (int32_t i = 0; i < e->n; ++i) { /* the columns, for the transposed solve */
        double *col = e->T + e->toff[i];
        for (int32_t t = 0, len = e->toff[i + 1] - e->toff[i]; t < len; ++t) {
            int32_t k = i + 1 + t, s = e->start[k];
            col[t] = s <= i ? e->L[e->offset[k] + (i - s)] : 0.0;
        }
    }
    return NSCD_OK;
}

/* The arithmetic of nscd__small_cholesky_solve_cm: L z = x by columns (the
 * updates of an entry in ascending order, zero multipliers skipped), row i
 * of it; then L' x = z by nscd__small_dot's four partial sums, cut after
 * the last 4-block that reaches the envelope (the rest adds zeros), row i. */
static void forward_row(const nscd__envelope *e, double *x, int32_t i) {
    int32_t si = e->start[i];
    const double *Li = e->L + e->offset[i];
    double v = x[i];
    for (int32_t k = si; k < i; ++k) {
        if (x[k] != 0.0) {
            v += -x[k] * Li[k - si];
        }
    }
    x[i] = v / Li[i - si];
}

static void backward_row(const nscd__envelope *e, double *x, int32_t i) {
    const double *col = e->T + e->toff[i], *y = x + i + 1;
    int32_t len = e->toff[i + 1] - e->toff[i], t = 0;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (; t + 4 <= len; t += 4) {
        s0 += col[t] * y[t];
        s1 += col[t + 1] * y[t + 1];
        s2 += col[t + 2] * y[t + 2];
        s3 += col[t + 3] * y[t + 3];
    }
    double s = (s0 + s1) + (s2 + s3);
    for (; t < len; ++t) {
        s += col[t] * y[t];
    }
    x[i] = (x[i] - s) / e->L[e->offset[i] + (i - e->start[i])];
}

/* Row by row in lockstep (systems of any structure). */
static void solve_lockstep(int32_t count, const nscd__envelope *e) {
    int32_t most = 0;
    for (int32_t g = 0; g < count; ++g) {
        most = e[g].n > most ? e[g].n : most;
    }
    for (int32_t i = 0; i < most; ++i) {
        for (int32_t g = 0; g < count; ++g) {
            if (i < e[g].n) {
                forward_row(&e[g], e[g].x, i);
            }
        }
    }
    for (int32_t t = 0; t < most; ++t) {
        for (int32_t g = 0; g < count; ++g) {
            if (t < e[g].n) {
                backward_row(&e[g], e[g].x, e[g].n - 1 - t);
            }
        }
    }
}

/* Two systems of one structure (the same start, hence offset, toff) in one
 * pass: each one's arithmetic is forward_row's and backward_row's in their
 * order (a zero multiplier skipped: the sum kept), the two chains of
 * additions and divisions side by side. */
static void solve_pair(const nscd__envelope *a, const nscd__envelope *b) {
    const int32_t n = a->n, *start = a->start, *offset = a->offset, *toff = a->toff;
    double *restrict xa = a->x, *restrict xb = b->x;
    const double *restrict La = a->L, *restrict Lb = b->L;
    const double *restrict Ta = a->T, *restrict Tb = b->T;
    for (int32_t i = 0; i < n; ++i) {
        int32_t si = start[i], o = offset[i] - si;
        double va = xa[i], vb = xb[i];
        for (int32_t k = si; k < i; ++k) {
            double ka = xa[k], kb = xb[k];
            double ta = va + -ka * La[o + k], tb = vb + -kb * Lb[o + k];
            va = ka != 0.0 ? ta : va;
            vb = kb != 0.0 ? tb : vb;
        }
        xa[i] = va / La[o + i];
        xb[i] = vb / Lb[o + i];
    }
    for (int32_t i = n - 1; i >= 0; --i) {
        const double *ca = Ta + toff[i], *cb = Tb + toff[i], *ya = xa + i + 1, *yb = xb + i + 1;
        int32_t len = toff[i + 1] - toff[i], t = 0;
        double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0, b0 = 0.0, b1 = 0.0, b2 = 0.0, b3 = 0.0;
        for (; t + 4 <= len; t += 4) {
            a0 += ca[t] * ya[t];
            b0 += cb[t] * yb[t];
            a1 += ca[t + 1] * ya[t + 1];
            b1 += cb[t + 1] * yb[t + 1];
            a2 += ca[t + 2] * ya[t + 2];
            b2 += cb[t + 2] * yb[t + 2];
            a3 += ca[t + 3] * ya[t + 3];
            b3 += cb[t + 3] * yb[t + 3];
        }
        double sa = (a0 + a1) + (a2 + a3), sb = (b0 + b1) + (b2 + b3);
        for (; t < len; ++t) {
            sa += ca[t] * ya[t];
            sb += cb[t] * yb[t];
        }
        int32_t d = offset[i] + (i - start[i]);
        xa[i] = (xa[i] - sa) / La[d];
        xb[i] = (xb[i] - sb) / Lb[d];
    }
}

static bool same_structure(const nscd__envelope *a, const nscd__envelope *b) {
    return a->n == b->n && (a->start == b->start ||
                            memcmp(a->start, b->start, (size_t)a->n * sizeof *a->start) == 0);
}

/* Consecutive systems of one structure two at a time (solve_pair), the
 * others row by row in lockstep. */
void nscd__envelope_solve_many(int32_t count, const nscd__envelope *e) {
    nscd__envelope rest[NSCD__ENVELOPE_MANY];
    int32_t left = 0;
    for (int32_t g = 0; g < count;) {
        if (g + 1 < count && same_structure(&e[g], &e[g + 1])) {
            solve_pair(&e[g], &e[g + 1]);
            g += 2;
        } else {
            rest[left++] = e[g++];
        }
        if (left == NSCD__ENVELOPE_MANY || (g >= count && left > 0)) {
            solve_lockstep(left, rest);
            left = 0;
        }
    }
}

void nscd__envelope_solve(const nscd__envelope *e, double *x) {
    nscd__envelope one = *e;
    one.x = x;
    nscd__envelope_solve_many(1, &one);
}
