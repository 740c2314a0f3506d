"""CHANGELOG.md lists every public function added since 0.1.0.

Compares the "New functions" list of the newest release in CHANGELOG.md
with the functions the built libraries export, minus those the 0.1.0
headers declare (tests/abi_0_1/include). Each library list is one bullet
that starts with the library's name in backquotes.
usage: changelog.py SOURCE_DIR LIBNSCD [LIBNSCD_FCLIB|-] [LIBNSCD_MPI|-]
(a "-" for a companion library that was not built: its list is not checked)
"""
import glob
import re
import subprocess
import sys

src, libs = sys.argv[1], sys.argv[2:]
names = ["libnscd", "libnscd_fclib", "libnscd_mpi"]


def exports(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], check=True,
                         capture_output=True, text=True).stdout
    return {line.split()[2] for line in out.splitlines() if " T nscd_" in line}


old = set()
for header in glob.glob(f"{src}/tests/abi_0_1/include/nscd/*.h"):
    with open(header) as f:
        old |= set(re.findall(r"\b(nscd_[a-z0-9_]+)\s*\(", f.read()))

with open(f"{src}/CHANGELOG.md") as f:
    text = f.read()
release = text.split("\n## [")[1]  # the newest release's section
section = release.split("### New functions", 1)
if len(section) < 2:
    sys.exit("changelog: the newest release has no 'New functions' section")
listed = {}
for bullet in re.split(r"\n- ", section[1].split("\n### ")[0]):
    m = re.match(r"`(libnscd\w*)`", bullet)
    if m:
        listed[m.group(1)] = set(re.findall(r"`(nscd_[a-z0-9_]+)`", bullet))

failures = []
for name, path in zip(names, libs):
    if path == "-":
        continue
    new = exports(path) - old
    have = listed.get(name, set())
    for f in sorted(new - have):
        failures.append(f"{name}: {f} is exported but not in CHANGELOG.md's New functions")
    for f in sorted(have - new):
        failures.append(f"{name}: CHANGELOG.md lists {f}, which is not a new export")
if failures:
    print("\n".join(failures), file=sys.stderr)
    sys.exit(1)
print("changelog: " + ", ".join(f"{n} {len(listed.get(n, ()))}" for n, p in zip(names, libs)
                                if p != "-") + " new functions listed and exported")
