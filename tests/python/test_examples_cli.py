"""Every example program checks its command line (examples/common/example_cli.h):
an unknown argument stops it with status 2 before any work, and --help prints its
usage, so that a misspelt flag never starts a long default run."""
import os
import subprocess

import pytest

from conftest import examples_dir


def example_programs():
    path = os.environ.get("NSCD_EXAMPLES_DIR")
    if not path or not os.path.isdir(path):
        return []
    return sorted(
        name
        for name in os.listdir(path)
        if os.path.isfile(os.path.join(path, name))
        and os.access(os.path.join(path, name), os.X_OK)
        and "." not in name
    )


def run(name, *args):
    return subprocess.run(
        [os.path.join(examples_dir(), name), *args],
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_examples_are_found():
    examples_dir()
    assert "bouncing_ball" in example_programs()


@pytest.mark.parametrize("name", example_programs())
def test_unknown_argument_is_refused(name):
    result = run(name, "--no-such-flag")
    assert result.returncode == 2
    assert "unknown argument: --no-such-flag" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("name", example_programs())
def test_help_prints_usage(name):
    result = run(name, "--help")
    assert result.returncode == 0
    assert result.stdout.startswith("usage: " + name + " ")


@pytest.mark.parametrize("name", example_programs())
def test_option_without_value_is_refused(name):
    usage = run(name, "--help").stdout
    options = [w[1:] for w in usage.replace("]", " ").split() if w.startswith("[--")]
    valued = [o for o in options if f"[{o} " in usage]
    if not valued:
        pytest.skip("no option takes a value")
    result = run(name, valued[0])
    assert result.returncode == 2
    assert "needs a value" in result.stderr
