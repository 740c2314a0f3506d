/* The HDF5 check made before libfclib reads a file.
 *
 * libfclib 3.1 ends the process (exit(1)) when an HDF5 call fails in the
 * middle of fclib_read_local or fclib_read_solution (a missing dataset, a
 * group that is a dataset), and it allocates its buffers from the sizes it
 * reads (nz, m, n, nzmax) before reading whole datasets into them, so a file
 * whose datasets are longer than those sizes say would overflow them. This
 * file walks the same groups and datasets libfclib will read, with the HDF5
 * API, and checks each one's existence, element class and element count.
 * Only a file that passes is handed to libfclib. Nothing is written here. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fclib_internal.h"

void nscd__fclib_hdf5_quiet(nscd__fclib_hdf5_errors *saved) {
    saved->saved = H5Eget_auto2(H5E_DEFAULT, &saved->func, &saved->data) >= 0;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void nscd__fclib_hdf5_restore(const nscd__fclib_hdf5_errors *saved) {
    if (saved->saved) {
        H5Eset_auto2(H5E_DEFAULT, saved->func, saved->data);
    }
}

typedef enum element { ELEMENT_INT, ELEMENT_DOUBLE, ELEMENT_STRING } element;

/* The file being checked and where the reason of a refusal goes. */
typedef struct checker {
    hid_t file;
    char *message;
    size_t message_size;
} checker;

static nscd_status refuse(const checker *c, nscd_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static nscd_status refuse(const checker *c, nscd_status status, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(c->message, c->message_size, fmt, args);
    va_end(args);
    return status;
}

/* True when every link of the absolute path exists (H5Lexists needs its parents). */
static bool exists(const checker *c, const char *path) {
    char prefix[256];
    size_t len = strlen(path);
    if (len >= sizeof prefix) {
        return false;
    }
    for (size_t i = 1; i <= len; ++i) {
        if (path[i] == '/' || path[i] == '\0') {
            memcpy(prefix, path, i);
            prefix[i] = '\0';
            if (H5Lexists(c->file, prefix, H5P_DEFAULT) <= 0) {
                return false;
            }
        }
    }
    return true;
}

static bool is_group(const checker *c, const char *path) {
    if (!exists(c, path)) {
        return false;
    }
    hid_t g = H5Gopen2(c->file, path, H5P_DEFAULT);
    if (g < 0) {
        return false;
    }
    H5Gclose(g);
    return true;
}

static bool class_matches(hid_t type, element kind) {
    switch (H5Tget_class(type)) {
    case H5T_INTEGER: return kind == ELEMENT_INT;
    case H5T_FLOAT: return kind == ELEMENT_DOUBLE;
    case H5T_STRING: return kind == ELEMENT_STRING && H5Tis_variable_str(type) == 0;
    default: return false;
    }
}

/* The number of elements of a dataset of rank <= 1 and the given class, or -1. */
static long long dataset_count(const checker *c, const char *path, element kind) {
    if (!exists(c, path)) {
        return -1;
    }
    hid_t d = H5Dopen2(c->file, path, H5P_DEFAULT);
    if (d < 0) {
        return -1;
    }
    long long count = -1;
    hid_t space = H5Dget_space(d), type = H5Dget_type(d);
    if (space >= 0 && type >= 0 && H5Sget_simple_extent_ndims(space) <= 1 &&
        class_matches(type, kind)) {
        count = (long long)H5Sget_simple_extent_npoints(space);
    }
    if (type >= 0) {
        H5Tclose(type);
    }
    if (space >= 0) {
        H5Sclose(space);
    }
    H5Dclose(d);
    return count;
}

/* A dataset of exactly `expected` elements. */
static nscd_status need(const checker *c, const char *path, element kind, long long expected) {
    long long count = dataset_count(c, path, kind);
    if (count < 0) {
        return refuse(c, NSCD_ERR_IO, "%s: missing, or not a dataset of %s", path,
                      kind == ELEMENT_INT      ? "integers"
                      : kind == ELEMENT_DOUBLE ? "doubles"
                                               : "fixed-length strings");
    }
    if (count != expected) {
        return refuse(c, NSCD_ERR_IO, "%s: %lld elements where %lld are expected", path, count,
                      expected);
    }
    return NSCD_OK;
}

/* A one-element integer dataset, read. */
static nscd_status need_int(const checker *c, const char *path, int *value) {
    nscd_status st = need(c, path, ELEMENT_INT, 1);
    if (st != NSCD_OK) {
        return st;
    }
    hid_t d = H5Dopen2(c->file, path, H5P_DEFAULT);
    herr_t ok = d < 0 ? -1 : H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, value);
    if (d >= 0) {
        H5Dclose(d);
    }
    return ok < 0 ? refuse(c, NSCD_ERR_IO, "%s: cannot be read as an int", path) : NSCD_OK;
}

