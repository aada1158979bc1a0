#!/bin/sh
# The libraries' ABI and their three headers (docs/API.md): libclcpack.so.1's
# soname; every symbol it exports is a clcpack_* function at the version of
# the node of loader/clcpack.map that names it (one by one), and they are
# exactly the functions clcpack.h, clcpack_inspect.h and clcpack_write.h
# declare; the load-only libclcpack_load.so.1 exports exactly those of
# clcpack.h and clcpack_inspect.h, each at the version libclcpack.so.1
# gives it (loader/clcpack_load.map), and no writer; an application that
# includes clcpack.h alone does not see the writer (a call of
# clcpack_writer_new is an implicit-declaration error), with clcpack_write.h
# it does, and against the load-only library such a call does not link;
# docs/API.md names every function; each header compiles on its own as
# C99 and as C++; the header's version is each library's at run time;
# `make print-libs` names every library the shared ones need, and a
# program links statically with each archive. No OpenCL device needed.
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
INC=$ROOT/loader/include
declared "$INC/clcpack.h" >"$TMP/app_api"
declared "$INC/clcpack_inspect.h" >"$TMP/inspect_api"
declared "$INC/clcpack_write.h" >"$TMP/write_api"
sort -u "$TMP/inspect_api" "$TMP/write_api" >"$TMP/tool_api"
sort -u "$TMP/app_api" "$TMP/tool_api" >"$TMP/api"
sort -u "$TMP/app_api" "$TMP/inspect_api" >"$TMP/load_api"
[ "$(wc -l <"$TMP/app_api")" -ge 20 ] && [ "$(wc -l <"$TMP/inspect_api")" -ge 5 ] &&
    [ "$(wc -l <"$TMP/write_api")" -ge 15 ] &&
    ok "clcpack.h declares $(wc -l <"$TMP/app_api") functions, clcpack_inspect.h $(wc -l <"$TMP/inspect_api"), clcpack_write.h $(wc -l <"$TMP/write_api")" ||
    bad "declared: $(wc -l <"$TMP/app_api"), $(wc -l <"$TMP/inspect_api") and $(wc -l <"$TMP/write_api")"
[ "$(ls "$INC")" = "$(printf 'clcpack.h\nclcpack_inspect.h\nclcpack_write.h')" ] &&
    ok "loader/include/ holds the three public headers and nothing else" ||
    bad "loader/include/ holds: $(ls "$INC" | tr '\n' ' ')"
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
cat "$TMP/app_api" "$TMP/inspect_api" "$TMP/write_api" | sort | uniq -d >"$TMP/both"
[ ! -s "$TMP/both" ] && ok "no function is declared in two headers" ||
    bad "in two headers: $(tr '\n' ' ' <"$TMP/both")"
grep -qE 'writer_(new|free|add_|set_|write_)' "$TMP/app_api" "$TMP/inspect_api" &&
    bad "clcpack.h or clcpack_inspect.h declares a writer function: $(grep -hE 'writer_(new|free|add_|set_|write_)' "$TMP/app_api" "$TMP/inspect_api")" ||
    ok "clcpack.h and clcpack_inspect.h declare no writer function"

# docs/API.md names every function of the three headers (its table of contracts).
missing=""
for f in $(cat "$TMP/api"); do
    grep -q "\`$f\`" "$ROOT/docs/API.md" || missing="$missing $f"
done
[ -z "$missing" ] && ok "docs/API.md names every function of the three headers" ||
    bad "docs/API.md does not name:$missing"

# An application that includes clcpack.h alone does not see the writer.
mkdir -p "$TMP/app" "$TMP/tool"
cp "$INC/clcpack.h" "$TMP/app/"
cp "$INC/clcpack.h" "$INC/clcpack_inspect.h" "$INC/clcpack_write.h" "$TMP/tool/"
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
for h in clcpack.h clcpack_inspect.h clcpack_write.h; do
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
expect_out "1.3.0 10300 10300" "version 1.3.0"

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
expect_out "1.3.0 10300 10300" "and runs"
readelf -d "$TMP/version_static" | grep -q 'NEEDED.*libclcpack' && bad "the static program needs libclcpack.so" ||
    ok "the static program does not load libclcpack.so"
# The load-only library (loader/README.md): its soname, and its exports
# exactly the functions of clcpack.h and clcpack_inspect.h, each at the
# version libclcpack.so.1 exports it at; its map names them one by one and
# nothing of clcpack_write.h.
LSO=$BUILD/libclcpack_load.so.1
LMAP=$ROOT/loader/clcpack_load.map
[ -f "$LSO" ] && ok "$LSO built" || bad "$LSO is missing"
objdump -p "$LSO" | grep -q 'SONAME *libclcpack_load.so.1$' && ok "soname libclcpack_load.so.1" ||
    bad "soname: $(objdump -p "$LSO" | grep SONAME)"
objdump -T "$LSO" | awk '$0 ~ / DF \.text/ || $0 ~ / DO \.(data|bss|rodata)/ { print $(NF-1), $NF }' |
    sort >"$TMP/load_exported"
