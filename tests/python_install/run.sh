#!/usr/bin/env bash
# The Python package installed with pip, as a user would, offline:
#   cmake --install into a staging prefix (the library and nscd.pc),
#   pip install --no-deps --target SITE python/   (Debian's setuptools, no network),
#   then, outside the source tree and without NSCD_LIBRARY, the installed
#   package finds the installed library through pkg-config and solves an fc3d
#   problem that a C program linked to the same library solved: r and u must be
#   bitwise equal (check_fc3d.py), for both friction laws.
# usage: run.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src=$1
build=$2
work=$3
here=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-cc}
PYTHON=${PYTHON:-/usr/bin/python3}

rm -rf "$work"
mkdir -p "$work"
stage="$work/stage"
cmake --install "$build" --prefix "$stage" >"$work/install.log"
pcfile=$(find "$stage" -name nscd.pc -path '*/pkgconfig/*' -print -quit)
[ -n "$pcfile" ] || { echo "FAIL: nscd.pc was not installed" >&2; exit 1; }
libdir=$(dirname "$(dirname "$pcfile")")
abi=$(sed -n 's/^#define NSCD_ABI_VERSION \([0-9][0-9]*\).*/\1/p' "$src/include/nscd/version.h")
export PKG_CONFIG_PATH="$libdir/pkgconfig"
unset NSCD_LIBRARY PYTHONPATH LD_LIBRARY_PATH

# pip builds in the source directory (build/, *.egg-info): build from a copy so
# that the test leaves the source tree as it was.
cp -r "$src/python" "$work/python-src"
rm -rf "$work/python-src/build" "$work/python-src"/*.egg-info
echo "+ pip install --no-deps --no-index --target $work/site $work/python-src"
PIP_NO_INDEX=1 "$PYTHON" -m pip install --no-deps --no-index --disable-pip-version-check \
    --target "$work/site" "$work/python-src" >"$work/pip.log" 2>&1 \
    || { cat "$work/pip.log" >&2; echo "FAIL: pip install" >&2; exit 1; }
[ -f "$work/site/nscd/world.py" ] || { echo "FAIL: the package was not installed" >&2; exit 1; }

# The C reference, linked to the installed library (rpath: no LD_LIBRARY_PATH).
# shellcheck disable=SC2046  # pkg-config output is a list of words
"$CC" -std=c11 -Wall -Wextra -Wpedantic -Werror $(pkg-config --cflags nscd) \
    "$here/fc3d_reference.c" -o "$work/fc3d_reference" $(pkg-config --libs nscd) \
    -Wl,-rpath,"$libdir"
cd "$work"  # away from the source tree: `import nscd` must be the installed one
for law in coulomb max_dissipation; do
    "$work/fc3d_reference" "$law" >"$work/reference_$law.json"
    PYTHONPATH="$work/site" "$PYTHON" -s "$here/check_fc3d.py" "$work/reference_$law.json" \
        "$libdir/libnscd.so.$abi" "$work/site" </dev/null
done
echo "python_install: pip-installed nscd matches the C result bitwise"
