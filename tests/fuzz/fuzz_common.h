/* Shared helpers of the libFuzzer targets (tests/fuzz/fuzz_*.c).
 *
 * Input decoding. A fuzz input is read front to back as a stream of bytes;
 * reading past its end yields zeros, so every input (also the empty one)
 * decodes to a problem. Numbers are decoded from 16-bit little-endian words
 * into bounded ranges: fz_unit() gives u16 / 65535 in [0, 1], and the other
 * readers map it linearly (fz_range), symmetrically (fz_sym) or on a log
 * scale (fz_decade). tests/fuzz/make_seeds.py writes inputs with the same
 * encoding. Sizes are read as one byte and reduced modulo a small bound, so
 * nothing is ever allocated from an unchecked size.
 *
 * Bad input. Each target may "corrupt" one parameter of an otherwise valid
 * problem with a special value (NaN, +-inf, a negative number, zero, huge or
 * tiny numbers, see fz_special()) and then knows which status the library
 * must return.
 *
 * Failures. FZ_REQUIRE(cond, fmt, ...) prints the message and the condition
 * and aborts, which libFuzzer reports as a crash and saves the input.
 */
#ifndef NSCD_FUZZ_COMMON_H
#define NSCD_FUZZ_COMMON_H

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nscd/nscd.h"

#include "../common/friction_cone_reference.h"

/* The entry point libFuzzer calls; declared here for -Wmissing-prototypes. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ------------------------------------------------------------------ reading */

typedef struct fz_reader {
    const uint8_t *p;
    size_t n;
} fz_reader;

static inline fz_reader fz_make(const uint8_t *data, size_t size) {
    fz_reader r = {data, size};
    return r;
}

/* Next byte, 0 past the end. */
static inline uint8_t fz_u8(fz_reader *r) {
    if (r->n == 0) {
        return 0;
    }
    r->n--;
    return *r->p++;
}

/* Next little-endian 16-bit word. */
static inline uint16_t fz_u16(fz_reader *r) {
    uint16_t lo = fz_u8(r);
    uint16_t hi = fz_u8(r);
    return (uint16_t)(lo | (uint16_t)(hi << 8));
}

/* A number in [0, 1]. */
static inline double fz_unit(fz_reader *r) { return (double)fz_u16(r) / 65535.0; }

/* A number in [lo, hi]. */
static inline double fz_range(fz_reader *r, double lo, double hi) {
    return lo + (hi - lo) * fz_unit(r);
}

/* A number in [-1, 1]. */
static inline double fz_sym(fz_reader *r) { return fz_range(r, -1.0, 1.0); }

/* 10^x with x in [lo, hi]. */
static inline double fz_decade(fz_reader *r, double lo, double hi) {
    return pow(10.0, fz_range(r, lo, hi));
}

/* An integer in [0, n) from one byte. */
static inline int fz_choice(fz_reader *r, int n) { return (int)(fz_u8(r) % (unsigned)n); }

/* ------------------------------------------------------------------ bad input */

/* Number of special values of fz_special(). */
enum { FZ_N_SPECIAL = 12 };

/* Special value number k (mod FZ_N_SPECIAL): the first three are not finite. */
static inline double fz_special(int k) {
    static const double values[FZ_N_SPECIAL] = {
        NAN, INFINITY, -INFINITY, -1.0, 0.0, -0.0, 1e300, -1e300, 1e-300, 2.0, DBL_MAX, -DBL_MIN};
    return values[((k % FZ_N_SPECIAL) + FZ_N_SPECIAL) % FZ_N_SPECIAL];
}

/* The corruption decoded from the input: none (active = 0) or the special
 * value number `special` (`value`) put into parameter number `index`. */
typedef struct fz_corruption {
    int active;
    int index;
    int special;
    double value;
} fz_corruption;

/* One selector byte: values >= 224 (1 in 8) corrupt one of n_params parameters. */
static inline fz_corruption fz_read_corruption(fz_reader *r, int n_params) {
    fz_corruption c = {0, -1, 0, 0.0};
    if (fz_u8(r) >= 224 && n_params > 0) {
        c.active = 1;
        c.index = fz_u8(r) % n_params;
        c.special = fz_u8(r) % FZ_N_SPECIAL;
        c.value = fz_special(c.special);
    }
    return c;
}

/* ------------------------------------------------------------------ checking */

/* Non-zero when the environment sets NSCD_FUZZ_VERBOSE: the targets then print
 * the decoded problem (run a fuzzer on one input file to see it). */
static inline int fz_verbose(void) {
    static int v = -1;
    if (v < 0) {
        const char *e = getenv("NSCD_FUZZ_VERBOSE");
        v = e != NULL && e[0] != '\0' && e[0] != '0';
    }
    return v;
}

/* Prints a named array with full precision (verbose mode). */
static inline void fz_print(const char *name, const double *x, size_t n) {
    fprintf(stderr, "%s = [", name);
    for (size_t i = 0; i < n; ++i) {
        fprintf(stderr, "%s%.17g", i ? ", " : "", x[i]);
    }
    fprintf(stderr, "]\n");
}

static inline void fz_fail(const char *file, int line, const char *cond, const char *fmt, ...) {
    fprintf(stderr, "\n%s:%d: check failed: %s\n  ", file, line, cond);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    fflush(stderr);
    abort();
}

#define FZ_REQUIRE(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                                       \
        }                                                                                          \
    } while (0)

