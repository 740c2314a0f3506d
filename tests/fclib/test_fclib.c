/* libnscd_fclib: FCLIB files read and written through libfclib.
 *
 *   test_fclib SAMPLE.hdf5 WORK_DIR [REGENERATED.hdf5]
 *
 * SAMPLE is tests/data/fclib_spheres.hdf5 (written by libfclib alone from
 * tests/fclib/make_fclib_spheres.c); WORK_DIR receives the files the tests
 * write; REGENERATED, when given, is a fresh output of make_fclib_spheres
 * that must read back bitwise as SAMPLE. Malformed files are made here with
 * the HDF5 API from a valid file, to check that each is refused with a status
 * (libfclib alone would end the process on most of them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fclib.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nscd/fc3d.h"
#include "nscd/fclib.h"
#include "nscd/gfc3d.h"

static const char *sample_path;
static const char *work_dir;
static const char *regenerated_path;

#define assert_close(a, b, tol) assert_close_at((a), (b), (tol), __FILE__, __LINE__)
static void assert_close_at(double a, double b, double tol, const char *file, int line) {
    if (!(fabs(a - b) <= tol)) {
        print_error("%.17g != %.17g (tol %g)\n", a, b, tol);
        _fail(file, line);
    }
}

static double rnd(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 4503599627370496.0 - 1.0;
}

static const char *work_file(const char *name) {
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", work_dir, name);
    return path;
}

static nscd_fclib_problem *new_problem(void) {
    nscd_fclib_problem *p = NULL;
    assert_int_equal(nscd_fclib_problem_create(NULL, &p), NSCD_OK);
    return p;
}

/* A random dense 3n x 3n W with zero blocks (j + k divisible by 3, off the
 * diagonal), one -0.0 entry in a block that is otherwise +0.0, and q, mu. */
static void random_dense(int32_t n, uint64_t seed, double *W, double *q, double *mu) {
    uint64_t s = seed;
    size_t ld = 3 * (size_t)n;
    for (int32_t j = 0; j < n; ++j) {
        for (int32_t k = 0; k < n; ++k) {
            int zero = j != k && (j + k) % 3 == 0;
            for (int a = 0; a < 3; ++a) {
                for (int b = 0; b < 3; ++b) {
                    W[(3 * (size_t)j + a) * ld + 3 * (size_t)k + b] = zero ? 0.0 : rnd(&s);
                }
            }
        }
        mu[j] = 0.5 * (1.0 + rnd(&s));
    }
    for (size_t i = 0; i < ld; ++i) {
        q[i] = rnd(&s);
    }
    W[0 * ld + 3 * 3 + 1] = -0.0; /* block (0, 3) is zero: kept for its -0.0 */
}

static void round_trip_dense(int with_solution) {
    enum { N = 7, M = 21 };
    double W[M * M], q[M], mu[N], r[M], u[M];
    double W2[M * M], q2[M], mu2[N], r2[M], u2[M];
    random_dense(N, 11 + (uint64_t)with_solution, W, q, mu);
    uint64_t s = 5;
    for (int i = 0; i < M; ++i) {
        r[i] = rnd(&s), u[i] = rnd(&s);
    }
    nscd_fclib_problem *p = new_problem();
    assert_int_equal(nscd_fclib_problem_set_dense(p, N, W, q, mu), NSCD_OK);
    if (with_solution) {
        assert_int_equal(nscd_fclib_problem_set_solution(p, r, u), NSCD_OK);
    }
    const char *path = work_file(with_solution ? "dense_solution.hdf5" : "dense.hdf5");
    assert_int_equal(nscd_fclib_write(p, path), NSCD_OK);
    nscd_fclib_problem *back = new_problem();
    assert_int_equal(nscd_fclib_read(back, path), NSCD_OK);
    int32_t n = 0, nb = 0, has = -1, nb0 = 0;
    assert_int_equal(nscd_fclib_problem_get_sizes(back, &n, &nb, &has), NSCD_OK);
    assert_int_equal(nscd_fclib_problem_get_sizes(p, NULL, &nb0, NULL), NSCD_OK);
    assert_int_equal(n, N);
    assert_int_equal(nb, nb0);
    assert_int_equal(has, with_solution);
    assert_int_equal(nscd_fclib_problem_get_dense(back, W2, q2, mu2), NSCD_OK);
    assert_memory_equal(W, W2, sizeof W); /* bitwise, -0.0 included */
    assert_true(signbit(W2[3 * 3 + 1]));
    assert_memory_equal(q, q2, sizeof q);
    assert_memory_equal(mu, mu2, sizeof mu);
    if (with_solution) {
        assert_int_equal(nscd_fclib_problem_get_solution(back, r2, u2), NSCD_OK);
        assert_memory_equal(r, r2, sizeof r);
        assert_memory_equal(u, u2, sizeof u);
    } else {
        assert_int_equal(nscd_fclib_problem_get_solution(back, r2, u2), NSCD_ERR_STATE);
    }
    nscd_fclib_problem_destroy(back);
    nscd_fclib_problem_destroy(p);
}

static void test_round_trip_dense(void **state) {
    (void)state;
    round_trip_dense(0);
}

static void test_round_trip_dense_with_solution(void **state) {
    (void)state;
    round_trip_dense(1);
}

