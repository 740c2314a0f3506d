/* A sign-change bracket refined by the Illinois variant of regula falsi
 * (Dowell & Jarratt 1971): superlinear, and never slower than bisection by
 * more than a constant factor because a stale end value is halved. */
#ifndef NSCD_CORE_BRACKET_H
#define NSCD_CORE_BRACKET_H

typedef struct nscd__bracket {
    double a, b;   /* the root lies in [a, b] */
    double fa, fb; /* function values at the ends, of opposite signs */
    int side;      /* which end moved last: -1 = b, +1 = a, 0 = none yet */
} nscd__bracket;

nscd__bracket nscd__bracket_make(double a, double fa, double b, double fb);
/* The next trial point: the secant root of the bracket, or its midpoint when
 * the secant root does not lie strictly inside. */
double nscd__bracket_trial(const nscd__bracket *br);
/* Narrows the bracket with the trial point c: to [c, b] when c lies on a's
 * side of the root (`left` != 0), else to [a, c]. */
void nscd__bracket_update(nscd__bracket *br, double c, double fc, int left);

#endif
