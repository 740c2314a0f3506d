/* Reading and writing FCLIB local problems through libfclib, and libfclib's
 * merit function. libfclib does the HDF5 work; this file converts between
 * its structs and the handle's arrays, checks files first (check.c) and
 * keeps HDF5 from printing. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, rmdir */

#include <fclib.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "fclib_internal.h"

/* ------------------------------------------------------------------ read */

/* The scalar entries of libfclib's W (CSC, CSR or triplet, CSparse's
 * conventions: i holds row indices of CSC and triplets, p the column indices
 * of triplets), after checking its pointers. The index arrays are allocated
 * here for the CSR and CSC cases (expanded pointers). */
typedef struct scalar_entries {
    nscd__fclib_entries view;
    int *expanded; /* the index that the compressed pointers imply, or NULL */
    size_t expanded_bytes;
} scalar_entries;

static nscd_status expand_pointers(const nscd_allocator *a, const struct fclib_matrix *W, int dim,
                                   scalar_entries *out) {
    const int *ptr = W->p;
    if (ptr[0] != 0 || ptr[dim] > W->nzmax) {
        return NSCD_ERR_IO;
    }
    for (int k = 0; k < dim; ++k) {
        if (ptr[k + 1] < ptr[k]) {
            return NSCD_ERR_IO;
        }
    }
    size_t count = (size_t)ptr[dim];
    out->expanded_bytes = count * sizeof(int);
    out->expanded = nscd__fclib_alloc(a, out->expanded_bytes);
    if (out->expanded == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    for (int k = 0; k < dim; ++k) {
        for (int t = ptr[k]; t < ptr[k + 1]; ++t) {
            out->expanded[t] = k;
        }
    }
    bool csc = W->nz == -1;
    out->view = (nscd__fclib_entries){.count = count,
                                      .rows = csc ? W->i : out->expanded,
                                      .cols = csc ? out->expanded : W->i,
                                      .vals = W->x};
    return NSCD_OK;
}

static nscd_status scalar_entries_of(const nscd_allocator *a, const struct fclib_matrix *W,
                                     scalar_entries *out) {
    memset(out, 0, sizeof *out);
    if (W->nz >= 0) {
        out->view =
            (nscd__fclib_entries){.count = (size_t)W->nz, .rows = W->i, .cols = W->p, .vals = W->x};
        return NSCD_OK;
    }
    return expand_pointers(a, W, W->nz == -1 ? W->n : W->m, out);
}

/* The arrays of a problem read by libfclib (its sizes already checked). */
static nscd_status arrays_from_fclib(nscd_fclib_problem *p, const struct fclib_local *local,
                                     nscd__fclib_arrays *x) {
    const nscd_allocator *a = &p->allocator;
    int32_t n = local->W->m / 3;
    scalar_entries e;
    nscd_status st = scalar_entries_of(a, local->W, &e);
    if (st == NSCD_OK) {
        st = nscd__fclib_bsr_from_entries(a, n, &e.view, x);
    }
    nscd__fclib_free(a, e.expanded, e.expanded_bytes);
    if (st != NSCD_OK) {
        return st == NSCD_ERR_OUT_OF_MEMORY
                   ? nscd__fclib_fail(p, st, "out of memory")
                   : nscd__fclib_fail(p, NSCD_ERR_IO, "W: bad pointers or indices");
    }
    /* Every contact needs its diagonal block W_jj (W = H M^-1 H' has a positive
     * definite one): a W without it is not a friction-contact problem
     * (docs/fuzzing.md, Fclib 2: a W whose pointers are all 0 read as OK). */
    for (int32_t j = 0; j < n; ++j) {
        bool diagonal = false;
        for (int32_t k = x->row_ptr[j]; k < x->row_ptr[j + 1] && !diagonal; ++k) {
            diagonal = x->col_idx[k] == j;
        }
        if (!diagonal) {
            return nscd__fclib_fail(p, NSCD_ERR_IO, "W has no diagonal block for contact %d",
                                    (int)j);
        }
    }
    /* Only the entries in use: slots past the last pointer are capacity. */
    if (!nscd__fclib_all_finite(x->blocks, 9 * (size_t)x->n_blocks)) {
        return nscd__fclib_fail(p, NSCD_ERR_IO, "W holds NaN or infinity");
    }
    memcpy(x->q, local->q, 3 * (size_t)n * sizeof(double));
    memcpy(x->mu, local->mu, (size_t)n * sizeof(double));
    if (!nscd__fclib_all_finite(x->q, 3 * (size_t)n) || !nscd__fclib_all_finite(x->mu, (size_t)n)) {
        return nscd__fclib_fail(p, NSCD_ERR_IO, "q or mu holds NaN or infinity");
    }
    for (int32_t j = 0; j < n; ++j) {
        if (x->mu[j] < 0.0) {
            return nscd__fclib_fail(p, NSCD_ERR_IO, "mu[%d] = %g < 0", (int)j, x->mu[j]);
        }
    }
    return NSCD_OK;
}

static nscd_status read_solution(nscd_fclib_problem *p, const char *path, nscd__fclib_arrays *x) {
    struct fclib_solution *solution = fclib_read_solution(path);
    if (solution == NULL) {
        return nscd__fclib_fail(p, NSCD_ERR_IO, "%s: libfclib cannot read the solution", path);
    }
    size_t bytes = 3 * (size_t)x->n * sizeof(double);
    nscd_status st = nscd__fclib_add_solution(&p->allocator, x);
    if (st == NSCD_OK) {
        memcpy(x->r, solution->r, bytes);
        memcpy(x->u, solution->u, bytes);
        if (!nscd__fclib_all_finite(x->r, 3 * (size_t)x->n) ||
            !nscd__fclib_all_finite(x->u, 3 * (size_t)x->n)) {
            st = nscd__fclib_fail(p, NSCD_ERR_IO, "the solution holds NaN or infinity");
        }
    } else {
        nscd__fclib_fail(p, st, "out of memory");
    }
    fclib_delete_solutions(solution, 1);
    return st;
}

/* libfclib's problem struct is freed member by member by fclib_delete_local; the
 * struct itself stays the caller's. */
static void delete_local(struct fclib_local *local) {
    fclib_delete_local(local);
    free(local);
}

static nscd_status read_checked(nscd_fclib_problem *p, const char *path,
                                const nscd__fclib_layout *layout, nscd__fclib_arrays *x) {
    struct fclib_local *local = fclib_read_local(path);
    if (local == NULL) {
        return nscd__fclib_fail(p, NSCD_ERR_IO, "%s: libfclib cannot read it", path);
    }
    nscd_status st = arrays_from_fclib(p, local, x);
    delete_local(local);
    if (st == NSCD_OK && layout->has_solution) {
        st = read_solution(p, path, x);
    }
    if (st != NSCD_OK) {
        nscd__fclib_arrays_free(&p->allocator, x);
    }
    return st;
}

nscd_status nscd_fclib_read(nscd_fclib_problem *problem, const char *path) {
    if (problem == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    problem->message[0] = '\0';
    if (path == NULL) {
        return nscd__fclib_fail(problem, NSCD_ERR_NULL_POINTER, "path is NULL");
    }
    nscd__fclib_hdf5_errors saved;
    nscd__fclib_hdf5_quiet(&saved);
    nscd__fclib_layout layout;
    nscd_status st = nscd__fclib_check_file(&problem->allocator, path, &layout, problem->message,
                                            sizeof problem->message);
    nscd__fclib_arrays x = {0};
    if (st == NSCD_OK) {
        st = read_checked(problem, path, &layout, &x);
    }
    nscd__fclib_hdf5_restore(&saved);
    if (st == NSCD_OK) {
        nscd__fclib_arrays_free(&problem->allocator, &problem->data);
        problem->data = x;
    }
    return st;
}

/* ------------------------------------------------------------------ write */

/* A fresh directory next to path, so that libfclib creates a new file (it
 * appends to an existing one and refuses to overwrite a problem in it). */
typedef struct staging {
    char dir[PATH_MAX];
    char file[PATH_MAX];
} staging;

static bool staging_open(const char *path, staging *s) {
    const char *slash = strrchr(path, '/');
    int dir_len = slash == NULL ? 1 : (int)(slash - path);
    const char *dir = slash == NULL ? "." : (slash == path ? "/" : path);
    if (slash == path) {
        dir_len = 1;
    }
    int len = snprintf(s->dir, sizeof s->dir, "%.*s/.nscd-fclib-XXXXXX", dir_len, dir);
    if (len < 0 || (size_t)len >= sizeof s->dir || mkdtemp(s->dir) == NULL) {
        return false;
    }
    len = snprintf(s->file, sizeof s->file, "%s/problem.hdf5", s->dir);
    if (len < 0 || (size_t)len >= sizeof s->file) {
        rmdir(s->dir);
        return false;
    }
    return true;
}

static void staging_close(const staging *s) {
    remove(s->file);
    rmdir(s->dir);
}

/* libfclib's view of the handle's arrays (W as scalar CSC; nothing copied but W). */
static void fclib_view(const nscd__fclib_arrays *x, nscd__fclib_csc *csc, struct fclib_matrix *W,
                       struct fclib_local *local) {
    *W = (struct fclib_matrix){.nzmax = csc->nnz,
                               .m = csc->m,
                               .n = csc->m,
                               .p = csc->colptr,
                               .i = csc->rowind,
                               .x = csc->vals,
                               .nz = -1, /* compressed columns */
                               .info = NULL};
    *local = (struct fclib_local){.W = W, .mu = x->mu, .q = x->q, .spacedim = 3};
}

static nscd_status write_staged(nscd_fclib_problem *p, const char *file) {
    nscd__fclib_arrays *x = &p->data;
    nscd__fclib_csc csc;
    nscd_status st = nscd__fclib_to_csc(&p->allocator, x, &csc);
    if (st != NSCD_OK) {
        return nscd__fclib_fail(p, st, "W is too large for FCLIB's int sizes, or out of memory");
    }
    struct fclib_matrix W;
    struct fclib_local local;
    fclib_view(x, &csc, &W, &local);
    if (!fclib_write_local(&local, file)) {
        st = nscd__fclib_fail(p, NSCD_ERR_IO, "libfclib could not write the problem");
    }
    if (st == NSCD_OK && x->r != NULL) {
        struct fclib_solution solution = {.v = NULL, .u = x->u, .r = x->r, .l = NULL};
        if (!fclib_write_solution(&solution, file)) {
            st = nscd__fclib_fail(p, NSCD_ERR_IO, "libfclib could not write the solution");
        }
    }
    nscd__fclib_csc_free(&p->allocator, &csc);
    return st;
}

nscd_status nscd_fclib_write(nscd_fclib_problem *problem, const char *path) {
    if (problem == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    problem->message[0] = '\0';
    if (path == NULL) {
        return nscd__fclib_fail(problem, NSCD_ERR_NULL_POINTER, "path is NULL");
    }
    if (problem->data.n == 0) {
        return nscd__fclib_fail(problem, NSCD_ERR_STATE, "the problem has no contacts");
    }
    staging s;
    if (!staging_open(path, &s)) {
        return nscd__fclib_fail(problem, NSCD_ERR_IO,
                                "%s: cannot create a temporary directory next to it", path);
    }
    nscd__fclib_hdf5_errors saved;
    nscd__fclib_hdf5_quiet(&saved);
    nscd_status st = write_staged(problem, s.file);
    nscd__fclib_hdf5_restore(&saved);
    if (st == NSCD_OK && rename(s.file, path) != 0) {
        st = nscd__fclib_fail(problem, NSCD_ERR_IO, "%s: cannot be replaced", path);
    }
    staging_close(&s);
    return st;
}

/* ------------------------------------------------------------------ merit */

nscd_status nscd_fclib_problem_merit(nscd_fclib_problem *problem, const double *r, double *merit) {
    if (problem == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    problem->message[0] = '\0';
    if (r == NULL || merit == NULL) {
        return nscd__fclib_fail(problem, NSCD_ERR_NULL_POINTER, "r or merit is NULL");
    }
    nscd__fclib_arrays *x = &problem->data;
    if (x->n == 0) {
        return nscd__fclib_fail(problem, NSCD_ERR_STATE, "the problem has no contacts");
    }
    size_t bytes = 3 * (size_t)x->n * sizeof(double);
    if (!nscd__fclib_all_finite(r, 3 * (size_t)x->n)) {
        return nscd__fclib_fail(problem, NSCD_ERR_NOT_FINITE, "r holds NaN or infinity");
    }
    nscd__fclib_csc csc;
    nscd_status st = nscd__fclib_to_csc(&problem->allocator, x, &csc);
    double *r_copy = nscd__fclib_alloc(&problem->allocator, bytes);
    if (st != NSCD_OK || r_copy == NULL) {
        if (st == NSCD_OK) {
            nscd__fclib_csc_free(&problem->allocator, &csc);
        }
        nscd__fclib_free(&problem->allocator, r_copy, bytes);
        return nscd__fclib_fail(problem, NSCD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    memcpy(r_copy, r, bytes); /* libfclib takes non-const pointers */
    struct fclib_matrix W;
    struct fclib_local local;
    fclib_view(x, &csc, &W, &local);
    struct fclib_solution solution = {.v = NULL, .u = NULL, .r = r_copy, .l = NULL};
    *merit = fclib_merit_local(&local, MERIT_1, &solution);
    nscd__fclib_free(&problem->allocator, r_copy, bytes);
    nscd__fclib_csc_free(&problem->allocator, &csc);
    return NSCD_OK;
}
