"""Run under mpirun -np 2 by test_package_world_mpi_checkpoint.py: 40 spheres
poured on a world cut in two, saved after 100 steps (DistributedWorld.save),
loaded into a fresh world (load) and run 100 more steps: each rank's bodies
bitwise those of the run that saved and went on.
usage: checkpoint_two_ranks.py OUT_DIR (each rank writes OUT_DIR/rank<r>.txt)"""
import os
import sys

import numpy as np

import nscd.world_mpi as wm
assert wm.available()
DOMAIN = ((-1, -1, -1), (1, 1, 3))
prefix = os.path.join(sys.argv[1], "pour")


def state(w):
    b = w.bodies()
    order = np.argsort(b.global_ids)
    return b.global_ids[order].tobytes() + b.positions[order].tobytes() + \
        b.velocities[order].tobytes() + b.orientations[order].tobytes()


with wm.DistributedWorld(domain=DOMAIN) as w:
    w.add_half_space()
    if w.rank == 0:
        for i in range(40):
            w.add_sphere(0.02, (-0.9 + 0.045 * i, 0.0, 0.2 + 0.1 * (i % 3)), user_id=i)
    w.step(100)
    w.save(prefix, user_data=f"rank {w.rank}".encode())
    w.step(100)
    reference = state(w)
    rank = w.rank

with wm.DistributedWorld(domain=DOMAIN) as w:
    user = w.load(prefix)
    assert user == f"rank {w.rank}".encode(), user
    w.step(100)
    same = state(w) == reference

with open(os.path.join(sys.argv[1], f"rank{rank}.txt"), "w", encoding="utf-8") as f:
    f.write("bitwise\n" if same else "differs\n")
