/* Illinois regula falsi on a sign-change bracket (see bracket.h). */
#include "core/bracket.h"

nscd__bracket nscd__bracket_make(double a, double fa, double b, double fb) {
    nscd__bracket br = {a, b, fa, fb, 0};
    return br;
}

double nscd__bracket_trial(const nscd__bracket *br) {
    double c = br->fa != br->fb ? (br->fa * br->b - br->fb * br->a) / (br->fa - br->fb)
                                : 0.5 * (br->a + br->b);
    return c > br->a && c < br->b ? c : 0.5 * (br->a + br->b);
}

void nscd__bracket_update(nscd__bracket *br, double c, double fc, int left) {
    if (left) {
        br->a = c;
        br->fa = fc;
        if (br->side == 1) {
            br->fb *= 0.5; /* b went stale twice: halve its weight */
        }
        br->side = 1;
    } else {
        br->b = c;
        br->fb = fc;
        if (br->side == -1) {
            br->fa *= 0.5;
        }
        br->side = -1;
    }
}
