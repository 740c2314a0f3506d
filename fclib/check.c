/* The HDF5 check made before libfclib reads a file.
 *
 * libfclib 3.1 ends the process (exit(1)) when an HDF5 call fails in the
 * middle of fclib_read_local or fclib_read_solution (a missing dataset, a
 * group that is a dataset), and it allocates its buffers from the sizes it
 * reads (nz, m, n, nzmax) before reading whole datasets into them, so a file
 * whose datasets are longer than those sizes say would overflow them. This
 * file walks the same groups and datasets libfclib will read, with the HDF5
 * API, and checks each one's existence, element class and element count,
 * that the count is plausible for the file's size (libfclib mallocs from it
 * and exits when malloc fails), and that every element can be read with the
 * memory type libfclib reads it with (a damaged file can have intact
 * metadata but unreadable data). Data are read in small pieces into a fixed
 * buffer, so the check allocates nothing from the file's sizes. Only a file
 * that passes is handed to libfclib. Nothing is written here. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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
    long long file_bytes; /* size of the file: bounds what its datasets may hold */
    const nscd_allocator *allocator;
    char *message;
    size_t message_size;
} checker;

/* How much larger than the file a dataset's data may be (compression). */
#define EXPANSION_LIMIT 64
/* Elements read at once by the readability check (into a buffer on the stack). */
#define PIECE 512

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
    if (strcmp(path, "/") == 0) {
        return true;
    }
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

static herr_t visit_link(hid_t group, const char *name, const H5L_info_t *info, void *data) {
    (void)group, (void)name, (void)info, (void)data;
    return 0;
}

/* A group whose links can all be listed (libfclib's H5LTfind_dataset lists
 * them, and takes a failure for "found"). */
static bool is_group(const checker *c, const char *path) {
    if (!exists(c, path)) {
        return false;
    }
    hid_t g = H5Gopen2(c->file, path, H5P_DEFAULT);
    if (g < 0) {
        return false;
    }
    hsize_t next = 0;
    bool ok = H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &next, visit_link, NULL) >= 0;
    H5Gclose(g);
    return ok;
}

/* The file's element type is one HDF5 converts by its standard paths: a
 * damaged type (a float whose exponent and mantissa fields overlap, an
 * integer 2^20 bytes wide, a precision beyond its size) makes H5Dread
 * crash or allocate a conversion buffer of that width per element. Checked
 * before anything is read. */
static bool type_matches(const checker *c, hid_t type, element kind) {
    switch (H5Tget_class(type)) {
    case H5T_INTEGER: {
        const hid_t standard[] = {H5T_STD_I8LE,  H5T_STD_I8BE,  H5T_STD_U8LE,  H5T_STD_U8BE,
                                  H5T_STD_I16LE, H5T_STD_I16BE, H5T_STD_U16LE, H5T_STD_U16BE,
                                  H5T_STD_I32LE, H5T_STD_I32BE, H5T_STD_U32LE, H5T_STD_U32BE,
                                  H5T_STD_I64LE, H5T_STD_I64BE, H5T_STD_U64LE, H5T_STD_U64BE};
        for (size_t k = 0; kind == ELEMENT_INT && k < sizeof standard / sizeof standard[0]; ++k) {
            if (H5Tequal(type, standard[k]) > 0) {
                return true;
            }
        }
        return false;
    }
    case H5T_FLOAT:
        return kind == ELEMENT_DOUBLE &&
               (H5Tequal(type, H5T_IEEE_F64LE) > 0 || H5Tequal(type, H5T_IEEE_F64BE) > 0 ||
                H5Tequal(type, H5T_IEEE_F32LE) > 0 || H5Tequal(type, H5T_IEEE_F32BE) > 0);
    case H5T_STRING: {
        size_t size = H5Tget_size(type);
        H5T_cset_t cset = H5Tget_cset(type);
        H5T_str_t pad = H5Tget_strpad(type);
        return kind == ELEMENT_STRING && H5Tis_variable_str(type) == 0 && size > 0 &&
               (long long)size <= c->file_bytes &&
               (cset == H5T_CSET_ASCII || cset == H5T_CSET_UTF8) &&
               (pad == H5T_STR_NULLTERM || pad == H5T_STR_NULLPAD || pad == H5T_STR_SPACEPAD);
    }
    default: return false;
    }
}

