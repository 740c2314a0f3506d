/* The C side of the python_install test: a small fc3d problem solved by
 * nscd_fc3d_solve_dense, printed as JSON with every double in C99 hex-float
 * form ("%a") so that the Python side reads the very same bits, solves the
 * same problem through the installed package and compares bitwise.
 * usage: fc3d_reference [coulomb|max_dissipation] */
#include <nscd/nscd.h>
#include <stdio.h>
#include <string.h>

#define N_CONTACTS 5
#define N_ROWS (3 * N_CONTACTS)

/* Integer linear congruential numbers mapped to [-1, 1] in steps of 2^-10:
 * exact in double, so the problem does not depend on any libm. */
static double next_value(unsigned *state) {
    *state = *state * 1103515245u + 12345u;
    return (double)((int)((*state >> 16) & 2047u) - 1024) / 1024.0;
}

/* W = B B' + 0.5 I (symmetric positive definite), q and mu from the same stream. */
static void make_problem(double *W, double *q, double *mu) {
    double B[N_ROWS * N_ROWS];
    unsigned state = 2024u;
    for (int i = 0; i < N_ROWS * N_ROWS; ++i)
        B[i] = next_value(&state);
    for (int i = 0; i < N_ROWS; ++i) {
        for (int j = 0; j < N_ROWS; ++j) {
            double s = i == j ? 0.5 : 0.0;
            for (int k = 0; k < N_ROWS; ++k)
                s += B[i * N_ROWS + k] * B[j * N_ROWS + k];
            W[i * N_ROWS + j] = s;
        }
    }
    for (int i = 0; i < N_ROWS; ++i)
        q[i] = next_value(&state);
    for (int j = 0; j < N_CONTACTS; ++j)
        mu[j] = 0.5 + 0.25 * next_value(&state);
}

static void print_array(const char *name, const double *x, int n, const char *end) {
    printf("\"%s\": [", name);
    for (int i = 0; i < n; ++i)
        printf("\"%a\"%s", x[i], i + 1 < n ? ", " : "");
    printf("]%s\n", end);
}

int main(int argc, char **argv) {
    double W[N_ROWS * N_ROWS], q[N_ROWS], mu[N_CONTACTS], r[N_ROWS] = {0}, u[N_ROWS] = {0};
    nscd_fc3d_options opts;
    nscd_fc3d_info info;
    make_problem(W, q, mu);
    if (nscd_fc3d_options_init(&opts, sizeof opts) != NSCD_OK)
        return 1;
    opts.friction_law = argc > 1 && strcmp(argv[1], "max_dissipation") == 0
                            ? NSCD_FC3D_MAX_DISSIPATION
                            : NSCD_FC3D_COULOMB;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    nscd_status status = nscd_fc3d_solve_dense(N_CONTACTS, W, q, mu, &opts, r, u, &info);
    printf("{\"status\": %d, \"friction_law\": %d, \"iterations\": %d, \"merit\": \"%a\",\n",
           (int)status, (int)opts.friction_law, (int)info.iterations, info.merit);
    print_array("W", W, N_ROWS * N_ROWS, ",");
    print_array("q", q, N_ROWS, ",");
    print_array("mu", mu, N_CONTACTS, ",");
    print_array("r", r, N_ROWS, ",");
    print_array("u", u, N_ROWS, "}");
    return status != NSCD_OK;
}
