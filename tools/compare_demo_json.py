#!/usr/bin/python3
"""Runs every example program of two build trees with --json and compares the
outputs: two builds of different sources (e.g. main before and after a rewrite)
must compute the same numbers, bit for bit.

usage: tools/compare_demo_json.py [--jobs N] [--only NAME ...] [--strict]
                                  [--show K] BUILD_OLD BUILD_NEW

The examples are discovered as tools/demo.py does it (every executable file of
BUILD/examples). Each runs with --json in both trees; the two JSON objects are
walked together and every leaf must be equal:

- numbers: bitwise equal as IEEE doubles (the examples print %.17g, which
  round-trips, so equal text means equal bits; -0.0 differs from 0.0), and
  integers exactly; a number is never compared with a tolerance;
- strings, booleans, null: equal; arrays: same length, element by element;
  objects: the same keys.

Timing fields are skipped: they measure the machine, not the computation.
The exact list (from the examples' --json output, checked against every
example of the tree when this was written) is TIMING_KEYS below:

  seconds                  bouncing_ball, double_pendulum_routh (wall time of
                           the run), fc3d_bench runs[].{coulomb,max_dissipation}
  ns_per_call              bench_contact_laws functions[]
  exact_over_closed_form   bench_contact_laws (ratio of two ns_per_call)
  ns_per_contact_sweep     fc3d_bench runs[].{coulomb,max_dissipation}
  ns_cholesky, ns_mdp_mixed, ns_mdp_sliding, ns_mdp_sticking,
  ns_coulomb_newton_sliding, ns_coulomb_all_sliding
                           bench_single_contact (ns per call)
  ratio_mdp_mixed, ratio_mdp_sliding, ratio_mdp_sticking,
  ratio_coulomb_newton_sliding
                           bench_single_contact (ratios of those ns figures)

A key that is not in the list but looks like a timing (TIMING_HINTS: it
contains "time_s", "seconds", "wall", "elapsed", "timing", "ns_per",
"per_second", "speed_up" or starts with "ns_") is skipped too and named in a
warning, so that a new timing field is noticed and added to the list; note
that "speed" alone is not a hint (bouncing_ball has none, but a velocity may
be called a speed).

Verdict per example: "identical", or the number of differing fields with the
first few paths (--show, default 5) and the old and new values. A key only in
the new output is listed as added and does not fail unless --strict (a rewrite
may report more); a key missing from the new output, a failed run or invalid
JSON fails. Exits 1 when any example differs or fails, 0 otherwise.
"""
import argparse
import concurrent.futures
import json
import math
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from demo import discover  # noqa: E402  (tools/demo.py: the same example discovery)

TIMEOUT_S = 600

# Exact names of the timing fields of the examples' --json output (see above).
TIMING_KEYS = frozenset({
    "seconds",
    "ns_per_call",
    "exact_over_closed_form",
    "ns_per_contact_sweep",
    "ns_cholesky",
    "ns_mdp_mixed",
    "ns_mdp_sliding",
    "ns_mdp_sticking",
    "ns_coulomb_newton_sliding",
    "ns_coulomb_all_sliding",
    "ratio_mdp_mixed",
    "ratio_mdp_sliding",
    "ratio_mdp_sticking",
    "ratio_coulomb_newton_sliding",
})
# Substrings (and a prefix) of key names that look like timings: skipped with a warning.
TIMING_HINTS = ("time_s", "seconds", "wall", "elapsed", "timing", "ns_per", "per_second",
                "speed_up", "speedup")
TIMING_PREFIXES = ("ns_",)


def timing_kind(key):
    """None for a field to compare; "listed" or "hint" for a skipped timing."""
    if key in TIMING_KEYS:
        return "listed"
    low = key.lower()
    if any(h in low for h in TIMING_HINTS) or low.startswith(TIMING_PREFIXES):
        return "hint"
    return None


