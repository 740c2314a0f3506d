#!/usr/bin/env bash
# The C program of docs/fclib.md (its first ```c block), compiled against the
# build tree and run on the committed sample: it must solve it and write a file
# that reads back with nscd's solution.
# usage: doc_example.sh SOURCE_DIR BUILD_DIR WORK_DIR TOOL
set -euo pipefail
src=$1
build=$2
work=$3
tool=$4
CC=${CC:-cc}
mkdir -p "$work"
awk '/^```c$/ {on = 1; next} /^```/ && on {exit} on {print}' "$src/docs/fclib.md" >"$work/doc_example.c"
[ -s "$work/doc_example.c" ] || { echo "FAIL: no \`\`\`c block in docs/fclib.md" >&2; exit 1; }
"$CC" -std=c11 -Wall -Wextra -Wpedantic -Werror -I"$src/include" "$work/doc_example.c" \
    -o "$work/doc_example" -L"$build" -lnscd_fclib -lnscd -Wl,-rpath,"$build"
"$work/doc_example" "$src/tests/data/fclib_spheres.hdf5" "$work/solved.hdf5"
"$tool" "$work/solved.hdf5" --json | /usr/bin/python3 -c \
    "import json, sys; o = json.load(sys.stdin); assert o['converged'] and o['reference_r_max_difference'] == 0.0, o; print('doc example: ok')"