/* A block CSR W given with unsorted rows comes back sorted; given sorted, bitwise. */
static void test_round_trip_bsr(void **state) {
    (void)state;
    enum { N = 4, B = 8 };
    const int32_t row_ptr[N + 1] = {0, 2, 4, 6, 8};
    const int32_t cols_unsorted[B] = {3, 0, 1, 2, 2, 0, 3, 1};
    const int32_t cols_sorted[B] = {0, 3, 1, 2, 0, 2, 1, 3};
    const int32_t from[B] = {1, 0, 2, 3, 5, 4, 7, 6}; /* sorted block b = unsorted from[b] */
    double blocks[9 * B], sorted[9 * B], q[3 * N], mu[N], r[3 * N], u[3 * N];
    uint64_t s = 99;
    for (int i = 0; i < 9 * B; ++i) {
        blocks[i] = rnd(&s);
    }
    for (int b = 0; b < B; ++b) {
        memcpy(sorted + 9 * b, blocks + 9 * from[b], sizeof(double[9]));
    }
    for (int i = 0; i < 3 * N; ++i) {
        q[i] = rnd(&s), r[i] = rnd(&s), u[i] = rnd(&s);
    }
    for (int j = 0; j < N; ++j) {
        mu[j] = 0.1 * (j + 1);
    }
    nscd_fclib_problem *p = new_problem();
    assert_int_equal(nscd_fclib_problem_set_bsr(p, N, row_ptr, cols_unsorted, blocks, q, mu),
                     NSCD_OK);
    assert_int_equal(nscd_fclib_problem_set_solution(p, r, u), NSCD_OK);
    const char *path = work_file("bsr.hdf5");
    assert_int_equal(nscd_fclib_write(p, path), NSCD_OK);
    nscd_fclib_problem *back = new_problem();
    assert_int_equal(nscd_fclib_read(back, path), NSCD_OK);
    int32_t rp[N + 1], ci[B];
    double bl[9 * B], q2[3 * N], mu2[N], r2[3 * N], u2[3 * N];
    assert_int_equal(nscd_fclib_problem_get_bsr(back, rp, ci, bl, q2, mu2), NSCD_OK);
    assert_memory_equal(rp, row_ptr, sizeof rp);
    assert_memory_equal(ci, cols_sorted, sizeof ci);
    assert_memory_equal(bl, sorted, sizeof bl);
    assert_memory_equal(q2, q, sizeof q);
    assert_memory_equal(mu2, mu, sizeof mu);
    assert_int_equal(nscd_fclib_problem_get_solution(back, r2, u2), NSCD_OK);
    assert_memory_equal(r2, r, sizeof r);
    assert_memory_equal(u2, u, sizeof u);
    /* Sorted input: the same arrays again after one more round trip. */
    assert_int_equal(nscd_fclib_problem_set_bsr(p, N, rp, ci, bl, q2, mu2), NSCD_OK);
    assert_int_equal(nscd_fclib_write(p, path), NSCD_OK); /* replaces the file */
    assert_int_equal(nscd_fclib_read(back, path), NSCD_OK);
    int32_t has = -1;
    assert_int_equal(nscd_fclib_problem_get_sizes(back, NULL, NULL, &has), NSCD_OK);
    assert_int_equal(has, 0); /* set_bsr dropped the solution */
    int32_t rp3[N + 1], ci3[B];
    double bl3[9 * B];
    assert_int_equal(nscd_fclib_problem_get_bsr(back, rp3, ci3, bl3, NULL, NULL), NSCD_OK);
    assert_memory_equal(rp3, rp, sizeof rp);
    assert_memory_equal(ci3, ci, sizeof ci);
    assert_memory_equal(bl3, bl, sizeof bl);
    nscd_fclib_problem_destroy(back);
    nscd_fclib_problem_destroy(p);
}

/* Files that store W in compressed rows and as triplets (CSparse's convention:
 * i holds the rows, p the columns; a duplicate entry is summed), written by
 * libfclib itself, read back as the same non-symmetric W. */
static void write_with_libfclib(const char *path, int m, int nz, int nzmax, int *p, int *i,
                                double *x, double *q, double *mu) {
    struct fclib_matrix W = {nzmax, m, m, p, i, x, nz, NULL};
    struct fclib_local local = {&W, NULL, NULL, mu, q, NULL, 3, NULL};
    remove(path);
    assert_int_equal(fclib_write_local(&local, path), 1);
}

static void test_rows_and_triplets(void **state) {
    (void)state;
    enum { N = 5, M = 15 };
    static double W[M * M], q[M], mu[N], back[M * M], x[M * M + 1];
    static int p[M * M + 1], idx[M * M + 1];
    random_dense(N, 23, W, q, mu);
    /* Compressed rows, every non-zero (and the -0.0). */
    int nnz = 0;
    for (int r = 0; r < M; ++r) {
        p[r] = nnz;
        for (int c = 0; c < M; ++c) {
            if (W[r * M + c] != 0.0 || signbit(W[r * M + c])) {
                idx[nnz] = c, x[nnz++] = W[r * M + c];
            }
        }
    }
    p[M] = nnz;
    const char *csr = work_file("csr.hdf5");
    write_with_libfclib(csr, M, -2, nnz, p, idx, x, q, mu);
    nscd_fclib_problem *prob = new_problem();
    assert_int_equal(nscd_fclib_read(prob, csr), NSCD_OK);
    assert_int_equal(nscd_fclib_problem_get_dense(prob, back, NULL, NULL), NSCD_OK);
    assert_memory_equal(back, W, sizeof W);
    /* Triplets in reverse order, W[1][0] split into two halves. */
    int t = 0;
    for (int r = M - 1; r >= 0; --r) {
        for (int c = M - 1; c >= 0; --c) {
            double v = W[r * M + c];
            if (v == 0.0 && !signbit(v)) {
                continue;
            }
            int split = r == 1 && c == 0;
            idx[t] = r, p[t] = c, x[t++] = split ? 0.5 * v : v;
            if (split) {
                idx[t] = r, p[t] = c, x[t++] = 0.5 * v;
            }
        }
    }
    const char *triplet = work_file("triplet.hdf5");
    write_with_libfclib(triplet, M, t, t, p, idx, x, q, mu);
    assert_int_equal(nscd_fclib_read(prob, triplet), NSCD_OK);
    assert_int_equal(nscd_fclib_problem_get_dense(prob, back, NULL, NULL), NSCD_OK);
    assert_memory_equal(back, W, sizeof W);
    assert_true(W[1 * M + 0] != W[0 * M + 1]); /* not symmetric: rows and columns tell */
    nscd_fclib_problem_destroy(prob);
}

/* ------------------------------------------------------------------ the sample file */

enum { SAMPLE_N = 5, SAMPLE_M = 15 };

typedef struct sample {
    double W[SAMPLE_M * SAMPLE_M], q[SAMPLE_M], mu[SAMPLE_N], r[SAMPLE_M], u[SAMPLE_M];
} sample;

