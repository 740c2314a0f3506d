#!/usr/bin/env python3
"""An fc3d problem from numpy arrays: the impact of a granular packing with
friction, solved by nscd.fc3d_solve_bsr with Coulomb's law and with maximum
dissipation. The Python twin of one case of examples/fc3d_bench.c (the same
packing, contact order and Delassus blocks, bit for bit).

A jittered face-centred cubic packing of equal spheres (the grains of seed
002, Sect. 4.3: diameter 0.47 mm, density 2.65 g/cm^3, 10 % vacancies) sits in
a channel with walls in y and z; every touching pair and every sphere touching
a wall is a contact with frame (n, t, o), n from the first body to the second.
W = H M^-1 H' is assembled in 3x3 blocks (block CSR) and q = H v from the
paper's inflow velocities (1 m/s along x plus uniform +-0.5 m/s across); the
solver finds impulses r and contact velocities u = W r + q with r_j in the
friction cone of mu and the chosen law.

usage: fc3d_granular.py [--contacts 100] [--mu 0.4] [--tolerance 1e-6]
                        [--max-iterations 5000] [--seed 1]        (prints JSON)"""
import argparse
import json
import math
import os
import sys

import numpy as np

try:
    import nscd
except ImportError:  # run from a source tree: the package next to this directory
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import nscd

DIAMETER, DENSITY = 0.47e-3, 2650.0
JITTER, VACANCY = 0.03, 0.1
CONTACTS_PER_CELL = 7.5
MASK64 = 2**64 - 1


class Uniform:
    """The C example's 64-bit linear congruential generator, [0, 1)."""

    def __init__(self, state):
        self.state = state & MASK64

    def __call__(self):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) & MASK64
        return (self.state >> 11) / 9007199254740992.0


def frame(n):
    """Rows n, t, o: a unit normal completed to an orthonormal frame."""
    a = np.array([0.0, 1.0, 0.0]) if abs(n[0]) > 0.6 else np.array([1.0, 0.0, 0.0])
    t = np.cross(n, a)
    t = t / math.sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2])
    return np.array([n, t, np.cross(n, t)])


def packing(nx, ny, nz, uniform):
    """Centres, velocities (linear, angular) and contacts (body a or -1 for a
    wall, body b, frame, point) in the C example's order."""
    d = DIAMETER
    r = 0.5 * d
    a = d * math.sqrt(2.0)
    basis = ((0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5))
    x = []
    for i in range(nx):
        for j in range(ny):
            for k in range(nz):
                for b in basis:
                    if uniform() < VACANCY:
                        continue
                    x.append((a * (i + b[0]) + JITTER * d * (2.0 * uniform() - 1.0),
                              r + a * (j + b[1]) + JITTER * d * (2.0 * uniform() - 1.0),
                              r + a * (k + b[2]) + JITTER * d * (2.0 * uniform() - 1.0)))
    x = np.array(x)
    n_bodies = len(x)
    v = np.zeros((n_bodies, 6))
    for b in range(n_bodies):
        v[b, 0:3] = (1.0, uniform() - 0.5, uniform() - 0.5)
    ly, lz = 2.0 * r + a * (ny - 0.5), 2.0 * r + a * (nz - 0.5)
    # Cell list (cells of one diameter): the same traversal as the C example.
    cell = np.floor(x / d).astype(int) + 1
    members = {}
    for b in range(n_bodies):  # the C lists are filled at the head: newest first
        members.setdefault(tuple(cell[b]), []).insert(0, b)
    walls = (((0.0, 1.0, 0.0), 0.0), ((0.0, -1.0, 0.0), -ly),
             ((0.0, 0.0, 1.0), 0.0), ((0.0, 0.0, -1.0), -lz))
    contacts = []
    for b in range(n_bodies):
        xb = x[b]
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                for dk in (-1, 0, 1):
                    for o in members.get((cell[b][0] + di, cell[b][1] + dj, cell[b][2] + dk), ()):
                        if o <= b:
                            continue
                        n = x[o] - xb
                        dist = math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])
                        if dist > d:
                            continue
                        contacts.append((b, o, frame(n / dist), 0.5 * (xb + x[o])))
        for normal, offset in walls:
            w = np.array(normal)
            if w[0] * xb[0] + w[1] * xb[1] + w[2] * xb[2] - offset - r <= 0.0:
                contacts.append((-1, b, frame(w), xb - r * w))
    return x, v, contacts


