#!/usr/bin/python3
"""Seed 003's Tables 3-6 in kind, on the rigid slider-crank (examples/slider_crank).

  Tables 3 and 5: CPU time per step of every scheme at dt = 1e-5 s relative to Moreau's
      midpoint rule (the paper's "Moreau"), bilateral case (c = 0) and unilateral case
      (Table 1 data). Measured by bench/bench_time_stepping (no observer, median of
      --repeat runs, one process, so the same machine and load for every scheme).
  Tables 4 and 6: the error (92) of theta2,
          err = || ( |theta2(t_k) - theta2_ref(t_k)| / |theta2_ref(t_k)| )_k ||_2,
      over t_k = 1, 2, ..., 50 ms (the example's samples; t = 0 is left out: theta2_ref = 0),
      at dt = 1e-4, 1e-5, 1e-6 s to T = 0.05 s. The reference is one run of Moreau's midpoint
      rule at dt = 1e-7 s for every scheme (the paper: Simpack for Table 4, ED-alpha with
      rho_inf = 0 at 1e-7 for Table 6); --reference-scheme changes it (e.g. ed_alpha).
A scheme the library refuses (the example exits with 4) is listed as "unsupported".

usage: tools/slider_crank_tables.py [BUILD_DIR] [--out PREFIX] [--repeat N]
                                    [--reference-scheme S] [--quick]
writes PREFIX.json and PREFIX.md (default build/tables/slider_crank_tables); --quick uses
dt = 1e-4, 1e-5 and a reference at 1e-6 (a minute instead of several)."""
import argparse
import json
import math
import os
import subprocess
import sys

SCHEMES = ["moreau_midpoint", "moreau_jean", "hets", "generalized_alpha", "bathe", "ed_alpha"]
PAPER_NAMES = {"moreau_midpoint": "Moreau", "hets": "HETS", "generalized_alpha":
               "generalized-α", "bathe": "Bathe", "ed_alpha": "ED-α"}
CASES = {"bilateral": ("Table 3", "Table 4"), "table1": ("Table 5", "Table 6")}
PAPER_CPU = {"bilateral": {"moreau_midpoint": 1.0, "hets": 1.35, "generalized_alpha": 4.15,
                           "bathe": 4.35, "ed_alpha": 5.00},
             "table1": {"moreau_midpoint": 1.0, "hets": 1.15, "generalized_alpha": 2.72,
                        "bathe": 3.15, "ed_alpha": 3.40}}
PAPER_ERROR = {  # dt = 1e-4, 1e-5, 1e-6
    "bilateral": {"moreau_midpoint": [1.3e1, 1.3e0, 1.3e-1], "hets": [0.1, 0.1e-2, 0.1e-4],
                  "generalized_alpha": [0.1, 0.1e-2, 0.1e-4], "bathe": [0.7e-1, 0.7e-3, 1.6e-5],
                  "ed_alpha": [1.3e-1, 1.3e-3, 1.6e-5]},
    "table1": {"moreau_midpoint": [6.7e-2, 6.4e-3, 6.4e-4], "hets": [1.1e-3, 2.8e-5, 2.3e-6],
               "generalized_alpha": [2.0e-3, 1.2e-4, 1.4e-5], "bathe": [1.4e-3, 7.8e-5, 8.9e-6],
               "ed_alpha": [9.4e-4, 2.8e-5, 2.3e-6]},
}
T_END = 0.05
EXIT_UNSUPPORTED = 4