static void read_sample(const char *path, nscd_fclib_problem *p, sample *s) {
    assert_int_equal(nscd_fclib_read(p, path), NSCD_OK);
    int32_t n = 0, has = 0;
    assert_int_equal(nscd_fclib_problem_get_sizes(p, &n, NULL, &has), NSCD_OK);
    assert_int_equal(n, SAMPLE_N);
    assert_int_equal(has, 1);
    assert_int_equal(nscd_fclib_problem_get_dense(p, s->W, s->q, s->mu), NSCD_OK);
    assert_int_equal(nscd_fclib_problem_get_solution(p, s->r, s->u), NSCD_OK);
}

/* The file's solution is the exact one of the scene (tests/fclib/make_fclib_spheres.c):
 * the column stops (r_n = m_C 0.5, + m_B 2, + m_A 1), D slides, E leaves. */
static void test_sample_solution_is_exact(void **state) {
    (void)state;
    nscd_fclib_problem *p = new_problem();
    static sample s;
    read_sample(sample_path, p, &s);
    assert_close(s.r[6], 0.8 * 0.5, 1e-14);
    assert_close(s.r[3], 0.4 + 1.5 * 2.0, 1e-14);
    assert_close(s.r[0], 3.4 + 2.0 * 1.0, 1e-14);
    assert_close(s.r[9], 1.2 * 1.0, 1e-14); /* D: r_n = m_D |v_z| */
    double slip = hypot(2.0, 0.5);
    assert_close(s.r[10], -0.3 * 1.2 * 2.0 / slip, 1e-14);
    assert_close(s.r[11], -0.3 * 1.2 * 0.5 / slip, 1e-14);
    for (int i = 12; i < 15; ++i) {
        assert_true(s.r[i] == 0.0);
    }
    /* FCLIB's u = W r + q, the same convention as nscd's fc3d. */
    for (int i = 0; i < SAMPLE_M; ++i) {
        double ui = s.q[i];
        for (int k = 0; k < SAMPLE_M; ++k) {
            ui += s.W[i * SAMPLE_M + k] * s.r[k];
        }
        assert_close(s.u[i], ui, 1e-14);
    }
    double merit = 1.0;
    assert_int_equal(nscd_fclib_problem_merit(p, s.r, &merit), NSCD_OK);
    assert_true(merit < 1e-14);
    nscd_fclib_problem_destroy(p);
}

/* nscd's fc3d solver on the file: both laws reach the file's solution. */
static void test_sample_solved_by_nscd(void **state) {
    (void)state;
    nscd_fclib_problem *p = new_problem();
    static sample s;
    read_sample(sample_path, p, &s);
    int32_t nb = 0;
    assert_int_equal(nscd_fclib_problem_get_sizes(p, NULL, &nb, NULL), NSCD_OK);
    int32_t rp[SAMPLE_N + 1], ci[SAMPLE_N * SAMPLE_N];
    double bl[9 * SAMPLE_N * SAMPLE_N];
    assert_int_equal(nscd_fclib_problem_get_bsr(p, rp, ci, bl, NULL, NULL), NSCD_OK);
    for (int32_t law = 0; law < 2; ++law) {
        nscd_fc3d_options o;
        assert_int_equal(nscd_fc3d_options_init(&o, sizeof o), NSCD_OK);
        o.friction_law = law;
        o.tolerance = 1e-12;
        double r[SAMPLE_M] = {0}, u[SAMPLE_M];
        assert_int_equal(nscd_fc3d_solve_bsr(SAMPLE_N, rp, ci, bl, s.q, s.mu, &o, r, u, NULL),
                         NSCD_OK);
        for (int i = 0; i < SAMPLE_M; ++i) {
            assert_close(r[i], s.r[i], 1e-9);
        }
        double merit = 1.0;
        assert_int_equal(nscd_fclib_problem_merit(p, r, &merit), NSCD_OK);
        assert_true(merit < 1e-10);
    }
    nscd_fclib_problem_destroy(p);
}

/* A fresh run of make_fclib_spheres reads back bitwise as the committed file. */
static void test_sample_regenerates(void **state) {
    (void)state;
    if (regenerated_path == NULL) {
        skip();
    }
    nscd_fclib_problem *a = new_problem(), *b = new_problem();
    static sample sa, sb;
    read_sample(sample_path, a, &sa);
    read_sample(regenerated_path, b, &sb);
    assert_memory_equal(&sa, &sb, sizeof sa);
    nscd_fclib_problem_destroy(a);
    nscd_fclib_problem_destroy(b);
}

/* libfclib's merit at r = 0 against the formula computed here:
 * sqrt(sum_j ||P_K(-û_j)||^2) / (1 + sqrt(||q||)), û_j = q_j + mu_j ||q_j,t|| e_n. */
static void test_merit_formula(void **state) {
    (void)state;
    nscd_fclib_problem *p = new_problem();
    static sample s;
    read_sample(sample_path, p, &s);
    double sum = 0.0, qq = 0.0;
    for (int j = 0; j < SAMPLE_N; ++j) {
        const double *qj = s.q + 3 * j;
        double mu = s.mu[j], t = hypot(qj[1], qj[2]);
        double z[3] = {-(qj[0] + mu * t), -qj[1], -qj[2]}; /* r - û at r = 0 */
        double zt = hypot(z[1], z[2]), pk[3];
        if (mu * zt <= -z[0]) {
            pk[0] = pk[1] = pk[2] = 0.0;
        } else if (zt <= mu * z[0]) {
            memcpy(pk, z, sizeof pk);
        } else {
            pk[0] = (mu * zt + z[0]) / (mu * mu + 1.0);
            pk[1] = mu * pk[0] * z[1] / zt, pk[2] = mu * pk[0] * z[2] / zt;
        }
        sum += pk[0] * pk[0] + pk[1] * pk[1] + pk[2] * pk[2];
        qq += qj[0] * qj[0] + qj[1] * qj[1] + qj[2] * qj[2];
    }
    double expected = sqrt(sum) / (1.0 + sqrt(sqrt(qq)));
    double zero[SAMPLE_M] = {0}, merit = 0.0;
    assert_int_equal(nscd_fclib_problem_merit(p, zero, &merit), NSCD_OK);
    assert_true(expected > 0.1);
    assert_close(merit, expected, 1e-14 * expected);
    nscd_fclib_problem_destroy(p);
}

