#!/usr/bin/env bash
# ABI guard: compares a freshly built library (libnscd, or a companion:
# libnscd_fclib, libnscd_mpi) with its committed baseline
# abi/<library>-abi<NSCD_ABI_VERSION>.dump (abi-dumper + abi-compliance-checker;
# <library> is the file name without lib and .so: nscd, nscd_fclib, nscd_mpi),
# and the values of the public enum constants (status codes, event types, ...,
# which the functions pass as int32_t, so abi-dumper does not see them) with
# abi/nscd-abi<NSCD_ABI_VERSION>.enums (abi/enums.py).
#
# - Removing or changing a symbol or a public type that the baseline has
#   (binary or source incompatibility) FAILS while NSCD_ABI_VERSION is unchanged.
# - Removing an enum constant or changing its value FAILS.
# - A public struct may change in one way only (abi/struct_growth.py): grow
#   at its end when its first member is `uint32_t struct_size` and nothing
#   holds it by value (docs/abi.md). abi-compliance-checker rates an appended
#   field "Low" and passes it for ANY struct; struct_growth.py compares every
#   public struct of the baseline with the new dump and FAILS on any other
#   change of size or members (an appended field without struct_size, a
#   field inserted, removed, renamed or retyped). Accepted growths are listed.
# - Added functions and enum constants are compatible and pass.
# - After an ABI-major bump (NSCD_ABI_VERSION in include/nscd/version.h) there
#   is no baseline for the new major yet: the check says so and passes; commit
#   one with abi/update-baseline.sh.
# abi-dumper reads the DWARF debug info of the library. A library built without
# it (CMAKE_BUILD_TYPE=Release or MinSizeRel) is not compared itself: the check
# configures and builds a RelWithDebInfo copy of the library from the same
# sources in DEBUG_BUILD_DIR (default WORK_DIR-debuginfo; kept, so the next run
# is incremental), exactly as abi/update-baseline.sh builds the baseline, and
# compares that one. The public ABI (signatures, struct layouts, enum values)
# comes from the headers, not from the optimisation level.
#
# The enum values are checked with libnscd (they belong to every header).
# usage: check.sh SOURCE_DIR path/to/lib<library>.so WORK_DIR [DEBUG_BUILD_DIR]
set -euo pipefail
src=$1
lib=$2
work=$3
debug_build=${4:-$work-debuginfo}
name=$(basename "$lib")
name=${name#lib}
name=${name%%.so*}

abi=$(sed -n 's/^#define NSCD_ABI_VERSION \([0-9][0-9]*\).*/\1/p' "$src/include/nscd/version.h")
[ -n "$abi" ] || { echo "FAIL: NSCD_ABI_VERSION not found in version.h" >&2; exit 1; }
baseline="$src/abi/$name-abi$abi.dump"

if [ ! -f "$baseline" ]; then
    older=$(find "$src/abi" -maxdepth 1 -name "$name-abi*.dump" | LC_ALL=C sort | tail -n 1)
    if [ -n "$older" ]; then
        echo "abi: NSCD_ABI_VERSION is $abi and there is no baseline abi/$name-abi$abi.dump yet"
        echo "abi: (the ABI major was bumped from $(basename "$older" .dump | sed "s/$name-abi//"))."
        echo "abi: nothing to compare; commit a new baseline with abi/update-baseline.sh"
        exit 0
    fi
    echo "FAIL: no ABI baseline abi/$name-abi$abi.dump; create it with abi/update-baseline.sh" >&2
    exit 1
fi

has_debug_info() {
    # (No `readelf | grep -q` under pipefail: grep's early exit would SIGPIPE readelf.)
    local sections
    sections=$(readelf -S "$1")
    grep -q '\.debug_info' <<<"$sections"
}
if ! has_debug_info "$lib"; then
    echo "abi: $lib has no debug info (a Release or MinSizeRel build);"
    echo "abi: building a RelWithDebInfo copy of the library in $debug_build"
    mkdir -p "$debug_build"
    if ! { cmake -S "$src" -B "$debug_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
               -DNSCD_BUILD_TESTS=OFF -DNSCD_BUILD_EXAMPLES=OFF -DNSCD_BUILD_TOOLS=OFF \
               -DNSCD_BUILD_BENCH=OFF &&
           cmake --build "$debug_build" -j "${NSCD_ABI_JOBS:-2}" --target "$name"; } \
        >"$debug_build.log" 2>&1; then
        cat "$debug_build.log" >&2
        echo "FAIL: the RelWithDebInfo copy of the library did not build" >&2
        exit 1
    fi
    lib=$(find "$debug_build" -name "lib$name.so.$abi" -print -quit)
    if [ -z "$lib" ] || ! has_debug_info "$lib"; then
        echo "FAIL: no lib$name.so.$abi with debug info in $debug_build" >&2
        exit 1
    fi
    echo "abi: comparing $lib"
fi

rm -rf "$work"
mkdir -p "$work"
bash "$src/abi/dump.sh" "$src" "$lib" "$work/current.dump" >"$work/dump.log" 2>&1 \
    || { cat "$work/dump.log" >&2; echo "FAIL: abi-dumper failed" >&2; exit 1; }

# XML for the verdict and a short listing; HTML for people.
set +e
abi-compliance-checker -l "$name" -old "$baseline" -new "$work/current.dump" \
    -report-format xml -report-path "$work/compat_report.xml" >"$work/acc.log" 2>&1
rc=$?
set -e
abi-compliance-checker -l "$name" -old "$baseline" -new "$work/current.dump" \
    -report-path "$work/compat_report.html" >/dev/null 2>&1 || true
grep -E '^(Binary|Source|Total)' "$work/acc.log" || cat "$work/acc.log"
failed=0
case $rc in
    0)
        echo "abi: lib$name binary and source compatible with the baseline abi/$name-abi$abi.dump"
        ;;
    1)
        echo "FAIL: the ABI changed incompatibly while NSCD_ABI_VERSION is still $abi:" >&2
        /usr/bin/python3 "$src/abi/summarize.py" "$work/compat_report.xml" >&2 || true
        echo "      Report: $work/compat_report.html" >&2
        failed=1
        ;;
    *)
        cat "$work/acc.log" >&2
        echo "FAIL: abi-compliance-checker could not run (exit $rc)" >&2
        exit 1
        ;;
esac

if ! /usr/bin/python3 "$src/abi/struct_growth.py" "$baseline" "$work/current.dump"; then
    echo "FAIL: a public struct changed other than by growing at the end of a struct" >&2
    echo "      whose first member is uint32_t struct_size (docs/abi.md)" >&2
    failed=1
fi

enums="$src/abi/nscd-abi$abi.enums"
if [ "$name" != nscd ]; then
    : # the companions' enums are in the headers libnscd's check reads
elif [ ! -f "$enums" ]; then
    echo "FAIL: no enum baseline abi/nscd-abi$abi.enums; create it with abi/update-baseline.sh" >&2
    failed=1
elif ! /usr/bin/python3 "$src/abi/enums.py" "$src" --check "$enums"; then
    failed=1
fi

if [ "$failed" -ne 0 ]; then
    echo "      Restore the symbol/type/constant, or bump NSCD_ABI_VERSION (a new SONAME)" >&2
    echo "      and commit a baseline for the new major with abi/update-baseline.sh." >&2
    exit 1
fi
