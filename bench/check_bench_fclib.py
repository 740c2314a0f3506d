#!/usr/bin/python3
"""Smoke test of bench/bench_fclib (ctest bench.bench_fclib): one run on an FCLIB
file of the repository (tests/data/fclib_spheres.hdf5), checking the JSON shape,
that every solver of the build ran on every problem, that every nscd solver
reaches E1 <= 1e-6 (the bench's natural-map error) and libfclib's own merit
(fclib_merit_local, computed by libfclib, independent of nscd) <= 1e-6 too:
both vanish exactly at a solution and differ only by their normalisation,
so their ratio must be one constant per problem for every engine's r (a check
of the bench's E1 against libfclib's independent code); and
that the performance profile is a set of non-decreasing fractions in [0, 1].
No timing is asserted; the Siconos rows are checked for shape only.

Usage: check_bench_fclib.py BENCH_FCLIB_EXECUTABLE FILE..."""
import json
import math
import subprocess
import sys

RUN_KEYS = ("engine", "solver", "status", "converged", "solved", "iterations",
            "newton_iterations", "seconds", "wall_seconds", "merit_nscd",
            "siconos_error", "E1", "fclib_merit")
NSCD = ("gs", "newton", "auto")
SICONOS = ("nsgs", "nsn_ac", "admm")
SOLVED = 1e-6


def number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)


def check(document, files):
    assert document["benchmark"] == "bench_fclib", document.get("benchmark")
    expected = [("nscd", name) for name in NSCD]
    if document["siconos_built"]:
        expected += [("siconos", name) for name in SICONOS]
    solvers = [(s["engine"], s["solver"]) for s in document["solvers"]]
    assert solvers == expected, (solvers, expected)
    assert document["tolerance"] == 1e-8 and document["repeat"] == 1, document
    problems = document["problems"]
    assert [p["file"] for p in problems] == files, problems
    assert document["skipped"] == [], document["skipped"]
    for problem in problems:
        assert isinstance(problem["contacts"], int) and problem["contacts"] > 0, problem
        runs = problem["runs"]
        assert [(r["engine"], r["solver"]) for r in runs] == expected, runs
        for run in runs:
            for key in RUN_KEYS:
                assert key in run, (key, run)
            assert isinstance(run["status"], str) and run["status"], run
            if run["engine"] != "nscd":
                continue
            # Every nscd method solves this small pile, to the bench's E1 and to
            # libfclib's own merit (computed by libfclib, independent of nscd).
            assert run["converged"] is True and run["status"] == "converged", run
            assert number(run["E1"]) and 0 <= run["E1"] <= SOLVED, run
            assert number(run["fclib_merit"]) and run["fclib_merit"] <= SOLVED, run
            assert run["solved"] is True, run
            # nscd stopped on its own merit <= tolerance.
            assert number(run["merit_nscd"]) and run["merit_nscd"] <= 1e-8, run
            assert run["siconos_error"] is None, run
            assert number(run["seconds"]) and run["seconds"] >= 0, run
            assert run["iterations"] + run["newton_iterations"] >= 1, run
        # E1 and libfclib's MERIT_1 (its own code) are the same norm of the same
        # natural map, under different normalisations (1 + ||q|| against
        # 1 + sqrt(||q||)): their ratio is one constant per problem, for every
        # engine's r. Checked where the residual is well above round-off.
        ratios = [run["E1"] / run["fclib_merit"] for run in runs
                  if number(run["E1"]) and number(run["fclib_merit"]) and run["E1"] >= 1e-11]
        assert ratios, runs
        assert max(ratios) <= 1.01 * min(ratios), (ratios, problem["file"])
    profile = document["profile"]
    assert profile["taus"] == [1, 2, 4, 10], profile
    rows = profile["fractions"]
    assert [(r["engine"], r["solver"]) for r in rows] == expected, rows
    best = 0.0
    for row in rows:
        fractions = row["fraction"]
        assert len(fractions) == 4 and all(0 <= f <= 1 for f in fractions), row
        assert all(a <= b for a, b in zip(fractions, fractions[1:])), row
        best = max(best, fractions[0])
    # tau = 1: some solver is the fastest on each problem.
    assert best > 0, rows


def main():
    executable, files = sys.argv[1], sys.argv[2:]
    output = subprocess.run([executable, "--repeat", "1", "--timeout", "120"] + files,
                            check=True, stdout=subprocess.PIPE, text=True).stdout
    check(json.loads(output), files)
    print("bench_fclib: JSON shape and nscd solutions checked")


if __name__ == "__main__":
    main()
