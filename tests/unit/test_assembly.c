/* Problem assembly (contact/assembly/assembly.h) against independent dense formulas:
 * the response M^-1 [h, F'] and its Delassus matrix, the three ways of
 * applying it, the local form in 3x3 block-CSR form (handed to fc3d), the
 * global form (M, H, q, b); the generic system's one dense block; model
 * state save/restore; the per-step arena. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "contact/assembly/assembly.h"
#include "core/arena.h"
#include "core/memory.h"
#include "core/model.h"
#include "models/system.h"
#include "nscd/fc3d.h"
#include "nscd/system.h"
#include "test_random.h"

#define TOL 1e-12

/* ------------------------------------------------------------ helpers */

/* Deterministic values in [-1, 1) (64-bit LCG, top 53 bits). */
static double max_abs(size_t n, const double *x) {
    double m = 0.0;
    for (size_t i = 0; i < n; ++i) {
        m = fabs(x[i]) > m ? fabs(x[i]) : m;
    }
    return m;
}

/* |a - b| <= TOL max|b| elementwise: 1e-12 relative to the array's scale. */
static void assert_near_array(size_t n, const double *a, const double *b) {
    double scale = max_abs(n, b);
    for (size_t i = 0; i < n; ++i) {
        if (!(fabs(a[i] - b[i]) <= TOL * scale)) {
            fail_msg("element %zu: %.17g vs %.17g (scale %g)", i, a[i], b[i], scale);
        }
    }
}

/* y = A x, A m x n row-major (plain loops: the reference). */
static void dense_gemv(int m, int n, const double *A, const double *x, double *y) {
    for (int i = 0; i < m; ++i) {
        double s = 0.0;
        for (int j = 0; j < n; ++j) {
            s += A[i * n + j] * x[j];
        }
        y[i] = s;
    }
}

/* X = M^-1 B by LAPACKE dposv (M n x n SPD, B n x nrhs, row-major). */
static void dense_solve(int n, const double *M, int nrhs, const double *B, double *X) {
    double *A = test_malloc(sizeof(double) * (size_t)(n * n));
    memcpy(A, M, sizeof(double) * (size_t)(n * n));
    memcpy(X, B, sizeof(double) * (size_t)(n * nrhs));
    assert_int_equal(LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', n, nrhs, A, n, X, nrhs), 0);
    test_free(A);
}

/* W = H M^-1 H' (H m x n): the dense Delassus reference. */
static void dense_delassus(int m, int n, const double *H, const double *M, double *W) {
    double *Ht = test_malloc(sizeof(double) * (size_t)(n * m));
    double *X = test_malloc(sizeof(double) * (size_t)(n * m));
    for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
            Ht[j * m + i] = H[i * n + j];
        }
    }
    dense_solve(n, M, m, Ht, X);
    for (int i = 0; i < m; ++i) {
        for (int c = 0; c < m; ++c) {
            double s = 0.0;
            for (int j = 0; j < n; ++j) {
                s += H[i * n + j] * X[j * m + c];
            }
            W[i * m + c] = s;
        }
    }
    test_free(Ht);
    test_free(X);
}

/* Small Cholesky of the test model (its own mass solve, independent of LAPACK). */
static void chol(int n, double *A) {
    for (int j = 0; j < n; ++j) {
        double d = A[j * n + j];
        for (int k = 0; k < j; ++k) {
            d -= A[j * n + k] * A[j * n + k];
        }
        assert_true(d > 0.0);
        A[j * n + j] = sqrt(d);
        for (int i = j + 1; i < n; ++i) {
            double s = A[i * n + j];
            for (int k = 0; k < j; ++k) {
                s -= A[i * n + k] * A[j * n + k];
            }
            A[i * n + j] = s / A[j * n + j];
        }
    }
}

static void chol_solve(int n, const double *L, double *x) {
    for (int i = 0; i < n; ++i) {
        for (int k = 0; k < i; ++k) {
            x[i] -= L[i * n + k] * x[k];
        }
        x[i] /= L[i * n + i];
    }
    for (int i = n - 1; i >= 0; --i) {
        for (int k = i + 1; k < n; ++k) {
            x[i] -= L[k * n + i] * x[k];
        }
        x[i] /= L[i * n + i];
    }
}

/* ------------------------------------------------------------ the test model */

/* Five rigid bodies with 6 velocities each, block-diagonal SPD mass, and
 * contacts between pairs of bodies (two 3x6 row blocks, sometimes given in
 * descending body order) or between a body and the ground (one block). */
#define NB 5
#define ND 6
#define NV (NB * ND)
#define NC 7

static const int32_t body_a[NC] = {0, 1, 2, 3, 4, 3, 2};
static const int32_t body_b[NC] = {1, 2, 3, 4, 0, 1, -1}; /* -1: the ground */

typedef struct bodies {
    nscd__model model;
    int32_t start[NB + 1];
    double mass[NB][ND * ND];
    double factor[NB][ND * ND];
    double rows[NC][3 * 2 * ND];
    double t, q[NV], v[NV];
    nscd__contact_slot slots[NC];
    nscd_diag diag;
    nscd_allocator allocator;
} bodies;

