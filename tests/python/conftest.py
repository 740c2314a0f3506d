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


@pytest.fixture
def run_example():
    """run_example("bouncing_ball", "--e", "0.5") -> the parsed --json output."""

    def run(name, *args, timeout=600):
        exe = os.path.join(examples_dir(), name)
        done = subprocess.run([exe, "--json", *args], capture_output=True, text=True,
                              timeout=timeout, check=False)
        assert done.returncode == 0, f"{name} failed ({done.returncode}): {done.stderr}"
        return json.loads(done.stdout)

    return run
