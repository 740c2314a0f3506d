#!/usr/bin/python3
"""Runs every example of one build tree with --json under several OpenBLAS
settings (core type and thread count) and compares the outputs with those of
the first setting, as tools/compare_demo_json.py compares two builds: numbers
bitwise, timing fields skipped.

usage: tools/portability_matrix.py [--jobs N] [--only NAME ...]
                                   [--settings S ...] BUILD

A setting is CORETYPE/THREADS (e.g. Haswell/1, Sandybridge/2) or "default"
(neither variable set). For each example it prints one line: "bitwise" when
every setting gave the same bits; "figures" when only floating-point figures
differ (every integer, string, boolean and array length equal: the same
statuses, counts and events), with the largest relative difference; "DIFFERS"
otherwise (a count, a status or a length changed), with the first paths; or
"FAILED" when a run failed. Besides compare_demo_json's timing fields it
skips the peak memory (max_rss_bytes, granular_channel), which varies from
run to run. Exits 1 when any example differs or fails.
Documented in docs/portability.md.
"""
import argparse
import concurrent.futures
import importlib.util
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("compare_demo_json",
                                               os.path.join(HERE, "compare_demo_json.py"))
cdj = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cdj)

MEMORY_KEYS = ("max_rss_bytes",)
DEFAULT_SETTINGS = ["default", "Prescott/1", "Nehalem/2", "Sandybridge/2", "Haswell/1", "Zen/2",
                    "SkylakeX/1"]


def environment(setting):
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_NUM_THREADS", None)
    if setting != "default":
        core, threads = setting.split("/")
        env["OPENBLAS_CORETYPE"] = core
        env["OPENBLAS_NUM_THREADS"] = threads
    return env


def run(path, setting):
    try:
        done = subprocess.run([path, "--json"], capture_output=True, text=True,
                              timeout=cdj.TIMEOUT_S, check=False, env=environment(setting))
    except subprocess.TimeoutExpired:
        return None, "timeout"
    if done.returncode != 0:
        return None, f"exit {done.returncode}"
    try:
        return json.loads(done.stdout), None
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON: {exc}"


def relative(a, b):
    a, b = float(a), float(b)
    scale = max(abs(a), abs(b))
    return 0.0 if scale == 0.0 else abs(a - b) / scale


def classify(name, outputs, settings):
    errors = [f"{s}: {e}" for s, (_, e) in zip(settings, outputs) if e]
    if errors:
        return "FAILED", "; ".join(errors)
    ref = outputs[0][0]
    worst, structural = 0.0, []
    for setting, (obj, _) in zip(settings[1:], outputs[1:]):
        cmp = cdj.Comparison()
        cmp.walk(ref, obj, name)
        for path, old, new in cmp.diffs:
            if path.endswith(MEMORY_KEYS):  # measures the process, not the computation
                continue
            if (cdj.is_number(old) and cdj.is_number(new) and isinstance(old, float)
                    and isinstance(new, float) and not path.endswith("[len]")):
                worst = max(worst, relative(old, new))
            else:
                structural.append(f"{setting} {path}: {cdj.short(old)} -> {cdj.short(new)}")
    if structural:
        return "DIFFERS", "; ".join(structural[:3])
    if worst == 0.0:
        return "bitwise", ""
    return "figures", f"max relative difference {worst:.2e}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--only", nargs="+", metavar="NAME")
    parser.add_argument("--settings", nargs="+", default=DEFAULT_SETTINGS)
    args = parser.parse_args()
    names = cdj.discover(os.path.join(args.build, "examples"))
    if args.only:
        names = [n for n in names if n in args.only]
    paths = {n: os.path.join(args.build, "examples", n) for n in names}
    print(f"settings: {', '.join(args.settings)} (compared with {args.settings[0]})", flush=True)
    bad = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for n in names:  # one example at a time, its line printed as soon as it is known
            outputs = list(pool.map(lambda s, n=n: run(paths[n], s), args.settings))
            verdict, detail = classify(n, outputs, args.settings)
            bad += verdict in ("DIFFERS", "FAILED")
            print(f"{n:28s} {verdict:8s} {detail}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
