/* Writes tests/data/fclib_spheres.hdf5 with libfclib alone (no nscd): an FCLIB
 * local problem of five contacts between spheres, with its exact solution.
 *
 *   make_fclib_spheres OUTPUT.hdf5
 *
 * Debian's Siconos is built without FCLIB, so this small program is the
 * "other program" that writes a problem file for nscd to read. The scene is
 * one impulse step of five unit-free spheres (radius R, mass m, inertia
 * 2/5 m R^2), all contacts with normal e_z and tangents e_x, e_y:
 *
 *   c0 floor-A, c1 A-B, c2 B-C: a vertical column whose spheres approach with
 *       vertical velocities only. The normal rows involve vertical velocities
 *       only and the tangential rows horizontal velocities and spins, so with
 *       q_t = 0 the tangential impulses are zero and the normal impulses solve
 *       the 3x3 LCP  u_n = W_nn r_n + q_n >= 0 ⟂ r_n >= 0, solved here by
 *       enumerating its 8 active sets (W_nn is SPD: exactly one fits);
 *   c3 floor-D: a sphere sliding with q = (-1, 2, 0.5): r_n = -q_n / W_nn,
 *       r_t = -mu r_n q_t / |q_t| (slides since |q_t| > mu r_n W_tt);
 *   c4 floor-E: a sphere leaving the floor, q_n > 0: r = 0, u = q.
 *
 * W = H M^-1 H' is written in compressed columns with its non-zero entries
 * only, as Siconos writes sparse matrices, with problem and matrix info. */
#include <fclib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BODIES 5
#define CONTACTS 5
#define DOF (6 * BODIES)
#define ROWS (3 * CONTACTS)
#define FLOOR (-1)

static const double radius[BODIES] = {0.5, 0.4, 0.3, 0.25, 0.2};
static const double mass[BODIES] = {2.0, 1.5, 0.8, 1.2, 0.5};
/* Body velocities (v, omega) before the impulses. */
static const double velocity[BODIES][6] = {
    {0.0, 0.0, -1.0, 0.0, 0.0, 0.0}, /* A */
    {0.0, 0.0, -2.0, 0.0, 0.0, 0.0}, /* B */
    {0.0, 0.0, -0.5, 0.0, 0.0, 0.0}, /* C */
    {2.0, 0.5, -1.0, 0.0, 0.0, 0.0}, /* D, sliding */
    {1.0, 0.0, 0.5, 0.0, 0.0, 0.0},  /* E, leaving */
};
static const double friction[CONTACTS] = {0.5, 0.4, 0.3, 0.3, 0.6};
/* Contact j between body below[j] (or the floor) and body above[j]. */
static const int below[CONTACTS] = {FLOOR, 0, 1, FLOOR, FLOOR};
static const int above[CONTACTS] = {0, 1, 2, 3, 4};

