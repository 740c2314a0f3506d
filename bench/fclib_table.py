#!/usr/bin/python3
"""Markdown tables of a bench_fclib JSON (docs/benchmarks.md "FCLIB problems side
by side with Siconos"): per problem and solver the status, iterations, CPU
seconds and E1; the ratio nscd AUTO time / best Siconos time per problem with
its geometric mean over the problems both solve (E1 <= 1e-6); the performance
profile.

Usage: fclib_table.py BENCH_FCLIB_JSON"""
import json
import math
import os
import sys


def cell(run):
    if run["seconds"] is None:
        return "%s" % run["status"]
    iters = run["iterations"] if run["iterations"] else run["newton_iterations"]
    if run["iterations"] and run["newton_iterations"]:
        iters = "%d+%dN" % (run["iterations"], run["newton_iterations"])
    mark = "" if run["solved"] else " **unsolved**"
    return "%s it, %.3g s, E1 %.0e%s" % (iters, run["seconds"], run["E1"], mark)


def main():
    document = json.load(open(sys.argv[1]))
    solvers = [(s["engine"], s["solver"]) for s in document["solvers"]]
    names = ["%s %s" % s for s in solvers]
    print("| problem | contacts | " + " | ".join(names) + " |")
    print("|---|---:|" + "---|" * len(names))
    ratios = []
    ratio_rows = []
    for problem in document["problems"]:
        runs = {(r["engine"], r["solver"]): r for r in problem["runs"]}
        name = os.path.basename(problem["file"])
        print("| %s | %d | " % (name, problem["contacts"]) +
              " | ".join(cell(runs[s]) for s in solvers) + " |")
        auto = runs.get(("nscd", "auto"))
        siconos = [r for (engine, _), r in runs.items() if engine == "siconos" and r["solved"]]
        if auto and auto["solved"] and siconos:
            best = min(siconos, key=lambda r: r["seconds"])
            ratio = auto["seconds"] / best["seconds"]
            ratios.append(ratio)
            ratio_rows.append((name, auto["seconds"], best["solver"], best["seconds"], ratio))
        else:
            ratio_rows.append((name, auto["seconds"] if auto else None, None, None, None))
    print()
    print("| problem | nscd auto s | best Siconos (solver, s) | auto / best Siconos |")
    print("|---|---:|---|---:|")
    for name, a, solver, b, ratio in ratio_rows:
        if ratio is None:
            print("| %s | %s | none solved it | - |" % (name, "%.3g" % a if a else "-"))
        else:
            print("| %s | %.3g | %s, %.3g | %.3g |" % (name, a, solver, b, ratio))
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print("\nGeometric mean of auto / best Siconos over the %d problems both solve: %.3g"
              % (len(ratios), geo))
    print()
    taus = document["profile"]["taus"]
    print("| solver | " + " | ".join("tau = %g" % t for t in taus) + " |")
    print("|---|" + "---:|" * len(taus))
    for row in document["profile"]["fractions"]:
        print("| %s %s | " % (row["engine"], row["solver"]) +
              " | ".join("%.2f" % f for f in row["fraction"]) + " |")


if __name__ == "__main__":
    main()
