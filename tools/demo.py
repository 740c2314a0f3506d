#!/usr/bin/python3
"""Runs every example program of a build tree with --json and prints a summary.

usage: tools/demo.py [BUILD_DIR]   (default: build)

Examples are discovered in BUILD_DIR/examples: every executable file there is
one. Each runs with --json and must print one JSON object; the table shows its
exit status, wall time and a few top-level fields (scalars, and the length of
arrays), after whether the physics invariants hold for the examples that check
them (an example whose invariants fail exits with 3). Exits 1 when any example fails or prints invalid JSON."""
import json
import os
import subprocess
import sys
import time

TIMEOUT_S = 300
MAX_FIELDS = 4
# Examples whose default run is a statistics run of many minutes run here with a
# shorter one (granular_channel: the two friction laws to a steady state take
# longer than TIMEOUT_S on 2 cores, docs/granular_channel.md).
DEMO_ARGS = {"granular_channel": ["--duration", "0.1"]}


def discover(examples_dir):
    names = []
    for name in sorted(os.listdir(examples_dir)):
        path = os.path.join(examples_dir, name)
        if os.path.isfile(path) and os.access(path, os.X_OK) and "." not in name:
            names.append(name)
    return names


def fmt_value(value):
    if isinstance(value, float):
        return f"{value:.10g}"
    if isinstance(value, str) and len(value) > 24:
        return value[:21] + "..."
    return str(value)


def top_fields(obj):
    """A few top-level fields: scalars first, then array lengths."""
    scalars = [f"{k}={fmt_value(v)}" for k, v in obj.items()
               if isinstance(v, (int, float, str, bool)) or v is None]
    arrays = [f"{k}[{len(v)}]" for k, v in obj.items() if isinstance(v, list)]
    fields = (scalars + arrays)[:MAX_FIELDS]
    hidden = len(scalars) + len(arrays) - len(fields)
    return "  ".join(fields) + (f"  (+{hidden})" if hidden > 0 else "")


def run(path):
    start = time.monotonic()
    args = DEMO_ARGS.get(os.path.basename(path), [])
    try:
        done = subprocess.run([path, "--json", *args], capture_output=True, text=True,
                              timeout=TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - start, f"no result after {TIMEOUT_S} s"
    elapsed = time.monotonic() - start
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [""])[-1]
        return str(done.returncode), elapsed, f"FAILED: {last}"
    try:
        obj = json.loads(done.stdout)
    except json.JSONDecodeError as exc:
        return "bad-json", elapsed, f"invalid JSON on stdout: {exc}"
    if not isinstance(obj, dict):
        return "bad-json", elapsed, "the output is not one JSON object"
    summary = top_fields(obj)
    if isinstance(obj.get("invariants"), dict):  # examples/common/example_invariants.h
        summary = f"invariants={'hold' if obj['invariants'].get('hold') else 'VIOLATED'}  {summary}"
    return "0", elapsed, summary


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    examples_dir = os.path.join(build, "examples")
    if not os.path.isdir(examples_dir):
        print(f"demo: {examples_dir} does not exist; build first (make build)", file=sys.stderr)
        return 1
    names = discover(examples_dir)
    if not names:
        print(f"demo: no example programs in {examples_dir}", file=sys.stderr)
        return 1
    rows = []
    for name in names:
        print(f"demo: running {name} --json {' '.join(DEMO_ARGS.get(name, []))}...",
              file=sys.stderr, flush=True)
        status, seconds, summary = run(os.path.join(examples_dir, name))
        rows.append((name, status, f"{seconds:.2f}", summary))
    header = ("example", "exit", "seconds", "results (top-level JSON fields)")
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(3)]
    line = f"{header[0]:<{widths[0]}}  {header[1]:>{widths[1]}}  {header[2]:>{widths[2]}}  {header[3]}"
    print(line)
    print("-" * len(line))
    for name, status, seconds, summary in rows:
        print(f"{name:<{widths[0]}}  {status:>{widths[1]}}  {seconds:>{widths[2]}}  {summary}")
    failed = [r[0] for r in rows if r[1] != "0"]
    print(f"\n{len(rows) - len(failed)}/{len(rows)} examples succeeded"
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