/* An optional string dataset: absent, or one fixed-length string. */
static nscd_status optional_string(const checker *c, const char *group, const char *name) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", group, name);
    return exists(c, path) ? need(c, path, ELEMENT_STRING, 1) : NSCD_OK;
}

/* The optional matrix information read_matrix reads when `conditioning` exists. */
static nscd_status check_matrix_info(const checker *c, const char *group) {
    char path[256];
    snprintf(path, sizeof path, "%s/conditioning", group);
    if (!exists(c, path)) {
        return NSCD_OK;
    }
    nscd_status st = need(c, path, ELEMENT_DOUBLE, 1);
    snprintf(path, sizeof path, "%s/determinant", group);
    st = st != NSCD_OK ? st : need(c, path, ELEMENT_DOUBLE, 1);
    snprintf(path, sizeof path, "%s/rank", group);
    st = st != NSCD_OK ? st : need(c, path, ELEMENT_INT, 1);
    return st != NSCD_OK ? st : optional_string(c, group, "comment");
}

/* W: the sizes read_matrix allocates from, against the datasets it reads into them. */
static nscd_status check_matrix(const checker *c, int *rows) {
    static const char *const W = "/fclib_local/W";
    int nzmax = 0, m = 0, n = 0, nz = 0;
    nscd_status st = need_int(c, "/fclib_local/W/nzmax", &nzmax);
    st = st != NSCD_OK ? st : need_int(c, "/fclib_local/W/m", &m);
    st = st != NSCD_OK ? st : need_int(c, "/fclib_local/W/n", &n);
    st = st != NSCD_OK ? st : need_int(c, "/fclib_local/W/nz", &nz);
    if (st != NSCD_OK) {
        return st;
    }
    if (m != n || m < 3 || m % 3 != 0 || m / 3 > NSCD__FCLIB_MAX_CONTACTS) {
        return refuse(c, NSCD_ERR_IO, "%s is %d x %d: not square with 3 n rows, 1 <= n <= 2^26", W,
                      m, n);
    }
    if (nzmax < 0 || nz < -2 || (nz >= 0 && nz > nzmax)) {
        return refuse(c, NSCD_ERR_IO, "%s: nzmax = %d, nz = %d are inconsistent", W, nzmax, nz);
    }
    long long pointers = nz >= 0 ? nz : (long long)(nz == -1 ? n : m) + 1;
    long long indices = nz >= 0 ? nz : nzmax;
    st = need(c, "/fclib_local/W/p", ELEMENT_INT, pointers);
    st = st != NSCD_OK ? st : need(c, "/fclib_local/W/i", ELEMENT_INT, indices);
    st = st != NSCD_OK ? st : need(c, "/fclib_local/W/x", ELEMENT_DOUBLE, nzmax);
    st = st != NSCD_OK ? st : check_matrix_info(c, W);
    *rows = m;
    return st;
}