/* ------------------------------------------------------------------ bad files */

/* Copies the sample into WORK_DIR/name through the library (a file of ours to damage). */
static const char *fresh_copy(const char *name) {
    nscd_fclib_problem *p = new_problem();
    static sample s;
    read_sample(sample_path, p, &s);
    const char *path = work_file(name);
    assert_int_equal(nscd_fclib_write(p, path), NSCD_OK);
    nscd_fclib_problem_destroy(p);
    return path;
}

static hid_t open_rw(const char *path) {
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    return f;
}

static void overwrite_int(const char *path, const char *dataset, int value) {
    hid_t f = open_rw(path), d = H5Dopen2(f, dataset, H5P_DEFAULT);
    assert_true(d >= 0);
    assert_true(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &value) >= 0);
    H5Dclose(d);
    H5Fclose(f);
}

/* Writes value into element `at` of a double or int dataset. */
static void poke(const char *path, const char *dataset, hid_t type, int at, const void *value) {
    hid_t f = open_rw(path), d = H5Dopen2(f, dataset, H5P_DEFAULT);
    assert_true(d >= 0);
    hid_t space = H5Dget_space(d);
    hsize_t start = (hsize_t)at, one = 1;
    assert_true(H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &one, NULL) >= 0);
    hid_t mem = H5Screate_simple(1, &one, NULL);
    assert_true(H5Dwrite(d, type, mem, space, H5P_DEFAULT, value) >= 0);
    H5Sclose(mem), H5Sclose(space), H5Dclose(d), H5Fclose(f);
}

static void unlink_dataset(const char *path, const char *name) {
    hid_t f = open_rw(path);
    assert_true(H5Ldelete(f, name, H5P_DEFAULT) >= 0);
    H5Fclose(f);
}

static void add_group(const char *path, const char *name) {
    hid_t f = open_rw(path), g = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(g >= 0);
    H5Gclose(g), H5Fclose(f);
}

/* Reading path fails with `expected`, a message, and the problem keeps the sample. */
static void expect_refused(const char *path, nscd_status expected) {
    nscd_fclib_problem *p = new_problem();
    static sample before, after;
    read_sample(sample_path, p, &before);
    assert_int_equal(nscd_fclib_read(p, path), expected);
    assert_true(strlen(nscd_fclib_problem_last_error(p)) > 0);
    int32_t n = 0, has = 0;
    assert_int_equal(nscd_fclib_problem_get_sizes(p, &n, NULL, &has), NSCD_OK);
    assert_int_equal(n, SAMPLE_N);
    assert_int_equal(has, 1);
    assert_int_equal(nscd_fclib_problem_get_dense(p, after.W, after.q, after.mu), NSCD_OK);
    assert_int_equal(nscd_fclib_problem_get_solution(p, after.r, after.u), NSCD_OK);
    assert_memory_equal(&before, &after, sizeof before);
    nscd_fclib_problem_destroy(p);
}

