#!/usr/bin/env bash
# ThreadSanitizer on the threaded world (docs/world.md, "Threads"): the
# library and tests/unit/test_world_threads.c built with -fsanitize=thread
# in a build directory of their own, then the test run; any data race (the
# pool, the colour sweeps, the chunked collision stages, two worlds on two
# threads) fails it.
# usage: run.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src=$1
work=$2
mkdir -p "$work"
# Debug (assertions on) at -O1 with line tables only (-g1), as for the
# address sanitizer (tests/checks/sanitizers.sh): the reports name files and
# lines, and build and run take less CPU than RelWithDebInfo (-O2 -g).
cmake -S "$src" -B "$work" -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-g1 -O1" \
    -DCMAKE_C_FLAGS="-fsanitize=thread -fno-omit-frame-pointer" \
    -DNSCD_BUILD_EXAMPLES=OFF -DNSCD_BUILD_BENCH=OFF >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log" >&2; exit 1; }
cmake --build "$work" --target test_world_threads -j2 >"$work/build.log" 2>&1 ||
    { tail -50 "$work/build.log" >&2; exit 1; }
cd "$work"
# NSCD_TEST_SMALL: the pile for 15 steps instead of its full length; every
# threaded stage runs in every step, and a race needs one pair of accesses
# (28 s instead of about 170 s under ThreadSanitizer).
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" NSCD_TEST_SMALL=1 \
    "$work/tests/test_world_threads"
