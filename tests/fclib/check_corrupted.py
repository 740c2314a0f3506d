"""nscd-fclib-solve on damaged copies of the FCLIB sample: never an exit from
inside libfclib, never a crash.

usage: check_corrupted.py NSCD_FCLIB_SOLVE SAMPLE.hdf5 WORK_DIR [COUNT]

libfclib 3.1 ends the process with exit(1) when an HDF5 call fails while it
reads ("ERROR: HDF5 call failed" on stderr); nscd checks every file with HDF5
first (fclib/check.c). Each copy of the sample has 1 to 4 random bytes
replaced (fixed seed, so the same copies every run): nscd-fclib-solve must
either solve it (exit 0 or 3: a damaged number can still be a valid problem)
or refuse it with exit 1 and its own one-line message, and libfclib must never
have printed. (Before the checks read every dataset and listed every group,
about one copy in fifteen ended inside libfclib.)"""
import os
import random
import subprocess
import sys

tool, sample, work = sys.argv[1:4]
count = int(sys.argv[4]) if len(sys.argv) > 4 else 60
data = open(sample, "rb").read()
rng = random.Random(20261122)
outcomes = {0: 0, 1: 0, 3: 0}
path = os.path.join(work, "corrupted.hdf5")
for k in range(count):
    damaged = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        damaged[rng.randrange(len(damaged))] = rng.randrange(256)
    with open(path, "wb") as f:
        f.write(damaged)
    run = subprocess.run([tool, path, "--max-sweeps", "50", "--json"], capture_output=True,
                         text=True)
    assert run.returncode in outcomes, (k, run.returncode, run.stderr[:500])
    assert "HDF5 call failed" not in run.stderr and "=> ERROR" not in run.stderr, (k, run.stderr)
    if run.returncode == 1:
        assert run.stderr.startswith("nscd-fclib-solve: "), (k, run.stderr[:500])
    outcomes[run.returncode] += 1
print(f"{count} damaged copies: {outcomes[0]} solved, {outcomes[3]} not converged, "
      f"{outcomes[1]} refused")
assert outcomes[1] > 0
