#!/usr/bin/python3
"""Writes the committed seed corpus of the libFuzzer targets, tests/fuzz/corpus/<target>/.

Each input is built with the encoding of tests/fuzz/fuzz_common.h (bytes, u16
little-endian words mapped linearly or logarithmically onto ranges) in the
order the target's decode() reads it; the comment at the top of every
tests/fuzz/fuzz_<target>.c lists that order. File names:

    seed-*      hand-made valid (and a few invalid) problems of every kind
    regress-*   inputs that found a library bug that is now fixed
    known-*     reproducers of the known issues of docs/fuzzing.md (they pass
                unless the fuzzers are built with -DNSCD_FUZZ_STRICT=ON)

Run it from anywhere: /usr/bin/python3 tests/fuzz/make_seeds.py [--check]
With --check it only verifies that the committed corpus is what it writes.
"""
import base64
import math
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")

# fz_special() indices
NAN, INF, NEG_INF, MINUS_ONE, ZERO, NEG_ZERO, E300, NEG_E300, E_300, TWO, DBL_MAX, NEG_DBL_MIN = range(12)


class Input:
    """Bytes in the order a target reads them."""

    def __init__(self):
        self.data = bytearray()

    def u8(self, v):
        self.data.append(int(v) & 0xFF)
        return self

    def u16(self, v):
        self.data += struct.pack("<H", int(v) & 0xFFFF)
        return self

    def unit(self, x):
        """fz_unit: x in [0, 1]."""
        x = min(max(x, 0.0), 1.0)
        return self.u16(round(x * 65535.0))

    def range(self, x, lo, hi):
        return self.unit((x - lo) / (hi - lo))

    def sym(self, x):
        return self.range(x, -1.0, 1.0)

    def decade(self, x, lo, hi):
        return self.range(math.log10(x), lo, hi)

    def clean(self):
        """No corruption (selector byte < 224)."""
        return self.u8(0)

    def corrupt(self, index, special):
        return self.u8(255).u8(index).u8(special)

    def bytes(self):
        return bytes(self.data)


class Raw(Input):
    """An input as the fuzzer found it (base64), for reproducers."""

    def __init__(self, b64):
        super().__init__()
        self.data = bytearray(base64.b64decode(b64))


def raw(b64):
    return Raw(b64)


# --------------------------------------------------------------- single contact


def single_contact(mode=0, sA=1.0, sb=1.0, L=(1, 1, 1, 0, 0, 0), b=(1, 0, 0), mu=0.5,
                   custom=False, mu_zero=False, bn_zero=False, tol=1e-12, maxit=50,
                   safeguard=1, cap=6):
    """L: (l00, l11, l22) in [10^-1.5, 1] and (l10, l20, l21) in [-1, 1] (mode 0-2),
    or the raw upper triangle (A00, A11, A22, A01, A02, A12) in [-1, 1] (mode 3)."""
    i = Input()
    flags = mode | (4 if custom else 0) | (8 if mu_zero else 0) | (16 if bn_zero else 0)
    i.u8(flags).decade(sA, -6, 6).decade(sb, -6, 6)
    if mode < 3:
        for d in L[:3]:  # stored as v with d = 10^(-1.5 v)
            i.unit(-math.log10(d) / 1.5)
        for o in L[3:]:
            i.sym(o)
    else:
        for a in L:
            i.sym(a)
    for x in b:
        i.sym(x)
    i.range(mu, 0, 2).decade(tol, -14, -4).u8(maxit).u8(safeguard).u8(cap)
    return i


