#!/usr/bin/python3
"""Smoke test of bench/bench_world (ctest bench.bench_world): a small run of
every engine this build found, checking the JSON shape, that every engine
compiled in is listed and ran, and that the numbers are sane (a dense pile:
most spheres in contact, none escaped, penetration below 10 % of the radius);
then one small run of each other --shape (box, capsule, cylinder, convex,
mixed) in every engine: the JSON names the shape, every run succeeded, no
body escaped, every byte came back; nscd with --threads 1,2,3: the same
state_hash. No timing is asserted.

Usage: check_bench_world.py BENCH_WORLD_EXECUTABLE [ENGINE ...]
ENGINE: the engines the build is expected to have (CMake passes them)."""
import json
import math
import subprocess
import sys

RUN_KEYS = {
    "engine": str, "shape": str, "bodies": int, "sweeps": int, "dt": float, "steps": int,
    "steps_per_second": float, "contacts_avg": float,
    "contact_sweeps_per_second": float, "bytes_per_body": float,
    "bytes_per_contact": float, "bytes_not_freed": float, "max_penetration": float,
}


def number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)


def check(document, expected):
    assert document["benchmark"] == "bench_world", document.get("benchmark")
    found = document["engines_found"]
    assert sorted(found) == sorted(expected), (found, expected)
    runs = document["runs"]
    assert [run["engine"] for run in runs] == found, runs
    scenario = document["scenario"]
    for run in runs:
        assert run["ok"] is True, run
        for key, kind in RUN_KEYS.items():
            assert key in run, (key, run)
            if kind is str:
                assert isinstance(run[key], str), (key, run)
            else:
                assert number(run[key]) and run[key] >= 0, (key, run)
        assert run["bodies"] == 200 and run["steps"] == 20 and run["sweeps"] == 10, run
        assert run["dt"] == scenario["dt"], run
        assert run["shape"] == scenario["shape"] == "sphere", run
        # The settled pile: most spheres touch a neighbour or a wall.
        assert run["contacts_avg"] >= 0.5 * run["bodies"], run
        assert run["escaped"] == 0, run
        assert run["max_penetration"] < 0.1 * scenario["radius"], run
        # Every byte counted through the engine's allocator hook came back.
        assert run["bytes_not_freed"] == 0, run
        expected_rate = run["contacts_avg"] * run["sweeps"] * run["steps_per_second"]
        assert math.isclose(run["contact_sweeps_per_second"], expected_rate,
                            rel_tol=1e-4), run
    assert set(document["growth"]) == set(found), document["growth"]
    # One size: no exponent can be fitted.
    assert all(value is None for value in document["growth"].values())


SHAPES = ("box", "capsule", "cylinder", "convex", "mixed")


def check_shapes(executable, expected):
    """One small pour of each kind of body, every engine: the same scene
    (bench/world/scenario.c) built and stepped in each."""
    for shape in SHAPES:
        out = subprocess.run([executable, "--json", "--shape", shape, "--bodies", "200",
                              "--steps", "10", "--warmup", "60"],
                             check=True, stdout=subprocess.PIPE, text=True, timeout=300).stdout
        document = json.loads(out)
        assert document["scenario"]["shape"] == shape, document["scenario"]
        runs = document["runs"]
        assert sorted(run["engine"] for run in runs) == sorted(expected), (shape, runs)
        for run in runs:
            assert run["ok"] is True and run["shape"] == shape, run
            assert run["bodies"] == 200 and run["steps"] == 10, run
            for key in ("steps_per_second", "contacts_avg", "max_penetration",
                        "mean_height", "kinetic_energy"):
                assert number(run[key]) and run[key] >= 0, (key, run)
            # The bodies have landed: most touch something.
            assert run["contacts_avg"] >= 0.5 * run["bodies"], run
            assert run["escaped"] == 0, run
            assert run["bytes_not_freed"] == 0, run
    # An unknown shape is refused like any bad option.
    bad = subprocess.run([executable, "--shape", "cone"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stdout == "", bad


def check_scenes(executable):
    """The mechanisms scenes (nscd only): chains in a pile with the chains,
    without them and with their links loose, and a resting stack with joints
    in the world."""
    out = subprocess.run([executable, "--json", "--scene", "chains", "--bodies", "300",
                          "--warmup", "150", "--steps", "20"],
                         check=True, stdout=subprocess.PIPE, text=True, timeout=300).stdout
    document = json.loads(out)
    runs = document["runs"]
    assert [(run["links"], run["joints"]) for run in runs] == [(250, 250), (0, 0), (250, 0)], runs
    for run in runs:
        assert run["engine"] == "nscd" and run["scene"] == "chains" and run["ok"] is True, run
        assert run["bodies"] == 300 and number(run["steps_per_second"]), run
        assert run["max_joint_drift"] <= 1e-6, run
        assert run["contacts_avg"] >= 0.5 * run["bodies"], run
    assert number(document["joints_cost"]), document
    assert number(document["joints_cost_same_bodies"]), document
    out = subprocess.run([executable, "--json", "--scene", "stack", "--bodies", "200",
                          "--warmup", "400", "--steps", "100"],
                         check=True, stdout=subprocess.PIPE, text=True, timeout=300).stdout
    (run,) = json.loads(out)["runs"]
    assert run["ok"] is True and run["joints"] == 5 and run["max_speed"] < 1e-3, run
    assert run["max_joint_drift"] <= 1e-6, run


def check_threads(executable):
    """--threads: one nscd run per count, each with its threads and a
    state_hash; the hash is the same for 1, 2 and 3 threads (the colour
    order: docs/world.md, "Threads")."""
    out = subprocess.run([executable, "--json", "--engine", "nscd", "--bodies", "2000",
                          "--steps", "10", "--warmup", "30", "--threads", "1,2,3"],
                         check=True, stdout=subprocess.PIPE, text=True, timeout=300).stdout
    runs = json.loads(out)["runs"]
    assert [run["threads"] for run in runs] == [1, 2, 3], runs
    for run in runs:
        assert run["ok"] is True and number(run["steps_per_second"]), run
        assert len(run["state_hash"]) == 16, run
    assert len({run["state_hash"] for run in runs}) == 1, runs
    bad = subprocess.run([executable, "--threads", "-1"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stdout == "", bad


def main():
    executable, expected = sys.argv[1], sys.argv[2:]
    out = subprocess.run([executable, "--json", "--bodies", "200", "--steps", "20",
                          "--warmup", "60"],
                         check=True, stdout=subprocess.PIPE, text=True, timeout=120).stdout
    check(json.loads(out), expected)
    # A bad option is refused with status 2 and no JSON.
    bad = subprocess.run([executable, "--bodies", "-3"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stdout == "", bad
    check_shapes(executable, expected)
    if "nscd" in expected:
        check_scenes(executable)
        check_threads(executable)
    print("bench_world: engines", ", ".join(expected), "ok")


if __name__ == "__main__":
    main()
