#!/usr/bin/env bash
# libnscd_mpi's SONAME is libnscd_mpi.so.<NSCD_ABI_VERSION> and its dynamic
# symbol table defines nscd_world_mpi_* functions and nothing else: the core
# objects it is linked from (the serial world) stay hidden.
# usage: exports.sh SOURCE_DIR path/to/libnscd_mpi.so
set -euo pipefail
src=$1
lib=$2
abi=$(sed -n 's/^#define NSCD_ABI_VERSION \([0-9][0-9]*\).*/\1/p' "$src/include/nscd/version.h")
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != "libnscd_mpi.so.$abi" ]; then
    echo "FAIL: SONAME is '$soname', expected 'libnscd_mpi.so.$abi'" >&2
    exit 1
fi
symbols=$(nm -D --defined-only "$lib")
bad=$(printf '%s\n' "$symbols" | awk '!($2 == "T" && $3 ~ /^nscd_world_mpi_[a-z0-9_]+$/)')
if [ -n "$bad" ]; then
    echo "FAIL: exported symbols other than nscd_world_mpi_* functions:" >&2
    printf '%s\n' "$bad" >&2
    exit 1
fi
# every function declared in the header is exported
for f in $(sed -n 's/^NSCD_API [^(]*\b\(nscd_world_mpi_[a-z0-9_]*\)(.*/\1/p' "$src/include/nscd/world_mpi.h"); do
    printf '%s\n' "$symbols" | grep -q " T $f\$" || { echo "FAIL: $f not exported" >&2; exit 1; }
done
echo "mpi.exports: $(printf '%s\n' "$symbols" | wc -l) nscd_world_mpi_* functions, SONAME $soname"