def single_contact_seeds():
    s = {}
    s["seed-stick"] = single_contact(b=(1, 0.1, 0), mu=0.5).clean()
    s["seed-slide"] = single_contact(b=(1, 0.8, 0.5), mu=0.3).clean()
    s["seed-separating"] = single_contact(b=(-0.5, 0.3, 0.2), mu=0.5).clean()
    s["seed-frictionless"] = single_contact(b=(0.7, 0.3, -0.2), mu_zero=True).clean()
    s["seed-coupled"] = single_contact(L=(0.5, 0.3, 0.8, 0.6, -0.4, 0.2), b=(0.6, -0.5, 0.9),
                                       mu=0.8, sA=1e3, sb=1e-2).clean()
    s["seed-coupled-custom"] = single_contact(L=(0.2, 0.9, 0.4, 0.9, 0.7, -0.3), b=(0.2, 0.9, -0.6),
                                              mu=1.2, custom=True, tol=1e-10, maxit=30,
                                              safeguard=0).clean()
    s["seed-grazing"] = single_contact(L=(0.1, 1, 1, 0.8, 0.5, 0), b=(0.3, 0.5, 0.4), mu=1.5,
                                       bn_zero=True).clean()
    s["seed-raw-indefinite"] = single_contact(mode=3, L=(0.5, -0.2, 0.7, 0.1, 0.3, 0.2),
                                              b=(0.4, 0.1, 0.1)).clean()
    s["seed-nan"] = single_contact(b=(1, 0.5, 0)).corrupt(4, NAN)
    s["seed-negative-mu"] = single_contact(b=(1, 0.5, 0)).corrupt(12, MINUS_ONE)
    # mu = 1e-300: the impulses' squares underflowed in nscd__norm2, x_n came out 0
    s["regress-tiny-mu"] = single_contact(L=(0.6, 0.8, 0.9, 0.5, -0.3, 0.1), b=(0.9, 0.7, -0.2),
                                          sA=1e5, sb=1e5).corrupt(12, E_300)
    # fixed (was known issue 2; the degenerate conics of issue 28): b_n = 1e-300 against
    # |b_t| ~ 1, A_nn < mu ||a||: the MDP solution was far from optimal
    s["regress-near-grazing-mdp"] = single_contact(L=(10 ** -1.5, 1, 1, 1, 1, 0), b=(0.5, 1, -1),
                                                 mu=1.0).corrupt(9, E_300)
    # fixed (was known issue 2), as the fuzzer found it: the enumeration lists no solution at all
    s["regress-near-grazing-enumeration"] = raw(
        "AOvrY99j//////z/3+Dg4ODg4ODgMQD5efn52fn5+fngsrL5srIDCAE=")
    # fixed (was known issue 2), as the fuzzer found it: b_n / |b_t| ~ 1e-5, mu ||a|| just above A_nn;
    # the MDP impulse is 1e-4 (relative) worse than a Coulomb solution admissible for it
    s["regress-hyperbola-mdp"] = raw("AAAI//8AAAAAJ4cAgP//AQYAgAD6AAgAgACA////vwAaPwAgYAA=")
    # fixed (was known issue 2), as the fuzzer found it in a clean clone (b_n / |b| = 0.24): A^-1 b lies
    # just outside the cone; the enumeration lists one far solution and misses the sliding
    # one next to the cone's boundary that nscd_coulomb_single_contact finds
    s["regress-hyperbola-enumeration"] = raw("BAAUAAAAECeHAID//wEGIID/mZky8zMznpn/mf+/gA==")
    # fixed (was known issue 2), as the fuzzer found it: near grazing (b_n / |b| = 2e-11) the enumeration
    # lists a solution whose Coulomb residual is 6e-7 (relative)
    s["regress-near-grazing-accuracy"] = raw("AAD0PwD///oI/8cAAID/AQYBgAAGDwCdgACE//9L/9sV5AA/AGHHAIA=")
    # ... and on the separating side (b_n / |b| = -1e-10)
    s["regress-near-grazing-accuracy-separating"] = raw(
        "AAD0PwD///oI/8cAAID/AQb4fwAGDwCdgACE//9L/9sV5AA/AGHHAIA=")
    # ... and next to the parabola (A_nn within 1e-4 of mu ||(A_nt, A_no)||, an ellipse by a
    # hair): the MDP impulse 3e-6 (relative) worse than a Coulomb solution ...
    s["regress-parabola-mdp"] = raw("AAAI/ycAAAAAJ4cggP//AQYAgAD6BAj/f///////AP8A678IACwaYw==")
    # ... and the Coulomb solution missing from the enumeration
    s["regress-parabola-enumeration"] = raw("BAAI//8AAAAAJYcAgP7/AQYAgAD6BgAAgDHzmdkEPw==")
    # ... and nscd_coulomb_single_contact with a loose tolerance (3e-5) on an ellipse 2e-3
    # from the parabola: converged after one iteration to a far point of the conic, 140 times
    # the only solution (the residual's scale ||A^-1 b|| is 500 times that solution); found
    # by `make test` on another machine
    s["regress-parabola-coulomb"] = raw("BAAI/v8AAAAAJYcqgL7/AQU/gAD6BgAAgDHzmdkE")
    # ... and near grazing on a hyperbola (b_n / |b| = 1e-5): a point of the conic section
    # beats the MDP impulse by 2e-5 (relative)
    s["regress-near-grazing-section"] = raw("AAAI/ycAAC0AJ4fgfv//AQYAgAD6BAj/f////xpj")
    # issue 28, found by the first strict session after the fix: the near-parabola problem of
    # regress-parabola-enumeration with tolerance 8.5e-10; Newton stopped at a far point of
    # the conic (residual 6e-10 relative, 4e11 from the only solution)
    s["regress-parabola-coulomb-tolerance"] = raw("BAAI//8AAAAAJYcAgP7/AQYAgAD6BgAAgDF+mdkEPw==")
    # ... and b_n = 1e-300 on a hyperbola whose b_n = 0 minimum lies at |t| ~ 800 where
    # c0 sinh(sigma) overflowed (c0 = mu b_n / A_nn ~ 1e-305): the search now forms t by exp
    s["regress-near-grazing-far-branch"] = raw("AOvrY//fAQasgAD6BgAAgjHg4ODgMPf5efn52fn5+fngsvmysgMIAQ==")
    # ... and b_n = 1e-300 on a hyperbola whose sliding root (d against b_to, x_n = 2.9e-291)
    # lies 3.5e-10 rad from a zero of D: the pair was one root for the quartic and the grid,
    # and nothing was listed (the waiver grazing_hyperbola of fuzz_single_contact.c until
    # then); now found from the zeros of p and D themselves
    s["regress-near-grazing-root-pair"] = raw("AACAAAMAAAAAAAD/////AID/ZAAAAIAAgDAyMgE//wkI")
    return s


# --------------------------------------------------------------- LCP


def lcp(cls, n, entries, q, sM=1.0, sq=1.0, d=0.1, skew=(), w_null=False):
    i = Input()
    i.u8(cls | (4 if w_null else 0) | (8 if cls == 3 else 0)).u8(n).decade(sM, -8, 8).decade(sq, -8, 8).decade(d, -3, 0)
    assert len(entries) == n * n
    for x in entries:
        i.sym(x)
    if cls == 1:
        assert len(skew) == n * (n - 1) // 2
        for x in skew:
            i.sym(x)
    for x in q:
        i.sym(x)
    return i


def pseudo(k, n):
    """Deterministic numbers in [-1, 1]."""
    return [math.sin(1.0 + 2.3 * (k + 1) * (j + 1)) for j in range(n)]


def lcp_seeds():
    s = {}
    s["seed-n1"] = lcp(0, 1, [0.8], [-0.5]).clean()
    s["seed-n3-spd"] = lcp(0, 3, pseudo(1, 9), pseudo(2, 3)).clean()
    s["seed-n6-nonsymmetric"] = lcp(1, 6, pseudo(3, 36), pseudo(4, 6), skew=pseudo(5, 15)).clean()
    s["seed-n8-dominant"] = lcp(2, 8, pseudo(6, 64), pseudo(7, 8), d=0.5, w_null=True).clean()
    s["seed-n12-scaled"] = lcp(0, 12, pseudo(8, 144), pseudo(9, 12), sM=1e6, sq=1e-4).clean()
    s["seed-raw"] = lcp(3, 2, [0.3, -0.9, 0.8, 0.1], [-0.4, 0.2]).clean()
    s["seed-bad-n"] = lcp(0, 2, pseudo(10, 4), pseudo(11, 2)).corrupt(0, MINUS_ONE)
    s["seed-nan"] = lcp(0, 2, pseudo(12, 4), pseudo(13, 2)).corrupt(4 + 1, NAN)
    # M ~ 1e8 [[1, .5], [.5, 1]], q ~ (-0.5, -1): the sign test of z was in the units of q
    # and accepted a basic z_0 ~ -1e-21 (|z| = 1e-8): z and w were off by 1e-6 relative.
    # Raw words, found by searching the quantized inputs (emulating the old tolerance).
    r = Input().u8(3 | 8).u8(2).decade(1e8, -8, 8).decade(1.0, -8, 8).decade(0.1, -3, 0)
    for u in (65535, 49151, 49151, 65477, 16355, 0):
        r.u16(u)
    s["regress-scale-of-m"] = r.clean()
    return s


