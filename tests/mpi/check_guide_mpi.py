"""Compiles every ```c-mpi block of docs/guide/*.md with mpicc against
include/, libnscd_mpi and libnscd, and runs it under mpirun -np 2; each must
exit with 0 (the guide's own checks are its exit status).

usage: check_guide_mpi.py SOURCE_DIR LIBRARY_DIR WORK_DIR MPIRUN"""
import os
import re
import shutil
import subprocess
import sys

FENCE = re.compile(r"^```c-mpi[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)


def main():
    src, libdir, work, mpirun = (os.path.abspath(a) for a in sys.argv[1:5])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    guide = os.path.join(src, "docs", "guide")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_mpi_yield_when_idle="1",
               OPENBLAS_NUM_THREADS="1")
    count = 0
    for name in sorted(os.listdir(guide)):
        if not name.endswith(".md"):
            continue
        with open(os.path.join(guide, name), encoding="utf-8") as f:
            text = f.read()
        for match in FENCE.finditer(text):
            count += 1
            stem = f"{os.path.splitext(name)[0]}_{count}"
            source = os.path.join(work, stem + ".c")
            with open(source, "w", encoding="utf-8") as f:
                f.write(match.group(1))
            exe = os.path.join(work, stem)
            subprocess.run(["mpicc", "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                            "-I", os.path.join(src, "include"), source, "-o", exe,
                            "-L", libdir, "-lnscd_mpi", "-lnscd", "-lm",
                            f"-Wl,-rpath,{libdir}"], check=True)
            done = subprocess.run([mpirun, "-np", "2", exe], capture_output=True, text=True,
                                  env=env, timeout=300, check=False)
            print(done.stdout, end="")
            if done.returncode != 0:
                print(f"FAIL: {name} block {count}: exit {done.returncode}\n{done.stderr}")
                return 1
    if count == 0:
        print("FAIL: no c-mpi block in docs/guide")
        return 1
    print(f"guide (MPI): {count} block(s) compiled and run under mpirun -np 2")
    return 0


if __name__ == "__main__":
    sys.exit(main())
