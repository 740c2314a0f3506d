/* libFuzzer target: FCLIB files (include/nscd/fclib.h) damaged by the fuzzer
 * (issue 25, docs/hostile_input.md). The input is a whole HDF5 file; the
 * corpus holds real FCLIB problems (tests/fuzz/corpus/fclib: the sample and
 * small problems from Siconos' test data), which libFuzzer mutates.
 *
 * Checked for every input: nscd_fclib_read returns NSCD_OK, NSCD_ERR_IO or
 * NSCD_ERR_UNSUPPORTED (a message with every failure); no HDF5 object stays
 * open afterwards; a problem that was read has 1 <= n contacts, finite
 * q, mu >= 0, a finite W (its blocks) and a finite solution, and a failed
 * read left the handle's previous problem intact. Crashes inside HDF5 are
 * caught by libFuzzer's signal handler; HDF5 itself is not instrumented.
 * LeakSanitizer ignores the one leak HDF5 1.10.8 has inside H5Fopen for a
 * damaged root object header (tests/fuzz/lsan.supp). */
#include <hdf5.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "nscd/fclib.h"

/* The input as a file: HDF5 reads paths. One per process (libFuzzer runs
 * one input at a time in a process). */
static const char *input_path(void) {
    static char path[256];
    if (path[0] == '\0') {
        const char *dir = getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/nscd_fuzz_fclib_%ld.hdf5", dir ? dir : "/tmp",
                 (long)getpid());
    }
    return path;
}

static void check_problem(nscd_fclib_problem *p) {
    int32_t n = 0, blocks = 0, has_solution = 0;
    FZ_REQUIRE(nscd_fclib_problem_get_sizes(p, &n, &blocks, &has_solution) == NSCD_OK, "sizes");
    FZ_REQUIRE(n >= 1 && blocks >= n && blocks <= n * n, "n = %d, %d blocks", (int)n, (int)blocks);
    size_t nn = (size_t)n, nb = (size_t)blocks;
    int32_t *row_ptr = malloc((nn + 1) * sizeof *row_ptr), *col = malloc(nb * sizeof *col);
    double *W = malloc(9 * nb * sizeof *W), *q = malloc(3 * nn * sizeof *q);
    double *mu = malloc(nn * sizeof *mu), *r = malloc(3 * nn * sizeof *r);
    double *u = malloc(3 * nn * sizeof *u);
    FZ_REQUIRE(row_ptr && col && W && q && mu && r && u, "out of memory");
    nscd_status st = nscd_fclib_problem_get_bsr(p, row_ptr, col, W, q, mu);
    FZ_REQUIRE(st == NSCD_OK, "get_bsr: %d (%s)", FZ_STATUS_ARGS(st));
    FZ_REQUIRE(fz_all_finite(W, 9 * nb) && fz_all_finite(q, 3 * nn), "W or q not finite");
    for (size_t j = 0; j < nn; ++j) {
        FZ_REQUIRE(isfinite(mu[j]) && mu[j] >= 0.0, "mu[%zu] = %g", j, mu[j]);
    }
    FZ_REQUIRE(row_ptr[0] == 0 && row_ptr[n] == blocks, "row_ptr");
    for (size_t k = 0; k < nb; ++k) {
        FZ_REQUIRE(col[k] >= 0 && col[k] < n, "col_idx[%zu] = %d", k, (int)col[k]);
    }
    if (has_solution) {
        st = nscd_fclib_problem_get_solution(p, r, u);
        FZ_REQUIRE(st == NSCD_OK && fz_all_finite(r, 3 * nn) && fz_all_finite(u, 3 * nn),
                   "solution");
    }
    free(row_ptr), free(col), free(W), free(q), free(mu), free(r), free(u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = input_path();
    FILE *f = fopen(path, "wb");
    FZ_REQUIRE(f != NULL, "cannot write %s", path);
    FZ_REQUIRE(fwrite(data, 1, size, f) == size || size == 0, "short write");
    fclose(f);

    nscd_fclib_problem *p = NULL;
    FZ_REQUIRE(nscd_fclib_problem_create(NULL, &p) == NSCD_OK, "create");
    /* a previous problem, which a failed read must leave intact */
    double W1[9] = {2, 0, 0, 0, 2, 0, 0, 0, 2}, q1[3] = {-1, 0, 0}, mu1 = 0.5;
    FZ_REQUIRE(nscd_fclib_problem_set_dense(p, 1, W1, q1, &mu1) == NSCD_OK, "set_dense");
    nscd_status st = nscd_fclib_read(p, path);
    FZ_REQUIRE(st == NSCD_OK || st == NSCD_ERR_IO || st == NSCD_ERR_UNSUPPORTED,
               "read: %d (%s): %s", FZ_STATUS_ARGS(st), nscd_fclib_problem_last_error(p));
    FZ_REQUIRE(st == NSCD_OK || nscd_fclib_problem_last_error(p)[0] != '\0', "no message");
    ssize_t open_ids = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
    FZ_REQUIRE(open_ids == 0, "%zd HDF5 objects left open (status %d)", open_ids, (int)st);
    if (st == NSCD_OK) {
        check_problem(p);
    } else {
        double W[9], q[3], mu = -1.0;
        FZ_REQUIRE(nscd_fclib_problem_get_dense(p, W, q, &mu) == NSCD_OK, "get_dense");
        FZ_REQUIRE(memcmp(W, W1, sizeof W) == 0 && memcmp(q, q1, sizeof q) == 0 && mu == mu1,
                   "a failed read changed the problem");
    }
    nscd_fclib_problem_destroy(p);
    remove(path);
    return 0;
}