/* Known library issues (docs/fuzzing.md, "Known issues") are not checked
 * unless the fuzzers are built with -DNSCD_FUZZ_STRICT=ON (FZ_STRICT = 1);
 * their reproducers are in the corpus. */
#ifndef FZ_STRICT
#define FZ_STRICT 0
#endif

/* Status code with its name, for messages. */
#define FZ_STATUS_ARGS(s) (int)(s), nscd_status_string(s)

static inline int fz_all_finite(const double *x, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if (!isfinite(x[i])) {
            return 0;
        }
    }
    return 1;
}

static inline double fz_max_abs(const double *x, size_t n) {
    double m = 0.0;
    for (size_t i = 0; i < n; ++i) {
        m = fmax(m, fabs(x[i]));
    }
    return m;
}

/* Euclidean norm, scaled so that tiny or huge entries neither underflow nor overflow. */
static inline double fz_norm(const double *x, size_t n) {
    double m = fz_max_abs(x, n);
    if (!(m > 0.0) || !isfinite(m)) {
        return m;
    }
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) {
        s += (x[i] / m) * (x[i] / m);
    }
    return m * sqrt(s);
}

static inline double fz_dot(const double *x, const double *y, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; ++i) {
        s += x[i] * y[i];
    }
    return s;
}

/* y = A x + b for a row-major m x n matrix (b may be NULL). */
static inline void fz_gemv(size_t m, size_t n, const double *A, const double *x, const double *b,
                           double *y) {
    for (size_t i = 0; i < m; ++i) {
        double s = b != NULL ? b[i] : 0.0;
        for (size_t j = 0; j < n; ++j) {
            s += A[i * n + j] * x[j];
        }
        y[i] = s;
    }
}

/* True when the bytes of two arrays are identical (bitwise determinism). */
static inline int fz_same_bits(const double *x, const double *y, size_t n) {
    return memcmp(x, y, n * sizeof *x) == 0;
}

/* De Saxce natural-map residual of one contact: ||x - P_K(x - y)|| with
 * x = s r (impulse scaled to a velocity) and y = u + mu ||u_t|| e_n. */
static inline double fz_coulomb_residual(const double r[3], const double u[3], double mu,
                                         double s) {
    double x[3] = {s * r[0], s * r[1], s * r[2]};
    return sqrt(reference_coulomb_residual2(x, u, mu));
}

/* Cholesky of a symmetric n x n matrix (row-major, n <= 32) into L (lower,
 * row-major); returns the smallest pivot divided by the largest diagonal entry
 * (negative or zero when not positive definite). */
static inline double fz_cholesky(int n, const double *A, double *L) {
    double dmax = 0.0, worst = INFINITY;
    for (int i = 0; i < n; ++i) {
        dmax = fmax(dmax, fabs(A[i * n + i]));
    }
    if (!(dmax > 0.0)) {
        return 0.0;
    }
    memset(L, 0, (size_t)n * (size_t)n * sizeof *L);
    for (int j = 0; j < n; ++j) {
        double d = A[j * n + j];
        for (int k = 0; k < j; ++k) {
            d -= L[j * n + k] * L[j * n + k];
        }
        worst = fmin(worst, d / dmax);
        if (!(d > 0.0)) {
            return worst;
        }
        double ljj = sqrt(d);
        L[j * n + j] = ljj;
        for (int i = j + 1; i < n; ++i) {
            double s = 0.5 * (A[i * n + j] + A[j * n + i]);
            for (int k = 0; k < j; ++k) {
                s -= L[i * n + k] * L[j * n + k];
            }
            L[i * n + j] = s / ljj;
        }
    }
    return worst;
}

/* ------------------------------------------------------------------ allocator */

/* An nscd_allocator that checks its use: every release must name a live block
 * with the size it was allocated with, and after `fail_after` allocations (if
 * >= 0) it returns NULL, so that the OUT_OF_MEMORY paths run. */
typedef struct fz_heap {
    long live;       /* blocks allocated and not yet released */
    long count;      /* allocations so far */
    long fail_after; /* allocations that succeed; < 0: all */
    long failures;   /* allocations refused */
} fz_heap;

/* Header in front of every block: its size, keeping the block aligned for any type. */
typedef union fz_block_header {
    size_t size;
    max_align_t align;
} fz_block_header;

static inline void *fz_heap_allocate(void *user, size_t size) {
    fz_heap *h = user;
    if (h->fail_after >= 0 && h->count >= h->fail_after) {
        h->failures++;
        return NULL;
    }
    h->count++;
    fz_block_header *block = malloc(sizeof *block + (size > 0 ? size : 1));
    FZ_REQUIRE(block != NULL, "out of memory in the test allocator");
    block->size = size;
    h->live++;
    return block + 1;
}

static inline void fz_heap_release(void *user, void *ptr, size_t size) {
    fz_heap *h = user;
    if (ptr == NULL) {
        return;
    }
    fz_block_header *block = (fz_block_header *)ptr - 1;
    FZ_REQUIRE(block->size == size, "block of %zu bytes released as %zu bytes", block->size, size);
    h->live--;
    free(block);
}

static inline nscd_allocator fz_heap_allocator(fz_heap *h) {
    nscd_allocator a;
    a.allocate = fz_heap_allocate;
    a.release = fz_heap_release;
    a.user = h;
    return a;
}

#endif /* NSCD_FUZZ_COMMON_H */
