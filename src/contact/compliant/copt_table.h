/* Layout of the table of the exact dimensionless optimal damping zeta(e, n)
 * (see contact/compliant/copt.h and docs/compliant_contact.md). The data file
 * copt_table.c is written by tools/gen_copt_table.c.
 *
 * e in (0, 1] is split into intervals on which zeta (or G = zeta e^(1/(n+1))
 * for e < 1/2) is smooth; each holds a tensor Chebyshev series
 *
 *     sum_{i < DE} sum_{j < DN} a[i][j] T_i(t) T_j(s),  s = 2 n - 3,
 *
 * where t in [-1, 1] is the position in the interval:
 *   low  interval l = 1..LOW:   e     in [2^-(l+1), 2^-l],  series of G;
 *   high interval h = 1..HIGH:  1 - e in [2^-(h+1), 2^-h],  series of zeta;
 *   last interval:              1 - e in [0, 2^-(HIGH+1)],  series of zeta.
 * Below e = 2^-(LOW+1) G is held at its value there (G -> 1 as e -> 0). */
#ifndef NSCD_CONTACT_COPT_TABLE_H
#define NSCD_CONTACT_COPT_TABLE_H

#define NSCD__COPT_LOW 20
#define NSCD__COPT_HIGH 26
#define NSCD__COPT_INTERVALS (NSCD__COPT_LOW + NSCD__COPT_HIGH + 1)
#define NSCD__COPT_DE 14
#define NSCD__COPT_DN 16

/* Interval index: low l -> l - 1, high h -> LOW + h - 1, last -> LOW + HIGH. */
extern const double nscd__copt_table[NSCD__COPT_INTERVALS][NSCD__COPT_DE][NSCD__COPT_DN];

#endif
