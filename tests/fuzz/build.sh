#!/usr/bin/env bash
# Configure and build the libFuzzer targets (tests/fuzz, a standalone CMake
# project) with clang into BUILD_DIR. Used by the ctest test fuzz.build and by
# `make fuzz`; see docs/fuzzing.md.
# usage: build.sh SOURCE_DIR BUILD_DIR [CLANG]
set -euo pipefail
src=$1
build=$2
cc=${3:-clang}
jobs=${NSCD_JOBS:-2}

mkdir -p "$build"
cmake -S "$src/tests/fuzz" -B "$build" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build/configure.log" 2>&1 \
    || { cat "$build/configure.log" >&2; exit 1; }
cmake --build "$build" -j "$jobs"
