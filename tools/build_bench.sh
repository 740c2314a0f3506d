#!/usr/bin/env bash
# Builds this tree's bench/bench_event_driven.c against the library of another
# build tree (e.g. a build of an older main that has no bench/ yet), with that
# build's compiler and C flags of its build type, so that two builds can be
# timed with the same benchmark program (docs/benchmarks.md).
#
# usage: tools/build_bench.sh BUILD_DIR [OUTPUT]   (default OUTPUT: BUILD_DIR/bench/bench_event_driven)
# e.g.   tools/build_bench.sh ../old/build /tmp/bench_old && /tmp/bench_old > old.json
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
out=${2:-$build/bench/bench_event_driven}
cache=$build/CMakeCache.txt
[ -f "$cache" ] || { echo "build_bench: $cache not found (not a CMake build tree)" >&2; exit 1; }
get() { sed -n "s/^$1:[A-Z]*=//p" "$cache" | head -n 1; }
src=$(get CMAKE_HOME_DIRECTORY)
cc=$(get CMAKE_C_COMPILER)
type=$(get CMAKE_BUILD_TYPE)
type_upper=$(tr '[:lower:]' '[:upper:]' <<<"$type")
flags="$(get CMAKE_C_FLAGS) $(get "CMAKE_C_FLAGS_$type_upper")"
lib=$(find "$build" -maxdepth 1 -name 'libnscd.so' -print -quit)
[ -n "$lib" ] || { echo "build_bench: no libnscd.so in $build" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
# shellcheck disable=SC2086 # the flags are a list
"${cc:-cc}" -std=c11 $flags -Wall -Wextra -Wpedantic -Werror -I "$src/include" \
    "$here/bench/bench_event_driven.c" -o "$out" -L "$build" -lnscd -Wl,-rpath,"$build" -lm
echo "build_bench: $out (flags:$flags; library $lib, headers $src/include)"
