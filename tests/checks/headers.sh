#!/usr/bin/env bash
# Every public header must compile on its own (it includes what it uses), as
# C11 and as C++17, without a single warning.
# usage: headers.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src=$1
work=$2
CC=${CC:-cc}
CXX=${CXX:-c++}
mkdir -p "$work"

failed=0
count=0
for header in "$src"/include/nscd/*.h; do
    name=$(basename "$header" .h)
    count=$((count + 1))
    # The header alone; the typedef keeps a macro-only header (export.h) from
    # making an empty translation unit, which ISO C forbids.
    printf '#include <nscd/%s.h>\ntypedef int header_check_%s;\n' "$name" "$name" >"$work/$name.c"
    cp "$work/$name.c" "$work/$name.cpp"
    if ! "$CC" -std=c11 -Wall -Wextra -Wpedantic -Wstrict-prototypes -Werror \
        -I"$src/include" -c "$work/$name.c" -o "$work/$name.c.o"; then
        echo "FAIL: nscd/$name.h does not compile alone as C11" >&2
        failed=1
    fi
    if ! "$CXX" -std=c++17 -Wall -Wextra -Wpedantic -Werror \
        -I"$src/include" -c "$work/$name.cpp" -o "$work/$name.cpp.o"; then
        echo "FAIL: nscd/$name.h does not compile alone as C++17" >&2
        failed=1
    fi
done
[ "$count" -gt 0 ] || { echo "FAIL: no header in $src/include/nscd" >&2; exit 1; }
[ "$failed" -eq 0 ] || exit 1
echo "headers: $count public headers compile alone as C11 and C++17 (-Wall -Wextra -Wpedantic -Werror)"
