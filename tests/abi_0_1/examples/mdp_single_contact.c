/* Academic single-contact problem of seed 002, Sect. 4.1 (Table 1): a rigid body
 * of six point masses hits an inclined plane. The impulsive Coulomb law has three
 * sliding solutions; the maximum-dissipation impulse is unique and dissipates more.
 *
 *   mdp_single_contact [--json] [--case table1|hyperbola] [--mu MU]
 *
 * --case hyperbola solves the exemplary problem of the docs' Figs. 2-4 instead
 * (conic section a hyperbola, two local minima along it). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "example_cli.h"
#include "nscd/nscd.h"

static double dot3(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double c[3]) {
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

static void velocity(const double A[9], const double b[3], const double x[3], double u[3]) {
    for (int i = 0; i < 3; ++i) {
        u[i] = dot3(A + 3 * i, x) - b[i];
    }
}

static double objective(const double A[9], const double b[3], const double x[3]) {
    double u[3];
    velocity(A, b, x, u);
    /* 1/2 x'Ax - x'b = 1/2 x'(u - b) */
    return 0.5 * (dot3(x, u) - dot3(x, b));
}

/* A = Q'((2(mx+my+mz))^-1 E - dx^2 ex^x I^-1 ex^x) Q, b = Q' v with the contact
 * frame Q = [n t o], t = n x e_x and o = n x t used as written (unnormalised). */
static void table1_problem(double A[9], double b[3]) {
    const double dx = 10, dy = 1, dz = 1, mx = 0.03, my = 65, mz = 50;
    double nh[3] = {0.25, 0.36, -0.9}, ex[3] = {1, 0, 0}, v[3] = {0.06, 0.7, 0.23};
    double nn = sqrt(dot3(nh, nh)), n[3] = {nh[0] / nn, nh[1] / nn, nh[2] / nn}, t[3], o[3];
    cross3(n, ex, t);
    cross3(n, t, o);
    double Iy = 2 * (mx * dx * dx + mz * dz * dz), Iz = 2 * (mx * dx * dx + my * dy * dy);
    double minv = 1.0 / (2 * (mx + my + mz));
    /* -dx^2 ex^x I^-1 ex^x = diag(0, dx^2/Iz, dx^2/Iy) for a diagonal I */
    double M[3] = {minv, minv + dx * dx / Iz, minv + dx * dx / Iy};
    const double *Q[3] = {n, t, o};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            A[3 * i + j] =
                Q[i][0] * M[0] * Q[j][0] + Q[i][1] * M[1] * Q[j][1] + Q[i][2] * M[2] * Q[j][2];
        }
        b[i] = dot3(Q[i], v);
    }
}

static void hyperbola_problem(double A[9], double b[3]) {
    const double A0[9] = {3.86, 2.14, 5.38, 2.14, 2.76, 5.16, 5.38, 5.16, 12.56};
    const double b0[3] = {0.3, -0.09, -0.92};
    memcpy(A, A0, sizeof A0);
    memcpy(b, b0, sizeof b0);
}

static void print_solution(FILE *out, const double A[9], const double b[3], const double x[3]) {
    double u[3];
    velocity(A, b, x, u);
    fputs("{\"x\":", out);
    json_array(out, x, 3);
    fputs(",\"u\":", out);
    json_array(out, u, 3);
    fputs(",\"objective\":", out);
    json_number(out, objective(A, b, x));
    fputc('}', out);
}

static void print_paper_values(FILE *out) {
    static const double xs[3] = {1.6, -1.1, -5.8}, us[3] = {0, -0.057, 0.034};
    static const double xc[3][3] = {
        {0.12, -0.44, -0.065}, {0.29, -0.89, -0.62}, {1.56, -0.99, -5.7}};
    static const double uc[3][3] = {{0, 0.40, 0.060}, {0, 0.082, 0.057}, {0, 0.0061, 0.035}};
    static const double fc[3] = {-0.252, -0.393, -0.631};
    fputs("\"paper\":{\"mdp_solution\":", out);
    json_array(out, xs, 3);
    fputs(",\"mdp_velocity\":", out);
    json_array(out, us, 3);
    fputs(",\"objective\":-0.634,\"coulomb_solutions\":[", out);
    for (int i = 0; i < 3; ++i) {
        fprintf(out, "%s{\"x\":", i ? "," : "");
        json_array(out, xc[i], 3);
        fputs(",\"u\":", out);
        json_array(out, uc[i], 3);
        fputs(",\"objective\":", out);
        json_number(out, fc[i]);
        fputc('}', out);
    }
    fputs("]}", out);
}

