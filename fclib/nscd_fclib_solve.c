/* nscd-fclib-solve: solves the local problem of an FCLIB file with nscd's
 * fc3d solver (nscd_fc3d_solve_bsr), or its global problem with
 * nscd_gfc3d_solve, and reports how it went.
 *
 *   nscd-fclib-solve FILE [--law coulomb|max_dissipation] [--tolerance T]
 *                         [--max-sweeps K] [--relaxation W]
 *                         [--method gs|jacobi|newton|auto|prox] [--json]
 *
 * --max-sweeps bounds the sweeps, or the Newton steps of --method newton or prox.
 *
 * Prints the contacts, the sweeps done, nscd's merit (docs: include/nscd/fc3d.h),
 * the seconds of the solve and whether it converged; also libfclib's own merit
 * (fclib_merit_local, MERIT_1) of nscd's impulses and, when the file holds a
 * solution, of that reference solution and the largest difference between the
 * two impulse vectors. A refused problem (nscd_fc3d_check_bsr) is named by
 * its diagonal block and the reason on stderr. For a global problem (M, H, f,
 * w, mu) it prints the dofs, the contacts, nscd's merit, E1 = ||r - P_K(r - u~)||
 * / (1 + ||w||) with u = H'v + w (the natural map of Coulomb's law in De
 * Saxce's form) and the equilibrium residual of M v = H r + f, and E1 of the
 * file's solution. Exit status: 0 converged, 3 not converged, 1 the file or
 * the solver failed, 2 bad arguments. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nscd/fc3d.h"
#include "nscd/fclib.h"
#include "nscd/gfc3d.h"

typedef struct arguments {
    const char *file;
    int32_t law;
    double tolerance;
    int32_t max_sweeps;
    double relaxation;
    int32_t method;
    int json;
} arguments;

/* What the solve gave. */
typedef struct outcome {
    int32_t n, n_blocks, has_reference;
    nscd_status status;
    nscd_fc3d_block_report blocks; /* the diagonal blocks' classes */
    nscd_fc3d_info info;
    double seconds, fclib_merit, reference_merit, reference_difference;
} outcome;

static int usage(const char *message) {
    fprintf(stderr,
            "nscd-fclib-solve: %s\n"
            "usage: nscd-fclib-solve FILE [--law coulomb|max_dissipation] [--tolerance T]\n"
            "                        [--max-sweeps K] [--relaxation W]\n"
            "                        [--method gs|jacobi|newton|auto|prox] [--json]\n",
            message);
    return 2;
}

static int parse_number(const char *text, double *value) {
    char *end = NULL;
    *value = strtod(text, &end);
    return end != text && *end == '\0' && isfinite(*value);
}

