#!/bin/sh
# The Makefile keeps a packager's flags: CPPFLAGS, CFLAGS and LDFLAGS given
# on make's command line are added to the project's own (its include paths
# and defines stay), and the Khronos headers may live outside /usr/include,
# found through -I or CPATH, even with warnings as errors (WERROR=1). Each
# case compiles the loader's file that includes the OpenCL headers, and a
# file of the tool, into a private build folder and reads make's dependency file to see which
# cl.h was used.
. "$(dirname "$0")/../lib/cli_lib.sh"

cl_h=""
for d in /usr/include /usr/local/include; do
    [ -f "$d/CL/cl.h" ] && { cl_h=$d/CL; break; }
done
if [ -z "$cl_h" ] || ! command -v make >/dev/null 2>&1; then
    skip "no Khronos OpenCL headers in /usr/include or /usr/local/include, or no make"
    cli_done
fi
# A copy of the headers in a folder of its own, as a packager's /opt/khronos.
mkdir -p "$TMP/khronos/CL" && cp "$cl_h"/*.h "$TMP/khronos/CL/"

obj=loader/load/program_load
# A file of the tool that includes headers of the library and of its own
# other folders: it needs the project's include paths.
tool_obj=clc/cli/cmd_list
# build NAME [VAR=VALUE...]: make's objects of $obj and $tool_obj in $TMP/NAME.
build() {
    name=$1
    shift
    run make -C "$ROOT" --no-print-directory B="$TMP/$name" WERROR=1 "$@" \
        "$TMP/$name/$obj.o" "$TMP/$name/$tool_obj.o"
}

build inc "CPPFLAGS=-I$TMP/khronos -DCLC_TEST_PACKAGER_FLAG=1"
expect_rc 0 "make CPPFLAGS=-I/some/dir builds (the project's own -I and -D kept)"
grep -q "$TMP/khronos/CL/cl.h" "$TMP/inc/$obj.d" 2>/dev/null &&
    ok "the Khronos headers of CPPFLAGS' folder were used" ||
    bad "$TMP/inc/$obj.d does not name $TMP/khronos/CL/cl.h"

CPATH=$TMP/khronos
export CPATH
build cpath
expect_rc 0 "a build with the Khronos headers on CPATH, WERROR=1"
grep -q "$TMP/khronos/CL/cl.h" "$TMP/cpath/$obj.d" 2>/dev/null &&
    ok "the Khronos headers of CPATH were used" ||
    bad "$TMP/cpath/$obj.d does not name $TMP/khronos/CL/cl.h"
unset CPATH

build cflags "CFLAGS=-O0 -DCLC_TEST_PACKAGER_FLAG=2"
expect_rc 0 "make CFLAGS=... builds (the project's warnings and standard kept)"
run make -C "$ROOT" --no-print-directory -n B="$TMP/n" "CPPFLAGS=-I/opt/khronos" "CFLAGS=-O1" "$TMP/n/$obj.o"
expect_out "-I/opt/khronos" "the user's CPPFLAGS reach the compiler"
expect_out "-DCL_TARGET_OPENCL_VERSION=" "beside the project's own defines"
expect_out "-std=c11" "and its standard"

cli_done
