#!/usr/bin/env bash
# Consumers of the INSTALLED library. Installs the build into a staging prefix
# and then builds and runs, against that prefix only:
#   a C11 and a C++17 program built with `pkg-config --cflags --libs nscd`,
#   a C program linked statically through `pkg-config --static`,
#   the C example of README.md (so the README cannot rot),
#   the README's own build line (`cc ball.c ... -Wl,-rpath,...`), run without
#   LD_LIBRARY_PATH,
#   a CMake project using find_package(nscd) and nscd::nscd / nscd::nscd_static,
#   a C++-only CMake project (no C language: MPI is not looked up),
#   a CMake project asking for the installed components (mpi, fclib),
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

# The README's own build line (the one line starting `cc ball.c `), run as
# written in a directory holding ball.c, and the program started WITHOUT
# LD_LIBRARY_PATH: its rpath must lead to the private prefix.
readme_line=$(grep '^cc ball\.c ' "$src/README.md" || true)
[ "$(grep -c . <<<"$readme_line")" -eq 1 ] \
    || { echo "FAIL: README.md must hold exactly one line starting 'cc ball.c '" >&2; exit 1; }
mkdir -p "$work/readme_line"
cp "$work/readme_example.c" "$work/readme_line/ball.c"
echo "+ (cd $work/readme_line && env -u LD_LIBRARY_PATH bash -c '$readme_line')"
(cd "$work/readme_line" && env -u LD_LIBRARY_PATH bash -euo pipefail -c "$readme_line") \
    >"$work/readme_line/out.txt" \
    || { cat "$work/readme_line/out.txt" >&2; echo "FAIL: the README's build line" >&2; exit 1; }
grep -q '^at rest from t = ' "$work/readme_line/out.txt" \
    || { echo "FAIL: the README's program did not reach rest" >&2; exit 1; }
# ... and it is the staged libnscd that it loads (not one installed system-wide).
loaded=$(env -u LD_LIBRARY_PATH ldd "$work/readme_line/ball" | awk '/libnscd\.so/ {print $3}')
[ -n "$loaded" ] && [ "$(realpath "$loaded")" = "$(realpath "$libdir/libnscd.so.$abi")" ] \
    || { echo "FAIL: the README's program loads '$loaded', not $libdir/libnscd.so.$abi" >&2; exit 1; }

# (c) find_package(nscd) from a separate CMake project.
run cmake -S "$here/cmake_project" -B "$work/cmake_build" -DCMAKE_PREFIX_PATH="$stage" \
    -DCMAKE_C_FLAGS="-Wall -Wextra -Wpedantic -Werror" >"$work/cmake_configure.log" \
    || { cat "$work/cmake_configure.log" >&2; exit 1; }
run cmake --build "$work/cmake_build" -j 2
run "$work/cmake_build/consumer_shared"
run "$work/cmake_build/consumer_static"

# (c') a C++-only project (project(x LANGUAGES CXX)): the core is found without
# MPI's C bindings, the optional mpi component is reported missing.
run cmake -S "$here/cmake_project_cxx" -B "$work/cmake_build_cxx" -DCMAKE_PREFIX_PATH="$stage" \
    -DCMAKE_CXX_FLAGS="-Wall -Wextra -Wpedantic -Werror" >"$work/cmake_configure_cxx.log" \
    || { cat "$work/cmake_configure_cxx.log" >&2; exit 1; }
run cmake --build "$work/cmake_build_cxx" -j 2
run "$work/cmake_build_cxx/consumer_cxx_shared"
run "$work/cmake_build_cxx/consumer_cxx_static"

# (c'') the companions as components, those that were installed; and an
# unknown component fails the REQUIRED find_package.
components=()
[ -e "$libdir/libnscd_mpi.so" ] && components+=(mpi)
[ -e "$libdir/libnscd_fclib.so" ] && components+=(fclib)
component_list=$(IFS=';'; echo "${components[*]}")
run cmake -S "$here/cmake_project_components" -B "$work/cmake_build_components" \
    -DCMAKE_PREFIX_PATH="$stage" -DNSCD_COMPONENTS="$component_list" \
    -DCMAKE_C_FLAGS="-Wall -Wextra -Wpedantic -Werror" >"$work/cmake_configure_components.log" \
    || { cat "$work/cmake_configure_components.log" >&2; exit 1; }
run cmake --build "$work/cmake_build_components" -j 2
run "$work/cmake_build_components/consumer_components"
if cmake -S "$here/cmake_project_components" -B "$work/cmake_build_unknown" \
    -DCMAKE_PREFIX_PATH="$stage" -DNSCD_COMPONENTS="no_such_component" \
    >"$work/cmake_configure_unknown.log" 2>&1; then
    echo "FAIL: find_package(nscd REQUIRED COMPONENTS no_such_component) succeeded" >&2
    exit 1
fi
tr -s ' \n' '  ' <"$work/cmake_configure_unknown.log" | grep -q "no component 'no_such_component'" \
    || { cat "$work/cmake_configure_unknown.log" >&2; echo "FAIL: no reason given" >&2; exit 1; }
echo "components: found ${components[*]:-none}; an unknown component is refused"

# (d) ctypes on the installed shared library, and the Python package.
run "$PYTHON" "$here/ctypes_check.py" "$libdir" "$abi" "$version" "$src/python"

echo "consumer: all consumers of the installed nscd $version passed"