static int parse(int argc, char **argv, arguments *args, const char **error) {
    nscd_fc3d_options defaults;
    nscd_fc3d_options_init(&defaults, sizeof defaults);
    *args = (arguments){NULL,
                        NSCD_FC3D_COULOMB,
                        defaults.tolerance,
                        defaults.max_iterations,
                        defaults.relaxation,
                        defaults.method,
                        0};
    static const char *const methods[] = {"gs", "jacobi", "newton", "auto", "prox"};
    for (int k = 1; k < argc; ++k) {
        const char *a = argv[k], *value = k + 1 < argc ? argv[k + 1] : NULL;
        double number = 0.0;
        if (strcmp(a, "--json") == 0) {
            args->json = 1;
        } else if (strcmp(a, "--law") == 0 && value) {
            int coulomb = strcmp(value, "coulomb") == 0;
            if (!coulomb && strcmp(value, "max_dissipation") != 0) {
                return *error = "--law takes coulomb or max_dissipation", 0;
            }
            args->law = coulomb ? NSCD_FC3D_COULOMB : NSCD_FC3D_MAX_DISSIPATION, ++k;
        } else if (strcmp(a, "--method") == 0 && value) {
            int32_t found = -1;
            for (int32_t i = 0; i < 5; ++i) {
                found = strcmp(value, methods[i]) == 0 ? i : found;
            }
            if (found < 0) {
                return *error = "--method takes gs, jacobi, newton, auto or prox", 0;
            }
            args->method = found, ++k; /* the nscd_fc3d_method values, in order */
        } else if (strcmp(a, "--tolerance") == 0 && value) {
            if (!parse_number(value, &number) || number <= 0.0) {
                return *error = "--tolerance takes a number > 0", 0;
            }
            args->tolerance = number, ++k;
        } else if (strcmp(a, "--max-sweeps") == 0 && value) {
            if (!parse_number(value, &number) || number < 1 || number > INT32_MAX ||
                number != floor(number)) {
                return *error = "--max-sweeps takes an integer >= 1", 0;
            }
            args->max_sweeps = (int32_t)number, ++k;
        } else if (strcmp(a, "--relaxation") == 0 && value) {
            if (!parse_number(value, &number) || !(number > 0.0) || number > 1.0) {
                return *error = "--relaxation takes a number in (0, 1]", 0;
            }
            args->relaxation = number, ++k;
        } else if (a[0] != '-' && args->file == NULL) {
            args->file = a;
        } else {
            return *error = "unknown or incomplete argument", 0;
        }
    }
    return args->file != NULL ? 1 : (*error = "no FILE given", 0);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double max_abs_difference(const double *a, const double *b, size_t count) {
    double worst = 0.0;
    for (size_t k = 0; k < count; ++k) {
        worst = fmax(worst, fabs(a[k] - b[k]));
    }
    return worst;
}

/* The work arrays of one solve. */
typedef struct work {
    int32_t *row_ptr, *col_idx;
    double *blocks, *q, *mu, *r, *u, *r_ref;
} work;

static void work_free(work *w) {
    free(w->row_ptr), free(w->col_idx), free(w->blocks), free(w->q), free(w->mu);
    free(w->r), free(w->u), free(w->r_ref);
}

static int work_alloc(int32_t n, int32_t n_blocks, work *w) {
    size_t m = 3 * (size_t)n;
    w->row_ptr = malloc(((size_t)n + 1) * sizeof(int32_t));
    w->col_idx = malloc(((size_t)n_blocks + 1) * sizeof(int32_t));
    w->blocks = malloc((9 * (size_t)n_blocks + 1) * sizeof(double));
    w->q = malloc(m * sizeof(double)), w->mu = malloc((size_t)n * sizeof(double));
    w->r = calloc(m, sizeof(double)), w->u = malloc(m * sizeof(double));
    w->r_ref = malloc(m * sizeof(double));
    return w->row_ptr && w->col_idx && w->blocks && w->q && w->mu && w->r && w->u && w->r_ref;
}

/* Solves, then measures nscd's r and the file's reference r by libfclib's merit. */
static nscd_status solve(nscd_fclib_problem *p, const arguments *args, work *w, outcome *out) {
    nscd_status st = nscd_fclib_problem_get_bsr(p, w->row_ptr, w->col_idx, w->blocks, w->q, w->mu);
    nscd_fc3d_options opts;
    nscd_fc3d_options_init(&opts, sizeof opts);
    opts.friction_law = args->law;
    opts.tolerance = args->tolerance;
    opts.max_iterations = args->max_sweeps;
    opts.relaxation = args->relaxation;
    opts.method = args->method;
    opts.warm_start = 0;
    out->info.struct_size = sizeof out->info;
    out->blocks.struct_size = sizeof out->blocks;
    if (st == NSCD_OK) {
        nscd_status check =
            nscd_fc3d_check_bsr(out->n, w->row_ptr, w->col_idx, w->blocks, &out->blocks);
        if (check != NSCD_OK) {
            out->status = check;
            return check;
        }
    }
    double start = now();
    if (st == NSCD_OK) {
        st = nscd_fc3d_solve_bsr(out->n, w->row_ptr, w->col_idx, w->blocks, w->q, w->mu, &opts,
                                 w->r, w->u, &out->info);
    }
    out->seconds = now() - start;
    out->status = st;
    if (st != NSCD_OK && st != NSCD_ERR_NOT_CONVERGED) {
        return st;
    }
    nscd_status m = nscd_fclib_problem_merit(p, w->r, &out->fclib_merit);
    if (m == NSCD_OK && out->has_reference) {
        m = nscd_fclib_problem_get_solution(p, w->r_ref, NULL);
        m = m != NSCD_OK ? m : nscd_fclib_problem_merit(p, w->r_ref, &out->reference_merit);
        out->reference_difference = max_abs_difference(w->r, w->r_ref, 3 * (size_t)out->n);
    }
    return m;
}

static void print_json_string(const char *s) {
    putchar('"');
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            printf("\\%c", c);
        } else if (c < 0x20) {
            printf("\\u%04x", c);
        } else {
            putchar(c);
        }
    }
    putchar('"');
}

