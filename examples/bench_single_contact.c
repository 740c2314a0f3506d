/* Cost of the single-contact solvers relative to an unconstrained 3x3 solve.
 *
 *   bench_single_contact [--json] [--rounds R]
 *
 * Times, in CPU nanoseconds per call (best of 7 interleaved repetitions of R sweeps
 * over 4096 random SPD problems):
 * the baseline (hand-written 3x3 Cholesky factorisation and solve of A x = b, the
 * cheapest way to get the unconstrained minimum), nscd_mdp_single_contact on
 * sliding, sticking and mixed problems, and the Coulomb Newton solver. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "example_cli.h"
#include "nscd/nscd.h"

enum { n_problems = 4096 };

typedef struct problem {
    double A[9], b[3], mu;
} problem;

static uint64_t rng_state = 88172645463325252ull;
static double uniform(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * 0x1.0p-53;
}
static double normal(void) {
    return sqrt(-2.0 * log(uniform() + 1e-300)) * cos(6.283185307179586 * uniform());
}

/* Unconstrained minimiser of 1/2 x'Ax - x'b by Cholesky; the baseline. */
static int cholesky_solve(const double A[9], const double b[3], double x[3]) {
    double p0 = A[0];
    if (!(p0 > 0.0)) {
        return -1;
    }
    double l00 = sqrt(p0), l10 = A[3] / l00, l20 = A[6] / l00;
    double p1 = A[4] - l10 * l10;
    if (!(p1 > 0.0)) {
        return -1;
    }
    double l11 = sqrt(p1), l21 = (A[7] - l20 * l10) / l11;
    double p2 = A[8] - l20 * l20 - l21 * l21;
    if (!(p2 > 0.0)) {
        return -1;
    }
    double l22 = sqrt(p2);
    double y0 = b[0] / l00, y1 = (b[1] - l10 * y0) / l11, y2 = (b[2] - l20 * y0 - l21 * y1) / l22;
    x[2] = y2 / l22;
    x[1] = (y1 - l21 * x[2]) / l11;
    x[0] = (y0 - l10 * x[1] - l20 * x[2]) / l00;
    return 0;
}

static void random_problem(problem *p) {
    double M[9];
    for (int i = 0; i < 9; ++i) {
        M[i] = normal();
    }
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            p->A[3 * i + j] = M[3 * i] * M[3 * j] + M[3 * i + 1] * M[3 * j + 1] +
                              M[3 * i + 2] * M[3 * j + 2] + (i == j ? 0.1 : 0.0);
        }
        p->b[i] = normal();
    }
    p->mu = 0.1 + 1.9 * uniform();
}

/* kind 0: mixed (b_n of either sign), 1: sliding, 2: sticking */
static void make_set(problem *set, int kind) {
    int n = 0;
    while (n < n_problems) {
        problem p;
        random_problem(&p);
        double x0[3];
        cholesky_solve(p.A, p.b, x0);
        bool stick = p.b[0] > 0.0 && x0[0] >= 0.0 && hypot(x0[1], x0[2]) <= p.mu * x0[0];
        if ((kind == 1 && (p.b[0] <= 0.0 || stick)) || (kind == 2 && !stick)) {
            continue;
        }
        set[n++] = p;
    }
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); /* CPU time: robust to a loaded machine */
    return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

typedef int (*solver_fn)(const problem *p, double x[3]);

static int run_cholesky(const problem *p, double x[3]) { return cholesky_solve(p->A, p->b, x); }
static int run_mdp(const problem *p, double x[3]) {
    return nscd_mdp_single_contact(p->A, p->b, p->mu, x);
}
static int run_coulomb(const problem *p, double x[3]) {
    return nscd_coulomb_single_contact(p->A, p->b, p->mu, NULL, x, NULL);
}
static int run_coulomb_all(const problem *p, double x[3]) {
    double sol[18];
    int32_t n;
    int st = nscd_coulomb_single_contact_all(p->A, p->b, p->mu, sol, 6, &n);
    x[0] = sol[0], x[1] = n, x[2] = 0.0;
    return st;
}

/* ns per call of one sweep of `rounds` passes over the set (the solver is called
 * through a pointer so that the baseline cannot be inlined either). */
