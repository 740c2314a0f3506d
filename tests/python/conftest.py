"""Shared fixtures of the Python tests (run by ctest with /usr/bin/python3).

ctest sets NSCD_LIBRARY (the built shared library), NSCD_EXAMPLES_DIR (the
built example programs) and PYTHONPATH (the python/ package)."""
import json
import os
import subprocess

import pytest


def examples_dir():
    path = os.environ.get("NSCD_EXAMPLES_DIR")
    if not path:
        pytest.skip("NSCD_EXAMPLES_DIR is not set (run through ctest)")
    return path


# The examples that run the event-driven stepper check the physics invariants
# (examples/common/example_invariants.h) and report them in "invariants".
INVARIANT_EXAMPLES = {"bouncing_ball", "two_pendulums", "double_pendulum_routh"}


def check_invariants(inv):
    """Asserts the invariants object of an example's --json output: the
    example says they hold, and its numbers agree with its tolerances."""
    assert inv["hold"] is True, inv
    assert inv["violations"] == 0
    assert inv["events"] >= 0 and inv["samples"] >= 1
    assert inv["energy_tolerance"] >= 0.0
    assert 1e-10 <= inv["gap_tolerance"] < 1e-5  # persistent_gap_tolerance and more
    if inv["events"] > 0:  # no energy created at any event
        assert inv["max_event_energy_gain"] <= inv["energy_tolerance"]
    assert inv["min_gap"] >= -inv["gap_tolerance"]  # nothing sinks into a contact
    if inv["drift_tolerance"] is not None:  # conservative between events
        assert inv["max_smooth_energy_rise"] <= inv["drift_tolerance"]


@pytest.fixture
def run_example():
    """run_example("bouncing_ball", "--e", "0.5") -> the parsed --json output;
    for the examples of INVARIANT_EXAMPLES, their invariants are checked too."""

    def run(name, *args, timeout=600):
        exe = os.path.join(examples_dir(), name)
        done = subprocess.run([exe, "--json", *args], capture_output=True, text=True,
                              timeout=timeout, check=False)
        assert done.returncode == 0, f"{name} failed ({done.returncode}): {done.stderr}"
        out = json.loads(done.stdout)
        if name in INVARIANT_EXAMPLES:
            check_invariants(out["invariants"])
        return out

    return run