static void print_json(const arguments *args, const outcome *o) {
    printf("{\"file\": ");
    print_json_string(args->file);
    printf(", \"law\": \"%s\", \"contacts\": %d, \"blocks\": %d, \"tolerance\": %.17g, "
           "\"max_sweeps\": %d, \"iterations\": %d, \"merit\": %.17g, \"seconds\": %.9f, "
           "\"converged\": %s, \"status\": \"%s\", \"fclib_merit\": %.17g, "
           "\"relaxation\": %.17g, \"semidefinite_blocks\": %d, \"max_block_asymmetry\": %.17g, "
           "\"method\": %d, \"newton_iterations\": %d, \"newton_failure\": %d",
           args->law == NSCD_FC3D_COULOMB ? "coulomb" : "max_dissipation", (int)o->n,
           (int)o->n_blocks, args->tolerance, (int)args->max_sweeps, (int)o->info.iterations,
           o->info.merit, o->seconds, o->info.converged ? "true" : "false",
           nscd_status_string(o->status), o->fclib_merit, args->relaxation,
           (int)o->blocks.n_semidefinite, o->blocks.max_asymmetry, (int)args->method,
           (int)o->info.newton_iterations, (int)o->info.newton_failure);
    if (o->has_reference) {
        printf(", \"reference_merit\": %.17g, \"reference_r_max_difference\": %.17g}\n",
               o->reference_merit, o->reference_difference);
    } else {
        printf(", \"reference_merit\": null, \"reference_r_max_difference\": null}\n");
    }
}

static void print_text(const arguments *args, const outcome *o) {
    printf("%s: %d contacts, %d blocks, law %s\n", args->file, (int)o->n, (int)o->n_blocks,
           args->law == NSCD_FC3D_COULOMB ? "coulomb" : "max_dissipation");
    printf("%s after %d sweeps and %d Newton steps in %.6f s: merit %.3e (tolerance %.3e)\n",
           o->info.converged ? "converged" : "NOT converged", (int)o->info.iterations,
           (int)o->info.newton_iterations, o->seconds, o->info.merit, args->tolerance);
    printf("diagonal blocks: %s; largest relative asymmetry %.1e\n", o->blocks.message,
           o->blocks.max_asymmetry);
    printf("libfclib merit of nscd's r: %.3e\n", o->fclib_merit);
    if (o->has_reference) {
        printf("libfclib merit of the file's solution: %.3e; max |r - r_file| = %.3e\n",
               o->reference_merit, o->reference_difference);
    }
}

static int fail(const char *what, nscd_status st, const char *detail) {
    fprintf(stderr, "nscd-fclib-solve: %s: %s%s%s\n", what, nscd_status_string(st),
            detail[0] ? ": " : "", detail);
    return 1;
}

/* ------------------------------------------------------------ global problems */

/* Projection onto the cone ||x_t|| <= mu x_n (normal first). */
static void project_cone(double mu, const double x[3], double p[3]) {
    double t = sqrt(x[1] * x[1] + x[2] * x[2]);
    if (t <= mu * x[0]) {
        p[0] = x[0], p[1] = x[1], p[2] = x[2];
    } else if (mu * t <= -x[0]) {
        p[0] = p[1] = p[2] = 0.0;
    } else {
        double a = (x[0] + mu * t) / (1.0 + mu * mu);
        p[0] = a, p[1] = mu * a * x[1] / t, p[2] = mu * a * x[2] / t;
    }
}

