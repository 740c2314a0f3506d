/* The amplification eigenvalues of a time-stepping scheme, recovered from
 * the library's own trajectories on the undamped oscillator q'' + omega^2 q
 * = 0 (seed 003, Sect. 2.7 and the appendix: spectral radius and relative
 * period error against dt / T, Figs. 7-12).
 *
 * A linear one-step scheme maps its state X_n (q, v and, for the α schemes,
 * accelerations) by X_{n+1} = A X_n. The stepper is run from two initial
 * states, (q, v / omega) = (1, 0) and (0, 1), and the scaled states
 * y_n = (q_n, v_n / omega) are sampled for a few steps:
 *  - if one 2x2 map B (its columns: y_1 of the two runs) also carries y_n to
 *    y_{n+1} for every later n (to 1e-9 relative), the scheme's state is
 *    (q, v): the eigenvalues are those of B (Moreau–Jean, the midpoint rule,
 *    Bathe and ED-α, whose accelerations follow from q);
 *  - otherwise (generalized-α: the auxiliary acceleration A_n is a third
 *    state) every component obeys the recurrence of the characteristic
 *    polynomial, s_{n+3} = c0 s_n + c1 s_{n+1} + c2 s_{n+2} (Cayley–Hamilton),
 *    fitted by least squares over both runs and both components (Prony); the
 *    eigenvalues are its roots.
 * The spectral radius is max |lambda|; the period error is
 * Omega / arg(lambda_p) - 1 with Omega = omega dt and lambda_p the root of
 * largest imaginary part. */
#ifndef NSCD_EXAMPLE_AMPLIFICATION_H
#define NSCD_EXAMPLE_AMPLIFICATION_H

#include <nscd/nscd.h>

/* Steps sampled per run: y_0 .. y_AMPLIFICATION_STEPS. */
#define AMPLIFICATION_STEPS 10

typedef struct amplification {
    int order;           /* 2 (one-step map of (q, v)) or 3 (recurrence fit) */
    double re[3], im[3]; /* the eigenvalues (order of them) */
    double rho;          /* spectral radius max |lambda| */
    /* Omega / arg(lambda_p) - 1; NAN when every eigenvalue is real */
    double period_error;
    double map_residual; /* relative misfit of the 2x2 map B on the later steps */
    double fit_residual; /* relative misfit of the recurrence (order 3), else 0 */
} amplification;

/* Runs a stepper with `options` (scheme and its parameters; dt, on_step and
 * the tolerances are set here) on the oscillator of period T = 1 s with
 * dt = dt_over_T, and recovers its amplification eigenvalues. Returns the
 * stepper's status (::NSCD_ERR_UNSUPPORTED for a scheme the library does not
 * have), or NSCD_ERR_NOT_CONVERGED when the roots cannot be found. */
nscd_status amplification_estimate(const nscd_time_stepping_options *options, double dt_over_T,
                                   amplification *out);

/* The eigenvalues from the samples y[run][n] = (q_n, v_n / omega) of two runs
 * from y_0 = (1, 0) and (0, 1), Omega = omega dt (the second half of
 * amplification_estimate(); usable on any scheme's samples). */
nscd_status amplification_from_samples(double y[2][AMPLIFICATION_STEPS + 1][2], double Omega,
                                       amplification *out);

#endif
