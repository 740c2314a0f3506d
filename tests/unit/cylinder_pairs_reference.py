"""Independent reference for the exact cylinder-cylinder and
capsule-cylinder pairs of tests/unit/test_collision.c (cylinder_pairs_exact),
and of box-cylinder (cylinder_box_against_sampling: BOX_CASES).

Each shape is replaced by a dense sampling of its surface points that can be
extreme along a direction (a cylinder: its two rim circles, 20000 points
each; a capsule: its two end hemispheres, 400000 points each; a box: its 8
corners, a polytope's extreme points), so that the
support function max_x n.x comes from the samples, not from the closed form
the library uses. The signed distance of two convex shapes is the largest
separation min_B n.y - max_A n.x over unit directions n (minus the
penetration depth when they overlap); it is found by a grid of 20000
directions on the coarse samples, then Nelder-Mead on the fine ones from the
5 best. Prints the gap and the normal (from A to B) of each case, as the C
test's table. Run: /usr/bin/python3 tests/unit/cylinder_pairs_reference.py
"""
import numpy as np
from scipy.optimize import minimize

BOX, CYL, CAP = 2, 4, 3


def rotation(axis, angle):
    """Rodrigues: the rotation of `angle` about `axis` (the quaternion the C
    test builds with nscd__q_from_axis_angle)."""
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k


def samples(kind, pos, rot, r, h, fine):
    """r: the half sizes (a tuple) for a box, h unused."""
    if kind == BOX:
        e = np.asarray(r, float)
        local = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1)
                          for sz in (-1, 1)]) * e
    elif kind == CYL:
        n = 20000 if fine else 720
        t = 2 * np.pi * np.arange(n) / n
        ring = np.stack([r * np.cos(t), r * np.sin(t), np.zeros(n)], 1)
        local = np.concatenate([ring + [0, 0, -h], ring + [0, 0, h]])
    else:
        n = 400000 if fine else 4000
        i = np.arange(n) + 0.5
        z = i / n  # a hemisphere, uniform in z
        t = np.pi * (1 + 5 ** 0.5) * i
        s = np.sqrt(1 - z * z)
        cap = np.stack([r * s * np.cos(t), r * s * np.sin(t), r * z], 1)
        local = np.concatenate([cap + [0, 0, h], cap * [1, 1, -1] + [0, 0, -h]])
    return local @ rot.T + pos


def separation(a, b, n):
    return np.min(b @ n) - np.max(a @ n)


def reference(case):
    """Signed distance and normal (from A to B) of one case."""
    shapes = []
    for kind, pos, axis, angle, r, h in case:
        rot = rotation(axis, angle)
        shapes.append((samples(kind, np.array(pos, float), rot, r, h, False),
                       samples(kind, np.array(pos, float), rot, r, h, True)))
    (ac, af), (bc, bf) = shapes
    m = 20000
    i = np.arange(m) + 0.5
    z = 1 - 2 * i / m
    t = np.pi * (1 + 5 ** 0.5) * i
    dirs = np.stack([np.sqrt(1 - z * z) * np.cos(t), np.sqrt(1 - z * z) * np.sin(t), z], 1)
    coarse = np.min(bc @ dirs.T, axis=0) - np.max(ac @ dirs.T, axis=0)
    best, best_n = -np.inf, None
    for k in np.argsort(-coarse)[:5]:
        f = lambda x: -separation(af, bf, x / np.linalg.norm(x))
        res = minimize(f, dirs[k], method="Nelder-Mead",
                       options=dict(xatol=1e-10, fatol=1e-13, maxiter=4000))
        if -res.fun > best:
            best, best_n = -res.fun, res.x / np.linalg.norm(res.x)
    return best, best_n


