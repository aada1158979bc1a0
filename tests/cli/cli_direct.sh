#!/bin/sh
# Packing any OpenCL program from one command line (docs/CLI.md, "Packing
# your own kernels"): no manifest, any signature; -D lists of numbers, types
# and bare names; derived defines, constraints, work-groups as expressions,
# explicit variants, several files as one program, includes through -I,
# per-program options; a kernel asked for that the program does not hold;
# the user's own check command; build logs that name the user's files; and
# packs whose bytes depend on nothing but the inputs (-j, PoCL's caches).
. "$(dirname "$0")/../lib/cli_lib.sh"
CLC=$(cd "$(dirname "$CLC")" && pwd)/$(basename "$CLC")
cd "$TMP" || exit 1
mkdir -p src inc other

cat >src/sobel.cl <<'EOF'
__kernel void sobel(__global const uchar *src, __global uchar *dst, int w, int h)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1)
        return;
    int gx = src[(y - 1) * w + x + 1] + 2 * src[y * w + x + 1] + src[(y + 1) * w + x + 1] -
             src[(y - 1) * w + x - 1] - 2 * src[y * w + x - 1] - src[(y + 1) * w + x - 1];
    dst[y * w + x] = (uchar)min((int)abs(gx), 255);
}
EOF
# Six kernels of a program whose header lives in another folder, a
# type-valued define, a bare define, a function-like macro, a struct by
# value and __local arguments.
cat >inc/common.h <<'EOF'
typedef struct { float scale; int offset; } params;
#define CLAMP_INDEX(i, n) ((i) < 0 ? 0 : ((i) >= (n) ? (n) - 1 : (i)))
EOF
cat >src/multi.cl <<'EOF'
#include "common.h"
__kernel void scale(__global T *x, params p) { size_t i = get_global_id(0); x[i] = (T)(x[i] * p.scale + p.offset); }
__kernel void copy(__global const T *a, __global T *b) { b[get_global_id(0)] = a[get_global_id(0)]; }
__kernel void reduce(__global const T *a, __global T *out, __local T *tmp)
{
    size_t l = get_local_id(0);
    tmp[l] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) { T s = 0; for (size_t i = 0; i < get_local_size(0); i++) s += tmp[i]; out[get_group_id(0)] = s; }
}
__kernel void gather(__global const T *a, __global T *b, int n) { int i = get_global_id(0); b[i] = a[CLAMP_INDEX(i - 1, n)]; }
__kernel void fill(__global T *a, T v) { a[get_global_id(0)] = v; }
#ifdef WITH_MOD
__kernel void modk(__global int *a) { a[get_global_id(0)] = MOD2(a[get_global_id(0)], 7); }
#endif
EOF
cat >src/tiled.cl <<'EOF'
__kernel void tiled(__global const float *a, __global float *b)
{
    __local float t[TS * RTS];
    int i = get_global_id(0), l = get_local_id(0) + get_local_id(1) * TS;
    t[l] = a[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    b[i] = t[l] * WPT;
}
EOF

run "$CLC" src/sobel.cl --wg 16x16,8x8 -q -o sobel.clcpack
expect_rc 0 "a uchar kernel with no manifest packs"
run "$CLC" list --json sobel.clcpack
expect_out '"kernel_names"' "list --json gives a program entry's kernel names"
expect_out '"wg"' "list --json gives each entry's wg"

run "$CLC" src/multi.cl -I inc -D T=float,int -D WITH_MOD -D 'MOD2(x,y)=((x)%(y))' --wg 64 \
    --options=-cl-fast-relaxed-math --kernel modk -q -o multi.clcpack
expect_rc 0 "six kernels, a header through -I, type and bare and function-like defines"
run "$CLC" list multi.clcpack
expect_out "T=float" "the type-valued define is in the key"
expect_out "WITH_MOD" "the bare define is in the key"
expect_out "entries 0-1  multi: copy, fill, gather, modk, reduce, scale" \
    "list (text) gives the kernels a program entry holds"
# Kernel names that are likely typos get the nearest name.
run "$CLC" extract multi.clcpack --kernel scal -o x.bin
expect_rc 2 "extract --kernel with a misspelt kernel"
expect_err "multi.clcpack holds no kernel scal; did you mean scale?" "extract suggests the kernel"
run "$CLC" src/multi.cl -I inc -D T=float --kernel reduse -q -o x.clcpack
expect_rc 1 "--kernel with a misspelt kernel of one's own program"
expect_err "kernel reduse is not in the built program; did you mean reduce?" \
    "the build suggests the kernel"
# An -I folder that is not there is an error, not a silent no-op (its
# message and the others' below are golden cases: tests/cli/golden/usage/
# include_missing, include_file, define_space, derive_unknown,
# derive_overflow, define_blank_equals, define_dotted_range, and
# manifest/unknown_keyword).
run "$CLC" src/multi.cl -I inc -I no_such_inc -D T=float -q -o x.clcpack
expect_rc 2 "-I of a missing folder"
run "$CLC" src/multi.cl -I src/sobel.cl -D T=float -q -o x.clcpack
expect_rc 2 "-I of a file"
[ -f x.clcpack ] && bad "a pack was written despite a bad -I" || ok "nothing written for a bad -I"
run "$CLC" verify --load multi.clcpack
expect_rc 0 "every entry loads back"
python3 - "$CLC" <<'EOF' && ok "each entry holds the program's six kernels" || bad "kernel names of the program entries"
import json, subprocess, sys
e = json.loads(subprocess.run([sys.argv[1], "list", "--json", "multi.clcpack"], capture_output=True).stdout)["entries"]
want = ["copy", "fill", "gather", "modk", "reduce", "scale"]
sys.exit(0 if e and all(x["kernel_names"] == want for x in e) and all("-cl-fast-relaxed-math" in x["options"] for x in e) else 1)
EOF

# Derived defines, a constraint and a work-group tied to the defines.
run "$CLC" src/tiled.cl -D TS=8,16,32 -D WPT=1,2,4,8 --derive 'RTS=TS/WPT' \
    --where 'TS % WPT == 0 && RTS >= 2' --wg 'TS,RTS' -o tiled.clcpack
expect_rc 0 "derive, where and a --wg expression"
expect_err "skipped 1 variant" "the constraint's skipped variant is counted"
n=$("$CLC" list --json tiled.clcpack | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))')
[ "$n" = 11 ] && ok "11 of 12 variants pass RTS >= 2" || bad "11 variants wanted, got $n"
python3 - "$CLC" <<'EOF' && ok "each variant's wg is (TS, TS/WPT)" || bad "wg follows the defines"
import json, subprocess, sys
e = json.loads(subprocess.run([sys.argv[1], "list", "--json", "tiled.clcpack"], capture_output=True).stdout)["entries"]
ok = True
for x in e:
    d = x["defines"]
    ok &= x["wg"][:2] == [int(d["TS"]), int(d["TS"]) // int(d["WPT"])] and d["RTS"] == str(int(d["TS"]) // int(d["WPT"]))
sys.exit(0 if ok and e else 1)
EOF
run "$CLC" src/tiled.cl --variant 'TS=16,WPT=2' --variant 'TS=32,WPT=4' --derive 'RTS=TS/WPT' \
    --wg 'TS,RTS' -q -o explicit.clcpack
expect_rc 0 "explicit variants"
n=$("$CLC" list --json explicit.clcpack | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))')
[ "$n" = 2 ] && ok "exactly the two explicit variants" || bad "2 variants wanted, got $n"

