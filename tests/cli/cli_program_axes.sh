#!/bin/sh
# Several programs in one direct-mode run, each with axes of its own
# (docs/CLI.md, "Several programs"; issue 41): the options before the first
# source file are every program's, those after one its own. fir.cl is built
# for its TAPS only and scan.cl for its work-groups only (2 + 2 builds, not
# 2 x 2 x 2), so scan's key needs no TAPS; a program's own -D replaces every
# program's; a check command of one program runs for it alone; a manifest
# program block takes check_cmd and tune_cmd; clcpack_add_pack's PROGRAM
# groups make the same command line; the messages name the program.
. "$(dirname "$0")/../lib/cli_lib.sh"
CLC=$(cd "$(dirname "$CLC")" && pwd)/$(basename "$CLC")
cd "$TMP" || exit 1

cat >fir.cl <<'EOF'
__kernel void fir(__global const float *x, __global float *y)
{
    size_t i = get_global_id(0);
    float s = 0;
    for (int t = 0; t < TAPS; t++)
        s += x[i + t];
    y[i] = s / TAPS;
}
EOF
cat >scan.cl <<'EOF'
__kernel void scan(__global int *a) { a[get_global_id(0)] += (int)get_local_size(0); }
EOF

# entries PACK: the number of entries `list` counts.
entries() {
    "$CLC" list "$1" | sed -n 's/^.* \([0-9][0-9]*\) entries$/\1/p'
}

run "$CLC" fir.cl -D TAPS=8,16 scan.cl --wg 64,128 -o app.clcpack
expect_rc 0 "fir.cl -D TAPS=8,16 scan.cl --wg 64,128 packs"
expect_out "variants  4 built, 0 failed, of 4" "2 + 2 builds, not 2 x 2 x 2"
[ "$(entries app.clcpack)" = 4 ] && ok "the pack holds 4 entries" ||
    bad "the pack holds $(entries app.clcpack) entries, wanted 4"
run "$CLC" list app.clcpack
expect_out "fir     TAPS=8   -" "fir is built for TAPS=8 with no work-group of scan's"
expect_out "scan    -        64" "scan is built for --wg 64 with no TAPS"
# The key an application asks for: scan at 64, no define named.
run "$CLC" extract app.clcpack --kernel scan --wg 64 -o scan64.bin
expect_rc 0 "scan's key needs no TAPS (extract --kernel scan --wg 64)"
run "$CLC" extract app.clcpack --kernel fir -D TAPS=16 -o fir16.bin
expect_rc 0 "fir's key needs no work-group (extract --kernel fir -D TAPS=16)"

# Options before the first file stay every program's: 2 x 2 x 2.
run "$CLC" -D TAPS=8,16 --wg 64,128 fir.cl scan.cl -q -o all.clcpack
expect_rc 0 "-D and --wg before the files"
[ "$(entries all.clcpack)" = 8 ] && ok "every program gets both axes: 8 entries" ||
    bad "options before the files: $(entries all.clcpack) entries, wanted 8"

# A program's own -D NAME replaces every program's -D NAME.
run "$CLC" -D TAPS=4 fir.cl -D TAPS=8,16 scan.cl -q -o replace.clcpack
expect_rc 0 "-D TAPS=4 for all, -D TAPS=8,16 for fir"
run "$CLC" list replace.clcpack
expect_out "fir     TAPS=16" "fir has its own TAPS=16"
expect_no_out "fir     TAPS=4 " "fir's own -D TAPS replaced every program's TAPS=4"
expect_out "scan    TAPS=4" "scan keeps every program's TAPS=4"

# A check command of one program runs for that program's variants only.
run "$CLC" fir.cl -D TAPS=8,16 --check-cmd 'echo {kernel} {defines} >>ran.txt' \
    scan.cl --wg 64,128 -o checked.clcpack
expect_rc 0 "fir.cl's own --check-cmd"
expect_out "checks    2 of 2 variants passed --check-cmd" "the summary counts fir's 2 checked variants"
[ "$(grep -c '^fir TAPS=' ran.txt)" = 2 ] && [ "$(wc -l <ran.txt)" -eq 2 ] &&
    ok "the command ran twice, for fir alone" || bad "the check command ran: $(cat ran.txt)"

# The messages name the program and the option (what they print is the
# golden cases tests/cli/golden/usage/axes_*, check_cmd_kernels_folder and
# manifest/tune_cmd_placeholder).
run "$CLC" fir.cl scan.cl --wg 1-64
expect_rc 2 "scan.cl --wg 1-64"
run "$CLC" fir.cl -D TAPS=8 --where 'X > 1' scan.cl
expect_rc 2 "fir.cl --where naming no define"
run "$CLC" --where 'TAPS > 8' fir.cl -D TAPS=8,16 scan.cl
expect_rc 2 "every program's --where naming a define scan lacks"
run "$CLC" fir.cl --check-cmd 'true {bogus}' scan.cl
expect_rc 2 "fir.cl --check-cmd with an unknown placeholder"
run "$CLC" fir.cl -D TAPS=8 -D TAPS=16 scan.cl
expect_rc 2 "fir.cl -D TAPS twice"
# A variant's build options are bounded (docs/LIMITS.md): past 1 MiB, a
# usage error naming the bound, before anything is built.
long=$(printf '%250s' '' | tr ' ' x)
set --
for i in $(seq 1 4200); do set -- "$@" -D "N$i=$long"; done
run "$CLC" scan.cl "$@" -o long.clcpack
expect_rc 2 "4,200 defines of 250 bytes"
expect_err "scan.cl: the build options of a variant are longer than 1048575 bytes" \
    "options past the bound are refused, naming it"