def jacobian(x, contact, side):
    """The 3x6 block of one body in one contact: sign F [v - [rho]x w]."""
    b = contact[side]
    f, point = contact[2], contact[3]
    rho = point - x[b]
    sign = 1.0 if side == 1 else -1.0
    return np.hstack([sign * f, sign * np.cross(rho, f)])


def delassus_bsr(x, v, contacts, mass, inertia):
    """W = H M^-1 H' in block CSR with ascending columns, and q = H v, summed in
    the C example's order (so the blocks are the same bits)."""
    m_inv = np.array([1.0 / mass] * 3 + [1.0 / inertia] * 3)
    by_body = {}
    for j, c in enumerate(contacts):
        for side in (0, 1):
            if c[side] >= 0:
                by_body.setdefault(c[side], []).append(j)
    row_ptr, cols, blocks = [0], [], []
    q = np.zeros(3 * len(contacts))
    for j, c in enumerate(contacts):
        row = {}
        for side in (0, 1):
            b = c[side]
            if b < 0:
                continue
            jj = jacobian(x, c, side)
            for r in range(3):
                for e in range(6):
                    q[3 * j + r] += jj[r, e] * v[b, e]
            for k in by_body[b]:
                ck = contacts[k]
                jk = jacobian(x, ck, 0 if ck[0] == b else 1)
                block = np.zeros((3, 3))
                for r in range(3):
                    for cc in range(3):
                        s = 0.0
                        for e in range(6):
                            s += jj[r, e] * jk[cc, e] * m_inv[e]
                        block[r, cc] = s
                row[k] = row[k] + block if k in row else block
        for k in sorted(row):
            cols.append(k)
            blocks.append(row[k])
        row_ptr.append(len(cols))
    return np.array(row_ptr), np.array(cols), np.array(blocks), q


def classify(row_ptr, cols, blocks, q, r, u):
    """Open, sticking and sliding contacts, as the C example counts them."""
    n_open = n_stick = n_slide = 0
    for j in range(len(row_ptr) - 1):
        scale = 1e-6 * (abs(q[3 * j]) + math.hypot(q[3 * j + 1], q[3 * j + 2]))
        k = row_ptr[j] + list(cols[row_ptr[j]:row_ptr[j + 1]]).index(j)
        sj = (blocks[k, 0, 0] + blocks[k, 1, 1] + blocks[k, 2, 2]) / 3.0
        if sj * r[3 * j] <= scale:
            n_open += 1
        elif math.hypot(u[3 * j + 1], u[3 * j + 2]) <= scale:
            n_stick += 1
        else:
            n_slide += 1
    return n_stick, n_slide, n_open


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contacts", type=float, default=100)
    parser.add_argument("--mu", type=float, default=0.4)
    parser.add_argument("--tolerance", type=float, default=1e-6)
    parser.add_argument("--max-iterations", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    cells = args.contacts / CONTACTS_PER_CELL  # the C example's sizing
    nz = int(max(1.0, math.floor(math.cbrt(cells / 8.0))))
    nx = int(max(1.0, round(cells / (2.0 * nz * nz))))
    uniform = Uniform(args.seed * 2654435761 + 12345 + nx)
    x, v, contacts = packing(nx, 2 * nz, nz, uniform)
    mass = DENSITY * math.pi * DIAMETER * DIAMETER * DIAMETER / 6.0
    inertia = 0.1 * mass * DIAMETER * DIAMETER  # 2/5 m R^2
    row_ptr, cols, blocks, q = delassus_bsr(x, v, contacts, mass, inertia)
    n = len(contacts)
    mu = np.full(n, args.mu)
    out = {"example": "fc3d_granular", "mu": args.mu, "tolerance": args.tolerance,
           "bodies": len(x), "contacts": n, "blocks": len(cols)}
    for law in (nscd.Fc3dFrictionLaw.COULOMB, nscd.Fc3dFrictionLaw.MAX_DISSIPATION):
        r, u, info = nscd.fc3d_solve_bsr(row_ptr, cols, blocks, q, mu, friction_law=law,
                                         tolerance=args.tolerance,
                                         max_iterations=args.max_iterations, warm_start=0)
        stick, slide, n_open = classify(row_ptr, cols, blocks, q, r, u)
        # kinetic energy lost: -(1/2 r'W r + r'q), with W r = u - q
        dissipated = -(0.5 * float(r @ u - r @ q) + float(r @ q))
        out[law.name.lower()] = {"converged": info.converged, "iterations": info.iterations,
                                 "merit": info.merit, "dissipated_energy": dissipated,
                                 "sticking": stick, "sliding": slide, "open": n_open}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