# Several files as one program, in order.
printf '#define T float\n' >first.h
run "$CLC" --program both=first.h,src/multi.cl -I inc -q -o both.clcpack
expect_rc 0 "--program NAME=FILE1,FILE2"
run "$CLC" list both.clcpack
expect_out "both" "the entry is named after the program"

# Errors: values, expressions, a kernel the program does not hold, a header
# that silently overrides a -D.
run "$CLC" src/sobel.cl -D 'X=a b' -q -o x.clcpack
expect_rc 2 "a value a build option cannot carry"
run "$CLC" src/tiled.cl -D TS=8 -D WPT=1 --derive 'RTS=TS*NOPE' -q -o x.clcpack
expect_rc 2 "an unknown name in a derive"
run "$CLC" src/tiled.cl -D TS=4294967296 -D WPT=1 --derive 'RTS=TS*TS' -q -o x.clcpack
expect_rc 2 "an overflowing derive"
cat >src/override.cl <<'EOF'
#include "override.h"
#if KERNEL == 3
__kernel void k3(__global int *a) { a[0] = 3; }
#else
__kernel void k8(__global int *a) { a[0] = 8; }
#endif
EOF
printf '#undef KERNEL\n#define KERNEL 8\n' >src/override.h
run "$CLC" src/override.cl -D KERNEL=3 --kernel k3 -q -o x.clcpack
expect_rc 1 "a header that overrides -D is caught by --kernel"
expect_err "kernel k3 is not in the built program" "the missing kernel is named"
[ -f x.clcpack ] && bad "a pack was written under the wrong name" || ok "nothing written"