# --------------------------------------------------------------- fc3d


def fc3d(n, mode, model, q, mu, law=0, jacobi=False, warm=None, approach=True, one_mu=False,
         heap=None, sW=1.0, sq=1.0, tol=1e-10, maxit=200, relax=1.0, weight=0.5, groups=2,
         newton=0):
    """model: mode 0/1 (bodies, [(mass, (i1, i2, i3))], [(sel, (a, b, c), (x, y, z))]),
    mode 2 (k, J entries, d), mode 3 (9n^2 entries). newton: 0 the flags' method, 1 Newton,
    2 AUTO, 3 PROX (in the groups byte)."""
    i = Input()
    flags = (mode | (4 if law else 0) | (8 if jacobi else 0) | (16 if warm else 0) |
             (32 if approach else 0) | (64 if one_mu else 0) | (128 if heap is not None else 0))
    i.u8(n - 1).u8(flags).decade(sW, -6, 6).decade(sq, -6, 6).decade(tol, -12, -5)
    i.u16(maxit - 1)
    if relax == 1.0:
        i.unit(0.0)
    else:
        i.unit(0.5 + (relax - 0.2) / 1.6)
    i.range(weight, 0.1, 1.0).u8(groups - 1 + 9 * newton).u8(255 if heap is None else heap)
    if mode <= 1:
        bodies, body_data, contacts = model
        i.u8(bodies - 1)
        for m, inertia in body_data:
            i.decade(m, -1, 1)
            for x in inertia:
                i.decade(x, -1, 1)
        for sel, angles, arm in contacts:
            i.u8(sel).range(angles[0], 0, 3.14159265358979).range(angles[1], 0, 6.2831853071796)
            i.range(angles[2], 0, 6.2831853071796)
            for x in arm:
                i.sym(x)
    elif mode == 2:
        k, J, d = model
        i.u8(k - 1)
        for x in J:
            i.sym(x)
        i.decade(d, -4, 0)
    else:
        for x in model:
            i.sym(x)
    for x in q:
        i.sym(x)
    for x in (mu[:1] if one_mu else mu):
        i.range(x, 0, 1.5)
    if warm:
        for x in warm:
            i.sym(x)
    return i


def mechanical(n, bodies):
    body_data = [(1.0 + 0.5 * b, (1.0, 0.5 + 0.3 * b, 2.0)) for b in range(bodies)]
    contacts = []
    for j in range(n):
        sel = (j % bodies) + bodies * ((j + 1) % (bodies + 1))
        contacts.append((sel, (0.3 + 0.2 * j, 1.0 + 0.7 * j, 0.5 * j),
                         (0.5 * math.sin(j), 0.4 * math.cos(j), -0.3)))
    return (bodies, body_data, contacts)