static double time_once(solver_fn volatile fn, const problem *set, int rounds, int *failures) {
    double sink = 0.0, t0 = now_ns();
    for (int r = 0; r < rounds; ++r) {
        for (int i = 0; i < n_problems; ++i) {
            double x[3];
            *failures += fn(&set[i], x) != 0;
            sink += x[0];
        }
    }
    double t = (now_ns() - t0) / ((double)rounds * n_problems);
    if (sink == 12345.678) {
        puts("");
    }
    return t;
}

enum { n_solvers = 6, n_repetitions = 7 };

/* Best of n_repetitions, the solvers interleaved so that a change of machine load
 * affects all of them alike. */
static void time_all(problem *const sets[3], int rounds, double best[n_solvers],
                     int failures[n_solvers]) {
    static const solver_fn fns[n_solvers] = {run_cholesky, run_mdp,     run_mdp,
                                             run_mdp,      run_coulomb, run_coulomb_all};
    static const int set_of[n_solvers] = {0, 0, 1, 2, 1, 1};
    for (int k = 0; k < n_solvers; ++k) {
        best[k] = INFINITY;
        failures[k] = 0;
    }
    for (int rep = 0; rep < n_repetitions; ++rep) {
        for (int k = 0; k < n_solvers; ++k) {
            int r = (k == 5) ? (rounds > 10 ? rounds / 10 : 1) : rounds;
            best[k] = fmin(best[k], time_once(fns[k], sets[set_of[k]], r, &failures[k]));
        }
    }
}

static const char usage_text[] = "usage: bench_single_contact [--json] [--rounds N]";

int main(int argc, char **argv) {
    cli_check(argc, argv, usage_text);
    bool json = cli_has_flag(argc, argv, "--json");
    int rounds = (int)cli_double(argc, argv, "--rounds", 20);
    if (rounds < 1) {
        rounds = 1;
    }
    problem *sets[3];
    for (int k = 0; k < 3; ++k) {
        sets[k] = malloc(n_problems * sizeof(problem));
        if (sets[k] == NULL) {
            return 1;
        }
        make_set(sets[k], k);
    }
    int fail[n_solvers];
    double t[n_solvers];
    time_all(sets, rounds, t, fail);
    double t_chol = t[0], t_mixed = t[1], t_slide = t[2], t_stick = t[3], t_coul = t[4];
    double t_all = t[5];
    int failures_mdp = fail[1] + fail[2] + fail[3];
    if (json) {
        printf("{\"example\":\"bench_single_contact\",\"problems\":%d,\"rounds\":%d", n_problems,
               rounds);
        const char *keys[] = {"ns_cholesky",
                              "ns_mdp_mixed",
                              "ns_mdp_sliding",
                              "ns_mdp_sticking",
                              "ns_coulomb_newton_sliding",
                              "ns_coulomb_all_sliding"};
        double vals[] = {t_chol, t_mixed, t_slide, t_stick, t_coul, t_all};
        for (int i = 0; i < 6; ++i) {
            printf(",\"%s\":", keys[i]);
            json_number(stdout, vals[i]);
        }
        printf(",\"ratio_mdp_mixed\":");
        json_number(stdout, t_mixed / t_chol);
        printf(",\"ratio_mdp_sliding\":");
        json_number(stdout, t_slide / t_chol);
        printf(",\"ratio_mdp_sticking\":");
        json_number(stdout, t_stick / t_chol);
        printf(",\"ratio_coulomb_newton_sliding\":");
        json_number(stdout, t_coul / t_chol);
        printf(",\"mdp_failures\":%d,\"coulomb_failures\":%d}\n", failures_mdp, fail[4]);
    } else {
        printf("CPU ns per call (best of %d x %d sweeps over %d problems)\n", n_repetitions, rounds,
               n_problems);
        printf("  3x3 Cholesky solve (baseline)   %8.1f\n", t_chol);
        printf("  mdp, mixed problems             %8.1f  (%.1fx)\n", t_mixed, t_mixed / t_chol);
        printf("  mdp, sliding problems           %8.1f  (%.1fx)\n", t_slide, t_slide / t_chol);
        printf("  mdp, sticking problems          %8.1f  (%.1fx)\n", t_stick, t_stick / t_chol);
        printf("  Coulomb Newton, sliding         %8.1f  (%.1fx)\n", t_coul, t_coul / t_chol);
        printf("  Coulomb enumeration, sliding    %8.1f  (%.1fx)\n", t_all, t_all / t_chol);
        printf("  failures: mdp %d, Coulomb Newton %d\n", failures_mdp, fail[4]);
    }
    for (int k = 0; k < 3; ++k) {
        free(sets[k]);
    }
    return 0;
}
