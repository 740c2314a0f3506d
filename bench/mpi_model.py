#!/usr/bin/python3
"""Weak-scaling model of the distributed world (docs/distributed.md): the time of
seed 002's full channel run (Sect. 4.3: 2.47e5 particles, 1e6 steps of 10 us, 10
sweeps per step) on P ranks, from the measured serial cost per particle and step,
the halo volume and the messages of the decomposition, the load imbalance of the
cut, and stated network figures. Prints the Markdown tables of docs/distributed.md,
and the model of the 2-rank channel on this machine (strong scaling).

    bench/mpi_model.py [--cost-us 1.28] [--latency-us 2] [--bandwidth-gbs 5]
                       [--imbalance-equal 1.12] [--imbalance-balanced 1.01]

Exchanges (the library before and after issue 29, item 3):
  all-to-all     26 MPI_Alltoall(v) over all P ranks and 8 reductions per step:
                 the sweeps' two exchanges, the warm start, the migration
  point to point 1 exchange per sweep (relax sweeps included) and 1 for the
                 warm start with the ranks sharing bodies; 3 rounds with the
                 near ranks in the migration (counts, rows, plan check); 6
                 reductions per step plus one per sweep for the merit (the
                 world's tolerance; it travels while the blend's messages do,
                 counted here in full)
Cuts: equal cells, or balanced (balance_every); the imbalance factors
(largest rank's work / mean) are the measured ones of the 2-rank channel on
the steady bed, where work follows the particles (0.56 and 0.505 of the
particles on the larger side). The model assumes work proportional to the
particles: while the bed fills (0.1 s) the contacts are not, and a cut by
particle count left 0.546 of the contacts on one rank (busiest / mean work
1.069); the balance by work (balance_contact_weight 1.5, the default) brings
the totals to 1.014 but not each phase (docs/distributed.md, "Balance by
work"). Use --imbalance-balanced for that case."""
import argparse
import math

PARTICLES = 2.47e5
STEPS = 1e6
SWEEPS = 10
DIAMETER = 0.47e-3
MARGIN = 2.0 * 1e-5  # the scene's contact margin: 2 m/s * dt
LENGTH, WIDTH, HEIGHT = 0.15, 0.065, 0.02
BED = 2.41e-3  # N V_p / (A phi): the bed the particles fill
ROW_BYTES = 700  # a migrated row: state, mass properties, one shape
SHADOW_BYTES = 48  # 6 doubles per shadow per exchange
PER_PEER_US = 0.5  # software cost of one peer in an all-to-all over P ranks


RELAX_SWEEPS = 3  # the world's default relax pass
REDUCTIONS_P2P = 6  # per step, docs/distributed.md "The step"


def model(dims, cost_us, alpha_us, bandwidth, all_to_all, balanced, imbalance):
    px, py, pz = dims
    ranks = px * py * pz
    sx, sy, sz = LENGTH / px, WIDTH / py, HEIGHT / pz
    if balanced:  # the z cuts too go to the quantiles: every layer holds bed
        sz = BED / pz
    busy_layers = min(pz, math.ceil(BED / sz - 1e-9))
    busy = px * py * busy_layers
    per_rank = PARTICLES / busy
    reach = DIAMETER + MARGIN  # r + halo = 2 r + margin
    depth = min(BED, sz)
    faces = 2 * (sx + sy) * depth + (2 * sx * sy if busy_layers > 1 else 0.0)
    shadow_fraction = reach * faces / (sx * sy * depth)
    shadows = per_rank * shadow_fraction
    neighbours = 8 if busy_layers == 1 else 26
    compute = cost_us * per_rank * (1.0 + shadow_fraction) * imbalance
    exchange = neighbours * alpha_us + shadows * SHADOW_BYTES / bandwidth * 1e6
    if all_to_all:
        sweeps = (2 * SWEEPS + 1) * exchange  # 2 per sweep + the warm start
        migration = neighbours * alpha_us + shadows * ROW_BYTES / bandwidth * 1e6
        reductions = 8 * 2 * alpha_us * math.log2(max(ranks, 2))
        collectives = 2 * SWEEPS + 6  # Alltoall(v) calls per step
        global_cost = collectives * PER_PEER_US * ranks
    else:
        sweeps = (SWEEPS + RELAX_SWEEPS + 1) * exchange  # 1 per sweep + the warm start
        migration = 3 * neighbours * alpha_us + shadows * ROW_BYTES / bandwidth * 1e6
        reductions = ((REDUCTIONS_P2P + SWEEPS + RELAX_SWEEPS) * 2 * alpha_us
                      * math.log2(max(ranks, 2)))
        global_cost = 0.0
    step = compute + sweeps + migration + reductions + global_cost
    return {"ranks": ranks, "busy": busy, "per_rank": per_rank, "shadows": shadows,
            "compute": compute, "comm": sweeps + migration + reductions + global_cost,
            "step": step, "hours": step * 1e-6 * STEPS / 3600}


