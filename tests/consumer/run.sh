#!/usr/bin/env bash
# Consumers of the INSTALLED library. Installs the build into a staging prefix
# and then builds and runs, against that prefix only:
#   a C11 and a C++17 program built with `pkg-config --cflags --libs nscd`,
#   a C program linked statically through `pkg-config --static`,
#   the C example of README.md (so the README cannot rot),
#   a CMake project using find_package(nscd) and nscd::nscd / nscd::nscd_static,
#   ctypes (and the Python package) loading the installed libnscd.so.<ABI>.
# usage: run.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src=$1
build=$2
work=$3
here=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-cc}
CXX=${CXX:-c++}
PYTHON=${PYTHON:-/usr/bin/python3}

rm -rf "$work"
mkdir -p "$work"
stage="$work/stage"
cmake --install "$build" --prefix "$stage" >"$work/install.log"

pcfile=$(find "$stage" -name nscd.pc -path '*/pkgconfig/*' -print -quit)
[ -n "$pcfile" ] || { echo "FAIL: nscd.pc was not installed" >&2; exit 1; }
libdir=$(dirname "$(dirname "$pcfile")")
export PKG_CONFIG_PATH="$libdir/pkgconfig"
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
abi=$(sed -n 's/^#define NSCD_ABI_VERSION \([0-9][0-9]*\).*/\1/p' "$src/include/nscd/version.h")
version=$(pkg-config --modversion nscd)
for f in "libnscd.so.$abi" libnscd.so libnscd.a; do
    [ -e "$libdir/$f" ] || { echo "FAIL: $libdir/$f was not installed" >&2; exit 1; }
done
echo "installed nscd $version into $stage (libdir $libdir)"

# The includes must come from the stage, never from the source tree.
cflags=$(pkg-config --cflags nscd)
libs=$(pkg-config --libs nscd)
case "$cflags $libs" in
    *"$src/include"*) echo "FAIL: pkg-config points into the source tree" >&2; exit 1 ;;
esac
warn=(-Wall -Wextra -Wpedantic -Werror)

run() {
    echo "+ $*"
    "$@"
}

# (a) C and (b) C++ through pkg-config, shared library.
# shellcheck disable=SC2086  # pkg-config output is a list of words
run "$CC" -std=c11 "${warn[@]}" $cflags "$here/consumer.c" -o "$work/consumer_c" $libs
# shellcheck disable=SC2086
run "$CXX" -std=c++17 "${warn[@]}" $cflags "$here/consumer.cpp" -o "$work/consumer_cpp" $libs
run "$work/consumer_c"
run "$work/consumer_cpp"
# (Outputs are captured first: `readelf | grep -q` under pipefail can fail by SIGPIPE.)
dynamic=$(readelf -d "$work/consumer_c")
grep -q "NEEDED.*\[libnscd.so.$abi\]" <<<"$dynamic" \
    || { echo "FAIL: consumer_c does not depend on libnscd.so.$abi" >&2; exit 1; }

# Static: `pkg-config --static` must list every private dependency; -l:libnscd.a
# makes the linker take the archive although the shared library sits next to it.
static_libs=$(pkg-config --static --libs nscd | sed 's/-lnscd\b/-l:libnscd.a/')
# shellcheck disable=SC2086
run "$CC" -std=c11 "${warn[@]}" $cflags "$here/cmake_project/main.c" -o "$work/consumer_static" \
    $static_libs
dynamic=$(readelf -d "$work/consumer_static")
if grep -q 'NEEDED.*libnscd' <<<"$dynamic"; then
    echo "FAIL: consumer_static links the shared libnscd" >&2
    exit 1
fi
run "$work/consumer_static"

# The README's C example (the first ```c block), compiled and run.
awk '/^```c$/ {on = 1; next} /^```/ && on {exit} on {print}' "$src/README.md" \
    >"$work/readme_example.c"
[ -s "$work/readme_example.c" ] || { echo "FAIL: no \`\`\`c block in README.md" >&2; exit 1; }
# shellcheck disable=SC2086
run "$CC" -std=c11 "${warn[@]}" $cflags "$work/readme_example.c" -o "$work/readme_example" $libs -lm
run "$work/readme_example" | tee "$work/readme_example.out"
grep -q '^at rest from t = ' "$work/readme_example.out" \
    || { echo "FAIL: the README example did not reach rest" >&2; exit 1; }

# (c) find_package(nscd) from a separate CMake project.
run cmake -S "$here/cmake_project" -B "$work/cmake_build" -DCMAKE_PREFIX_PATH="$stage" \
    -DCMAKE_C_FLAGS="-Wall -Wextra -Wpedantic -Werror" >"$work/cmake_configure.log" \
    || { cat "$work/cmake_configure.log" >&2; exit 1; }
run cmake --build "$work/cmake_build" -j 2
run "$work/cmake_build/consumer_shared"
run "$work/cmake_build/consumer_static"

# (d) ctypes on the installed shared library, and the Python package.
run "$PYTHON" "$here/ctypes_check.py" "$libdir" "$abi" "$version" "$src/python"

echo "consumer: all consumers of the installed nscd $version passed"
