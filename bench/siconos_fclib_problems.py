#!/usr/bin/python3
"""Friction-contact problems from Siconos' own mechanics simulations, written as
FCLIB local files (W, q, mu) by nscd's writer (nscd.fclib.write).

Problems that nobody on nscd wrote, for issue 27 ("the same kind of problems from
outside the project"). Each scene is built the way Siconos' examples build theirs
(siconos.io.mechanics_hdf5 to describe it, siconos.io.mechanics_run's
MechanicsHdf5Runner.run() with Bullet collision detection, Moreau-Jean OSI,
theta = 0.50001, Siconos' FrictionContact one-step problem solved by its NSGS).
At chosen time steps, inside Siconos' own FrictionContact.compute(), after
preCompute() assembled the problem and before solve(), the script reads Siconos'
numerics FrictionContactProblem (frictionContactProblemPtr(): M = W, q, mu;
3 rows per contact, normal first, u = W r + q: FCLIB's local form) and writes it
unchanged: W exactly as Siconos computed it (no symmetrisation; W is assembled
dense by Siconos, NM_DENSE, as its own FrictionContactTrace does; the FCLIB file
stores the 3x3 blocks that are not all +0.0 and every diagonal block). This is
Siconos' own tracing mechanism (siconos.io.FrictionContactTrace, which needs
siconos.fclib, absent from Debian's build) with nscd's writer in place of
libfclib's; the hook replaces mechanics_run's FCTrace class for the run.

Scenes (every random draw from numpy.random.default_rng(seed), fixed seeds):
  boxes_pile     boxes of random sizes (0.3-0.7 m) and random orientations dropped
                 into an open box (floor + 4 walls), mu 0.5;
  mixed_pile     spheres, boxes and random convex hulls (8-12 points) dropped into
                 the open box, mu 0.3;
  brick_wall     a running-bond wall of bricks (0.4 x 0.2 x 0.2 m) standing on the
                 floor, 4 points per face-face contact (redundant contacts), mu 0.7;
  boxes_at_rest  a few boxes resting on the floor and on one another (a 3-2-1
                 pyramid plus a box on a sphere), mu 0.6.
Time step h = 5e-3 s; Siconos NSGS to 1e-8 (at most 2000 sweeps) advances the
simulation (as in Siconos' examples; it does not always reach 1e-8: the dumped
problem is the one Siconos faced, whatever its solver then did). Problems are
dumped at the problems k = start, start + every, ... (TIMING below) that have at
least --min-contacts contacts, up to N (--per-scene) per scene. Sizes with the
defaults (40 bodies): boxes_pile 110-165 contacts, mixed_pile 90-130, brick_wall
and boxes_at_rest a few dozen (4 points per face-face contact). Under a load of
about 15 on 2 cores the default run took about 10 minutes.

Usage:
    /usr/bin/python3 bench/siconos_fclib_problems.py OUTDIR [--per-scene N]
        [--scenes boxes_pile,mixed_pile,brick_wall,boxes_at_rest] [--bodies K]
Files: OUTDIR/<scene>-s<k>-<contacts>c.hdf5, k the index of the one-step problem
among those of the run that had at least one contact (counted from 0; a scene
whose bodies are still falling at the end may give fewer than N). nscd.fclib must find
libnscd_fclib (PYTHONPATH=python and a build tree, or NSCD_FCLIB_LIBRARY).
Exits 0 with a message (and writes nothing) when siconos is not importable."""
import argparse
import contextlib
import io as io_module
import os
import sys
import tempfile

try:
    with contextlib.redirect_stdout(io_module.StringIO()):  # "No module named siconos.fclib."
        import siconos.kernel as sk
        import siconos.numerics as sn
        from siconos.mechanics.collision.tools import Contactor
        import siconos.io.mechanics_run as mrun
        from siconos.io.mechanics_run import MechanicsHdf5Runner
        from siconos.io.FrictionContactTrace import FrictionContactTraceParams
