#!/usr/bin/python3
"""Compares two outputs of a benchmark program of bench/ (one JSON object with
a "cases" array, e.g. bench_event_driven) case by case.

usage: tools/compare_bench.py [--max-ratio R] OLD.json NEW.json

For every case of both files it prints the ratio NEW / OLD of the median and
the minimum wall time per run (median_s, min_s) and of the median CPU time
(cpu_median_s, when both have it): below 1 the new build is faster. It also
says whether the two builds computed the same thing: the same final-state
checksum and the same counters (events, impacts, accepted and rejected steps,
right-hand-side evaluations); a difference is reported, it does not fail.

Exits 1 when a file is not such an object, when a case failed in either file
or is missing from NEW, or, with --max-ratio R, when a median wall-time ratio
is above R; 0 otherwise. Make both files on the same quiet machine, one after
the other (make bench BUILD_DIR=... writes BUILD_DIR/bench/bench_event_driven.json).
"""
import argparse
import json
import sys

COUNTERS = ("events", "impacts", "steps_accepted", "steps_rejected", "rhs_evaluations")
RATIOS = (("median_s", "median"), ("min_s", "min"), ("cpu_median_s", "cpu median"))


def load(path):
    with open(path, encoding="utf-8") as f:
        obj = json.load(f)
    if not isinstance(obj, dict) or not isinstance(obj.get("cases"), list):
        raise ValueError(f"{path}: not a benchmark output (no \"cases\" array)")
    return {c["name"]: c for c in obj["cases"]}, obj


def ratio(old, new, key):
    a, b = old.get(key), new.get(key)
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) or a <= 0:
        return None
    return b / a


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--max-ratio", type=float, default=None,
                        help="fail when NEW median / OLD median exceeds this for a case")
    args = parser.parse_args()
    try:
        old_cases, old_obj = load(args.old)
        new_cases, new_obj = load(args.new)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"compare_bench: {exc}", file=sys.stderr)
        return 1

    print(f"old: {args.old} (nscd {old_obj.get('nscd_version', '?')}, "
          f"repeat {old_obj.get('repeat', '?')})")
    print(f"new: {args.new} (nscd {new_obj.get('nscd_version', '?')}, "
          f"repeat {new_obj.get('repeat', '?')})")
    width = max(len(n) for n in list(old_cases) + list(new_cases) + ["case"])
    header = f"{'case':<{width}}  {'old median':>11}  {'new median':>11}  " + "  ".join(
        f"{label + ' ratio':>16}" for _, label in RATIOS) + "  result"
    print(header)
    print("-" * len(header))
    failed = False
    for name in list(old_cases) + [n for n in new_cases if n not in old_cases]:
        old, new = old_cases.get(name), new_cases.get(name)
        if old is None or new is None:
            print(f"{name:<{width}}  only in {'NEW' if old is None else 'OLD'}")
            failed |= new is None
            continue
        bad = [side for side, c in (("old", old), ("new", new)) if c.get("status") != "ok"]
        if bad:
            print(f"{name:<{width}}  FAILED in {' and '.join(bad)}: "
                  f"{new.get('status')} {new.get('error', '')}".rstrip())
            failed = True
            continue
        cells = []
        for key, _ in RATIOS:
            r = ratio(old, new, key)
            cells.append(f"{r:16.3f}" if r is not None else f"{'-':>16}")
        same = [k for k in COUNTERS if old.get(k) != new.get(k)]
        if old.get("checksum") != new.get("checksum"):
            same.insert(0, "final state")
        result = "same result" if not same else "DIFFERENT: " + ", ".join(same)
        print(f"{name:<{width}}  {old['median_s']:11.4e}  {new['median_s']:11.4e}  "
              + "  ".join(cells) + f"  {result}")
        r = ratio(old, new, "median_s")
        if args.max_ratio is not None and r is not None and r > args.max_ratio:
            print(f"{'':<{width}}  median ratio {r:.3f} > --max-ratio {args.max_ratio}")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
