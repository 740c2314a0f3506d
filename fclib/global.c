/* The nscd_fclib_global handle: global FCLIB problems (M, H, f, w, mu and an
 * optional solution v, r, u). Files are read with the HDF5 API after the
 * checks of check.c (nscd__fclib_read_global_file) and written by libfclib. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, rmdir */

#include <fclib.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fclib_internal.h"

struct nscd_fclib_global {
    nscd_allocator allocator;
    nscd__fclib_global_data data;
    char message[512];
};

static nscd_status fail(nscd_fclib_global *g, nscd_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static nscd_status fail(nscd_fclib_global *g, nscd_status status, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(g->message, sizeof g->message, fmt, args);
    va_end(args);
    return status;
}

nscd_status nscd_fclib_global_create(const nscd_allocator *allocator, nscd_fclib_global **global) {
    if (global == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    nscd_allocator a;
    if (!nscd__fclib_allocator(allocator, &a)) {
        return NSCD_ERR_INVALID_ARGUMENT;
    }
    nscd_fclib_global *g = nscd__fclib_alloc(&a, sizeof *g);
    if (g == NULL) {
        return NSCD_ERR_OUT_OF_MEMORY;
    }
    memset(g, 0, sizeof *g);
    g->allocator = a;
    *global = g;
    return NSCD_OK;
}

void nscd_fclib_global_destroy(nscd_fclib_global *global) {
    if (global == NULL) {
        return;
    }
    nscd_allocator a = global->allocator;
    nscd__fclib_global_data_free(&a, &global->data);
    nscd__fclib_free(&a, global, sizeof *global);
}

const char *nscd_fclib_global_last_error(const nscd_fclib_global *global) {
    return global == NULL ? "" : global->message;
}

static void replace(nscd_fclib_global *g, nscd__fclib_global_data *x) {
    nscd__fclib_global_data_free(&g->allocator, &g->data);
    g->data = *x;
}

nscd_status nscd_fclib_read_global(nscd_fclib_global *global, const char *path) {
    if (global == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    global->message[0] = '\0';
    if (path == NULL) {
        return fail(global, NSCD_ERR_NULL_POINTER, "path is NULL");
    }
    nscd__fclib_hdf5_errors saved;
    nscd__fclib_hdf5_quiet(&saved);
    nscd__fclib_global_data x;
    nscd_status st = nscd__fclib_read_global_file(&global->allocator, path, &x, global->message,
                                                  sizeof global->message);
    nscd__fclib_hdf5_restore(&saved);
    if (st == NSCD_OK) {
        replace(global, &x);
    }
    return st;
}

/* A canonical CSC matrix (rows strictly ascending per column). */
static nscd_status check_csc(nscd_fclib_global *g, const char *name, int32_t rows, int32_t cols,
                             const int32_t *cp, const int32_t *ri, const double *x) {
    if (cp[0] != 0) {
        return fail(g, NSCD_ERR_INVALID_ARGUMENT, "%s: col_ptr[0] != 0", name);
    }
    for (int32_t c = 0; c < cols; ++c) {
        if (cp[c + 1] < cp[c]) {
            return fail(g, NSCD_ERR_INVALID_ARGUMENT, "%s: col_ptr decreases", name);
        }
    }
    for (int32_t c = 0; c < cols; ++c) {
        for (int32_t p = cp[c]; p < cp[c + 1]; ++p) {
            if (ri[p] < 0 || ri[p] >= rows) {
                return fail(g, NSCD_ERR_INDEX, "%s: row index %d out of range", name, (int)ri[p]);
            }
            if (p > cp[c] && ri[p] <= ri[p - 1]) {
                return fail(g, NSCD_ERR_INVALID_ARGUMENT, "%s: rows not strictly ascending", name);
            }
        }
    }
    if (!nscd__fclib_all_finite(x, (size_t)cp[cols])) {
        return fail(g, NSCD_ERR_NOT_FINITE, "%s holds NaN or infinity", name);
    }
    return NSCD_OK;
}

static void *copy_of(const nscd_allocator *a, const void *src, size_t bytes, bool *ok) {
    void *dst = nscd__fclib_alloc(a, bytes);
    if (dst == NULL) {
        *ok = false;
    } else if (bytes > 0) {
        memcpy(dst, src, bytes);
    }
    return dst;
}

nscd_status nscd_fclib_global_set(nscd_fclib_global *global, int32_t n_dofs, int32_t n_contacts,
                                  const int32_t *M_col_ptr, const int32_t *M_row_idx,
                                  const double *M_values, const int32_t *H_col_ptr,
                                  const int32_t *H_row_idx, const double *H_values, const double *f,
                                  const double *w, const double *mu) {
    if (global == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    global->message[0] = '\0';
    if (M_col_ptr == NULL || M_row_idx == NULL || M_values == NULL || H_col_ptr == NULL ||
        H_row_idx == NULL || H_values == NULL || f == NULL || w == NULL || mu == NULL) {
        return fail(global, NSCD_ERR_NULL_POINTER, "an array is NULL");
    }
    if (n_dofs < 1 || n_dofs > NSCD__FCLIB_MAX_DOFS || n_contacts < 1 ||
        n_contacts > NSCD__FCLIB_MAX_GLOBAL_CONTACTS) {
        return fail(global, NSCD_ERR_INVALID_ARGUMENT, "n_dofs or n_contacts out of range");
    }
    int32_t n = n_dofs, m = 3 * n_contacts;
    nscd_status st = check_csc(global, "M", n, n, M_col_ptr, M_row_idx, M_values);
    st = st != NSCD_OK ? st : check_csc(global, "H", n, m, H_col_ptr, H_row_idx, H_values);
    if (st != NSCD_OK) {
        return st;
    }
    if (!nscd__fclib_all_finite(f, (size_t)n) || !nscd__fclib_all_finite(w, (size_t)m) ||
        !nscd__fclib_all_finite(mu, (size_t)n_contacts)) {
        return fail(global, NSCD_ERR_NOT_FINITE, "f, w or mu holds NaN or infinity");
    }
    for (int32_t j = 0; j < n_contacts; ++j) {
        if (mu[j] < 0.0) {
            return fail(global, NSCD_ERR_OUT_OF_RANGE, "mu[%d] < 0", (int)j);
        }
    }
    const nscd_allocator *a = &global->allocator;
    bool ok = true;
    size_t mnz = (size_t)M_col_ptr[n], hnz = (size_t)H_col_ptr[m];
    nscd__fclib_global_data x = {.n_dofs = n, .n_contacts = n_contacts};
    x.Mp = copy_of(a, M_col_ptr, ((size_t)n + 1) * sizeof(int32_t), &ok);
    x.Mi = copy_of(a, M_row_idx, mnz * sizeof(int32_t), &ok);
    x.Mx = copy_of(a, M_values, mnz * sizeof(double), &ok);
    x.Hp = copy_of(a, H_col_ptr, ((size_t)m + 1) * sizeof(int32_t), &ok);
    x.Hi = copy_of(a, H_row_idx, hnz * sizeof(int32_t), &ok);
    x.Hx = copy_of(a, H_values, hnz * sizeof(double), &ok);
    x.f = copy_of(a, f, (size_t)n * sizeof(double), &ok);
    x.w = copy_of(a, w, (size_t)m * sizeof(double), &ok);
    x.mu = copy_of(a, mu, (size_t)n_contacts * sizeof(double), &ok);
    if (!ok || x.Mp == NULL || x.Hp == NULL) {
        if (x.Mp == NULL || x.Hp == NULL) { /* free by hand what the pointers cannot size */
            nscd__fclib_free(a, x.Mp, ((size_t)n + 1) * sizeof(int32_t));
            nscd__fclib_free(a, x.Hp, ((size_t)m + 1) * sizeof(int32_t));
            nscd__fclib_free(a, x.Mi, mnz * sizeof(int32_t));
            nscd__fclib_free(a, x.Mx, mnz * sizeof(double));
            nscd__fclib_free(a, x.Hi, hnz * sizeof(int32_t));
            nscd__fclib_free(a, x.Hx, hnz * sizeof(double));
            x.Mp = x.Hp = x.Mi = x.Hi = NULL;
            x.Mx = x.Hx = NULL;
        }
        nscd__fclib_global_data_free(a, &x);
        return fail(global, NSCD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    replace(global, &x);
    return NSCD_OK;
}

nscd_status nscd_fclib_global_set_solution(nscd_fclib_global *global, const double *v,
                                           const double *r, const double *u) {
    if (global == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    global->message[0] = '\0';
    nscd__fclib_global_data *x = &global->data;
    if (x->n_dofs == 0) {
        return fail(global, NSCD_ERR_STATE, "the problem is empty");
    }
    size_t n = (size_t)x->n_dofs, m = 3 * (size_t)x->n_contacts;
    const nscd_allocator *a = &global->allocator;
    if (v == NULL && r == NULL && u == NULL) {
        nscd__fclib_free(a, x->v, n * sizeof(double));
        nscd__fclib_free(a, x->r, m * sizeof(double));
        nscd__fclib_free(a, x->u, m * sizeof(double));
        x->v = x->r = x->u = NULL;
        return NSCD_OK;
    }
    if (v == NULL || r == NULL || u == NULL) {
        return fail(global, NSCD_ERR_NULL_POINTER, "v, r and u: all or none");
    }
    if (!nscd__fclib_all_finite(v, n) || !nscd__fclib_all_finite(r, m) ||
        !nscd__fclib_all_finite(u, m)) {
        return fail(global, NSCD_ERR_NOT_FINITE, "the solution holds NaN or infinity");
    }
    bool ok = true;
    double *nv = copy_of(a, v, n * sizeof(double), &ok);
    double *nr = copy_of(a, r, m * sizeof(double), &ok);
    double *nu = copy_of(a, u, m * sizeof(double), &ok);
    if (!ok) {
        nscd__fclib_free(a, nv, n * sizeof(double));
        nscd__fclib_free(a, nr, m * sizeof(double));
        nscd__fclib_free(a, nu, m * sizeof(double));
        return fail(global, NSCD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    nscd__fclib_free(a, x->v, n * sizeof(double));
    nscd__fclib_free(a, x->r, m * sizeof(double));
    nscd__fclib_free(a, x->u, m * sizeof(double));
    x->v = nv, x->r = nr, x->u = nu;
    return NSCD_OK;
}

nscd_status nscd_fclib_global_get_sizes(const nscd_fclib_global *global, int32_t *n_dofs,
                                        int32_t *n_contacts, int32_t *M_nnz, int32_t *H_nnz,
                                        int32_t *has_solution) {
    if (global == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    const nscd__fclib_global_data *x = &global->data;
    bool set = x->n_dofs > 0;
    if (n_dofs != NULL) {
        *n_dofs = x->n_dofs;
    }
    if (n_contacts != NULL) {
        *n_contacts = x->n_contacts;
    }
    if (M_nnz != NULL) {
        *M_nnz = set ? x->Mp[x->n_dofs] : 0;
    }
    if (H_nnz != NULL) {
        *H_nnz = set ? x->Hp[3 * x->n_contacts] : 0;
    }
    if (has_solution != NULL) {
        *has_solution = x->v != NULL;
    }
    return NSCD_OK;
}

static void copy_out(void *dst, const void *src, size_t bytes) {
    if (dst != NULL && bytes > 0) {
        memcpy(dst, src, bytes);
    }
}

nscd_status nscd_fclib_global_get(nscd_fclib_global *global, int32_t *M_col_ptr, int32_t *M_row_idx,
                                  double *M_values, int32_t *H_col_ptr, int32_t *H_row_idx,
                                  double *H_values, double *f, double *w, double *mu) {
    if (global == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    global->message[0] = '\0';
    const nscd__fclib_global_data *x = &global->data;
    if (x->n_dofs == 0) {
        return fail(global, NSCD_ERR_STATE, "the problem is empty");
    }
    size_t n = (size_t)x->n_dofs, m = 3 * (size_t)x->n_contacts;
    size_t mnz = (size_t)x->Mp[n], hnz = (size_t)x->Hp[m];
    copy_out(M_col_ptr, x->Mp, (n + 1) * sizeof(int32_t));
    copy_out(M_row_idx, x->Mi, mnz * sizeof(int32_t));
    copy_out(M_values, x->Mx, mnz * sizeof(double));
    copy_out(H_col_ptr, x->Hp, (m + 1) * sizeof(int32_t));
    copy_out(H_row_idx, x->Hi, hnz * sizeof(int32_t));
    copy_out(H_values, x->Hx, hnz * sizeof(double));
    copy_out(f, x->f, n * sizeof(double));
    copy_out(w, x->w, m * sizeof(double));
    copy_out(mu, x->mu, m / 3 * sizeof(double));
    return NSCD_OK;
}

nscd_status nscd_fclib_global_get_solution(nscd_fclib_global *global, double *v, double *r,
                                           double *u) {
    if (global == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    global->message[0] = '\0';
    const nscd__fclib_global_data *x = &global->data;
    if (x->v == NULL) {
        return fail(global, NSCD_ERR_STATE, "no solution");
    }
    size_t n = (size_t)x->n_dofs, m = 3 * (size_t)x->n_contacts;
    copy_out(v, x->v, n * sizeof(double));
    copy_out(r, x->r, m * sizeof(double));
    copy_out(u, x->u, m * sizeof(double));
    return NSCD_OK;
}

/* libfclib writes into a fresh file in a temporary directory next to path,
 * which is then renamed (as nscd_fclib_write does). */
static nscd_status write_staged(nscd_fclib_global *g, const char *file) {
    nscd__fclib_global_data *x = &g->data;
    int n = x->n_dofs, m = 3 * x->n_contacts;
    struct fclib_matrix M = {.nzmax = x->Mp[n],
                             .m = n,
                             .n = n,
                             .p = x->Mp,
                             .i = x->Mi,
                             .x = x->Mx,
                             .nz = -1,
                             .info = NULL};
    struct fclib_matrix H = {.nzmax = x->Hp[m],
                             .m = n,
                             .n = m,
                             .p = x->Hp,
                             .i = x->Hi,
                             .x = x->Hx,
                             .nz = -1,
                             .info = NULL};
    struct fclib_global problem = {.M = &M,
                                   .H = &H,
                                   .G = NULL,
                                   .mu = x->mu,
                                   .f = x->f,
                                   .b = NULL,
                                   .w = x->w,
                                   .spacedim = 3,
                                   .info = NULL};
    if (!fclib_write_global(&problem, file)) {
        return fail(g, NSCD_ERR_IO, "libfclib could not write the problem");
    }
    if (x->v != NULL) {
        struct fclib_solution solution = {.v = x->v, .u = x->u, .r = x->r, .l = NULL};
        if (!fclib_write_solution(&solution, file)) {
            return fail(g, NSCD_ERR_IO, "libfclib could not write the solution");
        }
    }
    return NSCD_OK;
}

nscd_status nscd_fclib_write_global(nscd_fclib_global *global, const char *path) {
    if (global == NULL) {
        return NSCD_ERR_NULL_POINTER;
    }
    global->message[0] = '\0';
    if (path == NULL) {
        return fail(global, NSCD_ERR_NULL_POINTER, "path is NULL");
    }
    if (global->data.n_dofs == 0) {
        return fail(global, NSCD_ERR_STATE, "the problem is empty");
    }
    char dir[4096], file[4200];
    const char *slash = strrchr(path, '/');
    int dir_len = slash == NULL ? 1 : (slash == path ? 1 : (int)(slash - path));
    const char *base = slash == NULL ? "." : path;
    int len = snprintf(dir, sizeof dir, "%.*s/.nscd-fclib-XXXXXX", dir_len, base);
    if (len < 0 || (size_t)len >= sizeof dir || mkdtemp(dir) == NULL) {
        return fail(global, NSCD_ERR_IO, "%s: cannot create a temporary directory next to it",
                    path);
    }
    snprintf(file, sizeof file, "%s/problem.hdf5", dir);
    nscd__fclib_hdf5_errors saved;
    nscd__fclib_hdf5_quiet(&saved);
    nscd_status st = write_staged(global, file);
    nscd__fclib_hdf5_restore(&saved);
    if (st == NSCD_OK && rename(file, path) != 0) {
        st = fail(global, NSCD_ERR_IO, "%s: cannot be replaced", path);
    }
    remove(file);
    rmdir(dir);
    return st;
}
