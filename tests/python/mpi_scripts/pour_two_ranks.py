"""Run under mpirun -np 2 by test_package_world_mpi.py: 40 spheres added on rank 0
rest on the ground of a world cut in two; count and id checksum over the ranks;
then the same pour with cuts by particle count (balance_every): 20 owned each.
usage: pour_two_ranks.py OUT_DIR (each rank writes OUT_DIR/rank<r>.txt)"""
import os
import sys

import nscd.world_mpi as wm
assert wm.available()


def pour(**options):
    """40 spheres added on rank 0 poured for 500 steps; the world stays open."""
    w = wm.DistributedWorld(domain=((-1, -1, -1), (1, 1, 3)), **options)
    w.add_half_space()
    if w.rank == 0:
        for i in range(40):
            w.add_sphere(0.02, (-0.9 + 0.045 * i, 0.0, 0.2 + 0.1 * (i % 3)), user_id=i)
    return w, w.step(500)


# the cut at the median of the spheres' x: 20 on each side
w2, _ = pour(balance_every=100)
with w2:
    w2.balance()
    w2.step()
    balanced = len(w2.bodies().global_ids)
w, r = pour()
with w:
    count, checksum, shadows = w.global_count()
    b = w.bodies()
    assert count == 40 and checksum == 820, (count, checksum)
    assert (abs(b.positions[:, 2] - 0.02) < 1e-3).all()
    # one file per rank: mpirun may interleave the ranks' standard outputs
    with open(os.path.join(sys.argv[1], f"rank{w.rank}.txt"), "w", encoding="utf-8") as f:
        f.write(f"{w.rank} {w.size} {len(b.global_ids)} {count} {shadows} {r.contacts} "
                f"{balanced}\n")