int main(int argc, char **argv) {
    bool json = cli_has_flag(argc, argv, "--json");
    const char *which = cli_string(argc, argv, "--case", "table1");
    bool table1 = strcmp(which, "table1") == 0;
    if (!table1 && strcmp(which, "hyperbola") != 0) {
        fprintf(stderr, "--case must be table1 or hyperbola\n");
        return 2;
    }
    double A[9], b[3];
    if (table1) {
        table1_problem(A, b);
    } else {
        hyperbola_problem(A, b);
    }
    double mu = cli_double(argc, argv, "--mu", table1 ? 3.7 : 0.8);

    double xs[3], sol[18], xn[3];
    int32_t n_sol = 0;
    nscd_coulomb_info info;
    nscd_status st = nscd_mdp_single_contact(A, b, mu, xs);
    if (st == NSCD_OK) {
        st = nscd_coulomb_single_contact_all(A, b, mu, sol, 6, &n_sol);
    }
    if (st == NSCD_OK) {
        st = nscd_coulomb_single_contact(A, b, mu, NULL, xn, &info);
    }
    if (st != NSCD_OK) {
        fprintf(stderr, "mdp_single_contact: %s\n", nscd_status_string(st));
        return 1;
    }
    double s = hypot(A[1], A[2]);
    const char *conic = A[0] > mu * s ? "ellipse" : (A[0] == mu * s ? "parabola" : "hyperbola");

    if (!json) {
        double u[3];
        velocity(A, b, xs, u);
        printf("case %s, mu = %g, conic section: %s\n", which, mu, conic);
        printf("maximum dissipation: x = (%.4f, %.4f, %.4f), u = (%.2g, %.4f, %.4f), f = %.4f\n",
               xs[0], xs[1], xs[2], u[0], u[1], u[2], objective(A, b, xs));
        for (int i = 0; i < n_sol; ++i) {
            const double *x = sol + 3 * i;
            velocity(A, b, x, u);
            printf(
                "Coulomb %d:          x = (%.4f, %.4f, %.4f), u = (%.2g, %.4f, %.4f), f = %.4f\n",
                i + 1, x[0], x[1], x[2], u[0], u[1], u[2], objective(A, b, x));
        }
        printf("Newton (Alart-Curnier) from the maximum-dissipation start: x = (%.4f, %.4f, %.4f), "
               "%d iterations\n",
               xn[0], xn[1], xn[2], info.iterations);
        if (table1) {
            printf("paper Table 1: x* = (1.6, -1.1, -5.8), f = -0.634; Coulomb f = -0.252, -0.393, "
                   "-0.631\n");
        }
        return 0;
    }
    printf("{\"example\":\"mdp_single_contact\",\"case\":\"%s\",\"mu\":", which);
    json_number(stdout, mu);
    printf(",\"conic\":\"%s\",\"A\":", conic);
    json_array(stdout, A, 9);
    fputs(",\"b\":", stdout);
    json_array(stdout, b, 3);
    double u[3];
    velocity(A, b, xs, u);
    fputs(",\"mdp_solution\":", stdout);
    json_array(stdout, xs, 3);
    fputs(",\"mdp_velocity\":", stdout);
    json_array(stdout, u, 3);
    fputs(",\"objective\":", stdout);
    json_number(stdout, objective(A, b, xs));
    fputs(",\"coulomb_solutions\":[", stdout);
    for (int i = 0; i < n_sol; ++i) {
        if (i > 0) {
            fputc(',', stdout);
        }
        print_solution(stdout, A, b, sol + 3 * i);
    }
    fputs("],\"coulomb_newton\":", stdout);
    print_solution(stdout, A, b, xn);
    printf(",\"newton_iterations\":%d,\"newton_residual\":", info.iterations);
    json_number(stdout, info.residual);
    if (table1) {
        fputc(',', stdout);
        print_paper_values(stdout);
    }
    fputs("}\n", stdout);
    return 0;
}
