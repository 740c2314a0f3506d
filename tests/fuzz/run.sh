#!/usr/bin/env bash
# Runs one libFuzzer target of tests/fuzz (built by build.sh) and summarises it.
#
# Short, deterministic run (the ctest tests fuzz.<target>): -seed=1, at most
# RUNS executions and MAX_SECONDS seconds, on a fresh working corpus that
# starts from the committed one. The seeds are passed as a list sorted by
# name (-seed_inputs), not as a directory: libFuzzer orders the seeds of equal
# size as the directory lists them, which differs from one file system to
# the next, and with it the whole run (a clean clone found other inputs).
#   run.sh FUZZ_BUILD_DIR TARGET SOURCE_CORPUS RUNS MAX_SECONDS
# Long run (`make fuzz`): RUNS = 0 means no limit but the time, a random seed,
# and a working corpus under FUZZ_BUILD_DIR/long/TARGET that is kept and grows
# from one run to the next.
# Crashing inputs go to FUZZ_BUILD_DIR/artifacts/TARGET/; the log is
# FUZZ_BUILD_DIR/{run,long}/TARGET.log. Extra arguments go to libFuzzer.
set -euo pipefail
build=$1
target=$2
seeds=$3
runs=$4
max_time=$5
shift 5

exe="$build/fuzz_$target"
[ -x "$exe" ] || { echo "FAIL: $exe not built (tests/fuzz/build.sh)" >&2; exit 1; }
artifacts="$build/artifacts/$target"
mkdir -p "$artifacts"
if [ "$runs" -gt 0 ]; then
    mode=run
    work="$build/run/$target"
    rm -rf "$work"
    seed_list="$build/run/$target.seeds"
    mkdir -p "$build/run"
    find "$seeds" -type f | LC_ALL=C sort | paste -sd, - >"$seed_list"
    flags=(-seed=1 -runs="$runs" -seed_inputs=@"$seed_list")
    corpora=("$work")
else
    mode=long
    work="$build/long/$target"
    flags=()
    corpora=("$work" "$seeds")
fi
mkdir -p "$work"
log="$build/$mode/$target.log"

# The short run pins OpenBLAS's kernels (OPENBLAS_CORETYPE, SSE3 ones that
# every x86-64 has): they move last bits, last bits move branches, and
# branches steer the search, so without the pin another CPU explores other
# inputs (CI's machine found a 37 s input at execution 3169 that this one
# never met; under OPENBLAS_CORETYPE=Zen this one found a sibling of it).
if [ "$mode" = run ]; then
    export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-Prescott}
fi
# One BLAS thread (as in the valgrind and sanitizer tests); ASan's leak check
# stays on (libFuzzer runs it when an input leaves memory behind).
export OPENBLAS_NUM_THREADS=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# leaks of uninstrumented system libraries we cannot free (HDF5; lsan.supp)
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(dirname "$0")/lsan.supp}

start=$(date +%s.%N)
set +e
"$exe" "${flags[@]}" -max_total_time="$max_time" -timeout=30 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "$@" "${corpora[@]}" >"$log" 2>&1
rc=$?
set -e
end=$(date +%s.%N)

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
printf 'fuzz_%s: %s executions in %s s (%s exec/s), coverage %s, corpus %s + %s inputs\n' \
    "$target" "${execs:-?}" "$wall" "${rate:-?}" "${cov:-?}" \
    "$(find "$seeds" -type f | wc -l)" "$(find "$work" -type f | wc -l)"
if [ "$rc" -ne 0 ]; then
    echo "FAIL: fuzz_$target exited with $rc; the end of $log:" >&2
    grep -v '^#[0-9]' "$log" | tail -n 40 >&2
    echo "reproduce with: NSCD_FUZZ_VERBOSE=1 $exe $artifacts/<crash file>" >&2
    exit 1
fi