def fc3d_seeds():
    s = {}
    s["seed-one-contact"] = fc3d(1, 0, mechanical(1, 1), [-0.8, 0.3, 0.1], [0.5]).clean()
    s["seed-chain-coulomb"] = fc3d(4, 0, mechanical(4, 3), pseudo(1, 12), [0.3, 0.6, 0.2, 0.9],
                                   maxit=300).clean()
    s["seed-chain-mdp"] = fc3d(3, 1, mechanical(3, 2), pseudo(2, 9), [0.4, 0.4, 0.4], law=1,
                               one_mu=True).clean()
    s["seed-gram"] = fc3d(6, 2, (12, pseudo(3, 18 * 12), 0.1), pseudo(4, 18), [0.5] * 6,
                          maxit=300, tol=1e-6).clean()
    s["seed-eight-jacobi"] = fc3d(8, 0, mechanical(8, 4), pseudo(10, 24), [0.4] * 8, one_mu=True,
                                  jacobi=True, weight=0.5, groups=3, maxit=300, tol=1e-8).clean()
    s["seed-raw-warm"] = fc3d(2, 3, pseudo(5, 36), pseudo(6, 6), [0.2, 1.0], warm=pseudo(7, 6),
                              relax=0.8).clean()
    s["seed-allocator-fails"] = fc3d(2, 0, mechanical(2, 2), pseudo(8, 6), [0.3, 0.3],
                                     heap=1).clean()
    s["seed-allocator"] = fc3d(3, 0, mechanical(3, 2), pseudo(9, 9), [0.3, 0.1, 0.7],
                               heap=255, law=1, sW=1e-3, sq=1e3).clean()
    s["seed-bad-tolerance"] = fc3d(1, 0, mechanical(1, 1), [-0.5, 0, 0], [0.5]).corrupt(3, ZERO)
    s["seed-newton-chain"] = fc3d(4, 0, mechanical(4, 3), pseudo(1, 12), [0.3, 0.6, 0.2, 0.9],
                                  maxit=50, newton=1).clean()
    s["seed-newton-gram"] = fc3d(6, 2, (12, pseudo(3, 18 * 12), 0.1), pseudo(4, 18), [0.5] * 6,
                                 maxit=100, tol=1e-9, newton=1).clean()
    s["seed-auto-eight"] = fc3d(8, 0, mechanical(8, 4), pseudo(10, 24), [0.4] * 8, one_mu=True,
                                maxit=300, tol=1e-8, newton=2).clean()
    s["seed-newton-allocator-fails"] = fc3d(2, 0, mechanical(2, 2), pseudo(8, 6), [0.3, 0.3],
                                            heap=0, newton=1).clean()
    s["seed-newton-mdp"] = fc3d(3, 1, mechanical(3, 2), pseudo(2, 9), [0.4, 0.4, 0.4], law=1,
                                one_mu=True, newton=1).clean()
    # as the fuzzer found it: AUTO on a near-singular 6-contact J J' + d I problem; with
    # the first, fixed regularisation cap its first Newton phase stopped at 100 steps and a
    # second one converged, and the check had bounded AUTO's Newton steps by max_iterations
    # instead of 2 phases of min(max_iterations, 100) (the adaptive cap needs 15 steps)
    s["seed-auto-two-newton-phases"] = raw(
        "BSIAgACAtm1jAAAAx3FdrP05ItxhEpf/////////F/mNAOP+Dgj36mQnysFVWIqLKZH/UpTGZSP47TIGgf80"
        "AbT3aBUe2Mo+BKcidSpuoi3bOBHdmgG49u4WIdYjQW2kQ9GhjHrPaKmyaTS14AgPifsaAP2XChgAAADHcV2s"
        "/Tki3GESl/mNAOP+Dgj36mQnysFVWIqLKZH/UpTGZSP47TIGgf80AbT3aBUe2Mo+BKcidSpuoi3bOOdoLOK7"
        "1l7GhNuXtkwizNgeSDFJBAEATgIj9U8ZE9O3RIGg53t6Z+izUjOX4WYO4/sOAI/9IwtI5nAtrromYGqDL5l5"
        "SzjN+B3o8fED9v+SApX0HxoK0utFMZ9CfSVmJLX/v4J3FgxyGNGP1/YO4+honwbEIUqeg/sY2ZtawgJVLF2s"
        "jf71zVVVVVVVVVVVVVVVVQA=")
    # since PROX: the proximal method (groups byte), then the optional extras byte after
    # the corruption selector: bit 0 Anderson (memory 1 + bits 1-4), bit 5 skew diagonal
    # blocks (u16 size 10^[-3, 0], for maximum dissipation 10^[-5, -2], 3n x u16 entries)
    s["seed-prox-gram"] = fc3d(6, 2, (12, pseudo(3, 18 * 12), 0.1), pseudo(4, 18), [0.5] * 6,
                               maxit=200, tol=1e-9, newton=3).clean()
    s["seed-prox-eight"] = fc3d(8, 0, mechanical(8, 4), pseudo(10, 24), [0.4] * 8, one_mu=True,
                                maxit=300, tol=1e-8, newton=3).clean()
    s["seed-anderson-chain"] = fc3d(4, 0, mechanical(4, 3), pseudo(1, 12), [0.3, 0.6, 0.2, 0.9],
                                    maxit=300).clean().u8(1 | (4 << 1))
    s["seed-anderson-jacobi-mdp"] = fc3d(3, 1, mechanical(3, 2), pseudo(2, 9), [0.4] * 3, law=1,
                                         jacobi=True, one_mu=True).clean().u8(1 | (2 << 1))
    asym = fc3d(4, 3, pseudo(11, 144), pseudo(12, 12), [0.3, 0.5, 0.7, 0.2], maxit=300,
                newton=2).clean().u8(32).decade(1e-2, -3, 0)
    for x in pseudo(13, 12):
        asym.sym(x)
    s["seed-auto-skew-blocks"] = asym
    asym = fc3d(4, 0, mechanical(4, 3), pseudo(1, 12), [0.3, 0.6, 0.2, 0.9], maxit=300,
                newton=3).clean().u8(32 | 1).decade(0.1, -3, 0)
    for x in pseudo(14, 12):
        asym.sym(x)
    s["seed-prox-skew-anderson"] = asym
    return s


# --------------------------------------------------------------- Routh


def routh(L=(1.0, 1.0, 0.0), s0=1.0, c0=-1.0, mu=0.3, e=0.5, sG=1.0, su=1.0, mode=0,
          s0_zero=False, mu_zero=False, e_flag=None):
    i = Input()
    flags = mode | (4 if s0_zero else 0) | (8 if mu_zero else 0)
    if e_flag is not None:
        flags |= 16 | (32 if e_flag == 1 else 0)
    i.u8(flags).decade(sG, -6, 6).decade(su, -6, 6)
    i.unit(-math.log10(L[0]) / 1.5).unit(-math.log10(L[1]) / 1.5).sym(L[2])
    i.sym(s0).range(c0, -1, 0.05).range(mu, 0, 2).unit(e)
    return i


def routh_seeds():
    s = {}
    # one seed per case of Fig. 4 (found by a grid search over these parameters)
    L = (1.0, 1.0, -0.9)
    s["seed-slip"] = routh(L=L, s0=-0.8, c0=-1.0, mu=0.1, e=0.0).clean()
    s["seed-stick-in-compression"] = routh(L=L, s0=-0.1, c0=-1.0, mu=1.0, e=0.0).clean()
    s["seed-reversal-in-compression"] = routh(L=L, s0=0.1, c0=-1.0, mu=0.1, e=0.0).clean()
    s["seed-stick-in-restitution"] = routh(L=L, s0=-0.1, c0=-0.5, mu=1.0, e=1.0).clean()
    s["seed-reversal-in-restitution"] = routh(L=L, s0=0.3, c0=-0.5, mu=0.1, e=0.5).clean()
    s["seed-from-rest"] = routh(L=(0.8, 0.4, 0.9), s0_zero=True, mu=0.2).clean()
    s["seed-stick"] = routh(L=(0.8, 0.4, 0.1), s0_zero=True, mu=1.5).clean()
    s["seed-frictionless"] = routh(mu_zero=True, e_flag=1).clean()
    s["seed-plastic"] = routh(s0=0.4, mu=0.5, e_flag=0, sG=1e-4, su=1e3).clean()
    s["seed-not-colliding"] = routh(c0=0.04).clean()
    s["seed-raw"] = routh(mode=3, L=(1.0, 1.0, 0.5)).clean()
    s["seed-bad-e"] = routh().corrupt(7, TWO)
    return s


# --------------------------------------------------------------- event-driven stepper

NEWTON, POISSON, ROUTH, KELVIN_VOIGT, HERTZ_DAMPER, HUNT_CROSSLEY, SPRING_DAMPER = range(7)


