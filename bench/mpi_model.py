#!/usr/bin/python3
"""Weak-scaling model of the distributed world (docs/distributed.md): the time of
seed 002's full channel run (Sect. 4.3: 2.47e5 particles, 1e6 steps of 10 us, 10
sweeps per step) on P ranks, from the measured serial cost per particle and step,
the halo volume and the messages of the decomposition, and stated network figures.
Prints the Markdown table of docs/distributed.md.

    bench/mpi_model.py [--cost-us 1.28] [--latency-us 2] [--bandwidth-gbs 5]"""
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


def model(dims, cost_us, alpha_us, bandwidth, all_to_all):
    px, py, pz = dims
    ranks = px * py * pz
    sx, sy, sz = LENGTH / px, WIDTH / py, HEIGHT / pz
    busy_layers = min(pz, math.ceil(BED / sz - 1e-9))
    busy = px * py * busy_layers
    per_rank = PARTICLES / busy
    reach = DIAMETER + MARGIN  # r + halo = 2 r + margin
    depth = min(BED, sz)
    faces = 2 * (sx + sy) * depth + (2 * sx * sy if busy_layers > 1 else 0.0)
    shadow_fraction = reach * faces / (sx * sy * depth)
    shadows = per_rank * shadow_fraction
    neighbours = 8 if busy_layers == 1 else 26
    compute = cost_us * per_rank * (1.0 + shadow_fraction)
    exchange = neighbours * alpha_us + shadows * SHADOW_BYTES / bandwidth * 1e6
    sweeps = (2 * SWEEPS + 1) * exchange  # 2 per sweep + the warm start
    migration = neighbours * alpha_us + shadows * ROW_BYTES / bandwidth * 1e6
    reductions = 8 * 2 * alpha_us * math.log2(max(ranks, 2))
    collectives = 2 * SWEEPS + 6  # Alltoall(v) calls per step
    global_cost = collectives * PER_PEER_US * ranks if all_to_all else 0.0
    step = compute + sweeps + migration + reductions + global_cost
    return {"ranks": ranks, "busy": busy, "per_rank": per_rank, "shadows": shadows,
            "compute": compute, "comm": sweeps + migration + reductions + global_cost,
            "step": step, "hours": step * 1e-6 * STEPS / 3600}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cost-us", type=float, default=1.28)
    ap.add_argument("--latency-us", type=float, default=2.0)
    ap.add_argument("--bandwidth-gbs", type=float, default=5.0)
    a = ap.parse_args()
    bw = a.bandwidth_gbs * 1e9
    serial = a.cost_us * PARTICLES
    print(f"serial: {serial / 1e3:.0f} ms per step, {serial * 1e-6 * STEPS / 86400:.1f} days")
    print("| decomposition | exchanges | busy ranks | particles / rank | shadows / rank "
          "| compute ms/step | communication ms/step | step ms | 1e6 steps |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    cases = [((16, 10, 4), True), ((16, 10, 4), False), ((40, 16, 1), True),
             ((40, 16, 1), False)]
    for dims, a2a in cases:
        m = model(dims, a.cost_us, a.latency_us, bw, a2a)
        print(f"| {dims[0]} × {dims[1]} × {dims[2]} = {m['ranks']} | "
              f"{'all-to-all (as built)' if a2a else 'neighbour collectives'} | {m['busy']} | "
              f"{m['per_rank']:.0f} | {m['shadows']:.0f} | {m['compute'] / 1e3:.2f} | "
              f"{m['comm'] / 1e3:.2f} | {m['step'] / 1e3:.2f} | {m['hours']:.1f} h |")


if __name__ == "__main__":
    main()
