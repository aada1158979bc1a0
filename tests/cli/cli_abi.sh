#!/bin/sh
# The library's ABI and its two headers (docs/API.md): libclcpack.so.1's
# soname; every symbol it exports is a clcpack_* function at version
# CLCPACK_1.0, and they are exactly the functions clcpack.h and
# clcpack_write.h declare and loader/clcpack.map names one by one; an
# application that includes clcpack.h alone does not see the writer (a call of clcpack_writer_new is an
# implicit-declaration error), and with clcpack_write.h it does; docs/API.md
# names every one of them; each header compiles on its own as C99 and as
# C++; the header's version is the library's at run time; `make
# print-libs` names every library the shared one needs, and a program links
# statically with it. No OpenCL device needed.
. "$(dirname "$0")/../lib/cli_lib.sh"

SO=$BUILD/libclcpack.so.1
CC=${CC:-cc}
[ -f "$SO" ] && ok "$SO built" || bad "$SO is missing"
objdump -p "$SO" | grep -q 'SONAME *libclcpack.so.1$' && ok "soname libclcpack.so.1" ||
    bad "soname: $(objdump -p "$SO" | grep SONAME)"

# Exported (defined) dynamic symbols: version and name. objdump -T prints
# the version in the column before the name; the version's own definition
# symbol (CLCPACK_1.0 in *ABS*) is not a function.
objdump -T "$SO" | awk '$0 ~ / DF \.text/ || $0 ~ / DO \.(data|bss|rodata)/ { print $(NF-1), $NF }' \
    >"$TMP/exported"
[ -s "$TMP/exported" ] && ok "objdump -T lists $(wc -l <"$TMP/exported") exported symbols" ||
    bad "no exported symbol found"
# Each exported symbol carries the version of the map's node that names it
# (CLCPACK_1.0, CLCPACK_1.2, ...): "VERSION name" pairs from the map.
awk '/^CLCPACK_[0-9.]+ *\{/ { node = $1 } node && /^ +clcpack_[a-z0-9_]+;/ { sub(/;/, "", $1); print node, $1 }' \
    "$ROOT/loader/clcpack.map" | sort >"$TMP/map_versions"
sort "$TMP/exported" | comm -13 "$TMP/map_versions" - >"$TMP/unversioned"
[ -s "$TMP/map_versions" ] && [ ! -s "$TMP/unversioned" ] &&
    ok "every exported symbol is at the version of the map's node that names it" ||
    bad "symbols at another version than the map's: $(tr '\n' ' ' <"$TMP/unversioned")"
awk '$2 !~ /^clcpack_/' "$TMP/exported" >"$TMP/unprefixed"
[ ! -s "$TMP/unprefixed" ] && ok "nothing but clcpack_* is exported" ||
    bad "exported besides clcpack_*: $(tr '\n' ' ' <"$TMP/unprefixed")"
nm -D --defined-only "$SO" | awk '$2 == "T" || $2 == "D" || $2 == "B" { print $3 }' |
    sed 's/@.*//' | sort -u >"$TMP/nm_names"
awk '{ print $2 }' "$TMP/exported" | sort -u >"$TMP/names"
cmp -s "$TMP/nm_names" "$TMP/names" && ok "nm -D --defined-only agrees with objdump -T" ||
    bad "nm and objdump differ: $(diff "$TMP/nm_names" "$TMP/names" | head -5)"

# The functions the headers declare (CLCPACK_API ... name(), the name being
# the last word before its parenthesis).
declared() {
    grep -v '^#' "$1" | tr '\n' ' ' | grep -oE 'CLCPACK_API [^;(]*\(' | sed -E 's/.*[ *]([a-z_0-9]+)\($/\1/' |
        sort -u
}
declared "$ROOT/loader/clcpack.h" >"$TMP/app_api"
declared "$ROOT/loader/clcpack_write.h" >"$TMP/tool_api"
sort -u "$TMP/app_api" "$TMP/tool_api" >"$TMP/api"
[ "$(wc -l <"$TMP/app_api")" -ge 20 ] && [ "$(wc -l <"$TMP/tool_api")" -ge 20 ] &&
    ok "clcpack.h declares $(wc -l <"$TMP/app_api") functions, clcpack_write.h $(wc -l <"$TMP/tool_api")" ||
    bad "declared: $(wc -l <"$TMP/app_api") and $(wc -l <"$TMP/tool_api")"
