/* Projection onto the friction cone and De Saxce's natural map. */
#include "contact/single/friction_cone.h"

#include <math.h>

void nscd__cone_cut(double x[3], double mu) {
    x[0] = x[0] > 0.0 ? x[0] : 0.0;
    double t2 = x[1] * x[1] + x[2] * x[2], limit = mu * x[0];
    if (t2 > limit * limit) {
        double f = t2 > 0.0 && limit > 0.0 ? limit / sqrt(t2) : 0.0;
        x[1] *= f;
        x[2] *= f;
    }
}

void nscd__cone_project(const double x[3], double mu, double p[3]) {
    double xn = x[0];
    double t = hypot(x[1], x[2]);
    if (t <= mu * xn && xn >= 0.0) { /* inside K (mu = 0, t = 0: the ray x_n >= 0) */
        p[0] = xn;
        p[1] = x[1];
        p[2] = x[2];
        return;
    }
    if (mu * t <= -xn) { /* inside the polar cone -K_{1/mu}: projects to the apex */
        p[0] = p[1] = p[2] = 0.0;
        return;
    }
    /* Onto the boundary ray through x's tangential direction. */
    double pn = (xn + mu * t) / (1.0 + mu * mu);
    double f = t > 0.0 ? mu * pn / t : 0.0;
    p[0] = pn;
    p[1] = f * x[1];
    p[2] = f * x[2];
}

void nscd__desaxce_velocity(const double u[3], double mu, double ut[3]) {
    ut[0] = u[0] + mu * hypot(u[1], u[2]);
    ut[1] = u[1];
    ut[2] = u[2];
}

double nscd__coulomb_residual2(const double r[3], const double u[3], double mu, double s) {
    double ut[3], y[3], p[3];
    nscd__desaxce_velocity(u, mu, ut);
    for (int i = 0; i < 3; ++i) {
        y[i] = s * r[i] - ut[i];
    }
    nscd__cone_project(y, mu, p);
    double e2 = 0.0;
    for (int i = 0; i < 3; ++i) {
        double e = s * r[i] - p[i];
        e2 += e * e;
    }
    return e2;
}

double nscd__coulomb_residual2_bounded(const double r[3], const double u[3], double mu, double s,
                                       double lower) {
    double ut[3], y[3], p[3];
    nscd__desaxce_velocity(u, mu, ut);
    for (int i = 0; i < 3; ++i) {
        y[i] = s * r[i] - ut[i];
    }
    nscd__cone_project(y, mu, p);
    if (p[0] < lower) { /* then P_C lies on the plane x_n = lower: onto its disc */
        double radius = mu * lower, t = hypot(y[1], y[2]);
        double f = t > radius ? radius / t : 1.0;
        p[0] = lower;
        p[1] = f * y[1];
        p[2] = f * y[2];
    }
    double e2 = 0.0;
    for (int i = 0; i < 3; ++i) {
        double e = s * r[i] - p[i];
        e2 += e * e;
    }
    return e2;
}