static void test_bad_files(void **state) {
    (void)state;
    expect_refused(work_file("does-not-exist.hdf5"), NSCD_ERR_IO);
    expect_refused(work_dir, NSCD_ERR_IO); /* a directory */
    const char *text = work_file("text.hdf5");
    FILE *f = fopen(text, "w");
    assert_non_null(f);
    fputs("not an HDF5 file\n", f);
    fclose(f);
    expect_refused(text, NSCD_ERR_IO);
    /* An HDF5 file without an FCLIB problem, and one with a global problem only. */
    const char *empty = work_file("empty.hdf5");
    hid_t e = H5Fcreate(empty, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(e >= 0);
    H5Fclose(e);
    expect_refused(empty, NSCD_ERR_IO);
    add_group(empty, "/fclib_global");
    expect_refused(empty, NSCD_ERR_UNSUPPORTED);
}

static void test_damaged_files(void **state) {
    (void)state;
    const char *p = fresh_copy("no_mu.hdf5");
    unlink_dataset(p, "/fclib_local/vectors/mu");
    expect_refused(p, NSCD_ERR_IO);

    p = fresh_copy("nzmax.hdf5"); /* libfclib would read x past its buffer */
    overwrite_int(p, "/fclib_local/W/nzmax", 10);
    expect_refused(p, NSCD_ERR_IO);
    p = fresh_copy("kind.hdf5");
    overwrite_int(p, "/fclib_local/W/nz", 7);
    expect_refused(p, NSCD_ERR_IO);
    p = fresh_copy("size.hdf5");
    overwrite_int(p, "/fclib_local/W/m", 12);
    expect_refused(p, NSCD_ERR_IO);

    p = fresh_copy("spacedim.hdf5");
    overwrite_int(p, "/fclib_local/spacedim", 2);
    expect_refused(p, NSCD_ERR_UNSUPPORTED);
    p = fresh_copy("mixed.hdf5");
    add_group(p, "/fclib_local/V");
    expect_refused(p, NSCD_ERR_UNSUPPORTED);

    double minus = -0.5, nan = NAN;
    p = fresh_copy("negative_mu.hdf5");
    poke(p, "/fclib_local/vectors/mu", H5T_NATIVE_DOUBLE, 2, &minus);
    expect_refused(p, NSCD_ERR_IO);
    p = fresh_copy("nan_q.hdf5");
    poke(p, "/fclib_local/vectors/q", H5T_NATIVE_DOUBLE, 4, &nan);
    expect_refused(p, NSCD_ERR_IO);
    p = fresh_copy("nan_w.hdf5");
    poke(p, "/fclib_local/W/x", H5T_NATIVE_DOUBLE, 0, &nan);
    expect_refused(p, NSCD_ERR_IO);

    int bad_pointer = 1000, bad_row = 15;
    p = fresh_copy("pointer.hdf5");
    poke(p, "/fclib_local/W/p", H5T_NATIVE_INT, 3, &bad_pointer);
    expect_refused(p, NSCD_ERR_IO);
    p = fresh_copy("row.hdf5");
    poke(p, "/fclib_local/W/i", H5T_NATIVE_INT, 5, &bad_row);
    expect_refused(p, NSCD_ERR_IO);

    p = fresh_copy("no_r.hdf5"); /* libfclib would exit: /solution without r */
    unlink_dataset(p, "/solution/r");
    expect_refused(p, NSCD_ERR_IO);
}

/* The committed reproducers (tests/data/fclib_damaged, found by fuzz_fclib
 * and damage_fclib.py): refused, nothing left open, the handle's problem kept;
 * under valgrind in valgrind.test_fclib (no leak, no invalid read). */
static void test_damaged_reproducers(void **state) {
    (void)state;
    static const char *const files[] = {"confeti_ex13_integer_width.hdf5",
                                        "friction_contact_3d_1c_heap_address.hdf5",
                                        "rover1040_compact_size.hdf5",
                                        "rover1040_shared_fill_value.hdf5",
                                        "rover1040_symbol_table_address.hdf5",
                                        "spheres_chunk_dimensionality.hdf5",
                                        "spheres_address_overflow.hdf5",
                                        "spheres_heap_overlap.hdf5",
                                        "spheres_link_prefix.hdf5"};
    char path[4096];
    for (size_t k = 0; k < sizeof files / sizeof files[0]; ++k) {
        snprintf(path, sizeof path, "%s/%s", NSCD_FCLIB_DAMAGED_DIR, files[k]);
        expect_refused(path, NSCD_ERR_IO);
        assert_int_equal(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);
    }
}

/* ------------------------------------------ damaged old-style group structure */

/* A fresh copy of the sample as bytes (libfclib writes superblock version 0,
 * 8-byte addresses and lengths, old-style groups). */
enum { MAX_FILE = 1 << 16 };
static unsigned char file_bytes[MAX_FILE];
static size_t load_copy(const char *name) {
    FILE *in = fopen(fresh_copy(name), "rb");
    assert_non_null(in);
    size_t size = fread(file_bytes, 1, sizeof file_bytes, in);
    fclose(in);
    assert_true(size > 1000 && size < sizeof file_bytes);
    assert_int_equal(file_bytes[8], 0);  /* superblock version 0 */
    assert_int_equal(file_bytes[13], 8); /* sizes of offsets, lengths */
    assert_int_equal(file_bytes[14], 8);
    return size;
}

static void save_copy(const char *name, size_t size) {
    FILE *out = fopen(work_file(name), "wb");
    assert_non_null(out);
    assert_int_equal(fwrite(file_bytes, 1, size, out), size);
    fclose(out);
}

/* Offset of the n-th (from 0) occurrence of a 4-byte signature. */
static size_t find_signature(size_t size, const char *signature, int n) {
    for (size_t i = 0; i + 4 <= size; ++i) {
        if (memcmp(file_bytes + i, signature, 4) == 0 && n-- == 0) {
            return i;
        }
    }
    fail_msg("signature %s not found", signature);
    return 0;
}

static void put_le(size_t at, unsigned long long value, int width) {
    for (int k = 0; k < width; ++k) {
        file_bytes[at + (size_t)k] = (unsigned char)(value >> (8 * k));
    }
}

static unsigned long long get_le(size_t at, int width) {
    unsigned long long v = 0;
    for (int k = width - 1; k >= 0; --k) {
        v = (v << 8) | file_bytes[at + (size_t)k];
    }
    return v;
}

/* The first message of the given type in the object headers (version 1)
 * listed by the symbol table nodes. */
static size_t find_message(size_t size, unsigned type) {
    for (int node = 0;; ++node) {
        size_t node_at = find_signature(size, "SNOD", node);
        for (unsigned long long k = 0; k < get_le(node_at + 6, 2); ++k) {
            size_t h = (size_t)get_le(node_at + 8 + 40 * k + 8, 8), end = h + 16 + get_le(h + 8, 4);
            for (size_t m = h + 16; m + 8 <= end; m += 8 + get_le(m + 2, 2)) {
                if (get_le(m, 2) == type) {
                    return m;
                }
            }
        }
    }
}

static void expect_structure_refused(const char *name, size_t size) {
    save_copy(name, size);
    const char *path = work_file(name);
    nscd_fclib_problem *p = new_problem();
    assert_int_equal(nscd_fclib_read(p, path), NSCD_ERR_IO);
    if (strstr(nscd_fclib_problem_last_error(p), "damaged group structure") == NULL) {
        fail_msg("%s: %s", name, nscd_fclib_problem_last_error(p));
    }
    nscd_fclib_problem_destroy(p);
    assert_int_equal(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);
    expect_refused(path, NSCD_ERR_IO); /* and the handle's problem is kept */
}

/* Every address and count HDF5 follows to list an old-style group is checked
 * before HDF5 opens the file (fclib/groups.c; fuzz_fclib found SEGVs in
 * H5Literate on an undefined heap data address and on a symbol table message
 * whose addresses were undefined). One damage of each kind. */
static void test_damaged_group_structure(void **state) {
    (void)state;
    const unsigned long long undefined = ~0ULL;
    size_t size = load_copy("stab.hdf5");
    /* the root group's symbol table message (type 0x11, 16 bytes) */
    size_t stab = 0;
    for (size_t i = 0; i + 24 <= size && stab == 0; ++i) {
        if (get_le(i, 2) == 0x11 && get_le(i + 2, 2) == 16 &&
            memcmp(file_bytes + get_le(i + 8, 8), "TREE", 4) == 0) {
            stab = i + 8;
        }
    }
    assert_true(stab > 0);
    put_le(stab, undefined, 8); /* the B-tree address undefined (rover_group_iterate_segv) */
    expect_structure_refused("stab_tree.hdf5", size);
    size = load_copy("stab.hdf5");
    put_le(stab + 8, undefined, 8); /* the local heap address undefined */
    expect_structure_refused("stab_heap.hdf5", size);

    size = load_copy("tree.hdf5");
    size_t tree = find_signature(size, "TREE", 0);
    put_le(tree + 6, 0xffff, 2); /* more children than 2 K */
    expect_structure_refused("tree_used.hdf5", size);
    size = load_copy("tree.hdf5");
    put_le(tree + 24 + 8, undefined, 8); /* the first child undefined */
    expect_structure_refused("tree_child.hdf5", size);
    size = load_copy("tree.hdf5");
    file_bytes[tree + 5] = 1; /* a level-1 node whose child is a symbol table node */
    expect_structure_refused("tree_level.hdf5", size);
    size = load_copy("tree.hdf5");
    put_le(tree + 24, 1u << 20, 8); /* a key (a name's heap offset) past the heap */
    expect_structure_refused("tree_key.hdf5", size);

    size = load_copy("snod.hdf5");
    size_t snod = find_signature(size, "SNOD", 0);
    put_le(snod + 6, 0xffff, 2); /* more entries than 2 K */
    expect_structure_refused("snod_count.hdf5", size);
    size = load_copy("snod.hdf5");
    put_le(snod + 8, 1u << 20, 8); /* a link name past the heap */
    expect_structure_refused("snod_name.hdf5", size);
    size = load_copy("snod.hdf5");
    put_le(snod + 16, size + 8, 8); /* an object header past the end of the file */
    expect_structure_refused("snod_header.hdf5", size);
    size = load_copy("snod.hdf5");
    put_le(snod + 24, 7, 4); /* an unknown cache type */
    expect_structure_refused("snod_cache.hdf5", size);

    size = load_copy("heap.hdf5");
    size_t heap = find_signature(size, "HEAP", 0);
    unsigned long long data = get_le(heap + 24, 8), data_size = get_le(heap + 8, 8);
    put_le(heap + 24, undefined, 8); /* the data block undefined */
    expect_structure_refused("heap_address.hdf5", size);
    size = load_copy("heap.hdf5");
    put_le(heap + 8, size, 8); /* a data block running past the file */
    expect_structure_refused("heap_size.hdf5", size);
    size = load_copy("heap.hdf5");
    put_le(heap + 24, get_le(find_signature(size, "HEAP", 1) + 24, 8), 8); /* over another */
    expect_structure_refused("heap_overlap.hdf5", size);
    size = load_copy("heap.hdf5");
    assert_true(data_size >= 32);
    put_le(heap + 16, data_size - 16, 8); /* a free block whose next is itself (a cycle) */
    put_le((size_t)data + (size_t)data_size - 16, data_size - 16, 8);
    put_le((size_t)data + (size_t)data_size - 8, 16, 8);
    expect_structure_refused("heap_free_cycle.hdf5", size);
    size = load_copy("heap.hdf5");
    put_le(heap + 16, data_size - 8, 8); /* a free block header past the data block */
    expect_structure_refused("heap_free_end.hdf5", size);

    size = load_copy("ohdr.hdf5");
    size_t snod_entry = find_signature(size, "SNOD", 0) + 8;
    size_t header = (size_t)get_le(snod_entry + 8, 8);
    put_le(header + 8, size, 4); /* an object header longer than the file */
    expect_structure_refused("ohdr_size.hdf5", size);

    /* A dataset's fill value message (type 5) flagged shared: in a file
     * without a shared message table H5Dopen2 followed the undefined address
     * (fuzz_fclib, rover1040_shared_fill_value.hdf5). */
    size = load_copy("shared.hdf5");
    size_t fill = find_message(size, 5);
    file_bytes[fill + 4] |= 0x02;
    expect_structure_refused("shared_fill.hdf5", size); /* as found: 8 bytes, version 2 */
    assert_true(get_le(fill + 2, 2) >= 8);
    put_le(fill + 2, 16, 2); /* long enough, over the next message's header */
    file_bytes[fill + 8] = 3, file_bytes[fill + 9] = 1; /* version 3, in the table */
    expect_structure_refused("shared_fill_table.hdf5", size);

    /* A contiguous layout (version 3) damaged into chunks of 0 dimensions:
     * H5Dopen2 looped over 2^32 - 1 of them (fuzz_fclib,
     * spheres_chunk_dimensionality.hdf5); then chunks of 2 dimensions, one 0. */
    size = load_copy("layout.hdf5");
    size_t layout = find_message(size, 8) + 8;
    assert_int_equal(file_bytes[layout], 3);
    file_bytes[layout + 1] = 2, file_bytes[layout + 2] = 0;
    expect_structure_refused("layout_chunk_rank.hdf5", size);
    file_bytes[layout + 2] = 2;
    put_le(layout + 3, ~0ULL, 8); /* no chunk allocated */
    put_le(layout + 11, 4, 4), put_le(layout + 15, 0, 4);
    expect_structure_refused("layout_chunk_zero.hdf5", size);
}

/* The first half of a valid file. */
static void test_truncated_file(void **state) {
    (void)state;
    const char *src = fresh_copy("whole.hdf5");
    FILE *in = fopen(src, "rb");
    assert_non_null(in);
    static unsigned char bytes[1 << 16];
    size_t size = fread(bytes, 1, sizeof bytes, in);
    fclose(in);
    assert_true(size > 1000 && size < sizeof bytes);
    const char *cut = work_file("truncated.hdf5");
    FILE *out = fopen(cut, "wb");
    assert_non_null(out);
    assert_int_equal(fwrite(bytes, 1, size / 2, out), size / 2);
    fclose(out);
    expect_refused(cut, NSCD_ERR_IO);
}

/* Every allocation goes through the hooks and is released with its size. */
typedef struct ledger {
    long blocks;
    long long bytes;
} ledger;

static void *ledger_allocate(void *user, size_t size) {
    ledger *l = user;
    ++l->blocks, l->bytes += (long long)size;
    return malloc(size);
}

static void ledger_release(void *user, void *block, size_t size) {
    ledger *l = user;
    --l->blocks, l->bytes -= (long long)size;
    free(block);
}

/* ------------------------------------------------------------------ bad arguments */

static void test_bad_arguments(void **state) {
    (void)state;
    double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, q[3] = {-1, 0, 0}, mu[1] = {0.5};
    nscd_fclib_problem *p = new_problem();
    assert_int_equal(nscd_fclib_problem_create(NULL, NULL), NSCD_ERR_NULL_POINTER);
    nscd_allocator none = {NULL, NULL, NULL}, half = {ledger_allocate, NULL, NULL};
    nscd_fclib_problem *other = NULL;
    assert_int_equal(nscd_fclib_problem_create(&half, &other), NSCD_ERR_INVALID_ARGUMENT);
    assert_null(other);
    assert_int_equal(nscd_fclib_problem_create(&none, &other), NSCD_OK);
    nscd_fclib_problem_destroy(other);
    /* Nothing to write or get from an empty problem. */
    assert_int_equal(nscd_fclib_write(p, work_file("empty_problem.hdf5")), NSCD_ERR_STATE);
    assert_int_equal(nscd_fclib_problem_get_dense(p, W, q, mu), NSCD_ERR_STATE);
    assert_int_equal(nscd_fclib_problem_set_solution(p, q, q), NSCD_ERR_STATE);
    assert_int_equal(nscd_fclib_read(NULL, sample_path), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_fclib_read(p, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_fclib_problem_set_dense(p, 0, W, q, mu), NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd_fclib_problem_set_dense(p, 1, NULL, q, mu), NSCD_ERR_NULL_POINTER);
    double bad_mu[1] = {-0.1}, nan_q[3] = {NAN, 0, 0};
    assert_int_equal(nscd_fclib_problem_set_dense(p, 1, W, q, bad_mu), NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_fclib_problem_set_dense(p, 1, W, nan_q, mu), NSCD_ERR_NOT_FINITE);
    int32_t n = -1;
    assert_int_equal(nscd_fclib_problem_get_sizes(p, &n, NULL, NULL), NSCD_OK);
    assert_int_equal(n, 0); /* every failure left the problem empty */

    const int32_t rp[3] = {0, 2, 3}, dup[3] = {0, 0, 1}, out_of_range[3] = {0, 2, 1};
    const int32_t bad_rp[3] = {0, 2, 1};
    double blocks[27] = {0}, q6[6] = {0}, mu2[2] = {0.1, 0.2};
    assert_int_equal(nscd_fclib_problem_set_bsr(p, 2, rp, dup, blocks, q6, mu2),
                     NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd_fclib_problem_set_bsr(p, 2, rp, out_of_range, blocks, q6, mu2),
                     NSCD_ERR_INDEX);
    assert_int_equal(nscd_fclib_problem_set_bsr(p, 2, bad_rp, dup, blocks, q6, mu2),
                     NSCD_ERR_INVALID_ARGUMENT);
    assert_true(strlen(nscd_fclib_problem_last_error(p)) > 0);

    assert_int_equal(nscd_fclib_problem_set_dense(p, 1, W, q, mu), NSCD_OK);
    assert_string_equal(nscd_fclib_problem_last_error(p), "");
    assert_int_equal(nscd_fclib_problem_set_solution(p, q, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_fclib_problem_set_solution(p, nan_q, q), NSCD_ERR_NOT_FINITE);
    double merit = 0.0;
    assert_int_equal(nscd_fclib_problem_merit(p, nan_q, &merit), NSCD_ERR_NOT_FINITE);
    assert_int_equal(nscd_fclib_write(p, "/nonexistent-directory/x.hdf5"), NSCD_ERR_IO);
    nscd_fclib_problem_destroy(p);
    nscd_fclib_problem_destroy(NULL);
    assert_string_equal(nscd_fclib_problem_last_error(NULL), "");
}

/* More contacts than a dense W may have: block getters work, the dense one refuses. */
static void test_dense_limit(void **state) {
    (void)state;
    enum { N = 16385 };
    int32_t *rp = malloc((N + 1) * sizeof *rp), *ci = malloc(N * sizeof *ci);
    double *blocks = calloc(9 * (size_t)N, sizeof *blocks), *q = calloc(3 * N, sizeof *q);
    double *mu = calloc(N, sizeof *mu);
    assert_true(rp && ci && blocks && q && mu);
    for (int32_t j = 0; j <= N; ++j) {
        rp[j] = j;
    }
    for (int32_t j = 0; j < N; ++j) {
        ci[j] = j, blocks[9 * j] = blocks[9 * j + 4] = blocks[9 * j + 8] = 1.0;
    }
    nscd_fclib_problem *p = new_problem();
    assert_int_equal(nscd_fclib_problem_set_bsr(p, N, rp, ci, blocks, q, mu), NSCD_OK);
    double W[9];
    assert_int_equal(nscd_fclib_problem_get_dense(p, W, NULL, NULL), NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd_fclib_problem_get_bsr(p, rp, ci, blocks, q, mu), NSCD_OK);
    nscd_fclib_problem_destroy(p);
    free(rp), free(ci), free(blocks), free(q), free(mu);
}

static void test_allocator(void **state) {
    (void)state;
    ledger l = {0, 0};
    nscd_allocator a = {ledger_allocate, ledger_release, &l};
    nscd_fclib_problem *p = NULL;
    assert_int_equal(nscd_fclib_problem_create(&a, &p), NSCD_OK);
    static sample s;
    read_sample(sample_path, p, &s);
    double merit = 0.0;
    assert_int_equal(nscd_fclib_problem_merit(p, s.r, &merit), NSCD_OK);
    assert_int_equal(nscd_fclib_write(p, work_file("allocator.hdf5")), NSCD_OK);
    assert_int_equal(nscd_fclib_problem_set_dense(p, SAMPLE_N, s.W, s.q, s.mu), NSCD_OK);
    assert_true(l.blocks > 0);
    nscd_fclib_problem_destroy(p);
    assert_int_equal(l.blocks, 0);
    assert_true(l.bytes == 0);
}

/* Global problems: set, write, read back bitwise; triplets with duplicates
 * summed; bad arguments; a local file refused; the file solved by gfc3d. */
static void test_global_round_trip(void **state) {
    (void)state;
    /* a point mass (3 dofs, M = diag(2, 2, 2)) on the ground, one contact (normal z,
     * tangents x and y; an explicit -0.0 entry that must survive the round trip) */
    const int32_t Mp[4] = {0, 1, 2, 3}, Mi[3] = {0, 1, 2};
    const double Mx[3] = {2.0, 2.0, 2.0};
    const int32_t Hp[4] = {0, 1, 2, 4}, Hi[4] = {2, 0, 0, 1};
    const double Hx[4] = {1.0, 1.0, -0.0, 1.0};
    const double f[3] = {1.0, 0.0, -3.0}, w[3] = {0.0, 0.0, 0.0}, mu[1] = {0.5};
    nscd_fclib_global *g = NULL;
    assert_int_equal(nscd_fclib_global_create(NULL, &g), NSCD_OK);
    int32_t n = -1, nc = -1, mnz = -1, hnz = -1, has = -1;
    assert_int_equal(nscd_fclib_global_get_sizes(g, &n, &nc, &mnz, &hnz, &has), NSCD_OK);
    assert_int_equal(n, 0);
    assert_int_equal(nscd_fclib_write_global(g, work_file("g_empty.hdf5")), NSCD_ERR_STATE);
    const int32_t bad_Hi[4] = {2, 0, 0, 3};
    assert_int_equal(nscd_fclib_global_set(g, 3, 1, Mp, Mi, Mx, Hp, bad_Hi, Hx, f, w, mu),
                     NSCD_ERR_INDEX);
    const double bad_mu[1] = {-1.0};
    assert_int_equal(nscd_fclib_global_set(g, 3, 1, Mp, Mi, Mx, Hp, Hi, Hx, f, w, bad_mu),
                     NSCD_ERR_OUT_OF_RANGE);
    assert_int_equal(nscd_fclib_global_set(g, 3, 1, Mp, Mi, Mx, Hp, Hi, Hx, f, w, mu), NSCD_OK);
    double v[3], r[3] = {0.0, 0.0, 0.0}, u[3]; /* r: the (default) warm start */
    nscd_gfc3d_info info = {.struct_size = sizeof info};
    assert_int_equal(
        nscd_gfc3d_solve(3, 1, Mp, Mi, Mx, Hp, Hi, Hx, f, w, mu, NULL, NULL, v, r, u, &info),
        NSCD_OK);
    /* analytic: the normal impulse stops the fall (r_n = 3), friction mu r_n = 1.5 > 1
     * stops the slide: v = 0 */
    for (int i = 0; i < 3; ++i) {
        assert_true(fabs(v[i]) < 1e-9);
    }
    assert_true(fabs(r[0] - 3.0) < 1e-9 && fabs(r[1] + 1.0) < 1e-9);
    assert_int_equal(nscd_fclib_global_set_solution(g, v, r, NULL), NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd_fclib_global_set_solution(g, v, r, u), NSCD_OK);
    const char *path = work_file("global.hdf5");
    assert_int_equal(nscd_fclib_write_global(g, path), NSCD_OK);
    nscd_fclib_global *h = NULL;
    assert_int_equal(nscd_fclib_global_create(NULL, &h), NSCD_OK);
    assert_int_equal(nscd_fclib_read_global(h, path), NSCD_OK);
    assert_int_equal(nscd_fclib_global_get_sizes(h, &n, &nc, &mnz, &hnz, &has), NSCD_OK);
    assert_true(n == 3 && nc == 1 && mnz == 3 && hnz == 4 && has == 1);
    int32_t Mp2[4], Mi2[3], Hp2[4], Hi2[4];
    double Mx2[3], Hx2[4], f2[3], w2[3], mu2[1], v2[3], r2[3], u2[3];
    assert_int_equal(nscd_fclib_global_get(h, Mp2, Mi2, Mx2, Hp2, Hi2, Hx2, f2, w2, mu2), NSCD_OK);
    assert_int_equal(nscd_fclib_global_get_solution(h, v2, r2, u2), NSCD_OK);
    assert_memory_equal(Mp2, Mp, sizeof Mp);
    assert_memory_equal(Mi2, Mi, sizeof Mi);
    assert_memory_equal(Mx2, Mx, sizeof Mx);
    assert_memory_equal(Hp2, Hp, sizeof Hp);
    assert_memory_equal(Hi2, Hi, sizeof Hi);
    assert_memory_equal(Hx2, Hx, sizeof Hx); /* -0.0 survives */
    assert_memory_equal(f2, f, sizeof f);
    assert_memory_equal(mu2, mu, sizeof mu);
    assert_memory_equal(v2, v, sizeof v);
    assert_memory_equal(r2, r, sizeof r);
    assert_memory_equal(u2, u, sizeof u);
    /* the local reader refuses it as global, the global reader refuses a local file */
    nscd_fclib_problem *p = NULL;
    assert_int_equal(nscd_fclib_problem_create(NULL, &p), NSCD_OK);
    assert_int_equal(nscd_fclib_read(p, path), NSCD_ERR_UNSUPPORTED);
    nscd_fclib_problem_destroy(p);
    assert_int_equal(nscd_fclib_read_global(h, sample_path), NSCD_ERR_IO);
    assert_true(strlen(nscd_fclib_global_last_error(h)) > 0);
    assert_int_equal(nscd_fclib_global_get_sizes(h, &n, NULL, NULL, NULL, NULL), NSCD_OK);
    assert_int_equal(n, 3); /* unchanged by the failed read */
    assert_int_equal(nscd_fclib_read_global(h, work_file("no_such_file.hdf5")), NSCD_ERR_IO);
    nscd_fclib_global_destroy(h);
    nscd_fclib_global_destroy(g);
    nscd_fclib_global_destroy(NULL);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: test_fclib SAMPLE.hdf5 WORK_DIR [REGENERATED.hdf5]\n");
        return 2;
    }
    sample_path = argv[1];
    work_dir = argv[2];
    regenerated_path = argc > 3 ? argv[3] : NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_dense),
        cmocka_unit_test(test_round_trip_dense_with_solution),
        cmocka_unit_test(test_round_trip_bsr),
        cmocka_unit_test(test_rows_and_triplets),
        cmocka_unit_test(test_sample_solution_is_exact),
        cmocka_unit_test(test_sample_solved_by_nscd),
        cmocka_unit_test(test_sample_regenerates),
        cmocka_unit_test(test_merit_formula),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_damaged_files),
        cmocka_unit_test(test_damaged_group_structure),
        cmocka_unit_test(test_damaged_reproducers),
        cmocka_unit_test(test_truncated_file),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_dense_limit),
        cmocka_unit_test(test_allocator),
        cmocka_unit_test(test_global_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
