#!/usr/bin/env bash
# Regenerates the committed ABI baseline abi/nscd-abi<NSCD_ABI_VERSION>.dump
# from a fresh RelWithDebInfo build. Run it when a release fixes the ABI
# (or right after an ABI-major bump), review `git diff abi/`, and commit it.
# usage: abi/update-baseline.sh [BUILD_DIR]   (default: build-abi-baseline)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build-abi-baseline}

cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNSCD_BUILD_TESTS=OFF \
    -DNSCD_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$build" -j 2 --target nscd
abi=$(sed -n 's/^#define NSCD_ABI_VERSION \([0-9][0-9]*\).*/\1/p' "$src/include/nscd/version.h")
lib=$(find "$build" -maxdepth 1 -name "libnscd.so.$abi" | head -n 1)
[ -n "$lib" ] || { echo "libnscd.so.$abi not found in $build" >&2; exit 1; }
bash "$src/abi/dump.sh" "$src" "$lib" "$src/abi/nscd-abi$abi.dump"
echo "baseline written: abi/nscd-abi$abi.dump ($(grep -c "'ShortName'" "$src/abi/nscd-abi$abi.dump") named entities)"
echo "review it (git diff abi/) and commit it"
