/* Internal entry points of the analytic maximum-dissipation single-contact solver. */
#ifndef NSCD_CONTACT_MDP_SINGLE_H
#define NSCD_CONTACT_MDP_SINGLE_H

/* The solver on an already validated block: S symmetric positive definite with
 * lower Cholesky factor L (see delassus3.h). For block solvers that factor once. */
void nscd__mdp_solve_factored(const double S[9], const double L[9], const double b[3], double mu,
                              double x[3]);

/* Methods for the sliding case (for tests): AUTO = Halley fast path with KKT
 * certificate, else QUARTIC; QUARTIC = the roots of eq. (8) (paper), with SAMPLING as
 * its fallback; SAMPLING = dense sampling and golden-section search only. */
enum { NSCD__MDP_AUTO = 0, NSCD__MDP_QUARTIC = 1, NSCD__MDP_SAMPLING = 2 };
void nscd__mdp_solve_method(const double S[9], const double L[9], const double b[3], double mu,
                            int method, double x[3]);

/* Fourier coefficients k of the stationarity condition g(beta) = k0 + k1 cos(beta)
 * + k2 sin(beta) + k3 cos(2 beta) + k4 sin(2 beta) with beta = alpha - alpha0 (the
 * paper's eq. 8 up to the rotation), and alpha0 = atan2(A_no, A_nt). For tests. */
void nscd__mdp_eq8_coefficients(const double A[9], const double b[3], double mu, double k[5],
                                double *alpha0);

#endif