def run_example(build, case, scheme, dt):
    """The example's JSON, or {"error": ...} when the library refuses the scheme or the run
    fails."""
    exe = os.path.join(build, "examples", "slider_crank")
    done = subprocess.run([exe, "--json", "--case", case, "--scheme", scheme, "--dt", repr(dt),
                           "--t-end", repr(T_END)], capture_output=True, text=True, check=False,
                          env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    if done.returncode == EXIT_UNSUPPORTED:
        return {"error": "unsupported"}
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(done.stdout)


def error92(out, ref):
    """Eq. (92): 2-norm of the relative errors of theta2 over the samples t_k > 0."""
    terms = []
    for s, r in zip(out["samples"][1:], ref["samples"][1:]):
        assert abs(s["t"] - r["t"]) < 1e-9
        terms.append(abs(s["q"][1] - r["q"][1]) / abs(r["q"][1]))
    return math.sqrt(sum(x * x for x in terms))


def cpu_per_step(build, case, repeat):
    exe = os.path.join(build, "bench", "bench_time_stepping")
    done = subprocess.run([exe, "--case", case, "--repeat", str(repeat)], capture_output=True,
                          text=True, check=False, env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    schemes = json.loads(done.stdout)["cases"][0]["schemes"]
    return {s["scheme"]: s for s in schemes}


def table_case(build, case, dts, ref_dt, ref_scheme, repeat):
    ref = run_example(build, case, ref_scheme, ref_dt)
    if "error" in ref:
        sys.exit(f"reference {ref_scheme} at dt = {ref_dt} failed: {ref['error']}")
    timing = cpu_per_step(build, case, repeat)
    midpoint = timing["moreau_midpoint"]["cpu_us_per_step"]
    rows = []
    for scheme in SCHEMES:
        t = timing[scheme]
        row = {"scheme": scheme, "paper_cpu": PAPER_CPU[case].get(scheme),
               "paper_error": PAPER_ERROR[case].get(scheme), "errors": [], "failures": []}
        if t.get("supported") and "cpu_us_per_step" in t:
            row["cpu_us_per_step"] = t["cpu_us_per_step"]
            row["relative_cpu"] = t["cpu_us_per_step"] / midpoint
        else:
            row["relative_cpu"] = None
            row["note"] = t.get("error", "failed")
        for dt in dts:
            out = run_example(build, case, scheme, dt) if t.get("supported") else \
                {"error": "unsupported"}
            row["errors"].append(None if "error" in out else error92(out, ref))
            row["failures"].append(out.get("error"))
        rows.append(row)
    return {"case": case, "tables": CASES[case], "dt": dts, "reference": {
        "scheme": ref_scheme, "dt": ref_dt, "theta2_end": ref["final"]["q"][1]}, "rows": rows}


def fmt(x):
    return "—" if x is None else f"{x:.2g}"


def markdown(result):
    lines = []
    for c in result["cases"]:
        cpu_table, err_table = c["tables"]
        ref = c["reference"]
        lines.append(f"### {c['case']}: {cpu_table} and {err_table} in kind\n")
        lines.append(f"Error (92) of θ2 over t_k = 1 … 50 ms against {ref['scheme']} at "
                     f"dt = {ref['dt']:g} s; CPU time per step at dt = 1e-5 s relative to "
                     "Moreau's midpoint rule.\n")
        head = "| scheme | rel. CPU (paper) | rel. CPU (nscd) | µs/step | " + " | ".join(
            f"err dt={dt:g} (paper) | err dt={dt:g} (nscd)" for dt in c["dt"]) + " |"
        lines += [head, "|" + "---|" * (4 + 2 * len(c["dt"]))]
        for row in c["rows"]:
            paper_err = row["paper_error"] or [None] * 3
            cells = [PAPER_NAMES.get(row["scheme"], row["scheme"]) + f" (`{row['scheme']}`)",
                     fmt(row["paper_cpu"]), fmt(row["relative_cpu"]),
                     fmt(row.get("cpu_us_per_step"))]
            for k, dt in enumerate(c["dt"]):
                paper = paper_err[[1e-4, 1e-5, 1e-6].index(dt)] if dt in (1e-4, 1e-5, 1e-6) \
                    else None
                fail = row["failures"][k]
                mine = fmt(row["errors"][k]) if fail is None else (
                    "unsupported" if fail == "unsupported" else "failed")
                cells += [fmt(paper), mine]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("build", nargs="?", default="build")
    p.add_argument("--out", default=None)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--reference-scheme", default="moreau_midpoint")
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    dts, ref_dt = ([1e-4, 1e-5], 1e-6) if args.quick else ([1e-4, 1e-5, 1e-6], 1e-7)
    result = {"t_end": T_END, "cases": [
        table_case(args.build, case, dts, ref_dt, args.reference_scheme, args.repeat)
        for case in CASES]}
    out = args.out or os.path.join(args.build, "tables", "slider_crank_tables")
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out + ".json", "w") as f:
        json.dump(result, f, indent=1)
    with open(out + ".md", "w") as f:
        f.write(markdown(result))
    print(markdown(result))


if __name__ == "__main__":
    main()
