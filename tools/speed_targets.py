#!/usr/bin/python3
"""Checks the speed targets of the issues against a build, on the JSON of the
example benchmark programs. Run by `make bench` (not by `make test`: a speed
figure depends on the machine and its load, a test must not).

usage: tools/speed_targets.py [--runs N] [BUILD_DIR]   (default: build)

Targets (each measured N times, default 3; the median is compared):
  copt_exact_over_closed_form   examples/bench_contact_laws --json: the exact
                                optimal damping (nscd_copt_exact) costs at most
                                20 times the closed form (issue 3)
  mdp_sliding_over_cholesky,    examples/bench_single_contact --json: the
  mdp_mixed_over_cholesky       maximum-dissipation single contact costs at
                                most 20 unconstrained 3x3 solves, on sliding
                                and on mixed problems

Prints one JSON object on stdout ({"targets": [{"name", "program", "value",
"max", "met", "runs"}]}) and a verdict per target on stderr; exits 1 when a
target is missed or a program fails.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

# name, program (in BUILD/examples), its arguments, the JSON field, the maximum
TARGETS = (
    ("copt_exact_over_closed_form", "bench_contact_laws", ["--calls", "200000"],
     "exact_over_closed_form", 20.0),
    ("mdp_sliding_over_cholesky", "bench_single_contact", [], "ratio_mdp_sliding", 20.0),
    ("mdp_mixed_over_cholesky", "bench_single_contact", [], "ratio_mdp_mixed", 20.0),
)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build", nargs="?", default="build")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    outputs = {}  # (program, args) -> its JSON outputs: one set of runs per program
    results, failed = [], False
    for name, program, extra, field, maximum in TARGETS:
        key = (program, tuple(extra))
        if key not in outputs:
            exe = os.path.join(args.build, "examples", program)
            outputs[key] = []
            for _ in range(max(1, args.runs)):
                done = subprocess.run([exe, "--json", *extra], capture_output=True, text=True,
                                      check=False)
                if done.returncode != 0:
                    print(f"speed_targets: {program} failed ({done.returncode}): {done.stderr}",
                          file=sys.stderr)
                    return 1
                outputs[key].append(json.loads(done.stdout))
        values = [out[field] for out in outputs[key]]
        value = statistics.median(values)
        met = value <= maximum
        failed |= not met
        results.append({"name": name, "program": program, "value": value, "max": maximum,
                        "met": met, "runs": values})
        print(f"speed target {name}: median {value:.3g} (max {maximum:g}) "
              f"{'met' if met else 'MISSED'}", file=sys.stderr)
    print(json.dumps({"targets": results}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
