#!/usr/bin/python3
"""Strong scaling of the distributed world (docs/distributed.md): the granular
channel (examples/mpi/granular_channel_mpi) at a fixed size under mpirun with
1, 2 ranks (this machine's cores) and 4, 8 ranks oversubscribed (a correctness
check: their timings measure the oversubscription, not the method), next to
the serial example. Writes a JSON file with every run's figures and timings.

    bench/mpi_scaling.py BUILD_DIR [OUT.json] [--k 5] [--duration 0.02]
                         [--warmup SECONDS] [--ranks 1,2,4,8] [--balance-every 100]
                         [--balance-contact-weight A] [--profile]
                         [--no-serial --serial-cpu SECONDS]

--balance-every N and --balance-contact-weight A are the example's (cuts by
work every N steps, a particle weighing 1 + A per contact; 0: equal cells). --profile preloads BUILD_DIR/bench/libnscd_mpi_profile.so
(bench/mpi_profile.c) into each rank and records its per-rank JSON lines:
collective calls, point-to-point waits, and the CPU time outside MPI (the
rank's work, which survives a loaded machine where the wall time does not).

Ranks busy-poll while they wait when there is a core for each of them, and
yield the core when the run is oversubscribed (Open MPI's
mpi_yield_when_idle): polling against a descheduled peer only burns the
peer's time slice.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("out", nargs="?", default=None)
    ap.add_argument("--k", default="5")
    ap.add_argument("--duration", type=float, default=0.02)
    ap.add_argument("--warmup", type=float, default=None,
                    help="start of the statistics window (default: half the duration)")
    ap.add_argument("--ranks", default="1,2,4,8")
    ap.add_argument("--balance-every", default="100")
    ap.add_argument("--balance-contact-weight", default=None,
                    help="a contact's weight in the balance (the example's default when absent)")
    ap.add_argument("--no-serial", action="store_true",
                    help="skip the serial run (its CPU time then comes from --serial-cpu)")
    ap.add_argument("--serial-cpu", type=float, default=None)
    ap.add_argument("--profile", action="store_true")
    a = ap.parse_args()
    examples = os.path.join(a.build, "examples")
    args = ["--coarse-graining", a.k, "--duration", str(a.duration),
            "--warmup", str(a.duration / 2 if a.warmup is None else a.warmup), "--law", "coulomb"]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OPENBLAS_NUM_THREADS="1")
    if a.no_serial:
        serial_run = {"cpu_seconds": a.serial_cpu or float("nan")}
    else:
        before = os.times()
        serial = subprocess.run([os.path.join(examples, "granular_channel"), "--json", *args],
                                capture_output=True, text=True, check=True, env=env)
        after = os.times()
        serial_run = json.loads(serial.stdout)["runs"][0]  # scalars only (no maps, g(r))
        serial_run["cpu_seconds"] = (after.children_user - before.children_user
                                     + after.children_system - before.children_system)
    result = {"args": args, "balance_every": a.balance_every, "load_average": os.getloadavg(),
              "serial": {k: v for k, v in serial_run.items() if not isinstance(v, (list, dict))},
              "mpi": []}
    mpirun = shutil.which("mpirun")
    profile = os.path.join(a.build, "bench", "libnscd_mpi_profile.so")
    weight = [] if a.balance_contact_weight is None else [
        "--balance-contact-weight", a.balance_contact_weight]
    for ranks in [int(r) for r in a.ranks.split(",")]:
        yield_when_idle = "1" if ranks > (os.cpu_count() or 1) else "0"
        preload = ["-x", "LD_PRELOAD=" + profile] if a.profile else []
        done = subprocess.run([mpirun, "-np", str(ranks), *preload,
                               os.path.join(examples, "granular_channel_mpi"), "--json", *args,
                               "--balance-every", a.balance_every, *weight],
                              capture_output=True, text=True, check=True,
                              env=dict(env, OMPI_MCA_mpi_yield_when_idle=yield_when_idle))
        run = json.loads(done.stdout)["runs"][0]
        run["ranks"] = ranks
        run["yield_when_idle"] = yield_when_idle == "1"
        run["profile"] = [json.loads(line) for line in done.stderr.splitlines()
                          if line.startswith('{"mpi_profile"')]
        work = [p["cpu"] - p["cpu_in_mpi"] for p in run["profile"]]
        if work:
            serial_cpu = serial_run["cpu_seconds"]
            critical = run["profile"][0].get("critical_work", -1.0)
            run["work_ratio"] = serial_cpu / max(work)
            run["critical_ratio"] = serial_cpu / critical if critical > 0 else None
            print(f"{ranks} rank(s): CPU outside MPI per rank "
                  f"{', '.join(f'{x:.2f} s' for x in work)}; serial CPU / busiest rank's "
                  f"{run['work_ratio']:.3f}; critical path (sum over the synchronisations "
                  f"of the busiest rank's work) {critical:.2f} s, serial CPU / it "
                  f"{run['critical_ratio'] or 0:.3f}", file=sys.stderr)
            for kind in run["profile"][0].get("by_kind", []):
                own = [sum(q["own"] for q in p["by_kind"] if q["kind"] == kind["kind"])
                       for p in run["profile"]]
                print(f"  ends at {kind['kind']:<24} x{kind['count']:<7} per rank "
                      f"{', '.join(f'{x:7.2f}' for x in own)} s, max-sum {kind['max']:7.2f} s",
                      file=sys.stderr)
        result["mpi"].append(run)
        print(f"{ranks} rank(s): {run['seconds_per_step'] * 1e3:.2f} ms/step wall, "
              f"cpu max rank {run['cpu_seconds_max_rank']:.2f} s, "
              f"particles {run['particles_avg']:.1f}, contacts/particle "
              f"{run['contacts_per_particle']:.4f}, shadows {run['shadows_avg']:.0f}, "
              f"largest share {run['largest_share_avg']:.3f} of the particles, "
              f"{run.get('largest_contact_share_avg', 0):.3f} of the contacts",
              file=sys.stderr)
    s = result["serial"]
    if not a.no_serial:
        print(f"serial: {s['seconds_per_step'] * 1e3:.2f} ms/step wall, "
              f"cpu {s['cpu_seconds']:.2f} s, "
              f"particles "
              f"{s['particles_avg']:.1f}, contacts/particle {s['contacts_per_particle']:.4f}",
              file=sys.stderr)
    text = json.dumps(result, indent=1)
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