def stepper(scenario, n, kind, bodies, contacts, g=9.81, L=1.0, t_end=1.0, rk4=False,
            zeno_stop=False, mixed=False, friction=False, fail_after=None, rest=False,
            permanent=False, rtol=1e-10, max_steps=2000, h=1e-4, stop_at=0, fail_at=0,
            theta=0.0):
    """scenario 0 bodies: [(mass, gap, velocity)]; scenario 1 bodies: (mass, rho, points
    [(px, py)], height, (vx, vy, w)); contacts: [(law, e, mu, omega, exponent, sub)]."""
    i = Input()
    flags = (scenario | (2 if rk4 else 0) | (4 if zeno_stop else 0) | (8 if mixed else 0) |
             (16 if friction else 0) | (32 if fail_after is not None else 0) |
             (64 if rest else 0) | (128 if permanent else 0))
    i.u8(flags).u8(n - 1).u8(kind).range(g, 0, 20).decade(L, -2, 1).range(t_end, 0.01, 1.0)
    i.decade(rtol, -10, -6).u16(max_steps - 100).decade(h, -4, -2.5)
    i.u8(stop_at).u8(249 + fail_at if fail_at else 0)
    i.unit(fail_after if fail_after is not None else 0.0)
    vscale = math.sqrt(g * L) + 1.0
    if scenario == 0:
        for m, gap, v in bodies:
            i.decade(m, -1, 1)
            if not rest:
                i.unit(gap / L).range(v / vscale, -3, 3)
    else:
        m, rho, points, height, v = bodies
        i.decade(m, -1, 1).range(rho / L, 0.1, 1.0)
        for px, py in points:
            i.sym(px / L).sym(py / L)
        i.sym(theta / 3.14159265358979)
        if not rest:
            i.unit(height / L)
            for k, x in enumerate(v):
                i.range(x * (L if k == 2 else 1.0) / vscale, -3, 3)
    for law, e, mu, omega, expo, sub in contacts:
        if mixed:
            i.u8(law)
        i.unit(e).unit(mu).decade(omega, 1, 3).range(expo, 1, 2).u8(sub)
    return i


def contact(law=NEWTON, e=0.8, mu=0.0, omega=100.0, expo=1.5, sub=0):
    return (law, e, mu, omega, expo, sub)