static void cross(const double a[3], const double b[3], double out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Adds sign * (d, (arm x d)) to row `row` of H at the columns of body b. */
static void add_body_row(double H[ROWS][DOF], int row, int b, const double arm[3],
                         const double d[3], double sign) {
    double moment[3];
    cross(arm, d, moment);
    for (int k = 0; k < 3; ++k) {
        H[row][6 * b + k] += sign * d[k];
        H[row][6 * b + 3 + k] += sign * moment[k];
    }
}

/* The rows of contact j: relative velocity of `above` w.r.t. `below` at the contact
 * point, in the frame (e_z, e_x, e_y). The arms are -R e_z (above) and +R e_z (below). */
static void contact_rows(double H[ROWS][DOF], int j) {
    static const double frame[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
    for (int d = 0; d < 3; ++d) {
        double arm_above[3] = {0.0, 0.0, -radius[above[j]]};
        add_body_row(H, 3 * j + d, above[j], arm_above, frame[d], 1.0);
        if (below[j] != FLOOR) {
            double arm_below[3] = {0.0, 0.0, radius[below[j]]};
            add_body_row(H, 3 * j + d, below[j], arm_below, frame[d], -1.0);
        }
    }
}

/* W = H M^-1 H' and q = H v. */
static void delassus(double W[ROWS][ROWS], double q[ROWS]) {
    static double H[ROWS][DOF];
    double inv_mass[DOF], v[DOF];
    for (int j = 0; j < CONTACTS; ++j) {
        contact_rows(H, j);
    }
    for (int b = 0; b < BODIES; ++b) {
        double inertia = 0.4 * mass[b] * radius[b] * radius[b];
        for (int k = 0; k < 3; ++k) {
            inv_mass[6 * b + k] = 1.0 / mass[b];
            inv_mass[6 * b + 3 + k] = 1.0 / inertia;
        }
        memcpy(v + 6 * b, velocity[b], sizeof velocity[b]);
    }
    for (int r = 0; r < ROWS; ++r) {
        q[r] = 0.0;
        for (int k = 0; k < DOF; ++k) {
            q[r] += H[r][k] * v[k];
        }
        for (int c = 0; c < ROWS; ++c) {
            W[r][c] = 0.0;
            for (int k = 0; k < DOF; ++k) {
                W[r][c] += H[r][k] * inv_mass[k] * H[c][k];
            }
        }
    }
}

/* The column's normal LCP by enumeration of the active sets. */
static int column_normals(double W[ROWS][ROWS], const double q[ROWS], double rn[3]) {
    for (int set = 0; set < 8; ++set) {
        int idx[3], n = 0;
        for (int k = 0; k < 3; ++k) {
            if (set & (1 << k)) {
                idx[n++] = k;
            }
        }
        /* Solve W_aa r_a = -q_a by Gauss-Jordan on a copy. */
        double A[3][4];
        for (int i = 0; i < n; ++i) {
            for (int l = 0; l < n; ++l) {
                A[i][l] = W[3 * idx[i]][3 * idx[l]];
            }
            A[i][n] = -q[3 * idx[i]];
        }
        for (int k = 0; k < n; ++k) {
            for (int i = 0; i < n; ++i) {
                if (i != k) {
                    double f = A[i][k] / A[k][k];
                    for (int l = 0; l <= n; ++l) {
                        A[i][l] -= f * A[k][l];
                    }
                }
            }
        }
        double r[3] = {0.0, 0.0, 0.0};
        int ok = 1;
        for (int i = 0; i < n; ++i) {
            r[idx[i]] = A[i][n] / A[i][i];
            ok &= r[idx[i]] >= 0.0;
        }
        for (int k = 0; k < 3 && ok; ++k) {
            double u = q[3 * k];
            for (int l = 0; l < 3; ++l) {
                u += W[3 * k][3 * l] * r[l];
            }
            ok &= (set & (1 << k)) ? 1 : u >= 0.0;
        }
        if (ok) {
            memcpy(rn, r, sizeof r);
            return 1;
        }
    }
    return 0;
}

/* The exact impulses of the five contacts (see the file description). */
static int exact_solution(double W[ROWS][ROWS], const double q[ROWS], double r[ROWS]) {
    memset(r, 0, sizeof(double[ROWS]));
    double rn[3];
    if (!column_normals(W, q, rn)) {
        return 0;
    }
    for (int k = 0; k < 3; ++k) {
        r[3 * k] = rn[k];
    }
    /* c3: sliding sphere, W_33 = diag(1/m, 1/m + R^2/I, same). */
    const double *q3 = q + 9;
    double normal = -q3[0] / W[9][9];
    double slip = hypot(q3[1], q3[2]);
    if (normal <= 0.0 || slip <= friction[3] * normal * W[10][10]) {
        return 0; /* the scene was meant to slide */
    }
    r[9] = normal;
    r[10] = -friction[3] * normal * q3[1] / slip;
    r[11] = -friction[3] * normal * q3[2] / slip;
    return q[12] > 0.0; /* c4 leaves: r = 0 */
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: make_fclib_spheres OUTPUT.hdf5\n");
        return 2;
    }
    static double W[ROWS][ROWS];
    double q[ROWS], r[ROWS], u[ROWS], mu[CONTACTS];
    delassus(W, q);
    if (!exact_solution(W, q, r)) {
        fprintf(stderr, "make_fclib_spheres: the scene has no solution of the expected kind\n");
        return 1;
    }
    for (int i = 0; i < ROWS; ++i) {
        u[i] = q[i];
        for (int k = 0; k < ROWS; ++k) {
            u[i] += W[i][k] * r[k];
        }
    }
    memcpy(mu, friction, sizeof mu);

    /* W in compressed columns, non-zero entries only. */
    int p[ROWS + 1], i_idx[ROWS * ROWS], nnz = 0;
    double x[ROWS * ROWS];
    for (int c = 0; c < ROWS; ++c) {
        p[c] = nnz;
        for (int row = 0; row < ROWS; ++row) {
            if (W[row][c] != 0.0) {
                i_idx[nnz] = row, x[nnz++] = W[row][c];
            }
        }
    }
    p[ROWS] = nnz;
    struct fclib_matrix_info winfo = {"Delassus matrix H M^-1 H' of five spheres", 0.0, 0.0, ROWS};
    struct fclib_matrix Wm = {nnz, ROWS, ROWS, p, i_idx, x, -1, &winfo};
    struct fclib_info info = {"nscd test: five spheres",
                              "a column of three spheres, a sliding and a leaving sphere",
                              "unique solution, exact (see tests/fclib/make_fclib_spheres.c)"};
    struct fclib_local problem = {&Wm, NULL, NULL, mu, q, NULL, 3, &info};
    struct fclib_solution solution = {NULL, u, r, NULL};
    remove(argv[1]); /* libfclib appends to an existing file */
    if (!fclib_write_local(&problem, argv[1]) || !fclib_write_solution(&solution, argv[1])) {
        fprintf(stderr, "make_fclib_spheres: libfclib could not write %s\n", argv[1]);
        return 1;
    }
    printf("%s: %d contacts, %d non-zeros; r_n = %.6g %.6g %.6g %.6g %.6g\n", argv[1], CONTACTS,
           nnz, r[0], r[3], r[6], r[9], r[12]);
    return 0;
}
