/* Fuzz target: Routh's planar frictional impact, nscd_routh_impact() and
 * nscd_routh_impact_ex() (include/nscd/routh.h).
 *
 * Input (fuzz_common.h encoding; make_seeds.py writes it):
 *   u8   flags: bits 0-1 how G is built (0-2: s_G L L' with L lower
 *        triangular, diagonal in [10^-1.5, 1]; 3: a random symmetric matrix),
 *        bit 2 s0 = 0, bit 3 mu = 0, bit 4 e = 0 or (bit 5) e = 1
 *   u16  s_G = 10^[-6, 6], s_u = 10^[-6, 6]
 *   3 x u16  L (2 diagonal, 1 below) or G (upper triangle) in [-1, 1]
 *   u16  s0 / s_u in [-1, 1];  u16 c0 / s_u in [-1, 0.05] (c0 >= 0 is not colliding)
 *   u16  mu in [0, 2];  u16 e in [0, 1]
 *   corruption selector over 10 parameters: G[0..3], s0, c0, mu, e, a NULL
 *        pointer, the struct_size of the result.
 *
 * Checks: the documented status (NOT_FINITE, OUT_OF_RANGE, NOT_SPD against an
 * independent test, NOT_COLLIDING, NULL_POINTER, STRUCT_SIZE); outputs
 * unchanged on failure; both entry points agree bitwise; on OK, with
 * P = (T, F) and u1 = (s1, c1): finite, u1 = u0 + G P, F > 0, |T| <= mu F
 * (Coulomb), c1 >= 0 (no interpenetration after the impact), the kinetic
 * energy change P'(u0 + u1)/2 <= 0 and equal to energy_change, Poisson's
 * F = (1 + e) F_c with c = 0 at the compression impulse (T_c, F_c), s = 0 at
 * the transition impulse of the cases where slip stops, a valid case and
 * consistent slip signs, frictionless impacts give T = 0 and c1 = -e c0, the
 * mirror image (s0, eps) -> (-s0, -eps) gives (-T, F), and G -> 4 G,
 * u0 -> 16 u0 gives P -> 4 P. */
#include "fuzz_common.h"

enum { P_G = 0, P_S0 = 4, P_C0 = 5, P_MU = 6, P_E = 7, P_NULL = 8, P_SIZE = 9, N_PARAMS = 10 };

typedef struct problem {
    double G[4], u0[2], mu, e;
    int spd_by_construction;
    int null_arg; /* 0 none, 1 G, 2 u0, 3 P, 4 u1, 5 result */
    int bad_size;
} problem;

static void decode(fz_reader *r, fz_corruption *c, problem *p) {
    memset(p, 0, sizeof *p);
    int flags = fz_u8(r);
    double sG = fz_decade(r, -6.0, 6.0), su = fz_decade(r, -6.0, 6.0);
    double v0 = fz_unit(r), v1 = fz_unit(r), v2 = fz_unit(r);
    if ((flags & 3) < 3) {
        double l0 = pow(10.0, -1.5 * v0), l1 = pow(10.0, -1.5 * v1), l10 = 2.0 * v2 - 1.0;
        p->G[0] = sG * l0 * l0;
        p->G[1] = p->G[2] = sG * l10 * l0;
        p->G[3] = sG * (l10 * l10 + l1 * l1);
        p->spd_by_construction = 1;
    } else {
        p->G[0] = sG * (2.0 * v0 - 1.0);
        p->G[1] = p->G[2] = sG * (2.0 * v2 - 1.0);
        p->G[3] = sG * (2.0 * v1 - 1.0);
    }
    p->u0[0] = su * fz_sym(r);
    p->u0[1] = su * fz_range(r, -1.0, 0.05);
    p->mu = fz_range(r, 0.0, 2.0);
    p->e = fz_unit(r);
    if (flags & 4) {
        p->u0[0] = 0.0;
    }
    if (flags & 8) {
        p->mu = 0.0;
    }
    if (flags & 16) {
        p->e = (flags & 32) ? 1.0 : 0.0;
    }
    *c = fz_read_corruption(r, N_PARAMS);
    if (c->active) {
        if (c->index < P_S0) {
            p->G[c->index] = c->value;
            p->spd_by_construction = 0;
        } else if (c->index == P_S0 || c->index == P_C0) {
            p->u0[c->index - P_S0] = c->value;
        } else if (c->index == P_MU) {
            p->mu = c->value;
        } else if (c->index == P_E) {
            p->e = c->value;
        } else if (c->index == P_NULL) {
            p->null_arg = 1 + c->special % 5;
        } else {
            p->bad_size = 1;
        }
    }
}

