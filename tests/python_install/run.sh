#!/usr/bin/env bash
# The Python package installed with pip, as a user would, offline:
#   cmake --install into a staging prefix (the library and nscd.pc),
#   pip install --no-deps --target SITE python/   (the package's own build
#   backend, no network), and once more into a bare venv without setuptools
#   and wheel,
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

# The same with an interpreter that has neither setuptools nor wheel (nor pip):
# a bare virtual environment, driven by this pip (--python, pip >= 22.3). The
# package's own build backend (python/_build_backend) needs only the standard
# library, and pip's isolated build environment installs nothing.
if "$PYTHON" -m venv --without-pip "$work/bare" >/dev/null 2>&1 \
        && "$PYTHON" -m pip install --help 2>/dev/null | grep -q -- "--python"; then
    bare="$work/bare/bin/python"
    "$bare" -c "import importlib.util as u, sys
sys.exit(any(u.find_spec(m) for m in ('setuptools', 'wheel', 'pip')))" \
        || { echo "FAIL: the bare environment has setuptools, wheel or pip" >&2; exit 1; }
    cp -r "$src/python" "$work/python-bare"
    rm -rf "$work/python-bare/build" "$work/python-bare"/*.egg-info
    echo "+ pip --python $bare install --no-deps --no-index $work/python-bare"
    PIP_NO_INDEX=1 "$PYTHON" -m pip --python "$bare" install --no-deps --no-index \
        --disable-pip-version-check "$work/python-bare" >"$work/pip-bare.log" 2>&1 \
        || { cat "$work/pip-bare.log" >&2; echo "FAIL: pip install without setuptools/wheel" >&2; exit 1; }
    (cd "$work" && "$bare" -s -c "import nscd, sys
assert nscd.__file__.startswith(sys.prefix), nscd.__file__
assert nscd.version_string() == nscd.__version__, nscd.version_string()
print('python_install: installed without setuptools and wheel:', nscd.__file__)") </dev/null
else
    echo "python_install: no bare-interpreter install (no venv module, or pip < 22.3)"
fi

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
