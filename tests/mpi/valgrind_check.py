"""Runs tests/mpi/test_world_mpi under valgrind on 2 ranks (one test of it,
e.g. "vtk": 60 spheres stepped across the boundary, shadows, migration, the
parallel writer) and fails on any invalid access or uninitialised value, and
on any leak whose stack passes through nscd. Open MPI's own allocations at
MPI_Init/MPI_Finalize are reported as lost by valgrind and are ignored.

A finding is an invalid access, an uninitialised value or a leak with a stack
frame in one of nscd's own sources (src/, mpi/, tests/mpi/) other than main.

usage: valgrind_check.py SOURCE_DIR MPIRUN TEST_EXECUTABLE TEST_NAME WORK_DIR"""
import os
import re
import subprocess
import sys


def main():
    src, mpirun, exe, name, work = sys.argv[1:6]
    ours = set()
    for folder in ("src", "mpi", os.path.join("tests", "mpi")):
        for root, _, files in os.walk(os.path.join(src, folder)):
            ours.update(f for f in files if f.endswith(".c"))
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_mpi_yield_when_idle="1",
               OPENBLAS_NUM_THREADS="1")
    log = os.path.join(work, "valgrind.%p.log")
    done = subprocess.run([mpirun, "-np", "2", "valgrind", "--leak-check=full",
                           "--show-leak-kinds=definite,indirect,possible", "--num-callers=40",
                           f"--log-file={log}", exe, name], cwd=work, env=env,
                          capture_output=True, text=True, timeout=1500, check=False)
    print(done.stdout[-2000:])
    if done.returncode != 0:
        print(f"FAIL: exit {done.returncode}\n{done.stderr[-3000:]}")
        return 1
    bad = 0
    logs = [f for f in os.listdir(work) if f.startswith("valgrind.") and f.endswith(".log")]
    for path in logs:
        with open(os.path.join(work, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for block in re.split(r"\n==\d+== \n", text):
            frames = re.findall(r"(?:at|by) 0x[0-9A-F]+: (\w+) \(([\w.]+):\d+\)", block)
            mine = any(file in ours and func != "main" for func, file in frames)
            problem = "Invalid " in block or "uninitialised" in block or "lost in loss" in block
            if problem and mine:
                bad += 1
                print(block[:3000])
        os.remove(os.path.join(work, path))
    print(f"valgrind: {len(logs)} rank logs, {bad} finding(s) in nscd")
    return 1 if bad or not logs else 0


if __name__ == "__main__":
    sys.exit(main())
