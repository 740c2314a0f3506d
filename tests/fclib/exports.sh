#!/usr/bin/env bash
# libnscd_fclib's SONAME carries the ABI major, as libnscd's does, and its
# dynamic symbol table defines nscd_fclib_* functions and nothing else (its
# version script fclib/nscd_fclib.map hides libfclib, HDF5 and the internals).
# usage: exports.sh SOURCE_DIR path/to/libnscd_fclib.so
set -euo pipefail
abi=$(sed -n 's/^#define NSCD_ABI_VERSION \([0-9][0-9]*\).*/\1/p' "$1/include/nscd/version.h")
soname=$(readelf -d "$2" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libnscd_fclib.so.$abi" ] || { echo "FAIL: SONAME '$soname'" >&2; exit 1; }
symbols=$(nm -D --defined-only "$2")
bad=$(printf '%s\n' "$symbols" | awk '!($2 == "T" && $3 ~ /^nscd_fclib_[a-z0-9_]+$/)')
[ -z "$bad" ] || { echo "FAIL: exported symbols other than nscd_fclib_* functions:" >&2; printf '%s\n' "$bad" >&2; exit 1; }
n=$(printf '%s\n' "$symbols" | wc -l)
[ "$n" -ge 13 ] || { echo "FAIL: only $n exported symbols" >&2; exit 1; }
echo "exports: SONAME $soname, $n exported symbols, all nscd_fclib_* functions"
