/* Lemke's complementary pivoting with the lexicographic ratio test.
 *
 * The tableau is w - M z - e z0 = q. z0 enters at the row of the most
 * negative q; afterwards the complement of each leaving variable enters,
 * and the leaving row is chosen by the lexicographic minimum ratio test on
 * (rhs, B^-1 row) / pivot entry (B^-1 is the tableau's w columns), z0
 * leaving on a tie. No basis repeats under the lexicographic rule, so the
 * pivoting ends after finitely many steps whatever M is: with z0 = 0 (a
 * solution) or on a secondary ray (no admissible pivot). The caller scales
 * the problem so that M and q have O(1) entries: pivot entries below
 * PIVOT_TOLERANCE of their column's largest (or of 1) count as zero, so a
 * dependent row never leads to a division by round-off.
 * docs/multi_contact_events.md, "The contact problem at the level of
 * accelerations". */
#include "contact/solvers/lemke.h"

#include <math.h>

/* Pivot entries below this fraction of their column's largest (scaled data,
 * O(1) entries) count as zero. */
#define PIVOT_TOLERANCE 1e-11
/* Relative difference below which two ratios of the ratio test tie. */
#define TIE_TOLERANCE 1e-12
#define MAX_LEMKE_PIVOTS 2000

nscd_status nscd__lemke(int32_t n, const double *M, const double *q, double *T, int32_t *basis,
                        double *z, double *w) {
    const int32_t width = 2 * n + 2, rhs = 2 * n + 1, z0 = 2 * n;
    int32_t row = -1;
    for (int32_t i = 0; i < n; ++i) {
        for (int32_t j = 0; j < width; ++j) {
            T[i * width + j] = 0.0;
        }
        T[i * width + i] = 1.0;
        for (int32_t j = 0; j < n; ++j) {
            T[i * width + n + j] = -M[i * n + j];
        }
        T[i * width + z0] = -1.0;
        T[i * width + rhs] = q[i];
        basis[i] = i;
        if (q[i] < 0.0 && (row < 0 || q[i] <= q[row])) {
            row = i; /* ties: the largest index is the lexicographic minimum */
        }
    }
    int32_t entering = z0;
    for (int32_t pivots = 0; row >= 0; ++pivots) {
        if (pivots > MAX_LEMKE_PIVOTS) {
            return NSCD_ERR_NOT_CONVERGED;
        }
        /* pivot on (row, entering) */
        double *pr = T + row * width, p = pr[entering];
        for (int32_t j = 0; j < width; ++j) {
            pr[j] /= p;
        }
        for (int32_t i = 0; i < n; ++i) {
            double f = T[i * width + entering];
            if (i != row && f != 0.0) {
                for (int32_t j = 0; j < width; ++j) {
                    T[i * width + j] -= f * pr[j];
                }
            }
        }
        int32_t leaving = basis[row];
        basis[row] = entering;
        if (leaving == z0) {
            break;
        }
        entering = leaving < n ? leaving + n : leaving - n; /* the complement */
        /* lexicographic ratio test on column `entering` */
        double column_max = 0.0;
        for (int32_t i = 0; i < n; ++i) {
            column_max = fmax(column_max, fabs(T[i * width + entering]));
        }
        double tolerance = PIVOT_TOLERANCE * fmax(column_max, 1.0);
        row = -1;
        for (int32_t i = 0; i < n; ++i) {
            double d = T[i * width + entering];
            if (!(d > tolerance)) {
                continue;
            }
            if (row < 0) {
                row = i;
                continue;
            }
            double dr = T[row * width + entering];
            /* compare (rhs, B^-1 row) / d of i and of row, component by component */
            int better = 0, decided = 0;
            for (int32_t k = -1; k < n && !decided; ++k) {
                int32_t col = k < 0 ? rhs : k;
                double a = T[i * width + col] / d, b = T[row * width + col] / dr;
                if (fabs(a - b) > TIE_TOLERANCE * fmax(1.0, fmax(fabs(a), fabs(b)))) {
                    better = a < b;
                    decided = 1;
                } else if (k < 0 && basis[i] == z0) {
                    better = decided = 1; /* let z0 leave on a tie */
                } else if (k < 0 && basis[row] == z0) {
                    decided = 1;
                }
            }
            if (better) {
                row = i;
            }
        }
        if (row < 0) {
            return NSCD_ERR_NOT_CONVERGED; /* secondary ray */
        }
    }
    for (int32_t i = 0; i < n; ++i) {
        z[i] = 0.0;
    }
    for (int32_t i = 0; i < n; ++i) {
        if (basis[i] >= n && basis[i] < 2 * n) {
            z[basis[i] - n] = fmax(T[i * width + rhs], 0.0);
        }
    }
    for (int32_t i = 0; i < n; ++i) {
        w[i] = q[i];
        for (int32_t j = 0; j < n; ++j) {
            w[i] += M[i * n + j] * z[j];
        }
    }
    return NSCD_OK;
}