except Exception as exc:  # noqa: BLE001 (any import failure means: skip)
    print(f"siconos_fclib_problems: skipped, siconos is not importable ({exc})")
    sys.exit(0)

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import nscd.fclib  # noqa: E402


class _Dumper(sk.FrictionContact):
    """Siconos' FrictionContact whose compute() writes the assembled problem
    (as siconos.io.FrictionContactTrace does) before Siconos solves it."""

    cfg = None  # set by generate(): dict(outdir, scene, start, every, limit, min_contacts)
    written = []
    out = sys.stdout

    def __init__(self, dim, solver_options, params=None, nsds=None):
        super().__init__(dim, solver_options)
        self._step = 0

    def compute(self, time):
        self.setKeepLambdaAndYState(False)
        if not self.preCompute(time):
            return 0
        if self.indexSetLevel() == 999:
            return 0
        self.updateMu()
        info = 0
        if self.getSizeOutput() != 0:
            self._maybe_dump()
            info = self.solve()
            self.postCompute()
        self._step += 1
        return info

    def _maybe_dump(self):
        c = _Dumper.cfg
        mine = [w for w in _Dumper.written if os.path.basename(w).startswith(c["scene"] + "-")]
        if self._step < c["start"] or (self._step - c["start"]) % c["every"] or len(mine) >= c["limit"]:
            return
        p = self.frictionContactProblemPtr()
        n = p.numberOfContacts
        if n < c["min_contacts"]:
            return
        W = _dense(p.M)
        q = np.array(p.q, dtype=np.float64, copy=True).reshape(-1)
        mu = np.array(p.mu, dtype=np.float64, copy=True).reshape(-1)
        if W.shape != (3 * n, 3 * n) or q.size != 3 * n or mu.size != n:
            raise RuntimeError(f"unexpected problem shapes {W.shape} {q.shape} {mu.shape}")
        path = os.path.join(c["outdir"], f"{c['scene']}-s{self._step:04d}-{n}c.hdf5")
        nscd.fclib.write(path, nscd.fclib.Problem.from_dense(W, q, mu))
        back = nscd.fclib.read(path)  # the file holds Siconos' numbers, bit for bit
        if not (np.array_equal(back.dense_W(), W) and np.array_equal(back.q, q)
                and np.array_equal(back.mu, mu)):
            raise RuntimeError(f"{path}: W, q or mu read back differ from Siconos'")
        _Dumper.written.append(path)
        print(f"  {os.path.basename(path)}: {n} contacts, asym(W) = "
              f"{np.abs(W - W.T).max() / max(np.abs(W).max(), 1e-300):.1e}", file=_Dumper.out)


def _dense(M):
    """The NumericsMatrix M (NM_DENSE here) as a numpy array, entry by entry
    through numerics' own NM_get_value (no arithmetic: the bits Siconos holds)."""
    a = np.empty((M.size0, M.size1))
    for i in range(M.size0):
        for j in range(M.size1):
            a[i, j] = sn.NM_get_value(M, i, j)
    return a


# ------------------------------------------------------------------ the scenes
def _open_box(io, half=1.5, wall=0.2, height=2.0):
    io.add_primitive_shape("Floor", "Box", (2 * half + 2 * wall, 2 * half + 2 * wall, wall))
    io.add_primitive_shape("WallX", "Box", (wall, 2 * half, height))
    io.add_primitive_shape("WallY", "Box", (2 * half + 2 * wall, wall, height))
    io.add_object("floor", [Contactor("Floor")], translation=[0, 0, -wall / 2])
    io.add_object("wall1", [Contactor("WallX")], translation=[half + wall / 2, 0, height / 2])
    io.add_object("wall2", [Contactor("WallX")], translation=[-half - wall / 2, 0, height / 2])
    io.add_object("wall3", [Contactor("WallY")], translation=[0, half + wall / 2, height / 2])
    io.add_object("wall4", [Contactor("WallY")], translation=[0, -half - wall / 2, height / 2])


