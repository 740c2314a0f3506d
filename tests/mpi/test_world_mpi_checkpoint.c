/* Checkpoint of the distributed world (nscd_world_mpi_save / _load,
 * docs/checkpoint.md), under mpirun (tests/mpi.cmake): a pile falling across
 * the subdomain boundary (shadows, migrations, Jacobi blend across ranks)
 * run 2N steps, and run N steps, saved, loaded into a fresh world and run
 * N more steps: every body (gathered from all ranks, sorted by global id)
 * bitwise equal; saving changes nothing; each rank's user data comes back;
 * a missing file or a world that is not fresh is refused on every rank. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nscd/world.h"
#include "nscd/world_mpi.h"

static int failures = 0;
static int rank_ = 0, size_ = 1;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d: %s:%d: CHECK(%s) failed\n", rank_, __FILE__, __LINE__,       \
                    #cond);                                                                        \
            ++failures;                                                                            \
        }                                                                                          \
    } while (0)

static void scene_desc(nscd_world_desc *d) {
    nscd_world_desc_init(d, sizeof *d);
    d->dt = 1e-3;
    d->max_sweeps = 10;
    d->relaxation = 0.7;
    double lo[3] = {-0.5, -0.5, -0.2}, hi[3] = {0.5, 0.5, 3.0};
    memcpy(d->domain_min, lo, sizeof lo);
    memcpy(d->domain_max, hi, sizeof hi);
}

/* Steps between balanced cuts of the worlds created (0: equal cells). */
static int32_t balance_every_ = 0;

