"""Independent gaps of the clearance joints for tests/unit/test_clearance_joints.c.

The gaps of seed 004, Sect. 3 computed from their geometric definitions
(point-to-line and point-to-plane distances with numpy), not from the C
formulas: a hole body at x_h with quaternion q_h, its hole frame at s_h in
the body frame; the pin (guide) fixed in the world with its frame rotated by
q_p about the origin. Prints the numbers the test asserts.

Run: /usr/bin/python3 tests/unit/joints_reference.py
"""
import numpy as np


def rot(q):
    w, x, y, z = np.asarray(q, float) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


x_h = np.array([0.5, -3e-5, 2e-5])
q_h = np.array([1.0, 2e-5, -1e-5, 3e-5])
s_h = np.array([-0.5, 0.0, 0.0])
q_p = np.array([1.0, 0.0, 0.0, 0.0])
R_h, R_p, L_h, L_p = 0.0101, 0.01, 0.05, 0.0502

Rb = rot(q_h)
centre = x_h + Rb @ s_h
axis_h = Rb @ np.array([0.0, 0.0, 1.0])
axis_p = rot(q_p) @ np.array([0.0, 0.0, 1.0])
gaps = []
for side in (-0.5, 0.5):  # radial gaps: c - distance of the hole end to the pin axis
    r = centre + side * L_h * axis_h
    dist = np.linalg.norm(np.cross(r, axis_p))  # |r x a| for a line through the origin
    gaps.append((R_h - R_p) - dist)
for side, sign in ((-0.5, 1.0), (0.5, -1.0)):  # stops at -/+ L_p/2 against the hole's end faces
    r = centre + side * L_h * axis_h
    gaps.append(sign * (r @ axis_p - side * L_p))
print("revolute gaps:", ", ".join("%.17g" % g for g in gaps))

# Prismatic: equilateral cavity (circumradius 0.02, apex up), clearance 3e-4,
# slider length 0.1; the slider's section is the cavity shrunk by c: a
# similar triangle of inradius r - c (same centre), so each vertex sits on
# the bisector of its corner.
c, Ls = 3e-4, 0.1
ang = np.pi / 2 + 2 * np.pi / 3 * np.arange(3)
Q = 0.02 * np.stack([np.cos(ang), np.sin(ang)], 1)
inr = 0.02 * 0.5
P = Q * (inr - c) / inr
x_s = np.array([1e-4, -2e-4, 0.3])
q_s = np.array([1.0, 2e-4, -1e-4, 3e-3])
Rs = rot(q_s)
out = []
for face in (-0.5, 0.5):
    for k in range(3):
        p = x_s + Rs @ np.array([P[k, 0], P[k, 1], face * Ls])
        for e in ((k - 1) % 3, k):
            a, b = Q[e], Q[(e + 1) % 3]
            t = b - a
            m = np.array([-t[1], t[0]]) / np.linalg.norm(t)  # inward (left) normal
            out.append(m @ (p[:2] - a))
print("prismatic gaps:", ", ".join("%.17g" % g for g in out))