static nscd_status bodies_mass_solve(void *self, const double *q, int32_t block, int32_t nrhs,
                                     const double *B, double *X) {
    bodies *s = self;
    (void)q;
    double x[ND];
    for (int32_t c = 0; c < nrhs; ++c) {
        for (int i = 0; i < ND; ++i) {
            x[i] = B[i * nrhs + c];
        }
        chol_solve(ND, s->factor[block], x);
        for (int i = 0; i < ND; ++i) {
            X[i * nrhs + c] = x[i];
        }
    }
    return NSCD_OK;
}

static nscd_status bodies_mass_block(void *self, const double *q, int32_t block, double *M_bb) {
    bodies *s = self;
    (void)q;
    memcpy(M_bb, s->mass[block], sizeof s->mass[block]);
    return NSCD_OK;
}

static nscd_status bodies_entry(void *self, int32_t index, double t, const double *q, double *gap,
                                nscd__rows *rows) {
    bodies *s = self;
    (void)t, (void)q;
    *gap = 0.01 * index;
    double *values = rows->values;
    memset(rows, 0, sizeof *rows);
    rows->values = values;
    rows->n_rows = 3;
    rows->n_blocks = body_b[index] >= 0 ? 2 : 1;
    rows->width_total = ND * rows->n_blocks;
    rows->column[0] = s->start[body_a[index]];
    rows->width[0] = ND;
    if (body_b[index] >= 0) {
        rows->column[1] = s->start[body_b[index]];
        rows->width[1] = ND;
    }
    memcpy(values, s->rows[index], sizeof(double) * 3 * (size_t)rows->width_total);
    return NSCD_OK;
}

static void bodies_init(bodies *s) {
    memset(s, 0, sizeof *s);
    uint64_t seed = 12345;
    for (int b = 0; b <= NB; ++b) {
        s->start[b] = b * ND;
    }
    for (int b = 0; b < NB; ++b) { /* M_b = A A' + (b + 1) I */
        double A[ND * ND];
        for (int i = 0; i < ND * ND; ++i) {
            A[i] = rnd(&seed);
        }
        for (int i = 0; i < ND; ++i) {
            for (int j = 0; j < ND; ++j) {
                double sum = i == j ? b + 1.0 : 0.0;
                for (int k = 0; k < ND; ++k) {
                    sum += A[i * ND + k] * A[j * ND + k];
                }
                s->mass[b][i * ND + j] = sum;
            }
        }
        memcpy(s->factor[b], s->mass[b], sizeof s->mass[b]);
        chol(ND, s->factor[b]);
    }
    for (int c = 0; c < NC; ++c) {
        for (int i = 0; i < 3 * 2 * ND; ++i) {
            s->rows[c][i] = rnd(&seed);
        }
    }
    s->allocator = nscd__allocator_resolve(NULL);
    nscd__model *m = &s->model;
    m->self = s;
    m->n_q = m->n_v = NV;
    m->n_contacts = NC;
    m->row_width = 2 * ND;
    m->n_mass_blocks = NB;
    m->mass_block_start = s->start;
    m->t = &s->t;
    m->q = s->q;
    m->v = s->v;
    m->contacts = s->slots;
    m->diag = &s->diag;
    m->allocator = &s->allocator;
    m->mass_solve = bodies_mass_solve;
    m->mass_block = bodies_mass_block;
    m->entry = bodies_entry;
}

/* Every entry's rows from the model (values into `store`). */
static void get_entries(nscd__model *m, int32_t k, nscd__rows *entries, double *store) {
    for (int32_t i = 0; i < k; ++i) {
        double gap;
        entries[i].values = store + (size_t)i * NSCD__MAX_ENTRY_ROWS * (size_t)m->row_width;
        assert_int_equal(m->entry(m->self, i, 0.0, m->q, &gap, &entries[i]), NSCD_OK);
    }
}

static void one_row_views(int32_t k, const nscd__rows *entries, nscd__rows *views) {
    for (int32_t i = 0; i < 3 * k; ++i) {
        views[i] = nscd__rows_row(&entries[i / 3], i % 3);
    }
}

/* Dense H (m x n_v) of one-row views. */
static void dense_rows(int32_t m, int32_t n_v, const nscd__rows *views, double *H) {
    memset(H, 0, sizeof(double) * (size_t)(m * n_v));
    for (int32_t r = 0; r < m; ++r) {
        nscd__rows_add_to(&views[r], 0, 1.0, H + (size_t)r * (size_t)n_v);
    }
}

static void bodies_dense_mass(const bodies *s, double *M) {
    memset(M, 0, sizeof(double) * NV * NV);
    for (int b = 0; b < NB; ++b) {
        for (int i = 0; i < ND; ++i) {
            for (int j = 0; j < ND; ++j) {
                M[(b * ND + i) * NV + b * ND + j] = s->mass[b][i * ND + j];
            }
        }
    }
}

typedef struct fixture {
    bodies model;
    nscd__arena arena;
    nscd__rows entries[NC];
    double store[NC * NSCD__MAX_ENTRY_ROWS * 2 * ND];
    nscd__rows views[3 * NC];
    double M[NV * NV], H[3 * NC * NV], W[9 * NC * NC];
} fixture;

