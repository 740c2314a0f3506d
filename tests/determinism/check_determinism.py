#!/usr/bin/python3
"""Runs tests/determinism/determinism.c under several OpenBLAS kernels and
thread counts and compares the hash of each model's final state.

    /usr/bin/python3 tests/determinism/check_determinism.py build/tests/determinism

The settings: the machine's default twice (the same bits run after run), then
OPENBLAS_CORETYPE / OPENBLAS_NUM_THREADS = Haswell / 1, Sandybridge / 2 and
Prescott / 1 (a kernel this CPU cannot run is skipped, with a note). Every
model must finish with status ok under every setting. A model outside
NOT_YET_BITWISE must give the same hash under every setting; a model inside it
(one whose results still go through OpenBLAS's kernels) may differ, and is
reported when it no longer does, so that it can leave the set
(docs/testing.md, "Portability")."""
import os
import platform
import subprocess
import sys

# Models whose final states may still depend on the OpenBLAS kernel or thread
# count. Empty: every model here is below NSCD__DENSE_SMALL, so its dense
# algebra runs in the library's own fixed-order kernels (docs/portability.md),
# and the world's own step calls no BLAS. A model above the threshold would
# go here.
NOT_YET_BITWISE: set = set()

# (name, OPENBLAS_CORETYPE or None for the default, OPENBLAS_NUM_THREADS or None,
#  the CPU flag the kernel needs)
SETTINGS = [
    ("default", None, None, None),
    ("default again", None, None, None),
    ("Haswell/1", "Haswell", "1", "avx2"),
    ("Sandybridge/2", "Sandybridge", "2", "avx"),
    ("Prescott/1", "Prescott", "1", "pni"),  # pni: SSE3 in /proc/cpuinfo
]


def cpu_flags():
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def run(program, coretype, threads):
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    if coretype is not None:
        env["OPENBLAS_CORETYPE"] = coretype
    if threads is not None:
        env["OPENBLAS_NUM_THREADS"] = threads
    done = subprocess.run([program], env=env, capture_output=True, text=True, timeout=600,
                          check=False)
    results = {}
    for line in done.stdout.splitlines():
        name, status, digest = line.split()
        results[name] = (status, digest)
    return done.returncode, done.stderr, results


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    program = sys.argv[1]
    x86 = platform.machine() in ("x86_64", "AMD64", "i686")
    flags = cpu_flags()
    runs = []
    for label, coretype, threads, flag in SETTINGS:
        if coretype is not None and (not x86 or flag not in flags):
            print(f"{label}: skipped (this CPU cannot run the {coretype} kernel)")
            continue
        code, stderr, results = run(program, coretype, threads)
        bad = {m: s for m, (s, _) in results.items() if s != "ok"}
        if code != 0 or bad or not results:
            print(f"{label}: exit {code}, failed models {bad}\n{stderr}", file=sys.stderr)
            return 1
        runs.append((label, results))
    models = list(runs[0][1])
    failures = []
    print(f"{'model':18s} " + " ".join(f"{label:>16s}" for label, _ in runs))
    for model in models:
        digests = [results[model][1] for _, results in runs]
        print(f"{model:18s} " + " ".join(f"{d:>16s}" for d in digests))
        if digests[0] != digests[1]:
            failures.append(f"{model}: two runs under the default setting differ")
        elif len(set(digests)) > 1 and model not in NOT_YET_BITWISE:
            failures.append(f"{model}: the hash depends on the OpenBLAS kernel or thread count")
        elif len(set(digests)) == 1 and model in NOT_YET_BITWISE:
            print(f"note: {model} is now bitwise equal under every setting; it can leave "
                  "NOT_YET_BITWISE")
    unknown = NOT_YET_BITWISE - set(models)
    if unknown:
        failures.append(f"NOT_YET_BITWISE names models the program does not run: {unknown}")
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