awk '{ print $2 }' "$TMP/load_exported" | sort -u >"$TMP/load_names"
cmp -s "$TMP/load_names" "$TMP/load_api" &&
    ok "libclcpack_load.so.1 exports exactly the $(wc -l <"$TMP/load_api") functions of clcpack.h and clcpack_inspect.h" ||
    bad "load-only exports vs clcpack.h + clcpack_inspect.h: $(diff "$TMP/load_api" "$TMP/load_names" | grep '^[<>]' | tr '\n' ' ')"
comm -12 "$TMP/load_names" "$TMP/write_api" >"$TMP/load_writer"
[ -s "$TMP/load_names" ] && [ ! -s "$TMP/load_writer" ] &&
    ok "libclcpack_load.so.1 exports no function of clcpack_write.h" ||
    bad "libclcpack_load.so.1 exports writer functions: $(tr '\n' ' ' <"$TMP/load_writer")"
# Each at libclcpack.so.1's version for it.
sort "$TMP/exported" | awk 'NR == FNR { v[$2] = $1; next } v[$2] != $1 { print $2 " " $1 " (libclcpack: " v[$2] ")" }' \
    - "$TMP/load_exported" >"$TMP/load_versions"
[ -s "$TMP/load_exported" ] && [ ! -s "$TMP/load_versions" ] &&
    ok "each export of libclcpack_load.so.1 is at the version libclcpack.so.1 gives it" ||
    bad "versions differ from libclcpack.so.1's: $(tr '\n' ';' <"$TMP/load_versions")"
awk '/^CLCPACK_[0-9.]+ *\{/ { node = $1 } node && /^ +clcpack_[a-z0-9_]+;/ { sub(/;/, "", $1); print node, $1 }' \
    "$LMAP" | sort >"$TMP/load_map_versions"
cmp -s "$TMP/load_map_versions" "$TMP/load_exported" &&
    ok "loader/clcpack_load.map names each export once, at its node's version, and nothing else" ||
    bad "clcpack_load.map vs the exports: $(diff "$TMP/load_map_versions" "$TMP/load_exported" | grep '^[<>]' | tr '\n' ' ')"
grep -q '[*?[]' "$TMP/load_map_versions" && bad "clcpack_load.map exports by pattern" ||
    ok "clcpack_load.map names its exports one by one"
# Programs against it: clcpack.h alone links and runs, shared and static;
# a call of the writer does not link.
# shellcheck disable=SC2086
run "$CC" -std=c11 ${CFLAGS:-} -I"$TMP/app" -o "$TMP/version_load" "$TMP/version.c" ${LDFLAGS:-} \
    -L"$BUILD" -lclcpack_load -lOpenCL -Wl,-rpath,"$BUILD"
expect_rc 0 "a version program links with -lclcpack_load"
run "$TMP/version_load"
expect_out "1.3.0 10300 10300" "and runs with libclcpack_load.so.1's version"
readelf -d "$TMP/version_load" | grep -q 'NEEDED.*libclcpack_load.so.1' &&
    ! readelf -d "$TMP/version_load" | grep -q 'NEEDED.*libclcpack.so' &&
    ok "it needs libclcpack_load.so.1, not libclcpack.so.1" || bad "readelf: $(readelf -d "$TMP/version_load" | grep NEEDED)"
for need in $(objdump -p "$LSO" | awk '$1 == "NEEDED" { print $2 }'); do
    case $need in libc.so.* | libasan.so.* | libubsan.so.* | libtsan.so.*) continue ;; esac
    name=$(echo "$need" | sed -E 's/^lib([^.]*)\.so.*/\1/')
    case " $LIBS " in
    *" -l$name "*) ok "make print-libs names -l$name (libclcpack_load.so.1 needs $need)" ;;
    *) bad "libclcpack_load.so.1 needs $need, make print-libs says '$LIBS'" ;;
    esac
done
# shellcheck disable=SC2086
run "$CC" -std=c11 ${CFLAGS:-} -I"$TMP/app" -o "$TMP/version_load_static" "$TMP/version.c" \
    ${LDFLAGS:-} "$BUILD/libclcpack_load.a" $LIBS
expect_rc 0 "a program links with libclcpack_load.a and make print-libs"
run "$TMP/version_load_static"
expect_out "1.3.0 10300 10300" "and runs"
# shellcheck disable=SC2086
run env LC_ALL=C "$CC" -std=c11 ${CFLAGS:-} -I"$TMP/tool" -o "$TMP/writer_load" "$TMP/writer_tool.c" \
    ${LDFLAGS:-} -L"$BUILD" -lclcpack_load -lOpenCL
[ "$RC" -ne 0 ] && ok "a program calling the writer does not link with -lclcpack_load" ||
    bad "the writer linked against libclcpack_load"
expect_err "undefined reference to" "the link fails on an undefined reference"
expect_err "clcpack_writer_new'" "to clcpack_writer_new"
cli_done
