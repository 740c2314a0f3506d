#!/usr/bin/env bash
# Every C source and header is formatted with the repository .clang-format.
# Fix with: clang-format -i <file>
# usage: format.sh SOURCE_DIR
set -euo pipefail
cd "$1"
mapfile -t files < <(find src include tests examples bench tools fclib mpi -type f \( -name '*.c' \
    -o -name '*.h' -o -name '*.cpp' \) | LC_ALL=C sort)
[ "${#files[@]}" -gt 0 ] || { echo "FAIL: no source files found" >&2; exit 1; }
if ! clang-format --dry-run -Werror "${files[@]}"; then
    echo "FAIL: run clang-format -i on the files above" >&2
    exit 1
fi
echo "format: ${#files[@]} files match .clang-format"