# Build failures name the user's file and line, once per distinct log.
printf '__kernel void broken(__global int *a) { a[0] = UNDEFINED_NAME; }\n' >src/broken.cl
run "$CLC" src/broken.cl -D A=1,2,3 -q -o x.clcpack
expect_rc 1 "a kernel that does not build"
expect_err "src/broken.cl:1" "the log names the user's file and line"
n=$(grep -c "UNDEFINED_NAME" "$ERR")
[ "$n" -le 2 ] && ok "the same log is printed once ($n lines)" || bad "the log repeats ($n lines)"
expect_err "the same as for" "later variants point at the first log"

# The user's own check.
run "$CLC" src/sobel.cl --wg 16x16 -q -o c.clcpack \
    --check-cmd 'test -s {binary} && test {wg} = 16x16 && test {kernel} = sobel'
expect_rc 0 "a passing check command"
run "$CLC" src/tiled.cl -D TS=8 -D WPT=2 --derive RTS=TS/WPT --wg 'TS,RTS' -q -o c.clcpack \
    --check-cmd 'echo "defines {defines} on device {device}"; exit 3'
expect_rc 1 "a failing check command fails the variant"
expect_err "exited with status 3" "the exit status is said"
expect_err "defines RTS=4,TS=8,WPT=2 on device" "its output is shown, with the substitutions"
run "$CLC" src/sobel.cl --check-cmd 'true {nope}' -q -o c.clcpack
expect_rc 2 "an unknown placeholder is a usage error"

# The same things as a manifest: program blocks, and a kernel block with no
# family (generic checks only).
mkdir -p kf/inc
cp src/tiled.cl src/multi.cl kf/
cp inc/common.h kf/inc/
cat >kf/manifest.txt <<'EOF'
program tiles
  source   tiled.cl
  define   TS=8,16
  define   WPT=2
  derive   RTS = TS / WPT
  where    TS % WPT == 0
  wg       TS,RTS
  default  TS=16
  kernel   tiled
end
program multi
  source   multi.cl
  include  inc
  define   T=float
  options  -cl-fast-relaxed-math
end
kernel tiled
  source   tiled.cl
  axis     TS allowed=8,16 default=8
  axis     WPT allowed=2 default=2
  derive   RTS = TS / WPT
  axis     WG allowed=8x4 default=8x4
end
EOF
run "$CLC" --kernels kf -q -o kf.clcpack
expect_rc 0 "program blocks and a family-less kernel block in a manifest"
python3 - "$CLC" <<'EOF' && ok "both programs and the kernel, with derives, wg and default marks" || bad "program blocks' entries"
import json, subprocess, sys
e = json.loads(subprocess.run([sys.argv[1], "list", "--json", "kf.clcpack"], capture_output=True).stdout)["entries"]
t = [x for x in e if x["kernel"] == "tiles"]
m = [x for x in e if x["kernel"] == "multi"]
k = [x for x in e if x["kernel"] == "tiled"]
ok = len(t) == 2 and len(m) == 1 and len(k) == 1
ok &= m[0]["kernel_names"] == ["copy", "fill", "gather", "reduce", "scale"]
ok &= all(x["wg"][:2] == [int(x["defines"]["TS"]), int(x["defines"]["RTS"])] for x in t)
ok &= [x["default"] for x in sorted(t, key=lambda x: int(x["defines"]["TS"]))] == [False, True]
ok &= k[0]["kernel_names"] == [] and k[0]["wg"][:2] == [8, 4]
sys.exit(0 if ok else 1)
EOF
run "$CLC" --kernels kf --kernel tiles -q -o kf1.clcpack
expect_rc 0 "--kernel selects a program block"
n=$("$CLC" list --json kf1.clcpack | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))')
[ "$n" = 2 ] && ok "only the selected program" || bad "2 entries wanted, got $n"
printf 'program bad\n  source tiled.cl\n  colour red\nend\n' >kf/manifest.txt
run "$CLC" --kernels kf -q -o kf2.clcpack
expect_rc 1 "an unknown keyword in a program block"

