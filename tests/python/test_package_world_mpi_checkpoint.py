"""DistributedWorld.save / load (nscd_world_mpi_save / _load, docs/checkpoint.md)
on two ranks: the restarted world continues bitwise. Skipped when libnscd_mpi
was not built or mpirun is missing."""
import os
import shutil
import subprocess
import sys

import pytest

import nscd.world_mpi as wm

HERE = os.path.dirname(os.path.abspath(__file__))


def test_two_ranks_restart_bitwise(tmp_path):
    mpirun = shutil.which("mpirun")
    if mpirun is None or not wm.available():
        pytest.skip("libnscd_mpi not built or mpirun missing")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_mpi_yield_when_idle="1",
               OPENBLAS_NUM_THREADS="1")
    done = subprocess.run([mpirun, "-np", "2", sys.executable,
                           os.path.join(HERE, "mpi_scripts", "checkpoint_two_ranks.py"),
                           str(tmp_path)],
                          capture_output=True, text=True, env=env, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    for r in (0, 1):
        assert (tmp_path / f"rank{r}.txt").read_text().split() == ["bitwise"]
    assert (tmp_path / "pour.rank0").exists() and (tmp_path / "pour.rank1").exists()