cmp -s "$TMP/api" "$TMP/names" && ok "the exported functions are exactly those the headers declare" ||
    bad "headers vs exports: $(diff "$TMP/api" "$TMP/names" | grep '^[<>]' | tr '\n' ' ')"
# loader/clcpack.map names every exported function, one by one (no
# wildcard): a function added to a header is exported only when it is
# written in the map, in its version's node. Its names are exactly the
# headers' functions and the library's exports.
MAP=$ROOT/loader/clcpack.map
sed 's|/\*.*\*/||g; /\/\*/,/\*\//d' "$MAP" | awk '
    /global:/ { g = 1; next } /local:/ { g = 0; next } /}/ { g = 0 }
    g { gsub(/[;[:space:]]/, ""); if ($0 != "") print }' | sort >"$TMP/map_all"
grep '[*?[]' "$TMP/map_all" >"$TMP/map_wild"
[ ! -s "$TMP/map_wild" ] && ok "clcpack.map names its exports one by one ($(wc -l <"$TMP/map_all") names)" ||
    bad "clcpack.map exports by pattern: $(tr '\n' ' ' <"$TMP/map_wild")"
sort -u "$TMP/map_all" >"$TMP/map_names"
cmp -s "$TMP/map_all" "$TMP/map_names" && ok "clcpack.map names each function once" ||
    bad "named twice in clcpack.map: $(uniq -d "$TMP/map_all" | tr '\n' ' ')"
comm -23 "$TMP/names" "$TMP/map_names" >"$TMP/not_in_map"
[ ! -s "$TMP/not_in_map" ] && ok "every exported function is named in clcpack.map" ||
    bad "exported but not named in clcpack.map: $(tr '\n' ' ' <"$TMP/not_in_map")"
comm -23 "$TMP/map_names" "$TMP/api" >"$TMP/not_declared"
[ ! -s "$TMP/not_declared" ] && ok "every name of clcpack.map is declared by a header" ||
    bad "clcpack.map names functions no header declares: $(tr '\n' ' ' <"$TMP/not_declared")"
comm -13 "$TMP/map_names" "$TMP/api" >"$TMP/not_mapped"
[ ! -s "$TMP/not_mapped" ] && ok "every function of the headers is named in clcpack.map" ||
    bad "declared but not named in clcpack.map: $(tr '\n' ' ' <"$TMP/not_mapped")"
comm -12 "$TMP/app_api" "$TMP/tool_api" >"$TMP/both"
[ ! -s "$TMP/both" ] && ok "no function is declared in both headers" ||
    bad "in both headers: $(tr '\n' ' ' <"$TMP/both")"
grep -q 'writer' "$TMP/app_api" && bad "clcpack.h declares a writer function: $(grep writer "$TMP/app_api")" ||
    ok "clcpack.h declares no writer function"

# docs/API.md names every function of the two headers (its table of contracts).
missing=""
for f in $(cat "$TMP/api"); do
    grep -q "\`$f\`" "$ROOT/docs/API.md" || missing="$missing $f"
done
[ -z "$missing" ] && ok "docs/API.md names every function of the two headers" ||
    bad "docs/API.md does not name:$missing"

# An application that includes clcpack.h alone does not see the writer.
mkdir -p "$TMP/app" "$TMP/tool"
cp "$ROOT/loader/clcpack.h" "$TMP/app/"
cp "$ROOT/loader/clcpack.h" "$ROOT/loader/clcpack_write.h" "$TMP/tool/"
cat >"$TMP/writer_app.c" <<'EOF'
#include <clcpack.h>
int main(void)
{
    void *w = 0;
    int failed = clcpack_writer_new(0, (void *)&w, 0) != CLCPACK_OK;
    clcpack_writer_free(w);
    return failed;
}
EOF
run env LC_ALL=C "$CC" -std=c11 -Werror=implicit-function-declaration -I"$TMP/app" -c -o "$TMP/w.o" "$TMP/writer_app.c"
[ "$RC" -ne 0 ] && ok "calling the writer with clcpack.h alone does not compile" ||
    bad "the writer compiled with clcpack.h alone"
