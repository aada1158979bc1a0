#!/bin/sh
# clcpack_add_pack's arguments, checked at configure time (docs/CMAKE.md):
# a misspelt keyword (WORKGROUPS for WORK_GROUPS) is an error naming it,
# wherever cmake_parse_arguments would have put it; EMBED in a C++-only
# project (project(app CXX)) builds with the C++ compiler assembling the
# .S, and FORMAT c there fails naming the fix. Against a staged install,
# as cli_buildsys.sh; the EMBED project builds a pack on PoCL.
. "$(dirname "$0")/../lib/cli_lib.sh"

cmake_stage
printf '__kernel void k(__global int *a) { a[0] = T; }\n' >"$TMP/k.cl"

# project DIR LANGS LINE...: a CMakeLists.txt of project(p LANGS) and
# find_package(clcpack), then the LINEs; configured into DIR/b.
project() {
    d=$TMP/$1
    mkdir -p "$d"
    printf 'cmake_minimum_required(VERSION 3.13)\nproject(p %s)\nfind_package(clcpack 1.0 REQUIRED)\n' \
        "$2" >"$d/CMakeLists.txt"
    shift 2
    for line in "$@"; do printf '%s\n' "$line" >>"$d/CMakeLists.txt"; done
    run cmake -S "$d" -B "$d/b" -DCMAKE_PREFIX_PATH="$P"
}

# expect_msg TEXT WHAT: CMake's message holds TEXT, read as one line (CMake
# wraps a message at blanks).
expect_msg() {
    if tr '\n' ' ' <"$ERR" | tr -s ' ' | grep -qF -- "$1"; then ok "$2"; else bad "$2: stderr lacks '$1'"; fi
}

# A keyword misspelt after a list keyword became one of its values.
project typo_sources C "clcpack_add_pack(p SOURCES $TMP/k.cl DEFINES T=1 WORKGROUPS 16)"
[ "$RC" -ne 0 ] && ok "WORKGROUPS after DEFINES: configure fails" || bad "WORKGROUPS after DEFINES configured"
expect_msg "clcpack_add_pack(p): unknown keyword WORKGROUPS (read as a value of DEFINES); did you mean WORK_GROUPS?" \
    "WORKGROUPS after DEFINES: named, with WORK_GROUPS"
project typo_first C "clcpack_add_pack(p Sources $TMP/k.cl WORK_GROUPS 16)"
expect_msg "unknown keyword Sources; did you mean SOURCES?" "Sources first: named, with SOURCES"
project typo_caps C "clcpack_add_pack(p SOURCES $TMP/k.cl WORK_GROUPS 16 VARIANT T=1)"
expect_msg "unknown keyword VARIANT (read as a value of WORK_GROUPS)" "VARIANT: a keyword-like word among sizes"
# Words of that shape that DEFINES, KERNELS and WHERE take are values.
project good C "clcpack_add_pack(p SOURCES $TMP/k.cl DEFINES T=1,2 USE_LOCAL KERNELS K WHERE USE_LOCAL WORK_GROUPS 16)"
expect_rc 0 "DEFINES USE_LOCAL, KERNELS K, WHERE USE_LOCAL: configures"

# EMBED in a C++-only project: the C++ compiler assembles the .S.
cat >"$TMP/app.cpp" <<'CPP'
#include <cstdio>
#include "p.h"
int main() { std::printf("embedded %zu bytes\n", (size_t)p_size); return p_size > 0 ? 0 : 1; }
CPP
project cxx CXX "add_executable(app $TMP/app.cpp)" \
    "clcpack_add_pack(p SOURCES $TMP/k.cl DEFINES T=1 DEVICE cpu TARGET app EMBED)"
expect_rc 0 "project(p CXX) with EMBED: configures"
run cmake --build "$TMP/cxx/b"
expect_rc 0 "project(p CXX) with EMBED: builds"
run "$TMP/cxx/b/app"
expect_out "embedded " "project(p CXX): the app reads its embedded pack"
project cxx_c CXX "add_executable(app $TMP/app.cpp)" \
    "clcpack_add_pack(p SOURCES $TMP/k.cl DEFINES T=1 TARGET app EMBED FORMAT c)"
[ "$RC" -ne 0 ] && ok "project(p CXX), FORMAT c: configure fails" || bad "project(p CXX), FORMAT c configured"
expect_msg "EMBED with FORMAT c needs the C language" "project(p CXX), FORMAT c: says what is missing"
expect_msg "project(app C CXX)" "project(p CXX), FORMAT c: names the fix"
cli_done