def _quat(rng):
    q = rng.normal(size=4)
    return list(q / np.linalg.norm(q))


def _drop_position(rng, i, spacing):
    """Body i's start: layers of a 3 x 3 grid (spacing apart, jittered) above the floor."""
    layer, cell = divmod(i, 9)
    x, y = (cell % 3 - 1) * spacing, (cell // 3 - 1) * spacing
    return [x + rng.uniform(-0.05, 0.05), y + rng.uniform(-0.05, 0.05), 0.5 + spacing * layer]


def scene_boxes_pile(io, rng, bodies):
    _open_box(io)
    io.add_Newton_impact_friction_nsl("contact", mu=0.5, e=0.0)
    for i in range(bodies):
        s = rng.uniform(0.3, 0.7, size=3)
        io.add_primitive_shape(f"B{i}", "Box", tuple(s))
        pos = _drop_position(rng, i, 0.8)
        io.add_object(f"box{i}", [Contactor(f"B{i}")], translation=pos,
                      orientation=_quat(rng), mass=float(np.prod(s)) * 1000)


def scene_mixed_pile(io, rng, bodies):
    _open_box(io)
    io.add_Newton_impact_friction_nsl("contact", mu=0.3, e=0.0)
    for i in range(bodies):
        kind = i % 3
        if kind == 0:
            r = rng.uniform(0.15, 0.3)
            io.add_primitive_shape(f"S{i}", "Sphere", (r,))
            mass = 4 / 3 * np.pi * r ** 3 * 1000
        elif kind == 1:
            s = rng.uniform(0.3, 0.6, size=3)
            io.add_primitive_shape(f"S{i}", "Box", tuple(s))
            mass = float(np.prod(s)) * 1000
        else:
            pts = rng.normal(size=(int(rng.integers(8, 13)), 3))
            pts = 0.3 * pts / np.linalg.norm(pts, axis=1)[:, None] * rng.uniform(0.7, 1.0, size=(len(pts), 1))
            io.add_convex_shape(f"S{i}", pts.tolist())
            mass = 0.1 * 1000
        pos = _drop_position(rng, i, 0.75)
        io.add_object(f"body{i}", [Contactor(f"S{i}")], translation=pos,
                      orientation=_quat(rng), mass=mass)


def scene_brick_wall(io, rng, bodies):
    io.add_primitive_shape("Floor", "Box", (10, 10, 0.2))
    io.add_object("floor", [Contactor("Floor")], translation=[0, 0, -0.1])
    io.add_Newton_impact_friction_nsl("contact", mu=0.7, e=0.0)
    L, D, H = 0.4, 0.2, 0.2
    io.add_primitive_shape("Brick", "Box", (L, D, H))
    io.add_primitive_shape("Half", "Box", (L / 2, D, H))
    rows, per_row = 5, 4
    k = 0
    for j in range(rows):
        z = H / 2 + j * H
        if j % 2 == 0:
            xs = [(-per_row * L / 2 + L / 2 + i * L, "Brick") for i in range(per_row)]
        else:
            xs = [(-per_row * L / 2 + L / 4, "Half")]
            xs += [(-per_row * L / 2 + L / 2 + L / 2 + i * L, "Brick") for i in range(per_row - 1)]
            xs += [(per_row * L / 2 - L / 4, "Half")]
        for x, shape in xs:
            io.add_object(f"brick{k}", [Contactor(shape)], translation=[x, 0, z],
                          mass=(L if shape == "Brick" else L / 2) * D * H * 1800)
            k += 1


def scene_boxes_at_rest(io, rng, bodies):
    io.add_primitive_shape("Floor", "Box", (10, 10, 0.2))
    io.add_object("floor", [Contactor("Floor")], translation=[0, 0, -0.1])
    io.add_Newton_impact_friction_nsl("contact", mu=0.6, e=0.0)
    io.add_primitive_shape("Cube", "Box", (0.5, 0.5, 0.5))
    io.add_primitive_shape("Ball", "Sphere", (0.25,))
    k = 0
    for level, count in enumerate((3, 2, 1)):
        for i in range(count):
            x = (i - (count - 1) / 2) * 0.52
            io.add_object(f"cube{k}", [Contactor("Cube")], translation=[x, 0, 0.25 + 0.5 * level], mass=125)
            k += 1
    io.add_object("ball", [Contactor("Ball")], translation=[0, 1.5, 0.25], mass=65)
    io.add_object("top", [Contactor("Cube")], translation=[0, 1.5, 0.75], mass=125)


SCENES = {"boxes_pile": scene_boxes_pile, "mixed_pile": scene_mixed_pile,
          "brick_wall": scene_brick_wall, "boxes_at_rest": scene_boxes_at_rest}
SEEDS = {"boxes_pile": 27001, "mixed_pile": 27002, "brick_wall": 27003, "boxes_at_rest": 27004}
# (first dump step, dump every): the piles once most bodies landed, the resting
# scenes from their start (the simulation stops after the last dump)
TIMING = {"boxes_pile": (150, 50), "mixed_pile": (150, 50),
          "brick_wall": (10, 20), "boxes_at_rest": (10, 20)}


@contextlib.contextmanager
def _quiet():
    """Siconos' progress log and its kernel's warnings (Python prints and C++ on
    file descriptors 1 and 2) go to /dev/null; the dumper prints to the saved fd."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    null = os.open(os.devnull, os.O_WRONLY)
    _Dumper.out = os.fdopen(os.dup(saved[0]), "w", buffering=1)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        with contextlib.redirect_stdout(io_module.StringIO()):
            yield
    finally:
        sys.stdout.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved + [null]:
            os.close(fd)
        _Dumper.out.close()
        _Dumper.out = sys.stdout


def generate(scene, outdir, per_scene, bodies, min_contacts, work):
    rng = np.random.default_rng(SEEDS[scene])
    h5 = os.path.join(work, f"{scene}.hdf5")
    with MechanicsHdf5Runner(io_filename=h5, mode="w") as io:
        SCENES[scene](io, rng, bodies)
    start, every = TIMING[scene]
    steps = start + every * (per_scene - 1) + 2
    h = 5e-3
    _Dumper.cfg = dict(outdir=outdir, scene=scene, start=start, every=every,
                       limit=per_scene, min_contacts=min_contacts)
    options = sk.solver_options_create(sn.SICONOS_FRICTION_3D_NSGS)
    options.iparam[sn.SICONOS_IPARAM_MAX_ITER] = 2000
    options.dparam[sn.SICONOS_DPARAM_TOL] = 1e-8
    saved = mrun.FCTrace
    mrun.FCTrace = _Dumper
    try:
        with MechanicsHdf5Runner(io_filename=h5, mode="r+") as io, _quiet():
            io.run(t0=0, T=steps * h, h=h, theta=0.50001, Newton_max_iter=1,
                   solver_options=options, verbose=False, verbose_progress=False,
                   output_frequency=10 ** 6,
                   friction_contact_trace_params=FrictionContactTraceParams(
                       dump_itermax=None, fileName=scene))
    finally:
        mrun.FCTrace = saved


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--per-scene", type=int, default=4)
    ap.add_argument("--scenes", default=",".join(SCENES))
    ap.add_argument("--bodies", type=int, default=40)
    ap.add_argument("--min-contacts", type=int, default=2)
    a = ap.parse_args()
    if not nscd.fclib.available():
        print("siconos_fclib_problems: skipped, libnscd_fclib is not available")
        return 0
    os.makedirs(a.outdir, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        for scene in a.scenes.split(","):
            print(f"{scene}:")
            generate(scene, a.outdir, a.per_scene, a.bodies, a.min_contacts, work)
    print(f"{len(_Dumper.written)} problems in {a.outdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