expect_err "implicit declaration of function 'clcpack_writer_new'" \
    "the error is the implicit declaration of clcpack_writer_new"
sed 's/<clcpack.h>/<clcpack_write.h>/' "$TMP/writer_app.c" >"$TMP/writer_tool.c"
# shellcheck disable=SC2086
run "$CC" -std=c11 -Wall -Wextra -Werror ${CFLAGS:-} -I"$TMP/tool" -o "$TMP/writer_tool" \
    "$TMP/writer_tool.c" ${LDFLAGS:-} -L"$BUILD" -lclcpack -lOpenCL -Wl,-rpath,"$BUILD"
expect_rc 0 "with clcpack_write.h the same program compiles and links"
run "$TMP/writer_tool"
expect_rc 0 "and its writer_new succeeds"

# Each header on its own, as C99 (pedantic) and as C++.
for h in clcpack.h clcpack_write.h; do
    printf '#include <%s>\nint main(void) { return CLCPACK_OK; }\n' "$h" >"$TMP/alone.c"
    run "$CC" -std=c99 -pedantic -Wall -Wextra -Werror -I"$TMP/tool" -c -o "$TMP/alone.o" "$TMP/alone.c"
    expect_rc 0 "$h compiles alone as C99 with -pedantic"
    if command -v "${CXX:-c++}" >/dev/null 2>&1; then
        run "${CXX:-c++}" -x c++ -std=c++11 -Wall -Wextra -Werror -I"$TMP/tool" -c -o "$TMP/alone.o" \
            "$TMP/alone.c"
        expect_rc 0 "$h compiles as C++"
    else
        skip "no C++ compiler: $h as C++"
    fi
done

# The header's version is the library's at run time.
cat >"$TMP/version.c" <<'EOF'
#include <stdio.h>
#include <clcpack.h>
int main(void)
{
    printf("%d.%d.%d %u %u\n", CLCPACK_VERSION_MAJOR, CLCPACK_VERSION_MINOR, CLCPACK_VERSION_PATCH,
           (unsigned)CLCPACK_VERSION_NUMBER, clcpack_version());
    return clcpack_version() != CLCPACK_VERSION_NUMBER;
}
EOF
# shellcheck disable=SC2086
run "$CC" -std=c11 ${CFLAGS:-} -I"$TMP/app" -o "$TMP/version" "$TMP/version.c" ${LDFLAGS:-} \
    -L"$BUILD" -lclcpack -lOpenCL -Wl,-rpath,"$BUILD"
expect_rc 0 "a version program builds"
run "$TMP/version"
expect_rc 0 "clcpack_version() is the header's CLCPACK_VERSION_NUMBER"
expect_out "1.2.0 10200 10200" "version 1.2.0"

# make print-libs: every library the shared one needs, and a static link.
LIBS=$(make -s --no-print-directory -C "$ROOT" B="$BUILD" print-libs)
for need in $(objdump -p "$SO" | awk '$1 == "NEEDED" { print $2 }'); do
    # libc, and a sanitized build's runtimes (which -fsanitize links).
    case $need in libc.so.* | libasan.so.* | libubsan.so.* | libtsan.so.*) continue ;; esac
    name=$(echo "$need" | sed -E 's/^lib([^.]*)\.so.*/\1/')
    case " $LIBS " in
    *" -l$name "*) ok "make print-libs names -l$name (libclcpack.so.1 needs $need)" ;;
    *) bad "libclcpack.so.1 needs $need, make print-libs says '$LIBS'" ;;
    esac
done
# shellcheck disable=SC2086
run "$CC" -std=c11 ${CFLAGS:-} -I"$TMP/app" -o "$TMP/version_static" "$TMP/version.c" \
    ${LDFLAGS:-} "$BUILD/libclcpack.a" $LIBS
expect_rc 0 "a program links with libclcpack.a and make print-libs ($LIBS)"
run "$TMP/version_static"
expect_out "1.2.0 10200 10200" "and runs"
readelf -d "$TMP/version_static" | grep -q 'NEEDED.*libclcpack' && bad "the static program needs libclcpack.so" ||
    ok "the static program does not load libclcpack.so"
cli_done
