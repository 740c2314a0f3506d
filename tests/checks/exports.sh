#!/usr/bin/env bash
# The shared library's SONAME is libnscd.so.<NSCD_ABI_VERSION> and its dynamic
# symbol table defines nscd_* functions and nothing else. The static library
# (optional argument) defines no global symbol outside the nscd_ / nscd__
# namespace, so it cannot clash with the program it is linked into.
# usage: exports.sh SOURCE_DIR path/to/libnscd.so [path/to/libnscd.a]
set -euo pipefail
src=$1
lib=$2
static=${3:-}

abi=$(sed -n 's/^#define NSCD_ABI_VERSION \([0-9][0-9]*\).*/\1/p' "$src/include/nscd/version.h")
[ -n "$abi" ] || { echo "FAIL: NSCD_ABI_VERSION not found in version.h" >&2; exit 1; }

soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != "libnscd.so.$abi" ]; then
    echo "FAIL: SONAME is '$soname', expected 'libnscd.so.$abi'" >&2
    exit 1
fi

# nm -D --defined-only prints "ADDRESS TYPE NAME"; functions are type T.
symbols=$(nm -D --defined-only "$lib")
bad=$(printf '%s\n' "$symbols" | awk '!($2 == "T" && $3 ~ /^nscd_[a-z0-9_]+$/)')
if [ -n "$bad" ]; then
    echo "FAIL: exported symbols other than nscd_* functions:" >&2
    printf '%s\n' "$bad" >&2
    exit 1
fi
n=$(printf '%s\n' "$symbols" | wc -l)
[ "$n" -gt 0 ] || { echo "FAIL: no exported symbol" >&2; exit 1; }
if grep -q ' nscd__' <<<"$symbols"; then
    echo "FAIL: internal nscd__* symbols are exported" >&2
    exit 1
fi
echo "exports: SONAME $soname, $n exported symbols, all nscd_* functions"

if [ -n "$static" ]; then
    globals=$(nm -g --defined-only "$static")
    outside=$(awk 'NF == 3 && $3 !~ /^nscd_/' <<<"$globals")
    if [ -n "$outside" ]; then
        echo "FAIL: $static defines global symbols outside the nscd_ namespace:" >&2
        printf '%s\n' "$outside" >&2
        exit 1
    fi
    echo "exports: every global symbol of $(basename "$static") starts with nscd_"
fi