/* The library's SPD test may differ from this one at the border: +1 SPD, -1 not, 0 unsure. */
static int spd_verdict(const double G[4]) {
    double a = G[0], g = G[3];
    if (!(a > 0.0 && g > 0.0)) {
        return -1;
    }
    double scale = sqrt(a) * sqrt(g), asym = fabs(G[1] - G[2]);
    if (asym > 2e-12 * scale) {
        return -1;
    }
    if (asym > 0.5e-12 * scale) {
        return 0;
    }
    double eps = 0.5 * (G[1] + G[2]);
    double det = a * g - eps * eps, rel = det / (a * g);
    return rel > 1e-14 ? 1 : (rel < 1e-15 ? -1 : 0);
}

/* Expected status of nscd_routh_impact_ex (NSCD_OK also for "may be NOT_SPD"). */
static nscd_status expected_status(const problem *p, int *maybe_not_spd) {
    *maybe_not_spd = 0;
    if (p->null_arg == 1 || p->null_arg == 2 || p->null_arg == 5) {
        return NSCD_ERR_NULL_POINTER;
    }
    if (p->bad_size) {
        return NSCD_ERR_STRUCT_SIZE;
    }
    if (!fz_all_finite(p->G, 4) || !fz_all_finite(p->u0, 2) || !isfinite(p->mu) ||
        !isfinite(p->e)) {
        return NSCD_ERR_NOT_FINITE;
    }
    if (p->mu < 0.0 || p->e < 0.0 || p->e > 1.0) {
        return NSCD_ERR_OUT_OF_RANGE;
    }
    int spd = p->spd_by_construction ? 1 : spd_verdict(p->G);
    if (spd < 0) {
        return NSCD_ERR_NOT_SPD;
    }
    *maybe_not_spd = spd == 0;
    if (!(p->u0[1] < 0.0)) {
        return NSCD_ERR_NOT_COLLIDING;
    }
    return NSCD_OK;
}

static int sign_of(double x) { return (x > 0.0) - (x < 0.0); }