/* E1 = ||r - P_K(r - u~)|| / (1 + ||w||), u~_j = u_j + mu_j ||u_j,t|| e_n. */
static double merit_e1(int32_t nc, const double *r, const double *u, const double *w,
                       const double *mu) {
    double e2 = 0.0, w2 = 0.0;
    for (int32_t j = 0; j < nc; ++j) {
        const double *rj = r + 3 * j, *uj = u + 3 * j;
        double ut = sqrt(uj[1] * uj[1] + uj[2] * uj[2]);
        double x[3] = {rj[0] - (uj[0] + mu[j] * ut), rj[1] - uj[1], rj[2] - uj[2]}, p[3];
        project_cone(mu[j], x, p);
        for (int k = 0; k < 3; ++k) {
            e2 += (rj[k] - p[k]) * (rj[k] - p[k]);
            w2 += w[3 * j + k] * w[3 * j + k];
        }
    }
    return sqrt(e2) / (1.0 + sqrt(w2));
}

static int solve_global(const arguments *args) {
    nscd_fclib_global *g = NULL;
    nscd_status st = nscd_fclib_global_create(NULL, &g);
    if (st != NSCD_OK) {
        return fail("create", st, "");
    }
    st = nscd_fclib_read_global(g, args->file);
    if (st != NSCD_OK) {
        int code = fail(args->file, st, nscd_fclib_global_last_error(g));
        nscd_fclib_global_destroy(g);
        return code;
    }
    int32_t n = 0, nc = 0, mnz = 0, hnz = 0, has_ref = 0;
    nscd_fclib_global_get_sizes(g, &n, &nc, &mnz, &hnz, &has_ref);
    size_t m = 3 * (size_t)nc;
    int32_t *Mp = malloc(((size_t)n + 1) * sizeof *Mp),
            *Mi = malloc(((size_t)mnz + 1) * sizeof *Mi);
    int32_t *Hp = malloc((m + 1) * sizeof *Hp), *Hi = malloc(((size_t)hnz + 1) * sizeof *Hi);
    double *Mx = malloc(((size_t)mnz + 1) * sizeof *Mx),
           *Hx = malloc(((size_t)hnz + 1) * sizeof *Hx);
    double *f = malloc((size_t)n * sizeof *f), *w = malloc(m * sizeof *w);
    double *mu = malloc((size_t)nc * sizeof *mu), *v = malloc((size_t)n * sizeof *v);
    double *r = calloc(m, sizeof *r), *u = malloc(m * sizeof *u);
    double *r_ref = malloc(m * sizeof *r_ref), *u_ref = malloc(m * sizeof *u_ref);
    int code = 0;
    if (!Mp || !Mi || !Hp || !Hi || !Mx || !Hx || !f || !w || !mu || !v || !r || !u || !r_ref ||
        !u_ref) {
        code = fail("solve", NSCD_ERR_OUT_OF_MEMORY, "");
        goto done;
    }
    nscd_fclib_global_get(g, Mp, Mi, Mx, Hp, Hi, Hx, f, w, mu);
    nscd_fc3d_options lo;
    nscd_fc3d_options_init(&lo, sizeof lo);
    lo.friction_law = args->law;
    lo.tolerance = args->tolerance;
    lo.max_iterations = args->max_sweeps;
    lo.relaxation = args->relaxation;
    lo.method = args->method;
    lo.warm_start = 0;
    nscd_gfc3d_info info = {.struct_size = sizeof info};
    double start = now();
    st = nscd_gfc3d_solve(n, nc, Mp, Mi, Mx, Hp, Hi, Hx, f, w, mu, NULL, &lo, v, r, u, &info);
    double seconds = now() - start;
    if (st != NSCD_OK && st != NSCD_ERR_NOT_CONVERGED) {
        code = fail("solve", st, "nscd_gfc3d_solve refused the problem");
        goto done;
    }
    double e1 = merit_e1(nc, r, u, w, mu), e1_ref = NAN, diff = NAN;
    if (has_ref) {
        nscd_fclib_global_get_solution(g, NULL, r_ref, u_ref);
        e1_ref = merit_e1(nc, r_ref, u_ref, w, mu);
        diff = max_abs_difference(r, r_ref, m);
    }
    const char *law = args->law == NSCD_FC3D_COULOMB ? "coulomb" : "max_dissipation";
    if (args->json) {
        printf("{\"file\": ");
        print_json_string(args->file);
        printf(", \"problem\": \"global\", \"law\": \"%s\", \"dofs\": %d, \"contacts\": %d, "
               "\"w_blocks\": %lld, \"factor_nnz\": %lld, \"factorization\": \"%s\", "
               "\"condensation\": \"%s\", \"tolerance\": %.17g, "
               "\"max_sweeps\": %d, \"iterations\": %d, \"merit\": %.17g, \"seconds\": %.9f, "
               "\"converged\": %s, \"status\": \"%s\", \"e1\": %.17g, "
               "\"equilibrium_residual\": %.17g",
               law, (int)n, (int)nc, (long long)info.w_blocks, (long long)info.factor_nnz,
               info.factorization == NSCD_GFC3D_FACTOR_CHOLMOD ? "cholmod" : "ldl",
               info.dense_condensation ? "dense" : "sparse", args->tolerance, (int)args->max_sweeps,
               (int)info.iterations, info.merit, seconds, info.converged ? "true" : "false",
               nscd_status_string(st), e1, info.equilibrium_residual);
        if (has_ref) {
            printf(", \"reference_e1\": %.17g, \"reference_r_max_difference\": %.17g}\n", e1_ref,
                   diff);
        } else {
            printf(", \"reference_e1\": null, \"reference_r_max_difference\": null}\n");
        }
    } else {
        printf("%s: global problem, %d dofs, %d contacts, %lld blocks of W, law %s\n", args->file,
               (int)n, (int)nc, (long long)info.w_blocks, law);
        printf("%s after %d sweeps in %.6f s: merit %.3e (tolerance %.3e)\n",
               info.converged ? "converged" : "NOT converged", (int)info.iterations, seconds,
               info.merit, args->tolerance);
        printf("E1 of nscd's (r, u = H'v + w): %.3e; equilibrium residual %.3e\n", e1,
               info.equilibrium_residual);
        if (has_ref) {
            printf("E1 of the file's solution: %.3e; max |r - r_file| = %.3e\n", e1_ref, diff);
        }
    }
    code = info.converged ? 0 : 3;
done:
    free(Mp), free(Mi), free(Mx), free(Hp), free(Hi), free(Hx), free(f), free(w), free(mu);
    free(v), free(r), free(u), free(r_ref), free(u_ref);
    nscd_fclib_global_destroy(g);
    return code;
}

