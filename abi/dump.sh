#!/usr/bin/env bash
# Dumps the public ABI of a built libnscd (with debug info) with abi-dumper.
# Only declarations from include/nscd/ are dumped (-public-headers), and the
# dump is made path-independent: it must not change when the same sources are
# built in another directory.
# usage: dump.sh SOURCE_DIR path/to/libnscd.so OUTPUT.dump
set -euo pipefail
src=$1
lib=$2
out=$3
abi=$(sed -n 's/^#define NSCD_ABI_VERSION \([0-9][0-9]*\).*/\1/p' "$src/include/nscd/version.h")
real=$(readlink -f "$lib")
abi-dumper "$real" -o "$out" -lver "$abi" -public-headers "$src/include/nscd" -sort