def stepper_seeds():
    s = {}
    s["seed-bouncing-ball"] = stepper(0, 1, NEWTON, [(1.0, 1.0, 0.0)], [contact(e=0.8)]).clean()
    s["seed-column-poisson"] = stepper(0, 3, POISSON, [(1.0, 0.2, 0.0), (0.5, 0.3, 1.0),
                                                       (2.0, 0.1, -1.0)],
                                       [contact(POISSON, 0.9), contact(POISSON, 0.5),
                                        contact(POISSON, 0.7)], t_end=0.8).clean()
    s["seed-ball-zeno-stop"] = stepper(0, 1, NEWTON, [(0.3, 0.2, 0.0)], [contact(e=0.5)],
                                       zeno_stop=True).clean()
    s["seed-ball-rk4"] = stepper(0, 1, NEWTON, [(1.0, 0.5, 0.0)], [contact(e=0.9)], rk4=True,
                                 h=1e-3, t_end=0.7).clean()
    s["seed-kelvin-voigt"] = stepper(0, 1, KELVIN_VOIGT, [(1.0, 0.1, -1.0)],
                                     [contact(KELVIN_VOIGT, 0.1, omega=200.0)], t_end=0.5).clean()
    s["seed-hertz-damper"] = stepper(0, 2, HERTZ_DAMPER, [(1.0, 0.1, 0.0), (1.0, 0.1, -2.0)],
                                     [contact(HERTZ_DAMPER, 0.7, omega=300.0, expo=1.5, sub=1),
                                      contact(HERTZ_DAMPER, 0.9, omega=300.0, expo=1.5)],
                                     t_end=0.4, permanent=True).clean()
    s["seed-hunt-crossley"] = stepper(0, 1, HUNT_CROSSLEY, [(0.5, 0.05, -1.0)],
                                      [contact(HUNT_CROSSLEY, 0.6, omega=150.0, expo=1.5, sub=2)],
                                      t_end=0.3).clean()
    s["seed-rod-routh"] = stepper(1, 1, ROUTH, (1.0, 0.3, [(0.5, 0.0)], 0.2, (1.0, -1.0, 2.0)),
                                  [contact(ROUTH, 0.5, 0.3)], friction=True, theta=0.4,
                                  t_end=0.6).clean()
    s["seed-rod-routh-both-ends"] = stepper(1, 2, ROUTH, (1.0, 0.3, [(-0.5, 0.0), (0.5, 0.0)],
                                                          0.2, (1.0, -1.0, 2.0)),
                                            [contact(ROUTH, 0.5, 0.3), contact(ROUTH, 0.5, 0.3)],
                                            friction=True, theta=0.4, t_end=0.6).clean()
    s["seed-box-newton"] = stepper(1, 3, NEWTON, (2.0, 0.4, [(-0.5, -0.3), (0.5, -0.3),
                                                            (0.0, 0.4)], 0.3, (0.5, 0.0, -1.0)),
                                   [contact(e=0.6), contact(e=0.6), contact(e=0.6)],
                                   theta=0.2).clean()
    s["seed-mixed-laws"] = stepper(0, 2, NEWTON, [(1.0, 0.2, 0.0), (1.0, 0.2, -1.0)],
                                   [contact(NEWTON, 0.5), contact(POISSON, 0.5)], mixed=True,
                                   t_end=0.6).clean()
    s["seed-callback-fails"] = stepper(0, 1, NEWTON, [(1.0, 0.5, 0.0)], [contact(e=0.8)],
                                       fail_after=0.5).clean()
    s["seed-handler-stops"] = stepper(0, 1, NEWTON, [(1.0, 0.5, 0.0)], [contact(e=0.8)],
                                      stop_at=2).clean()
    s["seed-negative-mass"] = stepper(0, 1, NEWTON, [(1.0, 0.5, 0.0)],
                                      [contact(e=0.8)]).corrupt(0, MINUS_ONE)
    # as the fuzzer found it: a Hunt-Crossley contact starting at rest (its damping factor
    # is ~ 1/onset velocity) under a fixed RK4 step: the state diverged; a NaN right-hand
    # side of M^-1 b came back from LAPACKE as INVALID_ARGUMENT without a message, and a
    # diverged RK4 step became the state (NaN velocities after the failure)
    s["regress-rk4-divergence"] = raw(
        "w/PQkCwmWqenDacumc5kC2sq5r/2eVaQ//XuvzZmsVZ98eg/B9KYkGljY2NjAAAAAAAAAAC3Lqhj626vp+e/JwE=")
    # fixed issue 3 (0.1.0 stepper): two masses falling together onto the floor; after the
    # floor impact the touching pair contact approached but was not impacted (penetrated)
    s["regress-stack-falls"] = stepper(0, 2, NEWTON, [(0.1, 0.0, -3.0), (0.1, 0.0, -3.0)],
                                     [contact(e=0.5), contact(e=0.5)], g=0.0, L=0.1,
                                     t_end=0.01).clean()
    # fixed issue 3 (0.1.0 stepper): two masses resting on each other on the floor chattered
    # and sank
    s["regress-stack-rests"] = stepper(0, 2, NEWTON, [(1.0, 0.0, 0.0), (1.0, 0.0, 0.0)],
                                     [contact(e=0.5), contact(e=0.5)], rest=True,
                                     t_end=0.3).clean()
    # fixed issue 3 (0.1.0 stepper): a spinning body's last bounce separated at ~1e-7 m/s,
    # the contact was never armed again, and the body fell through the floor (OK returned)
    s["regress-spinning-body"] = stepper(1, 1, POISSON, (1.166, 0.0361, [(-0.1835, -0.1835)],
                                                       0.0, (3.593, -2.819, -20.29)),
                                       [contact(POISSON, 0.1656)], g=4.16, L=0.2, t_end=0.7728,
                                       rest=False, theta=-3.14159265358979).clean()
    # fixed (2026-11-29), as a long random-seed run found it: a planar body spinning at
    # 433 rad/s, its flight at constant angular velocity taken in 0.07 s steps (30 rad);
    # the quarter samples aliased the corner's pass through the floor and advance returned
    # OK with the point 1 cm below it (event location now refines unresolved samples)
    s["regress-aliased-spin"] = raw(
        "AQAAAP8QAAFaLwqtQgNfv1ldoYop+6O/PzUFBW8/AAAAAAAAAADFAABsBwAAAImI5hYZQSVlKgAAAIAAgAAA")
    # known issue 3 (two-stage stepper), as the fuzzer found it: a column of three masses
    # (Poisson); impacts of the two lower contacts go round at one instant, then the masses
    # fall through the floor (gap -3.8 m at t_end, advance returns OK)
    s["known-impact-rounds"] = raw(
        "AAIBkX2qqkjMAAAAgGwHAAAAAAAAAIAzMwCAd1nMTFOKiKaaGax1ZuYAAACAAIAAAAAAAAAAgAAAAIAAgAAzswAAAI"
        "AAgAAA")
    # fixed (2026-11-29; was known issue 3), as the fuzzer found it: a planar body spinning
    # at 64 rad/s on one contact point (Routh); an impact was missed, the point found 11 cm
    # below the floor, the contact closed and projected back: +4 % energy
    s["regress-missed-impact-spin"] = raw(
        "EQACkX2qMJCYAABsBwAAAAAAAACA4zgA/78AgEyQMzNGiqx1vwCAXQJMzEwA9SiAAIAAAAA=")
    # known issue 3 (two-stage stepper), as the fuzzer found it: a planar body spinning at
    # 392 rad/s on two contact points (Routh); an impact is located 0.3 ms late, with a point
    # 2 mm below the floor, and then fails as a simultaneous impact of two Routh contacts
    s["known-late-impact-spin"] = raw(
        "EQECkX0AAIBJSUlJSUlJSUlJSUn/X3APBzQKSUlJSUmAzMz/AIBBfv+7zMw=")
    # known issue 5 (and 3), as the fuzzer found it: a body spinning at 395 rad/s with
    # Hunt-Crossley contacts; the onset is found late, 14 mm deep, at a gap velocity of
    # -7e-10 m/s: the damping factor ~ 1/velocity overflows, advance fails with NOT_FINITE
    s["known-hunt-crossley-onset"] = raw(
        "EQEhApGqALiqOpB9AGwHAAABAAAoAAAAAACA4zAB/wD//wAA//+/////AIAAAILMTEzp9nlWkP/17r829LFWffEzEQAzLooCkQ==")
    # known issue 4, as the fuzzer found it: three contact points of a planar body impact
    # together; their Delassus matrix has rank 2 and Murty's method cycles (NOT_CONVERGED)
    s["known-redundant-impact"] = raw(
        "AQIAkX2qqv//AABsBwAAAAABAAAAAAAAAJlZ/7+bWQCAMrMmiMxMKYUAgKx1mZkAAACAAIAAEQACkX09qiqQb5lHIK4hAI"
        "AAAA==")
    return s