# kind, position, rotation axis, angle, radius, half height, and the gap
# wanted: B is moved along the normal to it (the C table holds the moved
# position)
CASES = [
    # 0 cylinder standing on a wider one, tilted 10 degrees: a rim point
    [(CYL, (0, 0, 0), (1, 0, 0), 0.0, 0.010, 0.010),
     (CYL, (0.001, 0.002, 0.0212), (1, 0, 0), 0.17453292519943295, 0.008, 0.010), -5e-5],
    # 1 crossed at 60 degrees, both tilted: mantle on mantle, deep (2 mm)
    [(CYL, (0, 0, 0), (0, 1, 0), 1.5707963267948966, 0.010, 0.015),
     (CYL, (0.002, 0.001, 0.018), (0.5, 0.8660254037844386, 0.3), 1.5, 0.010, 0.012), -2e-3],
    # 2 rim on rim: two cylinders tilted toward each other
    [(CYL, (0, 0, 0), (1, 1, 0), 0.6, 0.010, 0.008),
     (CYL, (0.004, -0.003, 0.0265), (1, -0.3, 0.2), 2.2, 0.009, 0.007), -1e-4],
    # 3 rim on mantle, separated within the margin
    [(CYL, (0, 0, 0), (0, 1, 0), 1.5707963267948966, 0.010, 0.015),
     (CYL, (0.003, 0.001, 0.0245), (1, 0.2, 0), 0.7, 0.008, 0.008), 4e-4],
    # 4 capsule end on a cylinder's rim
    [(CAP, (0, 0, 0.027), (1, 0.4, 0), 0.5, 0.005, 0.010),
     (CYL, (0.006, 0, 0), (0, 0, 1), 0.0, 0.010, 0.010), -1e-4],
    # 5 capsule tilted across a lying cylinder, deep (1.5 mm)
    [(CAP, (0.001, 0.002, 0.0135), (0.3, 1, 0.2), 1.3, 0.005, 0.012),
     (CYL, (0, 0, 0), (0, 1, 0), 1.5707963267948966, 0.010, 0.015), -1.5e-3],
    # 6 rim on rim: a tilted cylinder's rim on an upright one's rim
    [(CYL, (0, 0, 0), (1, 0, 0), 0.0, 0.010, 0.010),
     (CYL, (0.016, 0.002, 0.024), (1, 1, 0), 0.9, 0.008, 0.006), -1e-4],
]

# box A (half sizes), cylinder B
BOX_CASES = [
    # 0 a cylinder tilted 20 degrees on a box face: its rim
    [(BOX, (0, 0, 0), (0, 0, 1), 0.0, (0.02, 0.015, 0.01), 0),
     (CYL, (0.004, 0.003, 0.0190), (1, 0.3, 0), 0.3490658503988659, 0.008, 0.006), -1e-4],
    # 1 lying across a box edge, both tilted: side line on edge, deep (2 mm)
    [(BOX, (0, 0, 0), (1, 0.1, 0), 0.7853981633974483, (0.01, 0.01, 0.01), 0),
     (CYL, (0.001, 0.002, 0.0190), (0.2, 1, 0.1), 1.4, 0.006, 0.015), -2e-3],
    # 2 a box corner on an upright cylinder's rim
    [(BOX, (0.012, 0.004, 0.022), (1, 0.7, 0.3), 0.9, (0.008, 0.006, 0.005), 0),
     (CYL, (0, 0, 0), (1, 0, 0), 0.0, 0.010, 0.010), -1e-4],
    # 3 a tilted box's edge on a cylinder's cap, off centre
    [(BOX, (0.002, 0.001, 0.0175), (0.1, 1, 0), 0.6, (0.008, 0.006, 0.005), 0),
     (CYL, (0, 0, 0), (0, 0, 1), 0.0, 0.012, 0.010), -1e-4],
    # 4 a box corner into a lying cylinder's side, deep (2 mm)
    [(BOX, (0.001, 0.0, 0.0175), (1, 1, 1), 0.7, (0.006, 0.006, 0.006), 0),
     (CYL, (0, 0, 0), (0, 1, 0), 1.5707963267948966, 0.010, 0.015), -2e-3],
    # 5 a box edge against a cylinder's rim, separated within the margin
    [(BOX, (0.014, 0.0, 0.018), (0, 1, 0), 0.5, (0.006, 0.010, 0.006), 0),
     (CYL, (0, 0, 0), (0, 0, 1), 0.0, 0.010, 0.010), 4e-4],
    # 6 a generic tilted cylinder's rim on a box's edge
    [(BOX, (0, 0, 0), (0, 0, 1), 0.0, (0.01, 0.01, 0.01), 0),
     (CYL, (0.014, 0.003, 0.016), (1, -1, 0.5), 0.8, 0.007, 0.006), -1e-4],
]

if __name__ == "__main__":
    import sys
    table = BOX_CASES if "--box" in sys.argv else CASES
    for k, (a, b, wanted) in enumerate(table):
        gap, n = reference([a, b])
        b = (b[0], tuple(np.array(b[1]) + (wanted - gap) * n)) + b[2:]
        gap, n = reference([a, b])
        print("    {%d, {%.10e, %.10e, %.10e}, %.10e, {%.8f, %.8f, %.8f}},"
              % (k, *b[1], gap, *n))