static int setup(void **state) {
    fixture *f = test_calloc(1, sizeof *f);
    bodies_init(&f->model);
    nscd__arena_init(&f->arena, &f->model.allocator);
    get_entries(&f->model.model, NC, f->entries, f->store);
    one_row_views(NC, f->entries, f->views);
    bodies_dense_mass(&f->model, f->M);
    dense_rows(3 * NC, NV, f->views, f->H);
    dense_delassus(3 * NC, NV, f->H, f->M, f->W);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    nscd__arena_release(&f->arena);
    test_free(f);
    return 0;
}

/* ------------------------------------------------------------ response */

static void response_delassus(void **state) {
    fixture *f = *state;
    nscd__model *m = &f->model.model;
    const int32_t k = 3 * NC;
    double h[NV], W[9 * NC * NC], W2[9 * NC * NC];
    uint64_t seed = 7;
    for (int i = 0; i < NV; ++i) {
        h[i] = rnd(&seed);
    }
    nscd__response r;
    assert_int_equal(nscd__response_build(m, &f->arena, NULL, NULL, k, f->views, &r), NSCD_OK);
    assert_int_equal(r.n_blocks, NB);
    nscd__response_delassus(&r, k, f->views, W);
    assert_near_array((size_t)(k * k), W, f->W);
    assert_int_equal(nscd__response_build(m, &f->arena, NULL, h, k, f->views, &r), NSCD_OK);
    nscd__response_delassus(&r, k, f->views, W2);
    assert_near_array((size_t)(k * k), W2, f->W);
    double Minv_h[NV], ref[3 * NC];
    dense_solve(NV, f->M, 1, h, Minv_h);
    dense_gemv(k, NV, f->H, Minv_h, ref);
    double free_velocity[3 * NC];
    for (int32_t i = 0; i < k; ++i) {
        free_velocity[i] = nscd__response_free(&r, &f->views[i]);
    }
    assert_near_array((size_t)k, free_velocity, ref);
}

/* dv = M^-1 H' lambda, densely. */
static void dense_response(const fixture *f, int32_t k, const double *lambda, double *dv) {
    double g[NV];
    for (int j = 0; j < NV; ++j) {
        g[j] = 0.0;
        for (int32_t i = 0; i < k; ++i) {
            g[j] += f->H[i * NV + j] * lambda[i];
        }
    }
    dense_solve(NV, f->M, 1, g, dv);
}

static void response_apply(void **state) {
    fixture *f = *state;
    nscd__model *m = &f->model.model;
    const int32_t k = 3 * NC;
    double h[NV], lambda[3 * NC], v0[NV];
    uint64_t seed = 99;
    for (int i = 0; i < NV; ++i) {
        h[i] = rnd(&seed);
        v0[i] = rnd(&seed);
    }
    for (int i = 0; i < k; ++i) {
        lambda[i] = rnd(&seed);
    }
    double ref[NV], Minv_h[NV], out[NV], expect[NV];
    dense_response(f, k, lambda, ref);
    dense_solve(NV, f->M, 1, h, Minv_h);
    for (int with_h = 0; with_h < 2; ++with_h) {
        nscd__response r;
        assert_int_equal(
            nscd__response_build(m, &f->arena, NULL, with_h ? h : NULL, k, f->views, &r), NSCD_OK);
        nscd__response_gemv(&r, lambda, out);
        assert_near_array(NV, out, ref);
        memcpy(out, v0, sizeof out);
        nscd__response_add_dot(&r, lambda, out);
        for (int i = 0; i < NV; ++i) {
            expect[i] = v0[i] + ref[i];
        }
        assert_near_array(NV, out, expect);
        if (!with_h) { /* the plain loop has no h column to skip */
            memcpy(out, v0, sizeof out);
            nscd__response_add_loop(&r, lambda, out);
            assert_near_array(NV, out, expect);
        }
    }
    nscd__response r;
    assert_int_equal(nscd__response_build(m, &f->arena, NULL, h, k, f->views, &r), NSCD_OK);
    nscd__response_acceleration(&r, lambda, out);
    for (int i = 0; i < NV; ++i) {
        expect[i] = Minv_h[i] + ref[i];
    }
    assert_near_array(NV, out, expect);
}

/* Two contacts touch bodies 0, 1, 2 only: the others get no velocity. */
static void response_untouched_blocks(void **state) {
    fixture *f = *state;
    nscd__model *m = &f->model.model;
    const int32_t k = 6;
    double lambda[6] = {1.0, -0.5, 0.25, 2.0, 0.125, -1.0}, ref[NV], out[NV], v[NV];
    nscd__response r;
    assert_int_equal(nscd__response_build(m, &f->arena, NULL, NULL, k, f->views, &r), NSCD_OK);
    assert_int_equal(r.n_blocks, 3);
    for (int i = 0; i < NV; ++i) {
        out[i] = 1e300; /* gemv must overwrite every velocity */
        v[i] = 3.0;
    }
    nscd__response_gemv(&r, lambda, out);
    dense_response(f, k, lambda, ref);
    assert_near_array(NV, out, ref);
    for (int i = 3 * ND; i < NV; ++i) {
        assert_true(out[i] == 0.0);
    }
    nscd__response_add_dot(&r, lambda, v);
    for (int i = 3 * ND; i < NV; ++i) {
        assert_true(v[i] == 3.0);
    }
}