def world_seeds():
    """fuzz_world: scenes and call sequences from fixed pseudo-random bytes
    (the target decodes any bytes; longer inputs reach more operations), and
    one crafted scene of spheres only, stepped, whose energy is checked."""
    import random
    seeds = {}
    for k, n in enumerate((200, 400, 800, 1500, 3000)):
        seeds["random-%d" % k] = raw(base64.b64encode(random.Random(2511 + k).randbytes(n)))
    spheres = Input()
    spheres.range(-3.0, -4.0, math.log10(2e-3))  # dt = 1 ms (its decade)
    spheres.u8(9).range(0.5, 0.0, 1.0).u8(0).u8(0).u8(0).range(1.0, 0.2, 1.0)  # sweeps ... relaxation
    spheres.range(0.005, 0.0, 0.01).u8(0).u8(7)  # margin, combine, 8 bodies
    for b in range(8):
        spheres.u8(0).range(0.05 + 0.03 * b, 0.05, 0.3)  # a sphere and its radius
        for c in range(3):
            spheres.sym(0.1 * (b - 4) * (c + 1) / 3.0).sym(0.3 * (-1) ** (b + c)).sym(0.0)
        spheres.unit(0.0).sym(0.0).sym(0.0).sym(0.0)
    for op in range(48):
        spheres.u8((0, 7, 6, 4, 5, 1, 8, 2)[op % 8]).u8(op)
        spheres.u8(7).u16(40000 + 97 * op).u16(30000 - 53 * op).u16(20000 + 11 * op)
    seeds["crafted-spheres"] = spheres
    # fixed 2026-11-29 (World 1, docs/fuzzing.md): warm start + Jacobi groups + one
    # sweep added energy; the warm start is now scaled to add none
    seeds["regress-warm-jacobi-energy"] = raw(
        "ZqYAgN5dmVkAgMxMZqYAgAAAAIAAgACAALgeM3OZWQCAZmZmpgCAmVmZWQCAAAAAgACAAIAAcD13d2amAIDubplZAIBmZmamAIAAAACAAIAAgAApXLt7mVkAgHd3ZqYAgDNzmVkAgAAAAIAAgACAAOF6AIBmpgCAAICZWQCAAIBmpgCAAAAAgACAAIAAmZlEhJlZAICIiGamAIDMjJlZAIAAgACAAIAAgABRuIiIZqYAgBCRmVkAgJmZZqYAgAAAAIAAgACAAAnXzIyZWQCAmZlmpgCAZqaZWQD9AAAAgACAAIAAAAdAnDV1IE4HAQehnPt0K04GAgcCncZ0Nk4EAwdjnZF0QU4FBAfEnVx0TE4BBQclnid0V04IBgeGnvJzYk4CBwfnnr1zbU4ACAdIn4hzeE4HCQepn1Nzg04GCgcKoB5zjk4ECwdroOlymU4FDHd3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3d3dwfMoLRypE4BDQctoX9yr04IDgeOoUpyuk4CDwfviQt5+iEEdCEEdOl0RotoTyvvdvfs")
    # the same issue: 23 sweeps, four groups, relaxation 1: a sphere left the box
    seeds["regress-warm-jacobi-escape"] = raw(
        "dWvo4+zGTbdp/////////////////////////////////////////////////////////////////////////3ll7OEbSW95P0X92oG4DOn372ngGd72qckHPUJ5BtQfFoIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAEQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAgAAAAP//AIAABwAAAO4AgN5dmVkAgAAAAAAAAAAAAEEAAAAAAAAAAAAAAAAAAAAAAAAAAACAAAAAACDVJ90r++wLEAas9pUKY48AAAAAAAAAAAAAAAAAAAAAAADcecU6MW+j2v9d86nFiQt5+iEEdOl0RotoTyvvdvfs")
    # the same issue: velocities overflowed (fixed by the bounded blend weight)
    seeds["regress-warm-jacobi-diverges"] = raw(
        "dWvo4+zGTbdp/////////////////////////////////////////////////////////////////////////3ll7OEbSW95P0X92oG4DOn372nNzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3N4Bne9qnJBz1GeQbUHxaCAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB1a+jj7MZNt2n/////////////////////////////////////////////////////////////////////////eWXs4RtJb3k/Rf3agbgM6ffvaeAZ3vapyQc9QnkGHxbUggAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAy+ghnhrLLVsy8xrPaVCmNRAv0blkkAAAAAAAAAAAAAAAAAAAARAAAAAAAAAAAAAAAMAAAAAAAAAAAAAAAAAAAA")
    # fixed: every grid shape evicted as a stray (bodies thrown far apart by the
    # known issue) made the broad phase convert an infinite extent (UBSan)
    seeds["regress-broad-phase-strays"] = raw(
        "P2OSuIz//////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////////5gGvltsmmAeSUDSXYXhDXsbWSWhDj4Vpfv//3/3XeMYAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAcAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAFFWrE+oOazuwPIn6vbsaUyIgCEZF15ZooRm8IpiWhxidWvo4+zGTbdpeWXs4SFJb3k/Rf3agbgM6QEAAAAAAAAAyQc9QnkG1B////////////////////////////////////////////////////////////////8AAAAAAAAAAAAAAAAAAAAAAAAAAAAA/////////////////////////////////////////////////////////////////////////////////////0PXISIUkLqwNkKgpqxlU9+LT6MZ4ayy1bMvMaz2TyvvlQpjUQL9G5ZJpJLxX3DznFITNAHerFqbdvfsjtTpqnAnjHd8UBZ/HkBCuXC0CGT2R18AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAUVasT6g5rO7A8ifq9uxpTIiAIRkXXlmihGbwimJaHGJ1a+jj7MZNt2l5ZezhIUlveT9F/dqBuAzpAQAAAAAAAADJBz1CeQbUH////////////////////////////////////////////////////////////////wAAAAAAAAAAAAAAAAAAAAAAAAAAAAD/////////////////////////////////////////////////////////////////////////////////////Q9chIhSQurA2QqCmrGVT34tPoxnhrLLVsy8xrPZPK++VCmNRAv0blkmkkvFfcPOcUhM0Ad6sWpt29+yO1OmqcCeMd3xQFn8eQEK5cLR30sE0cux216hvAH7eDxUpv/J/PtZQnIQ8Xiw=")
    # fixed: the same issue without warm start (three groups at relaxation 1, a
    # sphere left the box); the blend weight is now bounded by 1/k
    seeds["regress-jacobi-escape-cold"] = raw(
        "P2OSuIyY/v7+/v7+/v7+9v7+/v7+/v7+/v4s/v4GvmyaYB5JQNJdheENextZJaEOPrrNCwBwGONRVqzGxsbGxsbGxsbGxsbGxoDubplZAIBmZmamAIAAAACAAIAAgAApXLt7mVkAgHd3ZqYAgDNzmVkAgAAAAIAAgACAAOF6AIBmpgCAAICZWQCAAIBmpgCAAAAAgACAAIAAmZlEhJlZAICIiGamAIDMjJlZAIAAAACAAIAAgABRuIiIZqYAgBCRmVkAgJmZZqYAgAAAAIAAgACAAAnXzIyZWQCAmZlmpgCAZqaZWQCAAABmZqYAgAAAAIAAgACAAClcu3uZWQCAd3dmpgCAM3OZWQCAAAAAgACAAIAA4XoAgGamAIAAgJlZAIAAgGamAIAAAACAAIAAgACZmUSEmVkAgIiIZsafn5+fn5+fn5+fn5+fn5+fn5+fn5+fn5+fn5+fn5+fn5+fn5+fn5+fn5+fn5+fn5+fn5+fn5+fn5+fn5+fn5+fxsbGxsbGxsbGxsbGxsbGxsbGxsbGxsbGxsbGxsbGxsbGxsbGxsbGxk+oOKzuwPIn6vbsaUyIgCEZF15ZooRAZvCKYlocYt2Xs4mDhpWYduLrZrL1N7hsQ6UWxsbGxsbGxsbGxsbGxk+oOKzuwPIn6vbsaUyIgCEZF15ZooRm8IpiWhxi3ZeziZWYduLrZrL1M7hsQ6UWjnC0CGT2R1920sEzcux216hvAH7eDxUpv0dfdtLBM3Lsdiz/")
    # fixed: four groups at relaxation 1 diverged to finite velocities of 1e150 and an
    # infinite merit, reported NSCD_OK (CI, issue 26 session); bounded blend weight
    seeds["regress-jacobi-infinite-merit"] = raw(
        "dWvo4+zGTbdp/////////////////////////////////////////////////////////////////////////3ll7OEbSW95P0X92oG4DOn372ngGd72qckHPUJ5BtQfFoIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAC0AAAAAAAAAAAAAEQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAD0AgAAAAP//AIAABwAAAO4AgN5dmVkAgAAAAAAAAAAAAEEAAAAAAAAAAAAAAAAAAAAAAAAAAACAAAAAACDVJ90r++wLEAas9pUKY48AAAAAAMTECQCAAAAA//8AgAAHAAAA7m5mpgCA3l2ZWQCAzExmpgCAAAAAgACAAIAAuB4zc5lZAIBmZmamAICZWZlZAIAAAACAAIAAgABwPXd3ZqYAgO5umVkAgGZmZgAApgCAAAAAgACAAIAAKVy7e5lZAIB3d2amAIAzc5lZAIAAAACAAIAAgADhegCAZqYAgACAmVkAgACAZqYAgAAAAIAAAAAAAAAAAAAAAADcecU6MW+j2v9d86nFiQt5+iEEdOl0Rov//////////////////////////////////////////////////////////////////////////4AAgACZmUSEmVkAgIiIZqYAgMyMmVkAgAAAAIAAgACAAFG4iIhmpgCAEJGZWQCAmZlmpgCAAAAQgACAAIAACdfMjJlZAICZmWamAIBmpplZAIAAAACAAIAAgAAAB0CcMHUgTgcBB6Gc+3QrTgYCBwKdxnQ2TgQDB2OdkXRBTgUEB8SdXHRMTgEFByWeJ3RXTggGB4ae8nNiTgIHB+eevXNtTq0ACAdIn4hzeE4HCQepn1Nzg04GCgcKoB5zjk4ECwdroOlymU5oTysFDAfMoLRypE4BDQctoX9yr04IDgeOoUpyuk4CDwfvoRVyxU4AEAdQouBx0E4HEQexoqtx204GEgcSo3Zx5k4EEwdzo0Fx8U4FFAfUowxx/E4BFQc1pNdwB08IFgeWpKJwEk8CFwf3pG1wHd2FNJYWmbyUqPRmNz0ZqEIUZ6NPABgHWKU4cChPBxkHuaUDcDNPBhoHGqbObz5PBBsHe6aZGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoa73b37BoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoazqnZzIMaGhoaGhoaGhoaGhoaGhoaGhoab0lPBRwH3KZkb/6fw7RbHGtJ+Xrhs09yr/LNiQQDG1R1")
    # fixed 2026-11-29 (World 2): one warm-started Gauss–Seidel sweep raised the
    # energy by 3e-4 of its value over two steps
    seeds["regress-warm-gs-energy"] = raw(
        "APQAAAmA/wAA8ADw8ADw+PDwAAB0YAAAADAAADIAABAAAAAA8PDw8Pjw8AB0FwAJCQ==")
    # a converged warm-started blend gained 6.4e-8 J, within the first-order lift
    # of the tolerance that the fuzzer now allows (long run, 27 924 executions)
    seeds["regress-converged-lift"] = raw(
        "dWvo4+zGTbdp/////wAAAAAAAAAADQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA//////////////////////////////////8AAAAADQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA////////////////////////////////////////////////////////////////////eWXs4RtJb3k/Rf3agbgM6ffvac3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3NAQAAAM3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3Nzc3NzQ4Azc3Nzc3Nzc3///////////////////////////////95ZezhG0lveT9F/dqBuAzp9+9p4Bne9qnJBz1CeQYfFtSCAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAADL6CGeGsstWzLzGs9pUKY1EC/RtOBwEHoZz7dCsAAAAAAAAAABEAAJH//////////////////////////////////3d3d3d3nr1zbU4ACAdIn4hzeE4HCRapn1Nzg04GCgcKoB5zjk4ECwdroOlymU4FDHd3d3d3d3d3d3d3dwAADAAAAAAAAAAAAAAAAAA=")
    return seeds


TARGETS = {
    "single_contact": single_contact_seeds,
    "lcp": lcp_seeds,
    "fc3d": fc3d_seeds,
    "routh": routh_seeds,
    "event_driven": stepper_seeds,
    "world": world_seeds,
}


def main():
    check = "--check" in sys.argv[1:]
    bad = 0
    for target, make in TARGETS.items():
        folder = os.path.join(CORPUS, target)
        os.makedirs(folder, exist_ok=True)
        for name, data in make().items():
            path = os.path.join(folder, name)
            payload = data.bytes()
            if check:
                if not os.path.exists(path) or open(path, "rb").read() != payload:
                    print("differs: %s" % path)
                    bad += 1
            else:
                with open(path, "wb") as f:
                    f.write(payload)
    if check:
        print("make_seeds: %s" % ("corpus up to date" if bad == 0 else "%d files differ" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