def two_ranks(serial_ms, shadow_fraction, imbalance, bookkeeping, syncs, sync_us):
    """The 2-rank channel on one machine: each rank does half the particles
    plus its shadows, times the imbalance of the cut and the rank's own
    bookkeeping, plus the synchronisations of a step."""
    rank_ms = serial_ms / 2 * (1 + shadow_fraction) * imbalance * (1 + bookkeeping)
    step = rank_ms + syncs * sync_us * 1e-3
    return step, serial_ms / step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cost-us", type=float, default=1.28)
    ap.add_argument("--latency-us", type=float, default=2.0)
    ap.add_argument("--bandwidth-gbs", type=float, default=5.0)
    ap.add_argument("--imbalance-equal", type=float, default=1.12)
    ap.add_argument("--imbalance-balanced", type=float, default=1.01)
    a = ap.parse_args()
    bw = a.bandwidth_gbs * 1e9
    serial = a.cost_us * PARTICLES
    print(f"serial: {serial / 1e3:.0f} ms per step, {serial * 1e-6 * STEPS / 86400:.1f} days")
    print("| decomposition | cuts | exchanges | busy ranks | particles / rank | shadows / rank "
          "| compute ms/step | communication ms/step | step ms | 1e6 steps |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    cases = [((16, 10, 4), True, False), ((16, 10, 4), False, False),
             ((16, 10, 4), False, True), ((40, 16, 1), True, False),
             ((40, 16, 1), False, True)]
    for dims, a2a, balanced in cases:
        imbalance = a.imbalance_balanced if balanced else a.imbalance_equal
        m = model(dims, a.cost_us, a.latency_us, bw, a2a, balanced, imbalance)
        print(f"| {dims[0]} × {dims[1]} × {dims[2]} = {m['ranks']} | "
              f"{'balanced' if balanced else 'equal'} | "
              f"{'all-to-all (before)' if a2a else 'point to point (as built)'} | {m['busy']} | "
              f"{m['per_rank']:.0f} | {m['shadows']:.0f} | {m['compute'] / 1e3:.2f} | "
              f"{m['comm'] / 1e3:.2f} | {m['step'] / 1e3:.2f} | {m['hours']:.1f} h |")
    # The channel at k = 5 on 2 ranks of this machine (strong scaling): run C's
    # serial step, 333 shadows of 10 804 particles, the measured imbalance, the
    # rank's bookkeeping (5 % of a one-rank step after item 3, 15 % before), and
    # the synchronisations of a step (39 collectives before; 6 reductions, 13
    # merit reductions overlapped with 14 exchanges, 3 migration rounds after)
    # at 10 us each on two idle cores of one node (shared memory).
    print()
    print("| 2-rank channel, k = 5 | imbalance | bookkeeping | synchronisations | ms/step "
          "| speed-up |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, imb, book, syncs in [("before (equal cells, all-to-all)", 1.12, 0.15, 39),
                                   ("as built (balanced, point to point)", 1.01, 0.05, 23)]:
        step, speedup = two_ranks(13.83, 333 / 10804, imb, book, syncs, 10.0)
        print(f"| {name} | {imb:.2f} | {book * 100:.0f} % | {syncs} | {step:.2f} | "
              f"{speedup:.2f} |")


if __name__ == "__main__":
    main()