/* One force row: C_r M^-1 F_0' for every row C_r, by nscd__response_dot. */
static void response_dot(void **state) {
    fixture *f = *state;
    nscd__model *m = &f->model.model;
    const int32_t k = 3 * NC;
    for (int32_t c = 0; c < k; c += 4) {
        nscd__response r;
        assert_int_equal(nscd__response_build(m, &f->arena, NULL, NULL, 1, &f->views[c], &r),
                         NSCD_OK);
        double column[3 * NC], ref[3 * NC];
        for (int32_t a = 0; a < k; ++a) {
            column[a] = nscd__response_dot(&r, &f->views[a]);
            ref[a] = f->W[a * k + c];
        }
        assert_near_array((size_t)k, column, ref);
    }
}

static void response_rejects_crossing_block(void **state) {
    fixture *f = *state;
    nscd__rows bad = f->views[0];
    bad.column[0] = 3; /* [3, 9) crosses bodies 0 and 1 */
    nscd__response r;
    assert_int_equal(nscd__response_build(&f->model.model, &f->arena, NULL, NULL, 1, &bad, &r),
                     NSCD_ERR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------ local form */

static int shares_body(int32_t i, int32_t j) {
    return body_a[i] == body_a[j] || body_a[i] == body_b[j] ||
           (body_b[i] >= 0 && (body_b[i] == body_a[j] || body_b[i] == body_b[j]));
}

static void check_bsr_pattern(const nscd__local_bsr *form) {
    assert_int_equal(form->n_contacts, NC);
    assert_int_equal(form->row_ptr[0], 0);
    int32_t nnz = 0;
    for (int32_t i = 0; i < NC; ++i) {
        int32_t p = form->row_ptr[i];
        for (int32_t j = 0; j < NC; ++j) {
            if (shares_body(i, j)) {
                assert_true(p < form->row_ptr[i + 1]);
                assert_int_equal(form->col_idx[p], j); /* ascending, exactly the shared ones */
                if (i == j) {
                    assert_int_equal(form->diag[i], p);
                }
                ++p, ++nnz;
            }
        }
        assert_int_equal(p, form->row_ptr[i + 1]);
    }
    assert_int_equal(form->nnz, nnz);
}

static void local_form_bsr(void **state) {
    fixture *f = *state;
    nscd__model *m = &f->model.model;
    double v_free[NV], bias[3 * NC], q_ref[3 * NC];
    uint64_t seed = 2024;
    for (int i = 0; i < NV; ++i) {
        v_free[i] = rnd(&seed);
    }
    for (int i = 0; i < 3 * NC; ++i) {
        bias[i] = rnd(&seed);
    }
    nscd__local_bsr form;
    assert_int_equal(nscd__local_form_bsr(m, &f->arena, NULL, NC, f->entries, v_free, bias, &form),
                     NSCD_OK);
    check_bsr_pattern(&form);
    double W_dense[9 * NC * NC], W_assembly[9 * NC * NC];
    memset(W_dense, 0, sizeof W_dense);
    for (int32_t i = 0; i < NC; ++i) { /* scatter the blocks */
        for (int32_t p = form.row_ptr[i]; p < form.row_ptr[i + 1]; ++p) {
            for (int a = 0; a < 9; ++a) {
                W_dense[(3 * i + a / 3) * 3 * NC + 3 * form.col_idx[p] + a % 3] =
                    form.blocks[9 * p + a];
            }
        }
    }
    assert_near_array(9 * NC * NC, W_dense, f->W); /* unstored blocks are 0 in the reference */
    nscd__response_delassus(&form.response, 3 * NC, form.rows, W_assembly);
    assert_memory_equal(W_dense, W_assembly, sizeof W_dense); /* bitwise the same sums */
    dense_gemv(3 * NC, NV, f->H, v_free, q_ref);
    for (int i = 0; i < 3 * NC; ++i) {
        q_ref[i] += bias[i];
    }
    assert_near_array(3 * NC, form.q, q_ref);
    /* No bias: q = H v_free. */
    assert_int_equal(nscd__local_form_bsr(m, &f->arena, NULL, NC, f->entries, v_free, NULL, &form),
                     NSCD_OK);
    dense_gemv(3 * NC, NV, f->H, v_free, q_ref);
    assert_near_array(3 * NC, form.q, q_ref);
}

/* The form goes to fc3d as it is; the dense solver on the same W agrees
 * bitwise, and the response maps the impulses back to velocities. */
static void local_form_to_fc3d(void **state) {
    fixture *f = *state;
    nscd__model *m = &f->model.model;
    double v_free[NV], mu[NC], W[9 * NC * NC];
    uint64_t seed = 31;
    for (int i = 0; i < NV; ++i) {
        v_free[i] = rnd(&seed);
    }
    for (int i = 0; i < NC; ++i) {
        mu[i] = 0.3 + 0.1 * i;
    }
    nscd__local_bsr form;
    assert_int_equal(nscd__local_form_bsr(m, &f->arena, NULL, NC, f->entries, v_free, NULL, &form),
                     NSCD_OK);
    nscd__response_delassus(&form.response, 3 * NC, form.rows, W);
    double r_bsr[3 * NC] = {0}, u_bsr[3 * NC], r_dense[3 * NC] = {0}, u_dense[3 * NC];
    nscd_fc3d_info info_bsr = {.struct_size = sizeof info_bsr}, info_dense = info_bsr;
    nscd_status st_bsr = nscd_fc3d_solve_bsr(NC, form.row_ptr, form.col_idx, form.blocks, form.q,
                                             mu, NULL, r_bsr, u_bsr, &info_bsr);
    nscd_status st_dense =
        nscd_fc3d_solve_dense(NC, W, form.q, mu, NULL, r_dense, u_dense, &info_dense);
    assert_int_equal(st_bsr, NSCD_OK);
    assert_int_equal(st_dense, NSCD_OK);
    assert_memory_equal(r_bsr, r_dense, sizeof r_bsr);
    assert_int_equal(info_bsr.iterations, info_dense.iterations);
    double dv[NV], ref[NV], v[NV], u[3 * NC];
    nscd__response_gemv(&form.response, r_bsr, dv);
    dense_response(f, 3 * NC, r_bsr, ref);
    assert_near_array(NV, dv, ref);
    for (int i = 0; i < NV; ++i) {
        v[i] = v_free[i] + dv[i];
    }
    dense_gemv(3 * NC, NV, f->H, v, u); /* u = H v: the solver's velocities */
    assert_near_array(3 * NC, u, u_bsr);
}

static void local_form_rejects(void **state) {
    fixture *f = *state;
    nscd__model *m = &f->model.model;
    nscd__arena *a = &f->arena;
    double v_free[NV] = {0};
    nscd__local_bsr form;
    assert_int_equal(nscd__local_form_bsr(m, a, NULL, -1, f->entries, v_free, NULL, &form),
                     NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd__local_form_bsr(m, a, NULL, NC, f->entries, NULL, NULL, &form),
                     NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd__local_form_bsr(NULL, a, NULL, NC, f->entries, v_free, NULL, &form),
                     NSCD_ERR_NULL_POINTER);
    assert_int_equal(nscd__local_form_bsr(m, a, NULL, 1, NULL, v_free, NULL, &form),
                     NSCD_ERR_NULL_POINTER);
    nscd__rows bad[2] = {f->entries[0], f->entries[1]};
    bad[1].n_rows = 2; /* not a 3-row contact */
    assert_int_equal(nscd__local_form_bsr(m, a, NULL, 2, bad, v_free, NULL, &form),
                     NSCD_ERR_INVALID_ARGUMENT);
    bad[1] = f->entries[1];
    bad[1].column[1] = NV - 3; /* past the last velocity */
    assert_int_equal(nscd__local_form_bsr(m, a, NULL, 2, bad, v_free, NULL, &form),
                     NSCD_ERR_INVALID_ARGUMENT);
    bad[1].column[1] = bad[1].column[0] + 2; /* the two blocks overlap */
    assert_int_equal(nscd__local_form_bsr(m, a, NULL, 2, bad, v_free, NULL, &form),
                     NSCD_ERR_INVALID_ARGUMENT);
    bad[1] = f->entries[1];
    bad[1].width_total = 11; /* widths add up to 12 */
    assert_int_equal(nscd__local_form_bsr(m, a, NULL, 2, bad, v_free, NULL, &form),
                     NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd__local_form_bsr(m, a, NULL, 0, NULL, v_free, NULL, &form), NSCD_OK);
    assert_int_equal(form.n_contacts, 0);
    assert_int_equal(form.row_ptr[0], 0);
    assert_int_equal(form.nnz, 0);
}

/* ------------------------------------------------------------ global form */

#define NJ 5 /* rows of an equality entry between bodies 4 and 2 */

static void global_form(void **state) {
    fixture *f = *state;
    nscd__model *m = &f->model.model;
    /* The contacts plus one equality entry with 5 rows over bodies 4 and 2. */
    nscd__rows entries[NC + 1];
    double joint[NJ * 2 * ND], v_ref[NV], force[NV], bias[3 * NC + NJ];
    uint64_t seed = 555;
    for (int i = 0; i < NJ * 2 * ND; ++i) {
        joint[i] = rnd(&seed);
    }
    for (int i = 0; i < NV; ++i) {
        v_ref[i] = rnd(&seed);
        force[i] = rnd(&seed);
    }
    for (int i = 0; i < 3 * NC + NJ; ++i) {
        bias[i] = rnd(&seed);
    }
    memcpy(entries, f->entries, sizeof f->entries);
    nscd__rows *e = &entries[NC];
    memset(e, 0, sizeof *e);
    *e = (nscd__rows){NJ, 2, 2 * ND, {4 * ND, 2 * ND}, {ND, ND}, joint};
    nscd__global_form g;
    assert_int_equal(
        nscd__global_form_build(m, &f->arena, NULL, NC + 1, entries, v_ref, force, bias, &g),
        NSCD_OK);
    const int32_t rows = 3 * NC + NJ;
    assert_int_equal(g.n_v, NV);
    assert_int_equal(g.m, rows);
    assert_int_equal(g.n_entries, NC + 1);
    for (int32_t i = 0; i <= NC; ++i) {
        assert_int_equal(g.entry_row[i], 3 * i);
    }
    assert_int_equal(g.entry_row[NC + 1], rows);
    /* H: each row's columns ascending; scattered, it is the dense H bitwise. */
    double H[(3 * NC + NJ) * NV], H_ref[(3 * NC + NJ) * NV];
    memset(H, 0, sizeof H);
    memcpy(H_ref, f->H, sizeof f->H);
    memset(H_ref + 3 * NC * NV, 0, sizeof(double) * NJ * NV);
    for (int r = 0; r < NJ; ++r) {
        nscd__rows_add_to(e, r, 1.0, H_ref + (3 * NC + r) * NV);
    }
    for (int32_t r = 0; r < rows; ++r) {
        for (int32_t p = g.H_row_ptr[r]; p < g.H_row_ptr[r + 1]; ++p) {
            assert_true(p == g.H_row_ptr[r] || g.H_col[p - 1] < g.H_col[p]);
            H[r * NV + g.H_col[p]] = g.H_values[p];
        }
    }
    assert_int_equal(g.nnz, 6 * 2 * ND * 3 + ND * 3 + NJ * 2 * ND);
    assert_memory_equal(H, H_ref, sizeof H);
    /* M: the model's blocks; q = -(M v_ref + f); b = the bias. */
    assert_int_equal(g.n_mass_blocks, NB);
    for (int b = 0; b < NB; ++b) {
        assert_int_equal(g.M_offset[b], (size_t)b * ND * ND);
        assert_memory_equal(g.M_values + g.M_offset[b], f->model.mass[b], sizeof f->model.mass[b]);
    }
    double q_ref[NV];
    dense_gemv(NV, NV, f->M, v_ref, q_ref);
    for (int i = 0; i < NV; ++i) {
        q_ref[i] = -(q_ref[i] + force[i]);
    }
    assert_near_array(NV, g.q, q_ref);
    assert_memory_equal(g.b, bias, sizeof bias);
    /* Its local form: b - H M^-1 q is H v_free + b with v_free = v_ref + M^-1 f. */
    double x[NV], u[3 * NC + NJ], v_free[NV], u_ref[3 * NC + NJ];
    dense_solve(NV, f->M, 1, g.q, x);
    dense_gemv(rows, NV, H, x, u);
    dense_solve(NV, f->M, 1, force, v_free);
    for (int i = 0; i < NV; ++i) {
        v_free[i] += v_ref[i];
    }
    dense_gemv(rows, NV, H_ref, v_free, u_ref);
    for (int i = 0; i < rows; ++i) {
        u[i] = bias[i] - u[i];
        u_ref[i] += bias[i];
    }
    assert_near_array((size_t)rows, u, u_ref);
    /* Defaults: no v_ref, f or bias. */
    assert_int_equal(
        nscd__global_form_build(m, &f->arena, NULL, NC, f->entries, NULL, NULL, NULL, &g), NSCD_OK);
    assert_true(max_abs(NV, g.q) == 0.0 && max_abs(3 * NC, g.b) == 0.0);
}

static void global_form_rejects(void **state) {
    fixture *f = *state;
    nscd__model *m = &f->model.model;
    nscd__global_form g;
    assert_int_equal(
        nscd__global_form_build(m, &f->arena, NULL, -1, f->entries, NULL, NULL, NULL, &g),
        NSCD_ERR_INVALID_ARGUMENT);
    assert_int_equal(nscd__global_form_build(m, &f->arena, NULL, 1, NULL, NULL, NULL, NULL, &g),
                     NSCD_ERR_NULL_POINTER);
    nscd__rows bad = f->entries[0];
    bad.n_rows = NSCD__MAX_ENTRY_ROWS + 1;
    assert_int_equal(nscd__global_form_build(m, &f->arena, NULL, 1, &bad, NULL, NULL, NULL, &g),
                     NSCD_ERR_INVALID_ARGUMENT);
    m->mass_block = NULL;
    assert_int_equal(
        nscd__global_form_build(m, &f->arena, NULL, NC, f->entries, NULL, NULL, NULL, &g),
        NSCD_ERR_UNSUPPORTED);
    m->mass_block = bodies_mass_block;
}

/* ------------------------------------------------------------ the generic system */

#define SN 3 /* dofs */
#define SC 2 /* contacts */

static void system_mass_matrix(const double *q, double *M) {
    const double base[SN * SN] = {4.0, 1.0, 0.5, 1.0, 3.0, -0.25, 0.5, -0.25, 2.0};
    for (int i = 0; i < SN * SN; ++i) {
        M[i] = base[i];
    }
    for (int i = 0; i < SN; ++i) {
        M[i * SN + i] += q[i] * q[i]; /* depends on q: the callback sees the positions */
    }
}

static nscd_status sys_mass(void *user, const double *q, double *mass) {
    (void)user;
    system_mass_matrix(q, mass);
    return NSCD_OK;
}

static void system_rows(int32_t index, const double *q, double *w) {
    for (int r = 0; r < 3; ++r) {
        for (int j = 0; j < SN; ++j) {
            w[r * SN + j] = cos(1.0 + index + 0.7 * r + 1.3 * j + q[j]);
        }
    }
}

static nscd_status sys_contact(void *user, int32_t index, double t, const double *q, double *gap,
                               double *w_normal, double *w_tangent) {
    (void)user, (void)t;
    double w[3 * SN];
    system_rows(index, q, w);
    *gap = q[0] - 0.1 * index;
    memcpy(w_normal, w, sizeof(double) * SN);
    memcpy(w_tangent, w + SN, sizeof(double) * 2 * SN);
    return NSCD_OK;
}

static nscd_system *make_system(int with_mass) {
    nscd_system_desc desc;
    assert_int_equal(nscd_system_desc_init(&desc, sizeof desc), NSCD_OK);
    desc.n_dof = SN;
    desc.n_contacts = SC;
    desc.mass = with_mass ? sys_mass : NULL;
    desc.mass_solve = NULL;
    desc.contact = sys_contact;
    nscd_system *s = NULL;
    assert_int_equal(nscd_system_create(&desc, &s), NSCD_OK);
    nscd_contact_desc c;
    assert_int_equal(nscd_contact_desc_init(&c, sizeof c), NSCD_OK);
    c.friction = 0.5;
    c.n_tangent = 2;
    for (int32_t i = 0; i < SC; ++i) {
        assert_int_equal(nscd_system_set_contact(s, i, &c), NSCD_OK);
    }
    const double q[SN] = {0.3, -0.2, 0.7}, v[SN] = {1.0, 0.5, -0.25};
    assert_int_equal(nscd_system_set_state(s, 0.5, q, v), NSCD_OK);
    return s;
}

static void generic_system(void **state) {
    (void)state;
    nscd_system *sys = make_system(1);
    nscd__model *m = nscd__system_model(sys);
    assert_int_equal(m->n_mass_blocks, 1);
    nscd__arena arena;
    nscd__arena_init(&arena, m->allocator);
    nscd__rows entries[SC], views[3 * SC];
    double store[SC * NSCD__MAX_ENTRY_ROWS * SN];
    get_entries(m, SC, entries, store);
    one_row_views(SC, entries, views);
    double M[SN * SN], H[3 * SC * SN], W_ref[9 * SC * SC], W[9 * SC * SC];
    system_mass_matrix(m->q, M);
    for (int32_t i = 0; i < SC; ++i) {
        system_rows(i, m->q, H + 3 * SN * i);
    }
    dense_delassus(3 * SC, SN, H, M, W_ref);
    nscd__response r;
    assert_int_equal(nscd__response_build(m, &arena, m->q, NULL, 3 * SC, views, &r), NSCD_OK);
    assert_int_equal(r.n_blocks, 1);
    nscd__response_delassus(&r, 3 * SC, views, W);
    assert_near_array(9 * SC * SC, W, W_ref);
    /* Local form: one dense block, so every pair of contacts is coupled. */
    nscd__local_bsr form;
    assert_int_equal(nscd__local_form_bsr(m, &arena, m->q, SC, entries, m->v, NULL, &form),
                     NSCD_OK);
    assert_int_equal(form.nnz, SC * SC);
    for (int32_t i = 0; i < SC; ++i) {
        for (int32_t p = form.row_ptr[i]; p < form.row_ptr[i + 1]; ++p) {
            int32_t j = form.col_idx[p];
            for (int a = 0; a < 9; ++a) {
                assert_true(form.blocks[9 * p + a] == W[(3 * i + a / 3) * 3 * SC + 3 * j + a % 3]);
            }
        }
    }
    /* Global form: M through the new mass_block op, bitwise the callback's. */
    nscd__global_form g;
    assert_int_equal(nscd__global_form_build(m, &arena, m->q, SC, entries, m->v, NULL, NULL, &g),
                     NSCD_OK);
    assert_memory_equal(g.M_values, M, sizeof M);
    assert_int_equal(g.m, 3 * SC);
    assert_memory_equal(g.H_values, H, sizeof H); /* one dense block: H row by row */
    nscd__arena_release(&arena);
    nscd_system_destroy(sys);
}

static nscd_status sys_mass_solve(void *user, const double *q, const double *b, double *x) {
    (void)user;
    double M[SN * SN];
    system_mass_matrix(q, M);
    dense_solve(SN, M, 1, b, x);
    return NSCD_OK;
}

/* A system given only M^-1 cannot give the global form. */
static void generic_system_without_mass(void **state) {
    (void)state;
    nscd_system_desc desc;
    assert_int_equal(nscd_system_desc_init(&desc, sizeof desc), NSCD_OK);
    desc.n_dof = SN;
    desc.mass_solve = sys_mass_solve;
    nscd_system *sys = NULL;
    assert_int_equal(nscd_system_create(&desc, &sys), NSCD_OK);
    nscd__model *m = nscd__system_model(sys);
    nscd__arena arena;
    nscd__arena_init(&arena, m->allocator);
    nscd__global_form g;
    assert_int_equal(nscd__global_form_build(m, &arena, m->q, 0, NULL, NULL, NULL, NULL, &g),
                     NSCD_ERR_UNSUPPORTED);
    assert_string_equal(nscd_system_last_error(sys), "no mass callback: M is unknown");
    nscd__arena_release(&arena);
    nscd_system_destroy(sys);
}

/* ------------------------------------------------------------ save / restore */

static void scribble_states(nscd__model *m, double x) {
    for (int32_t i = 0; i < m->n_contacts; ++i) {
        nscd__entry_state *s = &m->contacts[i].state;
        s->mode = (int32_t)x + i;
        s->slip = -1 + i;
        s->slip_direction[0] = x * 0.5;
        s->slip_direction[1] = -x;
        s->memory.impact_velocity = x + i;
        s->memory.max_penetration = 1e-3 * x;
        s->memory.aux[3] = x * x;
        s->memory.effective_mass = 2.0 + x;
        s->impulse[0] = x, s->impulse[1] = -x, s->impulse[2] = 0.25 * x;
    }
}

static void save_restore(void **state) {
    (void)state;
    nscd_system *sys = make_system(1);
    nscd__model *m = nscd__system_model(sys);
    scribble_states(m, 1.0);
    nscd__model_state saved;
    assert_int_equal(nscd__model_state_create(m, &saved), NSCD_OK);
    nscd__model_save(m, &saved);
    double t0 = *m->t, q0[SN], v0[SN];
    nscd__entry_state e0[SC];
    memcpy(q0, m->q, sizeof q0);
    memcpy(v0, m->v, sizeof v0);
    for (int32_t i = 0; i < SC; ++i) {
        e0[i] = m->contacts[i].state;
    }
    *m->t = 9.0; /* a step that is then rejected */
    for (int i = 0; i < SN; ++i) {
        m->q[i] += 1.0 + i;
        m->v[i] = -m->v[i];
    }
    scribble_states(m, 2.0);
    assert_int_equal(m->contacts[0].state.mode, 2);
    nscd__model_restore(m, &saved);
    assert_memory_equal(m->t, &t0, sizeof t0);
    assert_memory_equal(m->q, q0, sizeof q0);
    assert_memory_equal(m->v, v0, sizeof v0);
    for (int32_t i = 0; i < SC; ++i) {
        assert_memory_equal(&m->contacts[i].state, &e0[i], sizeof e0[i]);
    }
    nscd__model_state_destroy(m, &saved);
    nscd_system_destroy(sys);
}

/* ------------------------------------------------------------ arena */

typedef struct counting {
    size_t outstanding; /* bytes held */
    int32_t blocks;     /* blocks held */
    int32_t calls;      /* allocate calls */
} counting;

static void *counting_allocate(void *user, size_t size) {
    counting *c = user;
    c->outstanding += size;
    c->blocks += 1;
    c->calls += 1;
    return test_malloc(size);
}

static void counting_release(void *user, void *block, size_t size) {
    counting *c = user;
    c->outstanding -= size;
    c->blocks -= 1;
    test_free(block);
}

static void arena(void **state) {
    (void)state;
    counting c = {0, 0, 0};
    nscd_allocator al = {counting_allocate, counting_release, &c};
    nscd__arena a;
    nscd__arena_init(&a, &al);
    size_t sizes[] = {3, 1, 0, 17, 100, 5};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        unsigned char *p = nscd__arena_array(&a, sizes[i], sizeof(double));
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 16, 0);
        memset(p, 0xab, sizes[i] * sizeof(double)); /* garbage for the zero-fill check */
    }
    assert_int_equal(c.blocks, 1);
    size_t used = a.used;
    assert_int_equal(used, 32 + 16 + 16 + 144 + 800 + 48);
    /* Growth: past the first 4096-byte block. */
    unsigned char *big = nscd__arena_array(&a, 1000, sizeof(double));
    assert_non_null(big);
    memset(big, 0xcd, 8000);
    assert_int_equal(c.blocks, 2);
    assert_true(a.reserved >= used + 8000);
    size_t peak = a.used, reserved = a.reserved;
    assert_int_equal(a.peak, peak);
    assert_null(nscd__arena_array(&a, SIZE_MAX / 4, 8)); /* count x size overflows */
    /* Reset merges the blocks into one of the reserved size. */
    nscd__arena_reset(&a);
    assert_int_equal(c.blocks, 1);
    assert_int_equal(a.reserved, reserved);
    assert_int_equal(a.used, 0);
    assert_int_equal(a.peak, peak);
    int32_t calls = c.calls;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        double *p = nscd__arena_array(&a, sizes[i], sizeof(double));
        for (size_t j = 0; j < sizes[i]; ++j) {
            assert_true(p[j] == 0.0); /* zero-filled again */
        }
    }
    unsigned char *again = nscd__arena_array(&a, 1000, sizeof(double));
    for (size_t j = 0; j < 8000; ++j) {
        assert_int_equal(again[j], 0);
    }
    assert_int_equal(c.calls, calls); /* the step fits: no new allocation */
    assert_int_equal(a.peak, peak);
    nscd__arena_reset(&a); /* one block: kept as it is */
    assert_int_equal(c.calls, calls);
    nscd__arena_release(&a);
    assert_int_equal(c.outstanding, 0);
    assert_int_equal(c.blocks, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(response_delassus, setup, teardown),
        cmocka_unit_test_setup_teardown(response_apply, setup, teardown),
        cmocka_unit_test_setup_teardown(response_untouched_blocks, setup, teardown),
        cmocka_unit_test_setup_teardown(response_dot, setup, teardown),
        cmocka_unit_test_setup_teardown(response_rejects_crossing_block, setup, teardown),
        cmocka_unit_test_setup_teardown(local_form_bsr, setup, teardown),
        cmocka_unit_test_setup_teardown(local_form_to_fc3d, setup, teardown),
        cmocka_unit_test_setup_teardown(local_form_rejects, setup, teardown),
        cmocka_unit_test_setup_teardown(global_form, setup, teardown),
        cmocka_unit_test_setup_teardown(global_form_rejects, setup, teardown),
        cmocka_unit_test(generic_system),
        cmocka_unit_test(generic_system_without_mass),
        cmocka_unit_test(save_restore),
        cmocka_unit_test(arena),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