static void check_result(const problem *p, const nscd_routh_result *res) {
    const double *G = p->G, *u0 = p->u0, *P = res->impulse, *u1 = res->velocity;
    double T = P[0], F = P[1];
    FZ_REQUIRE(fz_all_finite(P, 2) && fz_all_finite(u1, 2),
               "result not finite: P = (%g, %g), u1 = (%g, %g)", T, F, u1[0], u1[1]);
    double gmax = fz_max_abs(G, 4), pn = fz_norm(P, 2), un = fz_norm(u0, 2);
    int moderate = gmax < 1e150 && gmax > 1e-150 && pn < 1e150 && pn > 1e-150 && un < 1e150 &&
                   un > 1e-150 && gmax * pn < 1e150;
    if (!moderate) {
        return; /* extreme data: the energy overflows, subnormal numbers lose precision */
    }
    FZ_REQUIRE(isfinite(res->energy_change), "energy_change %g", res->energy_change);
    double tu = 1e-9 * (un + gmax * pn); /* velocity tolerance */
    double tp = 1e-9 * pn;               /* impulse tolerance */
    FZ_REQUIRE(res->impact_case >= NSCD_ROUTH_SLIP && res->impact_case <= NSCD_ROUTH_SLIP_FROM_REST,
               "case %d", (int)res->impact_case);
    FZ_REQUIRE(strcmp(nscd_routh_case_name(res->impact_case), "unknown") != 0, "case has no name");
    FZ_REQUIRE(abs(res->slip_before) <= 1 && abs(res->slip_after) <= 1, "slip signs %d %d",
               (int)res->slip_before, (int)res->slip_after);
    if (u0[0] != 0.0) {
        FZ_REQUIRE(res->slip_before == sign_of(u0[0]), "slip_before %d, s0 = %g",
                   (int)res->slip_before, u0[0]);
    } else {
        FZ_REQUIRE(res->impact_case == NSCD_ROUTH_STICK ||
                       res->impact_case == NSCD_ROUTH_SLIP_FROM_REST,
                   "s0 = 0 but case %s", nscd_routh_case_name(res->impact_case));
    }
    /* u1 = u0 + G P, as the library writes it */
    double s1 = u0[0] + G[0] * T + G[1] * F, c1 = u0[1] + G[2] * T + G[3] * F;
    FZ_REQUIRE(fabs(s1 - u1[0]) <= tu && fabs(c1 - u1[1]) <= tu,
               "u1 = (%.17g, %.17g) but u0 + G P = (%.17g, %.17g)", u1[0], u1[1], s1, c1);
    /* Coulomb and Signorini */
    FZ_REQUIRE(F > 0.0, "normal impulse F = %.17g", F);
    FZ_REQUIRE(fabs(T) <= p->mu * F * (1.0 + 1e-12) + tp, "|T| = %.17g > mu F = %.17g", fabs(T),
               p->mu * F);
    FZ_REQUIRE(u1[1] >= -tu, "c1 = %.17g < 0: the bodies approach after the impact", u1[1]);
    /* energy */
    double dE = 0.5 * (T * (u0[0] + u1[0]) + F * (u0[1] + u1[1]));
    double tE = 1e-9 * pn * (un + gmax * pn);
    FZ_REQUIRE(dE <= tE, "kinetic energy created: %.17g (tolerance %g)", dE, tE);
    FZ_REQUIRE(fabs(res->energy_change - dE) <= tE, "energy_change %.17g, recomputed %.17g",
               res->energy_change, dE);
    /* Poisson: F = (1 + e) F_c, c = 0 at (T_c, F_c) */
    const double *Pc = res->compression_impulse;
    FZ_REQUIRE(Pc[1] > 0.0 && fabs(F - (1.0 + p->e) * Pc[1]) <= 1e-12 * F,
               "F = %.17g, F_c = %.17g, e = %g", F, Pc[1], p->e);
    double cc = u0[1] + G[2] * Pc[0] + G[3] * Pc[1];
    FZ_REQUIRE(fabs(cc) <= tu, "c = %.17g at the compression impulse", cc);
    /* where slip stopped, s = 0 */
    int transition = res->impact_case >= NSCD_ROUTH_STICK_IN_COMPRESSION &&
                     res->impact_case <= NSCD_ROUTH_REVERSAL_IN_RESTITUTION;
    if (transition) {
        const double *Pt = res->transition_impulse;
        double st = u0[0] + G[0] * Pt[0] + G[1] * Pt[1];
        FZ_REQUIRE(fabs(st) <= tu, "s = %.17g at the transition impulse", st);
        FZ_REQUIRE(Pt[1] >= 0.0 && Pt[1] <= F * (1.0 + 1e-12), "transition F = %g outside [0, %g]",
                   Pt[1], F);
    }
    /* the final slip */
    if (res->slip_after == 0) {
        FZ_REQUIRE(fabs(u1[0]) <= tu, "stuck at the end but s1 = %.17g", u1[0]);
    } else {
        FZ_REQUIRE(u1[0] * res->slip_after >= -tu, "slip_after %d but s1 = %.17g",
                   (int)res->slip_after, u1[0]);
    }
    if (p->mu == 0.0) {
        FZ_REQUIRE(T == 0.0, "frictionless but T = %g", T);
        FZ_REQUIRE(fabs(u1[1] + p->e * u0[1]) <= tu, "frictionless: c1 = %.17g, -e c0 = %.17g",
                   u1[1], -p->e * u0[1]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_reader r = fz_make(data, size);
    fz_corruption c;
    problem p;
    decode(&r, &c, &p);
    if (fz_verbose()) {
        fz_print("G", p.G, 4);
        fz_print("u0", p.u0, 2);
        fprintf(stderr, "mu = %.17g, e = %.17g, null %d, bad size %d\n", p.mu, p.e, p.null_arg,
                p.bad_size);
    }
    const double sentinel = 4242.0;
    double P[2] = {sentinel, sentinel}, u1[2] = {sentinel, sentinel};
    nscd_routh_result res, untouched;
    memset(&res, 0x3c, sizeof res);
    res.struct_size = (uint32_t)sizeof res + (p.bad_size ? 8u : 0u);
    untouched = res;
    const double *G = p.null_arg == 1 ? NULL : p.G, *u0 = p.null_arg == 2 ? NULL : p.u0;
    nscd_status st_ex = nscd_routh_impact_ex(G, u0, p.mu, p.e, p.null_arg == 5 ? NULL : &res);
    nscd_status st = nscd_routh_impact(G, u0, p.mu, p.e, p.null_arg == 3 ? NULL : P,
                                       p.null_arg == 4 ? NULL : u1);
    if (fz_verbose()) {
        fprintf(stderr, "status %d (%s), case %s\n", FZ_STATUS_ARGS(st_ex),
                st_ex == NSCD_OK ? nscd_routh_case_name(res.impact_case) : "-");
    }
    if (p.mu > 1e300) {
        return 0; /* known limitation (docs/fuzzing.md): mu alpha overflows near DBL_MAX */
    }
    int maybe_not_spd;
    nscd_status want = expected_status(&p, &maybe_not_spd);
    /* impulses beyond DBL_MAX: the walk finds no end and says NOT_SPD */
    double un = fz_max_abs(p.u0, 2), gmax = fz_max_abs(p.G, 4);
    int extreme = !(un < 1e150 && gmax < 1e150 && gmax > 1e-150);
    if ((maybe_not_spd || extreme) && st_ex == NSCD_ERR_NOT_SPD) {
        want = NSCD_ERR_NOT_SPD;
    }
    FZ_REQUIRE(st_ex == want, "routh_impact_ex: status %d (%s), expected %d", FZ_STATUS_ARGS(st_ex),
               (int)want);
    /* nscd_routh_impact has P and u1 instead of the result struct */
    problem plain = p;
    plain.bad_size = 0;
    plain.null_arg = p.null_arg == 5 ? 0 : p.null_arg;
    int maybe_plain;
    nscd_status want_plain = expected_status(&plain, &maybe_plain);
    if (p.null_arg == 3 || p.null_arg == 4) {
        want_plain = NSCD_ERR_NULL_POINTER;
    } else if ((maybe_plain || extreme) && st == NSCD_ERR_NOT_SPD) {
        want_plain = NSCD_ERR_NOT_SPD;
    }
    FZ_REQUIRE(st == want_plain, "routh_impact: status %d (%s), expected %d", FZ_STATUS_ARGS(st),
               (int)want_plain);
    if (st_ex != NSCD_OK) {
        FZ_REQUIRE(memcmp(&res, &untouched, sizeof res) == 0, "result written on failure");
    }
    if (st != NSCD_OK) {
        FZ_REQUIRE(P[0] == sentinel && P[1] == sentinel && u1[0] == sentinel && u1[1] == sentinel,
                   "P or u1 written on failure");
    }
    if (st_ex != NSCD_OK) {
        return 0;
    }
    if (st == NSCD_OK) {
        FZ_REQUIRE(fz_same_bits(P, res.impulse, 2) && fz_same_bits(u1, res.velocity, 2),
                   "nscd_routh_impact and nscd_routh_impact_ex differ");
    }
    if (extreme) {
        return 0; /* known limitation (docs/fuzzing.md): the impulse may overflow to inf */
    }
    check_result(&p, &res);

    if (c.active) {
        return 0;
    }
    /* mirror image: the tangent reversed */
    double Gm[4] = {p.G[0], -p.G[1], -p.G[2], p.G[3]}, um[2] = {-p.u0[0], p.u0[1]};
    nscd_routh_result m;
    m.struct_size = sizeof m;
    FZ_REQUIRE(nscd_routh_impact_ex(Gm, um, p.mu, p.e, &m) == NSCD_OK, "mirror image failed");
    double pn = fz_norm(res.impulse, 2);
    FZ_REQUIRE(fabs(m.impulse[0] + res.impulse[0]) <= 1e-12 * pn &&
                   fabs(m.impulse[1] - res.impulse[1]) <= 1e-12 * pn,
               "mirror image: P = (%.17g, %.17g), mirrored (%.17g, %.17g)", res.impulse[0],
               res.impulse[1], m.impulse[0], m.impulse[1]);
    /* scale covariance */
    double G4[4] = {4.0 * p.G[0], 4.0 * p.G[1], 4.0 * p.G[2], 4.0 * p.G[3]};
    double u16[2] = {16.0 * p.u0[0], 16.0 * p.u0[1]};
    FZ_REQUIRE(nscd_routh_impact_ex(G4, u16, p.mu, p.e, &m) == NSCD_OK, "scaled problem failed");
    FZ_REQUIRE(fabs(m.impulse[0] - 4.0 * res.impulse[0]) <= 4e-12 * pn &&
                   fabs(m.impulse[1] - 4.0 * res.impulse[1]) <= 4e-12 * pn,
               "not scale covariant: P = (%.17g, %.17g), scaled problem gives (%.17g, %.17g) / 4",
               res.impulse[0], res.impulse[1], m.impulse[0], m.impulse[1]);
    return 0;
}
