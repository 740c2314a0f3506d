/* Internals of libnscd_fclib: the problem handle, its arrays, the block
 * conversions and the HDF5 checks made before libfclib touches a file. */
#ifndef NSCD_FCLIB_INTERNAL_H
#define NSCD_FCLIB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <hdf5.h>

#include "nscd/fclib.h"

/* Largest number of contacts of a problem (as nscd_fc3d_solve_bsr) and of a dense one. */
#define NSCD__FCLIB_MAX_CONTACTS (1 << 26)
#define NSCD__FCLIB_MAX_DENSE_CONTACTS (1 << 14)

/* One problem's arrays: W in canonical 3x3 block CSR (ascending columns), q, mu
 * and the optional solution (r and u both set or both NULL). */
typedef struct nscd__fclib_arrays {
    int32_t n;        /* contacts */
    int32_t n_blocks; /* stored 3x3 blocks */
    int32_t *row_ptr; /* n + 1 */
    int32_t *col_idx; /* n_blocks */
    double *blocks;   /* 9 n_blocks */
    double *q;        /* 3n */
    double *mu;       /* n */
    double *r;        /* 3n or NULL */
    double *u;        /* 3n or NULL */
} nscd__fclib_arrays;

struct nscd_fclib_problem {
    nscd_allocator allocator;
    nscd__fclib_arrays data;
    char message[512];
};

/* A scalar sparse matrix as a list of entries (row, column, value). */
typedef struct nscd__fclib_entries {
    size_t count;
    const int *rows;
    const int *cols;
    const double *vals;
} nscd__fclib_entries;

/* Memory through the handle's allocator (malloc/free when none). */
/* A handle's allocator from the caller's (NULL: the default); false when only
 * one of its two hooks is set. */
bool nscd__fclib_allocator(const nscd_allocator *in, nscd_allocator *out);
void *nscd__fclib_alloc(const nscd_allocator *a, size_t size);
void nscd__fclib_free(const nscd_allocator *a, void *block, size_t size);

/* Allocates the arrays of n contacts and n_blocks blocks (with_solution: r, u
 * too); everything zero. On failure nothing stays allocated. */
nscd_status nscd__fclib_arrays_alloc(const nscd_allocator *a, int32_t n, int32_t n_blocks,
                                     bool with_solution, nscd__fclib_arrays *out);
void nscd__fclib_arrays_free(const nscd_allocator *a, nscd__fclib_arrays *arrays);
nscd_status nscd__fclib_add_solution(const nscd_allocator *a, nscd__fclib_arrays *arrays);

/* Sets the handle's message (printf-style) and returns status. */
nscd_status nscd__fclib_fail(nscd_fclib_problem *p, nscd_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Canonical block CSR of n contacts from scalar entries of a 3n x 3n matrix
 * (indices checked; duplicates summed in entry order; an entry's first value
 * is copied, so -0.0 survives). Fills row_ptr, col_idx, blocks of out, which
 * must be unallocated; q, mu, r, u are allocated zero. */
nscd_status nscd__fclib_bsr_from_entries(const nscd_allocator *a, int32_t n,
                                         const nscd__fclib_entries *entries,
                                         nscd__fclib_arrays *out);

/* The scalar CSC form (column pointers 3n + 1, row indices and values 9 n_blocks
 * each, rows ascending in every column) of the block matrix of arrays. */
typedef struct nscd__fclib_csc {
    int m;        /* rows = columns = 3n */
    int nnz;      /* 9 n_blocks */
    int *colptr;  /* m + 1 */
    int *rowind;  /* nnz */
    double *vals; /* nnz */
} nscd__fclib_csc;
nscd_status nscd__fclib_to_csc(const nscd_allocator *a, const nscd__fclib_arrays *arrays,
                               nscd__fclib_csc *out);
void nscd__fclib_csc_free(const nscd_allocator *a, nscd__fclib_csc *csc);

/* What the HDF5 check found in a file that libfclib can read without failing. */
typedef struct nscd__fclib_layout {
    bool has_solution; /* /solution with u and r of W's size */
} nscd__fclib_layout;

/* Checks the file's groups, datasets, types and sizes against what
 * fclib_read_local and fclib_read_solution will read. NSCD_ERR_IO or
 * NSCD_ERR_UNSUPPORTED with the reason in message. HDF5 error printing must
 * be off (nscd__fclib_hdf5_quiet). */
nscd_status nscd__fclib_check_file(const nscd_allocator *allocator, const char *path,
                                   nscd__fclib_layout *layout, char *message, size_t message_size);

/* The structure of the file's old-style groups (groups.c), read from the
 * file's bytes before HDF5 opens it: true when every address and size HDF5
 * follows to list or look up a link lies inside the file and is consistent
 * (also for a file that is not HDF5: HDF5 refuses it). False with the first
 * inconsistency (a static string) in *why. */
bool nscd__fclib_groups_valid(FILE *f, long long file_bytes, const char **why);

/* HDF5's automatic error printing off, and back as it was. */
typedef struct nscd__fclib_hdf5_errors {
    H5E_auto2_t func;
    void *data;
    bool saved;
} nscd__fclib_hdf5_errors;
void nscd__fclib_hdf5_quiet(nscd__fclib_hdf5_errors *saved);
void nscd__fclib_hdf5_restore(const nscd__fclib_hdf5_errors *saved);

/* A global problem (gfc3d.h): M and H in canonical CSC (rows ascending, no
 * duplicates), f, w, mu, and the optional solution v, r, u (all or none). */
#define NSCD__FCLIB_MAX_DOFS (1 << 26)
#define NSCD__FCLIB_MAX_GLOBAL_CONTACTS (1 << 24)
typedef struct nscd__fclib_global_data {
    int32_t n_dofs;
    int32_t n_contacts;
    int32_t *Mp, *Mi; /* n_dofs + 1, Mp[n_dofs] */
    double *Mx;
    int32_t *Hp, *Hi; /* 3 n_contacts + 1, Hp[3 n_contacts] */
    double *Hx;
    double *f, *w, *mu;
    double *v, *r, *u; /* NULL when no solution */
} nscd__fclib_global_data;
void nscd__fclib_global_data_free(const nscd_allocator *a, nscd__fclib_global_data *g);

/* Reads /fclib_global (and /solution with v, u, r when present) with the HDF5
 * API after the same dataset checks as nscd__fclib_check_file: counts bounded
 * by the file's size, every element readable, indices checked, values finite,
 * mu >= 0, duplicates of triplet matrices summed. NSCD_ERR_IO,
 * NSCD_ERR_UNSUPPORTED (G, b, spacedim 2) or NSCD_ERR_OUT_OF_MEMORY with the
 * reason in message; on failure nothing stays allocated. */
nscd_status nscd__fclib_read_global_file(const nscd_allocator *allocator, const char *path,
                                         nscd__fclib_global_data *out, char *message,
                                         size_t message_size);

/* True when all count values are finite. */
bool nscd__fclib_all_finite(const double *x, size_t count);

#endif /* NSCD_FCLIB_INTERNAL_H */
