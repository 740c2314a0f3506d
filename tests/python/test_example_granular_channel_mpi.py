"""Regression of examples/mpi/granular_channel_mpi (the channel of seed 002,
Sect. 4.3, on the distributed world of libnscd_mpi, docs/distributed.md)
against the serial example granular_channel, on a short run (k = 5, 10 ms,
statistics over the last 5 ms):

* one rank: the Table 2 figures are exactly the serial ones (the same
  arithmetic: the distributed step with one rank is the serial step);
* two ranks (the cut moved to the median of the particles' x every 100 steps,
  the example's default --balance-every): particles, contacts and contacts
  per particle within 1 % of the serial run, no body lost or duplicated (the
  example checks the global count and id checksum every step, exit 3 if not);
* the other inflow scaling (--inflow volume) through the shared scene: one
  rank again gives exactly the serial figures, and the option took effect.

Skipped when the example was not built (MPI not found) or mpirun is missing."""
import json
import os
import shutil
import subprocess

import pytest

from conftest import examples_dir

ARGS = ["--coarse-graining", "5", "--duration", "0.01", "--warmup", "0.005", "--law", "coulomb"]
EXACT = ["particles_avg", "contacts_avg", "contacts_per_particle", "contacts_detected_avg",
         "contacts_active_avg", "contacts_particle_particle_avg", "max_penetration",
         "inflow_rate", "outflow_rate", "bed_height", "solid_fraction", "solid_fraction_core",
         "contacts_per_particle_force_carrying", "speed_peak",
         "spawned", "removed", "samples"]
VOLUME = ["--inflow", "volume"]


def run(cmd):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_mpi_yield_when_idle="1",
               OPENBLAS_NUM_THREADS="1")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False, env=env)
    assert done.returncode == 0, f"{cmd} failed ({done.returncode}): {done.stderr}"
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def runs():
    exe = os.path.join(examples_dir(), "granular_channel_mpi")
    mpirun = shutil.which("mpirun")
    if not os.path.isfile(exe) or mpirun is None:
        pytest.skip("granular_channel_mpi not built (no MPI) or mpirun missing")
    serial = run([os.path.join(examples_dir(), "granular_channel"), "--json", *ARGS])
    out = {"serial": serial["runs"][0]}
    for ranks in (1, 2):
        result = run([mpirun, "-np", str(ranks), exe, "--json", *ARGS])
        assert result["ranks"] == ranks
        out[ranks] = result["runs"][0]
    out["serial_volume"] = run([os.path.join(examples_dir(), "granular_channel"), "--json",
                                *ARGS, *VOLUME])
    out["volume"] = run([mpirun, "-np", "1", exe, "--json", *ARGS, *VOLUME])
    return out


def test_one_rank_gives_the_serial_figures(runs):
    for key in EXACT:
        assert runs[1][key] == runs["serial"][key], key


def test_two_ranks_agree_within_one_percent(runs):
    serial, two = runs["serial"], runs[2]
    for key in ["particles_avg", "contacts_avg", "contacts_per_particle",
                "contacts_detected_avg", "inflow_rate"]:
        assert abs(two[key] - serial[key]) <= 0.01 * serial[key], key
    assert two["max_penetration"] < 0.05 * 5 * 0.47e-3  # < 5 % of the diameter


def test_inflow_volume_one_rank_gives_the_serial_figures(runs):
    serial, one = runs["serial_volume"], runs["volume"]
    assert serial["inflow"] == one["inflow"] == "volume"
    assert one["reset_distance"] == serial["reset_distance"] == 5 * 0.94e-3
    for key in EXACT:
        assert one["runs"][0][key] == serial["runs"][0][key], key
    # the option changes the run: k times fewer particles spawned than with depth
    assert one["runs"][0]["spawned"] < 0.5 * runs[1]["spawned"]