int main(int argc, char **argv) {
    arguments args;
    const char *error = NULL;
    if (!parse(argc, argv, &args, &error)) {
        return usage(error);
    }
    nscd_fclib_problem *p = NULL;
    nscd_status st = nscd_fclib_problem_create(NULL, &p);
    if (st != NSCD_OK) {
        return fail("create", st, "");
    }
    outcome o = {0};
    st = nscd_fclib_read(p, args.file);
    if (st == NSCD_ERR_UNSUPPORTED && strstr(nscd_fclib_problem_last_error(p), "global") != NULL) {
        nscd_fclib_problem_destroy(p);
        return solve_global(&args);
    }
    if (st != NSCD_OK) {
        int code = fail(args.file, st, nscd_fclib_problem_last_error(p));
        nscd_fclib_problem_destroy(p);
        return code;
    }
    nscd_fclib_problem_get_sizes(p, &o.n, &o.n_blocks, &o.has_reference);
    work w = {0};
    int code = 0;
    if (!work_alloc(o.n, o.n_blocks, &w)) {
        code = fail("solve", NSCD_ERR_OUT_OF_MEMORY, "");
    } else if ((st = solve(p, &args, &w, &o)) != NSCD_OK) {
        int refused = st == o.status && (st == NSCD_ERR_NOT_SPD || st == NSCD_ERR_NOT_FINITE);
        code = fail("solve", st,
                    refused          ? o.blocks.message
                    : st == o.status ? "nscd_fc3d_solve_bsr failed"
                                     : nscd_fclib_problem_last_error(p));
    } else {
        (args.json ? print_json : print_text)(&args, &o);
        code = o.info.converged ? 0 : 3;
    }
    work_free(&w);
    nscd_fclib_problem_destroy(p);
    return code;
}