/* Where the data of `count` elements of the file's type live fits the file:
 * compact data inside the object header, contiguous data at an address
 * inside the file with exactly the bytes the elements need (a damaged
 * layout message with fewer bytes made H5Dread copy past its buffer), or
 * chunks, uncompressed or deflated (and shuffled, checksummed), whose total
 * is bounded by EXPANSION_LIMIT times the file. Anything else is refused. */
static bool storage_fits(const checker *c, hid_t d, hid_t type, long long count) {
    size_t size = H5Tget_size(type);
    if (size == 0 || count > LLONG_MAX / (long long)size) {
        return false;
    }
    long long bytes = count * (long long)size;
    hid_t plist = H5Dget_create_plist(d);
    if (plist < 0) {
        return false;
    }
    H5D_layout_t layout = H5Pget_layout(plist);
    int filters = H5Pget_nfilters(plist);
    bool known_filters = filters >= 0;
    for (int k = 0; known_filters && k < filters; ++k) {
        unsigned flags = 0;
        size_t n_values = 0;
        H5Z_filter_t id =
            H5Pget_filter2(plist, (unsigned)k, &flags, &n_values, NULL, 0, NULL, NULL);
        known_filters =
            id == H5Z_FILTER_DEFLATE || id == H5Z_FILTER_SHUFFLE || id == H5Z_FILTER_FLETCHER32;
    }
    H5Pclose(plist);
    haddr_t address = H5Dget_offset(d);
    switch (layout) {
    case H5D_COMPACT: /* a damaged size made H5Dread copy past the message */
        return filters == 0 && (long long)H5Dget_storage_size(d) == bytes && bytes <= 65536 &&
               bytes <= c->file_bytes;
    case H5D_CONTIGUOUS:
        if (filters != 0) {
            return false;
        }
        if (address == HADDR_UNDEF) { /* never written: fill values, bounded by the file */
            return bytes <= c->file_bytes;
        }
        /* unsigned: a damaged address above 2^63 must not wrap (UBSan, fuzz_fclib) */
        return (long long)H5Dget_storage_size(d) == bytes && address <= (haddr_t)c->file_bytes &&
               (haddr_t)bytes <= (haddr_t)c->file_bytes - address;
    case H5D_CHUNKED: return known_filters && bytes <= EXPANSION_LIMIT * c->file_bytes;
    default: return false;
    }
}