# A work-group the device cannot launch the kernel with is refused, named
# with the limit; -k keeps the variants that fit.
printf '__kernel void big(__global float *a) { a[get_global_id(0)] = 1.0f; }\n' >big.cl
run "$CLC" big.cl --wg 128x64,16x16 -o big.clcpack
expect_rc 1 "a work-group of 8192 items on a device of at most 4096"
expect_err "is larger than kernel big can be launched with on this device" "the limit is named"
run "$CLC" big.cl --wg 8192 -o big.clcpack
expect_err "dimension 0 is 8192, above the device's maximum" "a dimension above the device's"
run "$CLC" big.cl --wg 128x64,16x16 -k -q -o big.clcpack
expect_rc 1 "-k writes the rest"
n=$("$CLC" list --json big.clcpack | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))')
[ "$n" = 1 ] && ok "only the 16x16 variant is stored" || bad "1 entry wanted, got $n"

# -o naming a file the pack is built from (the source, an included header)
# is refused before anything is written.
cp src/sobel.cl victim.cl
run "$CLC" victim.cl --wg 8x8 -o ./victim.cl
expect_rc 2 "-o naming the source is refused"
expect_err "which this pack is built from" "the message says why"
expect_true "the source is intact" cmp victim.cl src/sobel.cl
run "$CLC" src/multi.cl -I inc -D T=float --wg 64 -o inc/$(ls inc | head -n 1)
expect_rc 2 "-o naming an included header is refused"

# Reproducible: the same bytes whatever -j, PoCL's cache settings and cache
# folders (fresh ones each run).
mk() { mkdir -p "$1"; }
mk x1 x2 x3 p1
XDG_CACHE_HOME=$TMP/x1 POCL_CACHE_DIR=$TMP/p1 "$CLC" src/multi.cl -I inc -D T=float,int \
    --wg 64,32 -j 1 -q -o r1.clcpack
XDG_CACHE_HOME=$TMP/x2 POCL_KERNEL_CACHE=0 "$CLC" src/multi.cl -I inc -D T=float,int \
    --wg 64,32 -j 2 -q -o r2.clcpack
XDG_CACHE_HOME=$TMP/x3 "$CLC" src/multi.cl -I inc -D T=float,int --wg 64,32 -j 2 -q -o r3.clcpack
expect_true "-j1 and -j2, fresh caches, POCL_KERNEL_CACHE=0: the same bytes" cmp r1.clcpack r2.clcpack
expect_true "two fresh cache folders: the same bytes" cmp r2.clcpack r3.clcpack
# Each variant holds the work-group functions for its own local size, not
# the first-built variant's (PoCL reads POCL_BINARY_SPECIALIZE_WG once per
# process: clc/engine/pocl_wg.h), in every form PoCL keys them on: small
# and large grid, with and without a global offset.
for wg in 64 32; do
    "$CLC" extract r1.clcpack --kernel multi -D T=int --wg "$wg" -o "wg$wg.bin" >/dev/null 2>&1
    for form in -goffs0-smallgrid -smallgrid -goffs0 ""; do
        expect_true "wg $wg: the binary holds its own work-group function $wg-1-1$form" \
            grep -aq "scale/$wg-1-1$form/" "wg$wg.bin"
    done
done
# verify --check on a pack of program entries needs no manifest (none here).
run "$CLC" verify --load --check r1.clcpack
expect_rc 0 "verify --check without a manifest: program entries load and build"
expect_out "no reference check (loaded and built)" "each says it has no reference"
run "$CLC" extract r1.clcpack --kernel gather -D T=int --wg 64 -o g64.bin
expect_rc 0 "extract --kernel finds a program entry by a kernel it holds"
expect_true "the same binary as by the program's name" cmp g64.bin wg64.bin
other=$(grep -ac "scale/32-1-1-goffs0-smallgrid" wg64.bin)
[ "$other" = 0 ] && ok "wg 64: no other variant's function kept" || bad "wg64.bin holds the 32 function"

# Blanks around a define's '=' ("-D T = float"): named, not "cannot open".
run "$CLC" src/sobel.cl -D T = float -q -o blank.clcpack
expect_rc 2 "-D T = float is a usage error"
run "$CLC" src/sobel.cl -D T =float -q -o blank.clcpack
expect_rc 2 "-D T =float too"
# A range written as in other tools, and two defines in one argument.
run "$CLC" src/sobel.cl -D TILE=1..4 -q -o blank.clcpack
expect_rc 2 "-D TILE=1..4 is a usage error"
run "$CLC" src/sobel.cl -D 'T=float;TILE=2' --keep-going -o blank.clcpack
expect_err "-D T=float;TILE=2 gives T one value holding ';'" "two defines in one -D get a note"
expect_err "give -D once for each" "saying how to give two"
cli_done
