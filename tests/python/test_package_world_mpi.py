"""nscd.world_mpi: the Python binding of libnscd_mpi (include/nscd/world_mpi.h).

* the struct nscd_world_mpi_desc has the C layout (sizes and offsets printed
  by a C program compiled against the header);
* every function of the header has a ctypes prototype;
* a script under mpirun -np 2 pours 40 spheres, added on rank 0, onto the
  ground of a world cut in two: all rest, the global count is 40 and the sum
  of the global ids 820; with balance_every, one balance halves the pour (20 + 20).

Skipped when libnscd_mpi was not built or mpirun is missing."""
import ctypes
import os
import re
import shutil
import subprocess
import sys

import pytest

import nscd.world_mpi as wm

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.path.normpath(os.path.join(HERE, "..", "..", "include"))


def test_import_never_fails_and_names_exist():
    assert callable(wm.available)
    assert set(wm.__all__) <= set(dir(wm))


def test_every_function_of_the_header_has_a_prototype():
    with open(os.path.join(INCLUDE, "nscd", "world_mpi.h"), encoding="utf-8") as f:
        declared = set(re.findall(r"NSCD_API[^;(]*?\b(nscd_world_mpi_\w+)\(", f.read()))
    assert declared and declared == set(wm.prototypes())


def test_desc_layout_matches_c(tmp_path):
    cc = shutil.which(os.environ.get("CC", "cc")) or "cc"
    src = tmp_path / "layout.c"
    src.write_text('#include <stddef.h>\n#include <stdio.h>\n#include <nscd/world_mpi.h>\n'
                   'int main(void) { printf("%zu %zu %zu\\n", sizeof(nscd_world_mpi_desc), '
                   'offsetof(nscd_world_mpi_desc, dims), offsetof(nscd_world_mpi_desc, halo));'
                   ' return 0; }\n')
    exe = tmp_path / "layout"
    subprocess.run([cc, "-std=c11", "-I", INCLUDE, str(src), "-o", str(exe)], check=True)
    size, dims, halo = map(int, subprocess.run([str(exe)], capture_output=True, text=True,
                                               check=True).stdout.split())
    assert (size, dims, halo) == (ctypes.sizeof(wm.WorldMpiDesc), wm.WorldMpiDesc.dims.offset,
                                  wm.WorldMpiDesc.halo.offset)


def test_two_ranks_pour_spheres(tmp_path):
    mpirun = shutil.which("mpirun")
    if mpirun is None or not wm.available():
        pytest.skip("libnscd_mpi not built or mpirun missing")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_mpi_yield_when_idle="1",
               OPENBLAS_NUM_THREADS="1")
    done = subprocess.run([mpirun, "-np", "2", sys.executable,
                           os.path.join(HERE, "mpi_scripts", "pour_two_ranks.py"),
                           str(tmp_path)],
                          capture_output=True, text=True, env=env, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    rows = [list(map(int, (tmp_path / f"rank{r}.txt").read_text().split())) for r in (0, 1)]
    assert [r[0] for r in rows] == [0, 1]           # both ranks report
    assert sum(r[2] for r in rows) == 40            # owned bodies add up
    assert all(r[3] == 40 and r[1] == 2 for r in rows)
    assert [r[6] for r in rows] == [20, 20]         # the balanced cut halves the pour