/* Reads elements [start, start + count) of a rank-1 (or scalar) dataset. */
static bool read_piece(hid_t d, hid_t space, hid_t memtype, hsize_t start, hsize_t count,
                       void *buffer) {
    if (H5Sget_simple_extent_ndims(space) == 0) {
        return H5Dread(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer) >= 0;
    }
    hid_t file_space = H5Scopy(space), mem_space = H5Screate_simple(1, &count, NULL);
    bool ok = file_space >= 0 && mem_space >= 0 &&
              H5Sselect_hyperslab(file_space, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
              H5Dread(d, memtype, mem_space, file_space, H5P_DEFAULT, buffer) >= 0;
    if (mem_space >= 0) {
        H5Sclose(mem_space);
    }
    if (file_space >= 0) {
        H5Sclose(file_space);
    }
    return ok;
}

/* Every element reads with the memory type libfclib uses (a string: the
 * dataset's own fixed-length type, as H5LTread_dataset_string does, into a
 * buffer no larger than the file). */
static bool readable(const checker *c, hid_t d, hid_t space, hid_t type, element kind,
                     long long count) {
    if (kind == ELEMENT_STRING) {
        size_t size = H5Tget_size(type);
        if (count != 1 || size == 0 || (long long)size > c->file_bytes) {
            return false;
        }
        void *text = nscd__fclib_alloc(c->allocator, size);
        bool ok = text != NULL && read_piece(d, space, type, 0, 1, text);
        nscd__fclib_free(c->allocator, text, size);
        return ok;
    }
    double buffer[PIECE]; /* an int is never larger than a double */
    hid_t memtype = kind == ELEMENT_INT ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE;
    for (long long start = 0; start < count; start += PIECE) {
        long long piece = count - start < PIECE ? count - start : PIECE;
        if (!read_piece(d, space, memtype, (hsize_t)start, (hsize_t)piece, buffer)) {
            return false;
        }
    }
    return true;
}

/* The number of elements of a dataset of rank <= 1 and the given class, whose
 * size is plausible for the file and whose elements all read, or -1. */
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
    H5S_class_t shape = space >= 0 ? H5Sget_simple_extent_type(space) : H5S_NO_CLASS;
    if (type >= 0 && (shape == H5S_SCALAR || shape == H5S_SIMPLE) &&
        H5Sget_simple_extent_ndims(space) <= 1 && type_matches(c, type, kind)) {
        count = (long long)H5Sget_simple_extent_npoints(space);
        /* the elements libfclib allocates doubles (or ints) for, against the file's size */
        long long limit = EXPANSION_LIMIT * (c->file_bytes / (long long)sizeof(double) + PIECE);
        if (count < 0 || count > limit || !storage_fits(c, d, type, count) ||
            !readable(c, d, space, type, kind, count)) {
            count = -1;
        }
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
        return refuse(c, NSCD_ERR_IO, "%s: missing, unreadable, or not a dataset of %s", path,
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

/* Whether `name` is listed among the links of group `group`, the way libfclib's
 * H5LTfind_dataset finds it (by listing, not by lookup: in a damaged group the
 * two can disagree); a group that cannot be listed counts as listing it, since
 * libfclib then goes on to read the dataset. */
typedef struct wanted {
    const char *name;
    bool found;
} wanted;

/* H5LTfind_dataset (HDF5 1.10) compares only the first strlen(wanted)
 * characters: a damaged link "titled" counts as "title", libfclib then
 * fails to open "title" and exits (found by fuzz_fclib). The same prefix
 * test here makes nscd check, and refuse, what libfclib will try to read. */
static herr_t find_link(hid_t group, const char *name, const H5L_info_t *info, void *data) {
    (void)group, (void)info;
    wanted *w = data;
    w->found = strncmp(name, w->name, strlen(w->name)) == 0;
    return w->found ? 1 : 0;
}

static bool listed(const checker *c, const char *group, const char *name) {
    hid_t g = H5Gopen2(c->file, group, H5P_DEFAULT);
    if (g < 0) {
        return true;
    }
    wanted w = {name, false};
    hsize_t next = 0;
    herr_t status = H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &next, find_link, &w);
    H5Gclose(g);
    return status < 0 || w.found;
}

/* An optional string dataset: not listed, or one fixed-length string. */
static nscd_status optional_string(const checker *c, const char *group, const char *name) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", group, name);
    return listed(c, group, name) ? need(c, path, ELEMENT_STRING, 1) : NSCD_OK;
}

/* The optional matrix information read_matrix reads when `conditioning` is listed. */
static nscd_status check_matrix_info(const checker *c, const char *group) {
    char path[256];
    if (!listed(c, group, "conditioning")) {
        return NSCD_OK;
    }
    snprintf(path, sizeof path, "%s/conditioning", group);
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
    if (!is_group(c, "/")) {
        return refuse(c, NSCD_ERR_IO, "the root group cannot be listed: a damaged file");
    }
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

/* Opens the file for the checks: size, the structure of its old-style groups
 * (groups.c: HDF5 1.10.8 crashes on damaged ones), HDF5 signature; c->file set. */
static nscd_status open_checked(checker *c, const char *path) {
    FILE *probe = fopen(path, "rb");
    if (probe == NULL) {
        return refuse(c, NSCD_ERR_IO, "%s: cannot be opened for reading", path);
    }
    long long size = fseek(probe, 0, SEEK_END) == 0 ? (long long)ftell(probe) : -1;
    rewind(probe);
    const char *why = NULL;
    bool groups_ok = size <= 0 || nscd__fclib_groups_valid(probe, size, &why);
    fclose(probe);
    if (!groups_ok) {
        return refuse(c, NSCD_ERR_IO, "%s: damaged group structure: %s", path,
                      why != NULL ? why : "inconsistent");
    }
    if (H5Fis_hdf5(path) <= 0) {
        return refuse(c, NSCD_ERR_IO, "%s: not an HDF5 file", path);
    }
    /* Strong close: closing the file closes whatever a damaged file left open. */
    hid_t access = H5Pcreate(H5P_FILE_ACCESS);
    if (access < 0 || H5Pset_fclose_degree(access, H5F_CLOSE_STRONG) < 0) {
        H5Pclose(access);
        return refuse(c, NSCD_ERR_IO, "%s: HDF5 cannot open it", path);
    }
    c->file = H5Fopen(path, H5F_ACC_RDONLY, access);
    H5Pclose(access);
    hsize_t bytes = 0;
    if (c->file < 0 || H5Fget_filesize(c->file, &bytes) < 0) {
        if (c->file >= 0) {
            H5Fclose(c->file);
        }
        return refuse(c, NSCD_ERR_IO, "%s: HDF5 cannot open it", path);
    }
    c->file_bytes = (long long)bytes;
    return NSCD_OK;
}

nscd_status nscd__fclib_check_file(const nscd_allocator *allocator, const char *path,
                                   nscd__fclib_layout *layout, char *message, size_t message_size) {
    checker c = {.file = -1,
                 .file_bytes = 0,
                 .allocator = allocator,
                 .message = message,
                 .message_size = message_size};
    layout->has_solution = false;
    nscd_status st = open_checked(&c, path);
    if (st != NSCD_OK) {
        return st;
    }
    st = check_local(&c, layout);
    H5Fclose(c.file);
    return st;
}

/* ------------------------------------------------------------ global problems */

void nscd__fclib_global_data_free(const nscd_allocator *a, nscd__fclib_global_data *g) {
    size_t n = g->n_dofs > 0 ? (size_t)g->n_dofs : 0,
           m = 3 * (size_t)(g->n_contacts > 0 ? g->n_contacts : 0);
    if (g->Mp != NULL) {
        nscd__fclib_free(a, g->Mi, (size_t)g->Mp[n] * sizeof(int32_t));
        nscd__fclib_free(a, g->Mx, (size_t)g->Mp[n] * sizeof(double));
    }
    if (g->Hp != NULL) {
        nscd__fclib_free(a, g->Hi, (size_t)g->Hp[m] * sizeof(int32_t));
        nscd__fclib_free(a, g->Hx, (size_t)g->Hp[m] * sizeof(double));
    }
    nscd__fclib_free(a, g->Mp, (n + 1) * sizeof(int32_t));
    nscd__fclib_free(a, g->Hp, (m + 1) * sizeof(int32_t));
    nscd__fclib_free(a, g->f, n * sizeof(double));
    nscd__fclib_free(a, g->v, n * sizeof(double));
    nscd__fclib_free(a, g->w, m * sizeof(double));
    nscd__fclib_free(a, g->r, m * sizeof(double));
    nscd__fclib_free(a, g->u, m * sizeof(double));
    nscd__fclib_free(a, g->mu, m / 3 * sizeof(double));
    memset(g, 0, sizeof *g);
}

/* Reads a whole dataset of `expected` elements (its count already checked)
 * into a new buffer of expected elements (at least one). */
static nscd_status read_counted(const checker *c, const char *path, element kind,
                                long long expected, void **out) {
    size_t size = kind == ELEMENT_INT ? sizeof(int) : sizeof(double);
    size_t count = expected > 0 ? (size_t)expected : 1;
    void *buffer = nscd__fclib_alloc(c->allocator, count * size);
    if (buffer == NULL) {
        return refuse(c, NSCD_ERR_OUT_OF_MEMORY, "out of memory");
    }
    hid_t d = H5Dopen2(c->file, path, H5P_DEFAULT);
    hid_t memtype = kind == ELEMENT_INT ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE;
    bool ok = d >= 0 &&
              (expected == 0 || H5Dread(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer) >= 0);
    if (d >= 0) {
        H5Dclose(d);
    }
    if (!ok) {
        nscd__fclib_free(c->allocator, buffer, count * size);
        return refuse(c, NSCD_ERR_IO, "%s: cannot be read", path);
    }
    *out = buffer;
    return NSCD_OK;
}

static nscd_status read_all(const checker *c, const char *path, element kind, long long expected,
                            void **out) {
    *out = NULL;
    nscd_status st = need(c, path, kind, expected);
    return st != NSCD_OK ? st : read_counted(c, path, kind, expected, out);
}

/* The values (or row indices) of a sparse matrix: nzmax elements as CSparse
 * allocates them, or just the `used` ones (FCLIB files written from triplets
 * store nz values with a larger nzmax). Returns the count read in *count. */
static nscd_status read_entries(const checker *c, const char *path, element kind, long long nzmax,
                                long long used, void **out, long long *count) {
    *out = NULL;
    long long have = dataset_count(c, path, kind);
    if (have < 0 || (have != nzmax && have != used)) {
        return need(c, path, kind, nzmax); /* the refusal with its message */
    }
    *count = have;
    return read_counted(c, path, kind, have, out);
}

static void free_buffer(const checker *c, void *buffer, long long count, size_t size) {
    nscd__fclib_free(c->allocator, buffer, (count > 0 ? (size_t)count : 1) * size);
}

typedef struct entry {
    int32_t row, col;
    double val;
    long long pos; /* place in the file: duplicates are summed in file order */
} entry;

static int by_column_then_row(const void *pa, const void *pb) {
    const entry *a = pa, *b = pb;
    if (a->col != b->col) {
        return a->col < b->col ? -1 : 1;
    }
    if (a->row != b->row) {
        return a->row < b->row ? -1 : 1;
    }
    return (a->pos > b->pos) - (a->pos < b->pos);
}

/* One FCLIB matrix (CSC nz = -1, CSR nz = -2, triplet nz >= 0; CSparse's
 * conventions) of group `group`, as canonical CSC; rows and cols returned. */
static nscd_status read_matrix(const checker *c, const char *group, int32_t max_dim,
                               int32_t *rows_out, int32_t *cols_out, int32_t **cp_out,
                               int32_t **ri_out, double **x_out) {
    char path[256];
    int nzmax = 0, m = 0, n = 0, nz = 0;
    snprintf(path, sizeof path, "%s/nzmax", group);
    nscd_status st = need_int(c, path, &nzmax);
    snprintf(path, sizeof path, "%s/m", group);
    st = st != NSCD_OK ? st : need_int(c, path, &m);
    snprintf(path, sizeof path, "%s/n", group);
    st = st != NSCD_OK ? st : need_int(c, path, &n);
    snprintf(path, sizeof path, "%s/nz", group);
    st = st != NSCD_OK ? st : need_int(c, path, &nz);
    if (st != NSCD_OK) {
        return st;
    }
    if (m < 1 || n < 1 || m > max_dim || n > max_dim || nzmax < 0 || nz < -2 ||
        (nz >= 0 && nz > nzmax)) {
        return refuse(c, NSCD_ERR_IO, "%s: sizes m = %d, n = %d, nzmax = %d, nz = %d are invalid",
                      group, m, n, nzmax, nz);
    }
    long long pointers = nz >= 0 ? nz : (long long)(nz == -1 ? n : m) + 1;
    long long indices = 0, values = 0;
    int *p = NULL, *ind = NULL;
    double *x = NULL;
    entry *e = NULL;
    long long count = 0, used = nz;
    snprintf(path, sizeof path, "%s/p", group);
    st = nz >= 0 ? read_entries(c, path, ELEMENT_INT, nzmax, nz, (void **)&p, &pointers)
                 : read_all(c, path, ELEMENT_INT, pointers, (void **)&p);
    if (st == NSCD_OK && nz < 0) {
        used = p[pointers - 1]; /* checked below against the counts read */
    }
    snprintf(path, sizeof path, "%s/i", group);
    st = st != NSCD_OK ? st
                       : read_entries(c, path, ELEMENT_INT, nzmax, used, (void **)&ind, &indices);
    snprintf(path, sizeof path, "%s/x", group);
    st = st != NSCD_OK ? st
                       : read_entries(c, path, ELEMENT_DOUBLE, nzmax, used, (void **)&x, &values);
    if (st != NSCD_OK) {
        goto done;
    }
    if (nz >= 0 && (pointers < nz || indices < nz || values < nz)) {
        st = refuse(c, NSCD_ERR_IO, "%s: fewer entries than nz", group);
        goto done;
    }
    if (nz < 0) { /* compressed: pointers checked, then expanded */
        int dim = nz == -1 ? n : m;
        bool ok = p[0] == 0 && p[dim] <= nzmax && p[dim] <= indices && p[dim] <= values;
        for (int k = 0; ok && k < dim; ++k) {
            ok = p[k + 1] >= p[k];
        }
        if (!ok) {
            st = refuse(c, NSCD_ERR_IO, "%s: bad pointers", group);
            goto done;
        }
        count = p[dim];
    } else {
        count = nz;
    }
    e = nscd__fclib_alloc(c->allocator, (count > 0 ? (size_t)count : 1) * sizeof *e);
    if (e == NULL) {
        st = refuse(c, NSCD_ERR_OUT_OF_MEMORY, "out of memory");
        goto done;
    }
    if (nz >= 0) {
        for (long long t = 0; t < count; ++t) {
            e[t] = (entry){ind[t], p[t], x[t], t};
        }
    } else {
        int dim = nz == -1 ? n : m;
        for (int k = 0; k < dim; ++k) {
            for (int t = p[k]; t < p[k + 1]; ++t) {
                e[t] = nz == -1 ? (entry){ind[t], k, x[t], t} : (entry){k, ind[t], x[t], t};
            }
        }
    }
    for (long long t = 0; t < count; ++t) {
        if (e[t].row < 0 || e[t].row >= m || e[t].col < 0 || e[t].col >= n) {
            st = refuse(c, NSCD_ERR_IO, "%s: an index out of range", group);
            goto done;
        }
        if (!isfinite(e[t].val)) {
            st = refuse(c, NSCD_ERR_IO, "%s holds NaN or infinity", group);
            goto done;
        }
    }
    qsort(e, (size_t)count, sizeof *e, by_column_then_row);
    long long unique = 0;
    for (long long t = 0; t < count; ++t) {
        unique += t == 0 || e[t].row != e[t - 1].row || e[t].col != e[t - 1].col;
    }
    int32_t *cp = nscd__fclib_alloc(c->allocator, ((size_t)n + 1) * sizeof *cp);
    int32_t *ri = nscd__fclib_alloc(c->allocator, (unique > 0 ? (size_t)unique : 1) * sizeof *ri);
    double *vx = nscd__fclib_alloc(c->allocator, (unique > 0 ? (size_t)unique : 1) * sizeof *vx);
    if (cp == NULL || ri == NULL || vx == NULL) {
        nscd__fclib_free(c->allocator, cp, ((size_t)n + 1) * sizeof *cp);
        nscd__fclib_free(c->allocator, ri, (unique > 0 ? (size_t)unique : 1) * sizeof *ri);
        nscd__fclib_free(c->allocator, vx, (unique > 0 ? (size_t)unique : 1) * sizeof *vx);
        st = refuse(c, NSCD_ERR_OUT_OF_MEMORY, "out of memory");
        goto done;
    }
    memset(cp, 0, ((size_t)n + 1) * sizeof *cp);
    long long k = -1;
    for (long long t = 0; t < count; ++t) {
        if (t == 0 || e[t].row != e[t - 1].row || e[t].col != e[t - 1].col) {
            ++k;
            ri[k] = e[t].row;
            vx[k] = e[t].val;
            cp[e[t].col + 1]++;
        } else {
            vx[k] += e[t].val;
        }
    }
    for (int j = 0; j < n; ++j) {
        cp[j + 1] += cp[j];
    }
    *rows_out = m;
    *cols_out = n;
    *cp_out = cp;
    *ri_out = ri;
    *x_out = vx;
done:
    free_buffer(c, p, pointers, sizeof(int));
    free_buffer(c, ind, indices, sizeof(int));
    free_buffer(c, x, values, sizeof(double));
    if (e != NULL) {
        nscd__fclib_free(c->allocator, e, (count > 0 ? (size_t)count : 1) * sizeof *e);
    }
    return st;
}

static nscd_status read_vector(const checker *c, const char *path, long long count, double **out) {
    nscd_status st = read_all(c, path, ELEMENT_DOUBLE, count, (void **)out);
    if (st == NSCD_OK && !nscd__fclib_all_finite(*out, (size_t)count)) {
        st = refuse(c, NSCD_ERR_IO, "%s holds NaN or infinity", path);
    }
    return st;
}

static nscd_status read_global(const checker *c, nscd__fclib_global_data *g) {
    if (!is_group(c, "/")) {
        return refuse(c, NSCD_ERR_IO, "the root group cannot be listed: a damaged file");
    }
    if (!is_group(c, "/fclib_global")) {
        return refuse(c, NSCD_ERR_IO, "no /fclib_global group: not an FCLIB global problem");
    }
    int spacedim = 0;
    nscd_status st = need_int(c, "/fclib_global/spacedim", &spacedim);
    if (st != NSCD_OK) {
        return st;
    }
    if (spacedim != 3) {
        return refuse(c, spacedim == 2 ? NSCD_ERR_UNSUPPORTED : NSCD_ERR_IO,
                      "spacedim = %d (nscd solves 3D problems)", spacedim);
    }
    if (exists(c, "/fclib_global/G") || exists(c, "/fclib_global/vectors/b")) {
        return refuse(c, NSCD_ERR_UNSUPPORTED,
                      "equality constraints (G, b) of a global problem are not supported");
    }
    if (!is_group(c, "/fclib_global/M") || !is_group(c, "/fclib_global/H") ||
        !is_group(c, "/fclib_global/vectors")) {
        return refuse(c, NSCD_ERR_IO, "/fclib_global: M, H or vectors is missing");
    }
    int32_t mr = 0, mc = 0, hr = 0, hc = 0;
    st = read_matrix(c, "/fclib_global/M", NSCD__FCLIB_MAX_DOFS, &mr, &mc, &g->Mp, &g->Mi, &g->Mx);
    if (st != NSCD_OK) {
        return st;
    }
    g->n_dofs = mc;
    if (mr != mc) {
        return refuse(c, NSCD_ERR_IO, "M is %d x %d: not square", (int)mr, (int)mc);
    }
    st = read_matrix(c, "/fclib_global/H", 3 * NSCD__FCLIB_MAX_GLOBAL_CONTACTS, &hr, &hc, &g->Hp,
                     &g->Hi, &g->Hx);
    if (st != NSCD_OK) {
        return st;
    }
    g->n_contacts = hc / 3;
    if (hr != mr || hc % 3 != 0) {
        g->n_contacts = 0; /* Hp sized hc + 1: free it by hand */
        nscd__fclib_free(c->allocator, g->Hi, (size_t)g->Hp[hc] * sizeof(int32_t));
        nscd__fclib_free(c->allocator, g->Hx, (size_t)g->Hp[hc] * sizeof(double));
        nscd__fclib_free(c->allocator, g->Hp, ((size_t)hc + 1) * sizeof(int32_t));
        g->Hp = NULL, g->Hi = NULL, g->Hx = NULL;
        return refuse(c, NSCD_ERR_IO, "H is %d x %d: needs M's %d rows and 3 n columns", (int)hr,
                      (int)hc, (int)mr);
    }
    int32_t n = g->n_dofs, m = hc;
    st = read_vector(c, "/fclib_global/vectors/f", n, &g->f);
    st = st != NSCD_OK ? st : read_vector(c, "/fclib_global/vectors/w", m, &g->w);
    st = st != NSCD_OK ? st : read_vector(c, "/fclib_global/vectors/mu", m / 3, &g->mu);
    if (st != NSCD_OK) {
        return st;
    }
    for (int32_t j = 0; j < m / 3; ++j) {
        if (g->mu[j] < 0.0) {
            return refuse(c, NSCD_ERR_IO, "mu[%d] = %g < 0", (int)j, g->mu[j]);
        }
    }
    if (exists(c, "/solution")) {
        if (!is_group(c, "/solution")) {
            return refuse(c, NSCD_ERR_IO, "/solution is not a group");
        }
        st = read_vector(c, "/solution/v", n, &g->v);
        st = st != NSCD_OK ? st : read_vector(c, "/solution/u", m, &g->u);
        st = st != NSCD_OK ? st : read_vector(c, "/solution/r", m, &g->r);
    }
    return st;
}

nscd_status nscd__fclib_read_global_file(const nscd_allocator *allocator, const char *path,
                                         nscd__fclib_global_data *out, char *message,
                                         size_t message_size) {
    checker c = {.file = -1,
                 .file_bytes = 0,
                 .allocator = allocator,
                 .message = message,
                 .message_size = message_size};
    memset(out, 0, sizeof *out);
    nscd_status st = open_checked(&c, path);
    if (st != NSCD_OK) {
        return st;
    }
    st = read_global(&c, out);
    H5Fclose(c.file);
    if (st != NSCD_OK) {
        nscd__fclib_global_data_free(allocator, out);
    }
    return st;
}