static nscd_status check_info(const checker *c) {
    static const char *const info = "/fclib_local/info";
    if (!exists(c, info)) {
        return NSCD_OK;
    }
    if (!is_group(c, info)) {
        return refuse(c, NSCD_ERR_IO, "%s is not a group", info);
    }
    nscd_status st = optional_string(c, info, "title");
    st = st != NSCD_OK ? st : optional_string(c, info, "description");
    return st != NSCD_OK ? st : optional_string(c, info, "math_info");
}

/* The solution fclib_read_solution reads for a local problem: u and r, m each. */
static nscd_status check_solution(const checker *c, int rows, bool *has_solution) {
    *has_solution = false;
    if (!exists(c, "/solution")) {
        return NSCD_OK;
    }
    if (!is_group(c, "/solution")) {
        return refuse(c, NSCD_ERR_IO, "/solution is not a group");
    }
    nscd_status st = need(c, "/solution/u", ELEMENT_DOUBLE, rows);
    st = st != NSCD_OK ? st : need(c, "/solution/r", ELEMENT_DOUBLE, rows);
    *has_solution = st == NSCD_OK;
    return st;
}

static nscd_status check_local(const checker *c, nscd__fclib_layout *layout) {
    if (!is_group(c, "/fclib_local")) {
        return exists(c, "/fclib_global")
                   ? refuse(c, NSCD_ERR_UNSUPPORTED,
                            "a global FCLIB problem (only local ones "
                            "are supported)")
                   : refuse(c, NSCD_ERR_IO, "no /fclib_local group: not an FCLIB local problem");
    }
    int spacedim = 0, rows = 0;
    nscd_status st = need_int(c, "/fclib_local/spacedim", &spacedim);
    if (st != NSCD_OK) {
        return st;
    }
    if (spacedim != 3) {
        return refuse(c, spacedim == 2 ? NSCD_ERR_UNSUPPORTED : NSCD_ERR_IO,
                      "spacedim = %d (nscd solves 3D problems)", spacedim);
    }
    if (exists(c, "/fclib_local/V") || exists(c, "/fclib_local/R")) {
        return refuse(c, NSCD_ERR_UNSUPPORTED, "a mixed problem (V, R, s) is not supported");
    }
    if (!is_group(c, "/fclib_local/W") || !is_group(c, "/fclib_local/vectors")) {
        return refuse(c, NSCD_ERR_IO, "/fclib_local/W or /fclib_local/vectors is missing");
    }
    st = check_matrix(c, &rows);
    st = st != NSCD_OK ? st : need(c, "/fclib_local/vectors/q", ELEMENT_DOUBLE, rows);
    st = st != NSCD_OK ? st : need(c, "/fclib_local/vectors/mu", ELEMENT_DOUBLE, rows / 3);
    st = st != NSCD_OK ? st : check_info(c);
    /* With a global problem in the same file libfclib sizes the solution from
     * it: the solution is then not read. */
    if (st == NSCD_OK && !exists(c, "/fclib_global")) {
        st = check_solution(c, rows, &layout->has_solution);
    }
    return st;
}

nscd_status nscd__fclib_check_file(const char *path, nscd__fclib_layout *layout, char *message,
                                   size_t message_size) {
    checker c = {.file = -1, .message = message, .message_size = message_size};
    layout->has_solution = false;
    FILE *probe = fopen(path, "rb");
    if (probe == NULL) {
        return refuse(&c, NSCD_ERR_IO, "%s: cannot be opened for reading", path);
    }
    fclose(probe);
    if (H5Fis_hdf5(path) <= 0) {
        return refuse(&c, NSCD_ERR_IO, "%s: not an HDF5 file", path);
    }
    c.file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (c.file < 0) {
        return refuse(&c, NSCD_ERR_IO, "%s: HDF5 cannot open it", path);
    }
    nscd_status st = check_local(&c, layout);
    H5Fclose(c.file);
    return st;
}
