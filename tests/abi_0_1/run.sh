#!/usr/bin/env bash
# Binaries built against release 0.1 keep working (docs/abi.md, "Release
# 0.1 programs"): five example programs of the 0.1.0 release (commit
# b83f5ec), compiled here with the 0.1.0 public headers (include/, copied
# unchanged from that commit), linked against this build's libnscd.so.0 and
# run. Their outputs are checked by check.py against the physics each one
# computes (analytic impact times, the paper's impact count, energy never
# rising at an impact), not against numbers a previous run printed.
# usage: run.sh SOURCE_DIR LIBRARY_DIR WORK_DIR
set -euo pipefail
src=$1
lib_dir=$2
work=$3
here="$src/tests/abi_0_1"
cc=${CC:-cc}
rm -rf "$work"
mkdir -p "$work"
status=0
for example in bouncing_ball double_pendulum_routh painleve_rod two_pendulums mdp_single_contact; do
    # -Werror on the 0.1 sources: they must still compile as they did
    "$cc" -std=c11 -O1 -Wall -Wextra -Wpedantic -Werror -I"$here/include" \
        -I"$here/examples/common" "$here/examples/$example.c" \
        "$here/examples/common/example_cli.c" -L"$lib_dir" -l:libnscd.so.0 \
        -Wl,-rpath,"$lib_dir" -lm -o "$work/$example"
    if ! "$work/$example" --json >"$work/$example.json"; then
        echo "abi_0_1: the 0.1 program $example failed against this library" >&2
        status=1
    fi
done
[ $status -eq 0 ] || exit $status
/usr/bin/python3 "$here/check.py" "$work"
