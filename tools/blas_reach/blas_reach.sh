#!/usr/bin/env bash
# Which ctest tests reach BLAS or LAPACK (tools/blas_reach/blas_reach.c):
# runs each test matching REGEX (default: the portable tier) once with the
# interposer preloaded and prints "TEST CALLS [SYMBOLS]"; CALLS 0 means the
# test never reached OpenBLAS. docs/testing.md, "Portability", says how the
# portable tier uses this.
# usage: tools/blas_reach/blas_reach.sh BUILD_DIR [REGEX]
set -euo pipefail
build=$(cd "$1" && pwd)
regex=${2:-^portable\\.}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -shared -fPIC -Wall -Wextra "$here/blas_reach.c" -o "$work/libblas_reach.so" -ldl
status=0
for t in $(ctest --test-dir "$build" -N -R "$regex" | sed -n 's/^ *Test *#[0-9]*: //p'); do
    log="$work/$t.log"
    if ! BLAS_REACH_LOG="$log" LD_PRELOAD="$work/libblas_reach.so" \
        ctest --test-dir "$build" -R "^${t//./\\.}\$" >"$work/$t.out" 2>&1; then
        echo "$t FAILED (under the interposer; see ctest -R $t)"
        status=1
        continue
    fi
    if [ -s "$log" ]; then
        echo "$t $(wc -l <"$log") $(awk '{print $2}' "$log" | sort -u | tr '\n' ' ')"
    else
        echo "$t 0"
    fi
done
exit $status