set --
run "$CLC" fir.cl -D TAPS=8 --where 'TAPS > 8' scan.cl -o x.clcpack
expect_rc 0 "fir.cl's own --where leaving scan.cl alone"
expect_err "note: fir.cl: --where 'TAPS > 8' skipped 1 variant" "the note names the program"

# A manifest program block with a check command (and one without).
mkdir k
cp fir.cl scan.cl k/
cat >k/manifest.txt <<EOF
program fir
  source    fir.cl
  define    TAPS=8,16
  check_cmd echo {kernel} {defines} >>$TMP/mran.txt
end
program scan
  source    scan.cl
  wg        64,128
end
EOF
run "$CLC" --kernels k -o m.clcpack
expect_rc 0 "a manifest program block with check_cmd packs"
expect_out "checks    2 of 2 variants passed --check-cmd" "the block's check command counted"
[ "$(grep -c '^fir TAPS=' mran.txt)" = 2 ] && [ "$(wc -l <mran.txt)" -eq 2 ] &&
    ok "check_cmd ran for the fir block's variants only" || bad "check_cmd ran: $(cat mran.txt)"
printf 'program fir\n  source fir.cl\n  tune_cmd ./time {binary} {wgs}\nend\n' >k/manifest.txt
run "$CLC" --kernels k -o m2.clcpack
[ "$RC" -ne 0 ] && ok "tune_cmd with an unknown placeholder is refused" || bad "tune_cmd {wgs} accepted"
run "$CLC" --kernels k --check-cmd 'true'
expect_rc 2 "--check-cmd with the kernels folder"

# clcpack_add_pack with two PROGRAM groups: the same command line.
cmake_stage
mkdir cm
cp fir.cl scan.cl cm/
cat >cm/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.13)
project(two C)
find_package(clcpack 1.0 REQUIRED)
clcpack_add_pack(two
    DEVICE default
    PROGRAM fir.cl  DEFINES TAPS=8,16 CHECK_COMMAND "echo {kernel} >>${CMAKE_BINARY_DIR}/ran.txt"
    PROGRAM scan.cl WORK_GROUPS 64 128
    OPTIONS -q)
EOF
run cmake -S cm -B cm/b -DCMAKE_PREFIX_PATH="$P"
expect_rc 0 "clcpack_add_pack(PROGRAM fir.cl DEFINES ... PROGRAM scan.cl WORK_GROUPS ...) configures"
run cmake --build cm/b
expect_rc 0 "the two-program pack builds"
[ "$(LD_LIBRARY_PATH=$P/lib entries cm/b/two.clcpack)" = 4 ] && ok "CMake: 2 + 2 entries" ||
    bad "CMake: $(entries cm/b/two.clcpack) entries, wanted 4"
[ "$(grep -c '^fir$' cm/b/ran.txt)" = 2 ] && [ "$(wc -l <cm/b/ran.txt)" -eq 2 ] &&
    ok "CMake: the PROGRAM's CHECK_COMMAND ran for fir alone" || bad "CMake: ran $(cat cm/b/ran.txt)"
grep -q "scan.cl" cm/b/two.clcpack.d && grep -q "fir.cl" cm/b/two.clcpack.d &&
    ok "CMake: the depfile names both programs" || bad "CMake depfile: $(cat cm/b/two.clcpack.d)"
sed -i 's/WORK_GROUPS 64 128/WORKGROUPS 64 128/' cm/CMakeLists.txt
run cmake -S cm -B cm/b2 -DCMAKE_PREFIX_PATH="$P"
[ "$RC" -ne 0 ] && ok "a misspelt keyword in a PROGRAM: configure fails" || bad "WORKGROUPS in a PROGRAM configured"
tr '\n' ' ' <"$ERR" | tr -s ' ' | grep -qF "PROGRAM scan.cl): unknown keyword WORKGROUPS" &&
    ok "the misspelt keyword is named with its PROGRAM" || bad "no message naming WORKGROUPS: $(cat "$ERR")"
printf 'cmake_minimum_required(VERSION 3.13)\nproject(m C)\nfind_package(clcpack 1.0 REQUIRED)\nclcpack_add_pack(p KERNELS_DIR %s PROGRAM fir.cl)\n' \
    "$TMP/k" >cm/CMakeLists.txt
run cmake -S cm -B cm/b3 -DCMAKE_PREFIX_PATH="$P"
[ "$RC" -ne 0 ] && grep -q "PROGRAM applies to .cl files" "$ERR" && ok "PROGRAM with KERNELS_DIR is refused" ||
    bad "PROGRAM with KERNELS_DIR: exit $RC"
cli_done