static nscd_world_mpi *create(void) {
    nscd_world_desc d;
    scene_desc(&d);
    nscd_world_mpi_desc md;
    nscd_world_mpi_desc_init(&md, sizeof md);
    md.balance_every = balance_every_;
    nscd_world_mpi *w = NULL;
    CHECK(nscd_world_mpi_create((int32_t)MPI_Comm_c2f(MPI_COMM_WORLD), &d, &md, &w) == NSCD_OK);
    if (w == NULL) {
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return w;
}

/* Floor, four walls and 120 spheres (boxes among them) added on the last rank. */
static nscd_world_mpi *make_pile(void) {
    nscd_world_mpi *w = create();
    static const double p[5][3] = {{0, 0, 0}, {-0.5, 0, 0}, {0.5, 0, 0}, {0, -0.5, 0}, {0, 0.5, 0}};
    static const double n[5][3] = {{0, 0, 1}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
    for (int k = 0; k < 5; ++k) {
        nscd_body_desc b;
        nscd_shape_desc s;
        nscd_body_desc_init(&b, sizeof b);
        nscd_shape_desc_init(&s, sizeof s);
        b.type = NSCD_BODY_STATIC;
        memcpy(b.position, p[k], sizeof p[k]);
        double q0 = 1.0 + n[k][2], qx = -n[k][1], qy = n[k][0];
        double norm = sqrt(q0 * q0 + qx * qx + qy * qy);
        b.orientation[0] = q0 / norm, b.orientation[1] = qx / norm, b.orientation[2] = qy / norm;
        b.orientation[3] = 0.0;
        s.type = NSCD_SHAPE_HALF_SPACE;
        uint64_t id;
        CHECK(nscd_world_mpi_add_body(w, &b, &s, 1, &id) == NSCD_OK);
    }
    for (int i = 0; i < 120 && rank_ == size_ - 1; ++i) {
        nscd_body_desc b;
        nscd_shape_desc s;
        nscd_body_desc_init(&b, sizeof b);
        nscd_shape_desc_init(&s, sizeof s);
        int ix = i % 6, iy = (i / 6) % 6, iz = i / 36;
        double jitter = 0.01 * sin(1.7 * i + 0.3);
        b.position[0] = -0.375 + 0.15 * ix + jitter;
        b.position[1] = -0.375 + 0.15 * iy - jitter;
        b.position[2] = 0.1 + 0.13 * iz;
        b.velocity[0] = 0.2 * cos(0.9 * i);
        b.user_id = 1000 + (uint64_t)i;
        if (i % 5 == 0) {
            s.type = NSCD_SHAPE_BOX;
            s.half_extents[0] = s.half_extents[1] = s.half_extents[2] = 0.04;
        } else {
            s.radius = 0.05 * (1.0 + 0.1 * sin(2.3 * i));
        }
        uint64_t id;
        CHECK(nscd_world_mpi_add_body(w, &b, &s, 1, &id) == NSCD_OK);
    }
    return w;
}

static void step_n(nscd_world_mpi *w, int n) {
    for (int k = 0; k < n; ++k) {
        nscd_world_step_report r = {.struct_size = sizeof r};
        CHECK(nscd_world_mpi_step(w, &r) == NSCD_OK);
    }
}

typedef struct row {
    uint64_t id;
    double s[13];
} row;

static int compare_rows(const void *a, const void *b) {
    uint64_t x = ((const row *)a)->id, y = ((const row *)b)->id;
    return x < y ? -1 : x > y;
}

/* Every owned body of every rank, sorted by global id; *n rows. */
static row *gather(nscd_world_mpi *w, int *n) {
    int mine = nscd_world_mpi_body_count(w), count = 0;
    uint64_t *ids = calloc((size_t)mine + 1, sizeof *ids);
    double *x = calloc(13 * (size_t)mine + 1, sizeof *x);
    double *q = x + 3 * (size_t)mine, *v = q + 4 * (size_t)mine, *om = v + 3 * (size_t)mine;
    CHECK(nscd_world_mpi_get_bodies(w, mine, &count, ids, NULL, x, q, v, om) == NSCD_OK);
    row *rows = calloc((size_t)count + 1, sizeof *rows);
    for (int i = 0; i < count; ++i) {
        rows[i].id = ids[i];
        memcpy(rows[i].s, x + 3 * i, 3 * sizeof(double));
        memcpy(rows[i].s + 3, q + 4 * i, 4 * sizeof(double));
        memcpy(rows[i].s + 7, v + 3 * i, 3 * sizeof(double));
        memcpy(rows[i].s + 10, om + 3 * i, 3 * sizeof(double));
    }
    int bytes = count * (int)sizeof(row), total = 0;
    int *counts = calloc((size_t)size_, sizeof *counts),
        *displs = calloc((size_t)size_, sizeof *displs);
    MPI_Allgather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size_; ++r) {
        displs[r] = total;
        total += counts[r];
    }
    row *all = calloc((size_t)total / sizeof(row) + 1, sizeof *all);
    MPI_Allgatherv(rows, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
    *n = total / (int)sizeof(row);
    qsort(all, (size_t)*n, sizeof *all, compare_rows);
    free(ids), free(x), free(rows), free(counts), free(displs);
    return all;
}

static void restart_is_bitwise(const char *prefix) {
    enum { N = 150 };
    nscd_world_mpi *reference = make_pile();
    step_n(reference, 2 * N);
    int na = 0, nb = 0, nc = 0;
    row *a = gather(reference, &na);

    nscd_world_mpi *first = make_pile();
    step_n(first, N);
    char user[32];
    snprintf(user, sizeof user, "rank %d", rank_);
    CHECK(nscd_world_mpi_save(first, prefix, user, strlen(user) + 1) == NSCD_OK);
    double lo_saved[3], hi_saved[3], lo_loaded[3], hi_loaded[3];
    CHECK(nscd_world_mpi_subdomain(first, NULL, NULL, lo_saved, hi_saved) == NSCD_OK);
    step_n(first, N); /* saving changed nothing */
    row *c = gather(first, &nc);

    nscd_world_mpi *loaded = create();
    char back[32] = {0};
    size_t bytes = 0;
    nscd_status st = nscd_world_mpi_load(loaded, prefix, back, sizeof back, &bytes);
    if (st != NSCD_OK) {
        fprintf(stderr, "rank %d: load: %s\n", rank_, nscd_world_mpi_last_error(loaded));
    }
    CHECK(st == NSCD_OK);
    CHECK(bytes == strlen(user) + 1 && strcmp(back, user) == 0);
    /* the cuts in use come back (moved by the balances before the save) */
    CHECK(nscd_world_mpi_subdomain(loaded, NULL, NULL, lo_loaded, hi_loaded) == NSCD_OK);
    CHECK(memcmp(lo_saved, lo_loaded, sizeof lo_saved) == 0);
    CHECK(memcmp(hi_saved, hi_loaded, sizeof hi_saved) == 0);
    /* a world that is not fresh any more */
    CHECK(nscd_world_mpi_load(first, prefix, NULL, 0, NULL) == NSCD_ERR_STATE);
    step_n(loaded, N);
    row *b = gather(loaded, &nb);
    CHECK(na > 100 && na == nb && na == nc);
    CHECK(memcmp(a, b, (size_t)na * sizeof *a) == 0);
    CHECK(memcmp(a, c, (size_t)na * sizeof *a) == 0);
    if (rank_ == 0) {
        printf("restart_is_bitwise (balance every %d steps): %d bodies on %d rank(s), restart "
               "%s\n",
               (int)balance_every_, na, size_,
               na == nb && memcmp(a, b, (size_t)na * sizeof *a) == 0 ? "bitwise equal" : "DIFFERS");
    }
    free(a), free(b), free(c);
    nscd_world_mpi_destroy(reference);
    nscd_world_mpi_destroy(first);
    nscd_world_mpi_destroy(loaded);
}

static void missing_file_is_refused_everywhere(const char *prefix) {
    nscd_world_mpi *w = create();
    if (rank_ == 0) { /* only rank 0's file is missing: every rank fails */
        char path[1024];
        snprintf(path, sizeof path, "%s.rank0", prefix);
        remove(path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(nscd_world_mpi_load(w, prefix, NULL, 0, NULL) == NSCD_ERR_IO);
    CHECK(nscd_world_mpi_body_count(w) == 0);
    step_n(w, 1); /* still a usable (empty) world */
    nscd_world_mpi_destroy(w);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    const char *prefix = argc > 1 ? argv[1] : "test_world_mpi_checkpoint";
    restart_is_bitwise(prefix);
    /* cuts moved every 40 steps: at 0, 40, 80, 120 before the save at 150,
     * then at 160, ...: the restart must use the saved cuts until 160 */
    balance_every_ = 40;
    restart_is_bitwise(prefix);
    balance_every_ = 0;
    missing_file_is_refused_everywhere(prefix);
    char path[1024];
    snprintf(path, sizeof path, "%s.rank%d", prefix, rank_);
    remove(path);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank_ == 0) {
        printf("%s: %d failure(s) over %d rank(s)\n", all ? "FAIL" : "OK", all, size_);
    }
    MPI_Finalize();
    return all ? 1 : 0;
}