def run_example(path):
    """(parsed JSON or None, error message or None)."""
    try:
        done = subprocess.run([path, "--json"], capture_output=True, text=True,
                              timeout=TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return None, f"no result after {TIMEOUT_S} s"
    except OSError as exc:
        return None, f"cannot run: {exc}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [""])[-1]
        return None, f"exit {done.returncode}: {last}"
    try:
        obj = json.loads(done.stdout)
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON: {exc}"
    if not isinstance(obj, dict):
        return None, "the output is not one JSON object"
    return obj, None


def same_number(a, b):
    """Bitwise equality: integers exactly, otherwise as IEEE doubles."""
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    fa, fb = float(a), float(b)
    if math.isnan(fa) or math.isnan(fb):
        return math.isnan(fa) and math.isnan(fb)
    return struct.pack("<d", fa) == struct.pack("<d", fb)


def is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def short(value):
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


class Comparison:
    def __init__(self):
        self.diffs = []     # (path, old, new)
        self.added = []     # paths only in the new output
        self.skipped = 0    # timing leaves skipped
        self.hinted = set()  # keys skipped because they look like a timing
        self.compared = 0   # leaves compared

    def walk(self, old, new, path):
        if isinstance(old, dict) and isinstance(new, dict):
            for key in old:
                sub = f"{path}.{key}"
                kind = timing_kind(key)
                if kind is not None:
                    self.skipped += 1
                    if kind == "hint":
                        self.hinted.add(key)
                    continue
                if key not in new:
                    self.diffs.append((sub, old[key], "<missing>"))
                    continue
                self.walk(old[key], new[key], sub)
            for key in new:
                if key not in old and timing_kind(key) is None:
                    self.added.append(f"{path}.{key}")
            return
        if isinstance(old, list) and isinstance(new, list):
            if len(old) != len(new):
                self.diffs.append((f"{path}[len]", len(old), len(new)))
            for i, (a, b) in enumerate(zip(old, new)):
                self.walk(a, b, f"{path}[{i}]")
            return
        self.compared += 1
        if is_number(old) and is_number(new):
            equal = same_number(old, new)
        else:
            equal = type(old) is type(new) and old == new
        if not equal:
            self.diffs.append((path, old, new))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build_old")
    parser.add_argument("build_new")
    parser.add_argument("--jobs", type=int, default=1, help="examples run at a time (default 1)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only these examples")
    parser.add_argument("--strict", action="store_true",
                        help="fields only in the new output fail too")
    parser.add_argument("--show", type=int, default=5, help="differing fields shown per example")
    args = parser.parse_args()

    dirs = [os.path.join(b, "examples") for b in (args.build_old, args.build_new)]
    for d in dirs:
        if not os.path.isdir(d):
            print(f"compare_demo_json: {d} does not exist; build first", file=sys.stderr)
            return 2
    old_names, new_names = discover(dirs[0]), discover(dirs[1])
    names = sorted(set(old_names) | set(new_names))
    if args.only:
        unknown = sorted(set(args.only) - set(names))
        if unknown:
            print(f"compare_demo_json: no example {', '.join(unknown)}", file=sys.stderr)
            return 2
        names = [n for n in names if n in args.only]
    if not names:
        print("compare_demo_json: no example programs", file=sys.stderr)
        return 2

    jobs = [(n, i) for n in names for i in (0, 1)
            if n in (old_names, new_names)[i]]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_example, os.path.join(dirs[i], n)): (n, i) for n, i in jobs}
        for fut in concurrent.futures.as_completed(futures):
            results[futures[fut]] = fut.result()

    failed = 0
    width = max(len(n) for n in names)
    for name in names:
        label = f"{name:<{width}}"
        if name not in new_names:
            print(f"{label}  FAIL: only in the old build")
            failed += 1
            continue
        if name not in old_names:
            print(f"{label}  new example (not in the old build), not compared")
            continue
        (old, old_err), (new, new_err) = results[(name, 0)], results[(name, 1)]
        if old_err or new_err:
            why = "; ".join(f"{side}: {err}" for side, err in (("old", old_err), ("new", new_err))
                            if err)
            print(f"{label}  FAIL: {why}")
            failed += 1
            continue
        cmp = Comparison()
        cmp.walk(old, new, "")
        notes = [f"{cmp.compared} values, {cmp.skipped} timing fields skipped"]
        if cmp.added:
            notes.append(f"{len(cmp.added)} fields only in new: {', '.join(cmp.added[:args.show])}"
                         + (" ..." if len(cmp.added) > args.show else ""))
        if cmp.hinted:
            notes.append("skipped as timing by name, add to TIMING_KEYS if right: "
                         + ", ".join(sorted(cmp.hinted)))
        bad = bool(cmp.diffs) or (args.strict and bool(cmp.added))
        if cmp.diffs:
            print(f"{label}  DIFFERENT: {len(cmp.diffs)} differing fields ({'; '.join(notes)})")
            for path, a, b in cmp.diffs[:args.show]:
                print(f"{'':<{width}}    {path}: old {short(a)}  new {short(b)}")
            if len(cmp.diffs) > args.show:
                print(f"{'':<{width}}    ... and {len(cmp.diffs) - args.show} more")
        else:
            print(f"{label}  {'FAIL (strict)' if bad else 'identical'} ({'; '.join(notes)})")
        failed += bad
    print(f"\n{len(names) - failed}/{len(names)} examples identical"
          + (f"; {failed} differ or failed" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
