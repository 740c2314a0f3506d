"""Checkpoint and bitwise restart of examples/granular_channel
(docs/checkpoint.md): the channel run uninterrupted, and run in two processes
(the first saves at --checkpoint-at, the second continues with --restart),
end with the same state_hash, an FNV-1a 64 hash of every body's id, user id
and state bits. A checkpoint of another run (another seed) is refused.
--checkpoint-every: a run stopped before its end restarts from its last save
(the file overwritten at each save, never left half written) and ends with
the uninterrupted hash too."""
import json
import os
import subprocess

import pytest

DURATION = "0.006"  # 120 steps at k = 5: inflow layers, outflow, contacts
AT = "0.0031"       # step 62: mid-layer (the inflow counters are mid-cycle)


def _run(*args, duration=DURATION):
    from conftest import examples_dir  # noqa: F401  (skips outside ctest)
    exe = os.path.join(examples_dir(), "granular_channel")
    return subprocess.run([exe, "--json", "--duration", duration, "--warmup", "0", *args],
                          capture_output=True, text=True, timeout=600, check=False)


def _hashes(done):
    assert done.returncode == 0, done.stderr
    d = json.loads(done.stdout)
    assert d["invariants"]["hold"] is True
    return [(r["friction_law"], r["state_hash"], r["first_step"], r["particles_final"])
            for r in d["runs"]]


def test_restart_in_a_new_process_is_bitwise(tmp_path):
    path = str(tmp_path / "channel.ckpt")
    plain = _hashes(_run())
    saved = _hashes(_run("--checkpoint", path, "--checkpoint-at", AT))
    assert os.path.exists(path + ".coulomb") and os.path.exists(path + ".max_dissipation")
    restarted = _hashes(_run("--restart", path))
    # saving changes nothing; the restarted process continues bit for bit
    assert saved == plain
    assert [r[:2] for r in restarted] == [r[:2] for r in plain]
    assert [r[3] for r in restarted] == [r[3] for r in plain]
    assert all(r[2] == 63 for r in restarted) and all(r[2] == 1 for r in plain)
    # the hash sees the state: a step fewer is another hash
    shorter = _run("--steps", "119")
    assert shorter.returncode == 0, shorter.stderr
    assert json.loads(shorter.stdout)["runs"][0]["state_hash"] != plain[0][1]


def test_restart_refuses_another_run_and_a_corrupt_file(tmp_path):
    path = str(tmp_path / "c.ckpt")
    _hashes(_run("--law", "coulomb", "--checkpoint", path, "--checkpoint-at", AT))
    other = _run("--law", "coulomb", "--restart", path, "--seed", "2")
    assert other.returncode == 1
    assert "not a checkpoint of this run" in other.stderr
    with open(path, "r+b") as f:
        f.seek(1000)
        byte = f.read(1)
        f.seek(1000)
        f.write(bytes([byte[0] ^ 0x40]))
    corrupt = _run("--law", "coulomb", "--restart", path)
    assert corrupt.returncode == 1
    assert "checksum" in corrupt.stderr


def test_checkpoint_every_restarts_from_the_last_save(tmp_path):
    path = str(tmp_path / "every.ckpt")
    plain = _hashes(_run("--law", "coulomb"))
    # stopped at step 90 of 120: saved at steps 40 and 80, the file holds step 80's
    stopped = _hashes(_run("--law", "coulomb", "--checkpoint", path, "--checkpoint-every",
                           "0.002", duration="0.0045"))
    assert stopped[0][1] != plain[0][1]  # the hash sees the state
    assert sorted(os.listdir(tmp_path)) == ["every.ckpt"]  # no temporary file left
    restarted = _hashes(_run("--law", "coulomb", "--restart", path))
    assert restarted[0][2] == 81
    assert [r[:2] for r in restarted] == [r[:2] for r in plain]
    assert [r[3] for r in restarted] == [r[3] for r in plain]


@pytest.mark.parametrize("args", [["--checkpoint", "x"], ["--checkpoint-at", "0.001"],
                                  ["--checkpoint", "x", "--checkpoint-at", "1.0"],
                                  ["--checkpoint-every", "0.001"],
                                  ["--checkpoint", "x", "--checkpoint-every", "0"]])
def test_checkpoint_options_are_checked(args):
    assert _run(*args).returncode == 2


def test_threads_give_one_answer_and_restart_across_thread_counts(tmp_path):
    """--threads N (docs/world.md, "Threads"): every N >= 1 ends with the same
    state_hash, and a checkpoint saved with one thread continues bitwise with
    three (the thread count is a host setting, not part of the state)."""
    path = str(tmp_path / "t.ckpt")
    one = _hashes(_run("--law", "coulomb", "--threads", "1"))
    two = _hashes(_run("--law", "coulomb", "--threads", "2"))
    assert one == two
    _hashes(_run("--law", "coulomb", "--threads", "1", "--checkpoint", path,
                 "--checkpoint-at", AT))
    restarted = _hashes(_run("--law", "coulomb", "--threads", "3", "--restart", path))
    assert [r[:2] for r in restarted] == [r[:2] for r in one]
