"""Checkpoint and bitwise restart of examples/mpi/granular_channel_mpi on two
ranks (docs/checkpoint.md, "The granular channel"; docs/distributed.md):

* the channel run uninterrupted, and run in two processes (the first saves at
  --checkpoint-at, after the balance of step 100; the second
  continues with --restart) end with the same state_hash, a hash of every
  body's global id, user id and state bits summed over the bodies of both
  ranks; saving changes nothing;
* --checkpoint-every: a run stopped before its end restarts from its last
  save and ends with the uninterrupted hash too;
* a truncated rank file, a byte-flipped one and a set whose two files hold
  different saves are refused: exit status 1, the reason on stderr, no
  crash.

Small runs (k = 10: dt = 0.1 ms, 16 ms = 160 steps). Skipped when the example was not built
(MPI not found) or mpirun is missing."""
import json
import os
import shutil
import subprocess

import pytest

from conftest import examples_dir

ARGS = ["--coarse-graining", "10", "--warmup", "0", "--law", "coulomb"]
DURATION = "0.016"
AT = "0.0122"  # step 122: after the cut moved at step 100, mid-layer
EVERY = "0.005"  # saves at steps 50, 100, 150


def _mpirun(*args, duration=DURATION):
    exe = os.path.join(examples_dir(), "granular_channel_mpi")
    mpirun = shutil.which("mpirun")
    if not os.path.isfile(exe) or mpirun is None:
        pytest.skip("granular_channel_mpi not built (no MPI) or mpirun missing")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_mpi_yield_when_idle="1",
               OPENBLAS_NUM_THREADS="1")
    return subprocess.run([mpirun, "-np", "2", exe, "--json", *ARGS, "--duration", duration, *args],
                          capture_output=True, text=True, timeout=600, check=False, env=env)


def _run(*args, duration=DURATION):
    done = _mpirun(*args, duration=duration)
    assert done.returncode == 0, f"{args} failed ({done.returncode}): {done.stderr}"
    result = json.loads(done.stdout)
    assert result["ranks"] == 2
    run = result["runs"][0]
    assert run["escaped_seen"] == 0 and run["not_finite_seen"] == 0
    return run


@pytest.fixture(scope="module")
def plain():
    return _run()


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A run that saves at AT: its result and its prefix."""
    prefix = str(tmp_path_factory.mktemp("ckpt") / "channel")
    return _run("--checkpoint", prefix, "--checkpoint-at", AT), prefix


def test_restart_on_two_ranks_in_a_new_process_is_bitwise(plain, saved):
    run, prefix = saved
    assert plain["first_step"] == 1 and len(plain["state_hash"]) == 16
    assert run["state_hash"] == plain["state_hash"]  # saving changes nothing
    for r in (0, 1):
        assert os.path.exists(f"{prefix}.rank{r}")
        assert not os.path.exists(f"{prefix}.tmp.rank{r}")
    restarted = _run("--restart", prefix)
    assert restarted["first_step"] == 123
    assert restarted["state_hash"] == plain["state_hash"]
    assert restarted["spawned"] == plain["spawned"] and restarted["removed"] == plain["removed"]


def test_checkpoint_every_restarts_from_the_last_save(plain, tmp_path):
    prefix = str(tmp_path / "every")
    # stopped at step 130: the files hold the save of step 100
    stopped = _run("--checkpoint", prefix, "--checkpoint-every", EVERY, duration="0.013")
    assert stopped["state_hash"] != plain["state_hash"]  # the hash sees the state
    restarted = _run("--restart", prefix)
    assert restarted["first_step"] == 101
    assert restarted["state_hash"] == plain["state_hash"]


def _refused(prefix, reason):
    done = _mpirun("--restart", prefix)
    assert done.returncode == 1, (done.returncode, done.stderr)  # not a crash (signal, 134)
    assert "restart:" in done.stderr and reason in done.stderr, done.stderr
    assert done.stdout.strip() == ""


def test_a_truncated_or_flipped_checkpoint_is_refused(saved, tmp_path):
    _, prefix = saved
    for r in (0, 1):
        shutil.copy(f"{prefix}.rank{r}", tmp_path / f"t.rank{r}")
        shutil.copy(f"{prefix}.rank{r}", tmp_path / f"f.rank{r}")
    size = os.path.getsize(tmp_path / "t.rank1")
    with open(tmp_path / "t.rank1", "r+b") as f:
        f.truncate(size // 2)
    _refused(str(tmp_path / "t"), "truncated")
    with open(tmp_path / "f.rank0", "r+b") as f:
        f.seek(size // 3)
        byte = f.read(1)
        f.seek(size // 3)
        f.write(bytes([byte[0] ^ 0x10]))
    _refused(str(tmp_path / "f"), "checksum")
    _refused(str(tmp_path / "missing"), "cannot open")


def test_files_of_two_saves_are_refused(saved, tmp_path):
    """Rank 0's file of one save and rank 1's of another (a run killed
    between the two ranks' renames): each file is sound, the set is not."""
    _, prefix = saved
    other = str(tmp_path / "other")
    _run("--checkpoint", other, "--checkpoint-at", "0.006", duration="0.006")
    shutil.copy(f"{prefix}.rank0", tmp_path / "mixed.rank0")
    shutil.copy(f"{other}.rank1", tmp_path / "mixed.rank1")
    _refused(str(tmp_path / "mixed"), "different saves")
