"""nscd-fclib-solve on the committed FCLIB sample (tests/data/fclib_spheres.hdf5).

usage: check_solve.py NSCD_FCLIB_SOLVE SAMPLE.hdf5 NOT_HDF5_FILE

For both friction laws: exit status 0, one JSON object with the agreed keys
(contacts, iterations, merit, seconds, converged), converged within the
tolerance, libfclib's own merit (fclib_merit_local) of nscd's impulses and of
the file's exact solution small, and nscd's impulses equal to the file's.
A file that is not HDF5 gives exit status 1, nothing on stdout and one line
on stderr (neither libfclib nor HDF5 print)."""
import json
import subprocess
import sys

tool, sample, not_hdf5 = sys.argv[1:4]

for law in ("coulomb", "max_dissipation"):
    run = subprocess.run([tool, sample, "--law", law, "--tolerance", "1e-12", "--json"],
                         capture_output=True, text=True)
    assert run.returncode == 0, (run.returncode, run.stderr)
    assert run.stderr == "", run.stderr
    out = json.loads(run.stdout)
    for key in ("contacts", "iterations", "merit", "seconds", "converged"):
        assert key in out, key
    assert out["contacts"] == 5 and out["law"] == law, out
    assert out["converged"] is True and out["merit"] <= 1e-12, out
    assert 1 <= out["iterations"] <= 1000 and out["seconds"] >= 0.0, out
    assert out["fclib_merit"] < 1e-10, out          # libfclib's merit of nscd's r
    assert out["reference_merit"] < 1e-14, out      # ... of the file's exact solution
    assert out["reference_r_max_difference"] < 1e-9, out
    print(f"{law}: {out['iterations']} sweeps, merit {out['merit']:.2e}, "
          f"fclib merit {out['fclib_merit']:.2e}, reference {out['reference_merit']:.2e}")

# Newton and AUTO (--method): the same solution, Newton steps reported.
for method in ("newton", "auto"):
    run = subprocess.run([tool, sample, "--method", method, "--tolerance", "1e-12", "--json"],
                         capture_output=True, text=True)
    assert run.returncode == 0, (method, run.returncode, run.stderr)
    out = json.loads(run.stdout)
    assert out["converged"] is True and out["merit"] <= 1e-12, out
    assert out["newton_failure"] == 0, out
    assert method != "newton" or (out["iterations"] == 0 and out["newton_iterations"] >= 1), out
    assert out["fclib_merit"] < 1e-10 and out["reference_r_max_difference"] < 1e-9, out
    print(f"{method}: {out['iterations']} sweeps + {out['newton_iterations']} Newton steps, "
          f"merit {out['merit']:.2e}")

# Not converging is reported, not hidden: one sweep, exit status 3.
run = subprocess.run([tool, sample, "--max-sweeps", "1", "--json"], capture_output=True,
                     text=True)
assert run.returncode == 3, (run.returncode, run.stderr)
assert json.loads(run.stdout)["converged"] is False

run = subprocess.run([tool, not_hdf5, "--json"], capture_output=True, text=True)
assert run.returncode == 1 and run.stdout == "", (run.returncode, run.stdout)
assert len(run.stderr.splitlines()) == 1 and "not an HDF5 file" in run.stderr, run.stderr
for bad in (["--law", "newton"], ["--tolerance", "-1"], ["--max-sweeps", "0"],
            ["--method", "lu"], []):
    run = subprocess.run([tool] + ([sample] if bad else []) + bad, capture_output=True, text=True)
    assert run.returncode == 2, (bad, run.returncode)
print("nscd-fclib-solve: ok")
