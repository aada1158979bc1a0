#!/bin/sh
# cli_vendors.sh — every vendor from one build host with no GPU
# (docs/vendors/): one command line packs the bundled kernels with Intel
# (tgllp, a DG2 and the data-center pvc), AMD (gfx90a, gfx1030, gfx1100),
# NVIDIA (cubins made by ptxas from the committed PTX fixture, taken in with
# --merge), SPIR-V and PoCL entries; the same for a program of a public
# project. `clc-pack list` shows each kind and target; every offline binary
# is checked with tools of its own (readelf, llvm-readobj, od): ELF machine
# and type, the target in e_flags or the program header, the SPIR-V magic
# and version; PoCL still loads its native entries from the pack. Then: the
# same bytes with -j1 and -j2, --device none, a target whose compile fails,
# a toolchain that is missing, bad lists.
#
# Needs ocloc, clang-15, lld-15, llvm-spirv-15 and rocm-device-libs (make
# deps installs them); each part that needs a missing one says "skipped".
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-$TMP/cache}
FIXTURE=$ROOT/tests/data/nvidia/ptx_only.clcpack
PUBLIC=${CLC_PUBLIC_KERNELS:-$BUILD/public-kernels}
LLVM_READOBJ=$(command -v llvm-readobj-15 || ls /usr/lib/llvm-15/bin/llvm-readobj 2>/dev/null)
PTXAS=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null)

have_intel=0 have_amd=0 have_spirv=0
command -v ocloc >/dev/null 2>&1 && have_intel=1
command -v clang-15 >/dev/null 2>&1 && [ -x /usr/lib/llvm-15/bin/ld.lld ] &&
    [ -f /usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ockl.bc ] && have_amd=1
command -v clang-15 >/dev/null 2>&1 && command -v llvm-spirv-15 >/dev/null 2>&1 && have_spirv=1

# Usage errors come before anything is built, tools or not.
run "$CLC" --kernels "$KERNELS" --kernel Convolve_Def --widths 3 --wg 8x8 --amd-gpu=gfx90z -o x.clcpack
expect_rc 2 "a bad --amd-gpu target"
expect_err "'gfx90z' is not a gfx target ID" "names the bad target"
run "$CLC" --kernels "$KERNELS" --kernel Convolve_Def --widths 3 --wg 8x8 --amd-gpu=gfx90a:xnack -o x.clcpack
expect_rc 2 "a feature without + or -"
run "$CLC" --kernels "$KERNELS" --kernel Convolve_Def --widths 3 --wg 8x8 --intel-gpu= -o x.clcpack
expect_rc 2 "an empty --intel-gpu list"
run "$CLC" --kernels "$KERNELS" --kernel Convolve_Def --widths 3 --wg 8x8 --intel-gpu tgllp,pvc -o x.clcpack
expect_rc 2 "a list after a space"
expect_err "give the list as --intel-gpu=tgllp,pvc" "says how to give it"
run "$CLC" --kernels "$KERNELS" --kernel Convolve_Def --widths 3 --wg 8x8 --device none -o x.clcpack
expect_rc 2 "--device none without an offline target"
expect_err "--device none builds offline targets only" "says what --device none is for"

if [ $have_intel = 0 ] || [ $have_amd = 0 ] || [ $have_spirv = 0 ]; then
    skip "the offline compilers are not all installed (make deps installs intel-opencl-icd," \
        "clang-15, lld-15, llvm-spirv-15, rocm-device-libs): the vendor packs"
    cli_done
fi

run "$CLC" --kernels "$KERNELS" --kernel Convolve_Def --widths 3 --wg 8x8 --intel-gpu=nosuchgpu -o x.clcpack
expect_rc 2 "an Intel target ocloc does not know"
expect_err "ocloc knows no target 'nosuchgpu'" "names the unknown target"

INTEL=tgllp,acm-g10,pvc
AMD=gfx90a,gfx1030,gfx1100
NV=75,90

# header_checks PACK WHAT: every offline entry's binary, checked with tools
# that are not clc-pack's.
header_checks() {
    "$CLC" list "$1" >list.txt
    for t in tgllp acm-g10 pvc; do
        n=$(awk -v k="intel/$t" '$0 ~ k" " {print $1; exit}' list.txt)
        if [ -z "$n" ]; then
            bad "$2: no intel/$t entry"
            continue
        fi
        "$CLC" extract "$1" --entry "$n" -o "intel-$t.bin" >/dev/null 2>&1
        ip=$(ocloc ids "$t" | tail -n 1)
        rev=${ip##*.}
        hdr=$(readelf -h -S -W "intel-$t.bin" 2>/dev/null)
        off=$(readelf -S -W "intel-$t.bin" | sed -n 's/.*Intel(R) OpenCL Device Binary *[^ ]* *[0-9a-f]* *\([0-9a-f]*\).*/\1/p')
        magic=$(od -An -c -j $((0x${off:-0})) -N4 "intel-$t.bin" | tr -d ' ')
        step=$(od -An -tu4 -j $((0x${off:-0} + 20)) -N4 "intel-$t.bin" | tr -d ' ')
        if echo "$hdr" | grep -q "ELF64" && echo "$hdr" | grep -q "Type:.*ff04" &&
            [ "$magic" = CTNI ] && [ "$step" = "$rev" ]; then
            ok "$2: intel/$t is NEO's OpenCL ELF (type 0xff04, header CTNI, stepping $rev of $ip)"
        else
            bad "$2: intel/$t header: magic '$magic' stepping '$step' (want $rev); $(echo "$hdr" | grep -E 'Class|Type')"
        fi
    done
    for g in gfx90a gfx1030 gfx1100; do
        n=$(awk -v k="amdgcn/$g" '$0 ~ k" " {print $1; exit}' list.txt)
        if [ -z "$n" ]; then
            bad "$2: no amdgcn/$g entry"
            continue
        fi
        "$CLC" extract "$1" --entry "$n" -o "amd-$g.co" >/dev/null 2>&1
        G=$(echo "$g" | tr a-z A-Z)
        if [ -z "$LLVM_READOBJ" ]; then
            skip "no llvm-readobj: the e_flags of amdgcn/$g"
        elif "$LLVM_READOBJ" --file-headers "amd-$g.co" | grep -q "Machine: EM_AMDGPU" &&
            "$LLVM_READOBJ" --file-headers "amd-$g.co" | grep -q "EF_AMDGPU_MACH_AMDGCN_$G "; then
            ok "$2: amdgcn/$g is an EM_AMDGPU code object whose e_flags name $g (llvm-readobj)"
        else
            bad "$2: amdgcn/$g: $("$LLVM_READOBJ" --file-headers "amd-$g.co" | grep -E 'Machine|EF_' | tr -s ' ')"
        fi
    done
    n=$(awk '/spirv\/SPIR-V_1.0 / {print $1; exit}' list.txt)
    "$CLC" extract "$1" --entry "${n:-x}" -o module.spv >/dev/null 2>&1
    words=$(od -An -tx4 -N8 module.spv 2>/dev/null | tr -s ' ')
    if [ "$words" = " 07230203 00010000" ]; then
        ok "$2: spirv/SPIR-V_1.0 starts with the SPIR-V magic and version 1.0"
    else
        bad "$2: the SPIR-V module starts with '$words'"
    fi
    if ! command -v spirv-val >/dev/null 2>&1; then
        skip "no spirv-val (spirv-tools): the SPIR-V module's validation"
    elif spirv-val --target-env opencl1.2 module.spv >val.txt 2>&1; then
        ok "$2: spirv-val takes the module for OpenCL 1.2"
    else
        bad "$2: spirv-val: $(head -c 300 val.txt)"
    fi
    if [ -n "$PTXAS" ]; then
        for a in 75 90; do
            n=$(awk -v k="cubin/sm_$a " 'index($0, k) {print $1; exit}' list.txt)
            "$CLC" extract "$1" --entry "${n:-x}" -o "sm_$a.cubin" >/dev/null 2>&1
            flags=$(readelf -h "sm_$a.cubin" 2>/dev/null | sed -n 's/.*Flags: *//p')
            if readelf -h "sm_$a.cubin" 2>/dev/null | grep -q "Machine:.*NVIDIA CUDA" &&
                [ $((flags >> 8 & 255)) = "$a" ]; then
                ok "$2: cubin/sm_$a is an EM_CUDA ELF for sm_$a"
            else
                bad "$2: cubin/sm_$a: flags '$flags'"
            fi
        done
    fi
}

# The bundled kernels: one command line.
run "$CLC" --kernels "$KERNELS" --kernel Convolve_Def --widths 3,5 --wg 16x16 --device cpu \
    --intel-gpu=$INTEL --amd-gpu=$AMD --spirv --merge "$FIXTURE" --nv-arch $NV -j 2 -o all.clcpack
expect_rc 0 "one command line: PoCL, Intel, AMD, SPIR-V and the NVIDIA fixture"
expect_out "intel 6, amdgcn 6, spirv 2" "the summary counts the offline entries"
run "$CLC" list all.clcpack
for k in native intel/tgllp intel/acm-g10 intel/pvc amdgcn/gfx90a amdgcn/gfx1030 amdgcn/gfx1100 \
    spirv/SPIR-V_1.0 ptx/sm_; do
    expect_out " $k" "list shows $k entries"
done
if [ -n "$PTXAS" ]; then
    expect_out " cubin/sm_75 " "list shows cubins for sm_75 made from the fixture's PTX"
    expect_out " cubin/sm_90 " "and for sm_90"
else
    skip "no ptxas: the fixture's PTX is taken in without cubins"
fi
expect_out "Intel GPU [GPU] on clc-pack offline (ocloc -exclude_ir); ; driver ocloc " "the Intel device record names ocloc's version and -exclude_ir"
run "$CLC" list --json all.clcpack
expect_out '"kind": "amdgcn", "arch": 589834, "target": "gfx90a"' "list --json gives kind, arch and target"
expect_out '"target": "SPIR-V_1.0"' "and the SPIR-V target"
header_checks all.clcpack "bundled kernels"
run "$CLC" verify --load all.clcpack
expect_rc 0 "verify --load on PoCL"
expect_out "loaded 2 of 2: native 2, cubin 0, ptx 0, source 0, failed 0" \
    "PoCL loads its two native entries (the keys it has entries for)"
run "$CLC" extract all.clcpack --kernel Convolve_Def -D FILTER_WIDTH=3 --kind intel -o x.bin
expect_rc 2 "extract --kind intel matches one entry per target"
expect_err "wg=16x16 intel/acm-g10 (device" "and names each with its target"

# The same bytes whatever -j, and no OpenCL device needed.
run "$CLC" --kernels "$KERNELS" --kernel Convolve_Def --widths 3 --wg 16x16 --device none \
    --intel-gpu=tgllp --amd-gpu=gfx1030 --spirv -j 1 -q -o j1.clcpack
expect_rc 0 "--device none, -j 1"
run "$CLC" --kernels "$KERNELS" --kernel Convolve_Def --widths 3 --wg 16x16 --device none \
    --intel-gpu=tgllp --amd-gpu=gfx1030 --spirv -j 2 -q -o j2.clcpack
expect_rc 0 "--device none, -j 2"
expect_true "-j 1 and -j 2 give the same bytes" cmp -s j1.clcpack j2.clcpack
run "$CLC" list j1.clcpack
expect_no_out " native " "--device none stores no native entry"
run "$CLC" --kernels "$KERNELS" --kernel Convolve_Def --widths 3 --wg 16x16 --device none \
    --intel-gpu=tgllp --amd-gpu=gfx1030 --spirv -j 2 -v -o j2.clcpack
expect_rc 0 "the same pack again"
expect_err "reused Convolve_Def FILTER_WIDTH=3 wg=16x16 for intel (1 entry)" \
    "an Intel entry of the same ocloc is reused"
expect_true "and the pack is the same" cmp -s j1.clcpack j2.clcpack

# On PoCL (a CPU whose vendor id is Intel's, 0x8086) no offline binary is
# handed over: each is passed over with why, then the source is built.
run "$CLC" verify --load -v --device cpu j1.clcpack
expect_rc 0 "an offline-only pack loads on PoCL"
expect_out "loaded 1 of 1: native 0, cubin 0, ptx 0, source 1, failed 0" "from its source"
expect_out "intel entry 2 (tgllp): this device is not an Intel GPU" "the Intel binary is passed over"
expect_out "amdgcn entry 0 (gfx1030): this device is not an AMD GPU" "the AMD one too"
expect_out "spirv entry 1 (SPIR-V_1.0): this device takes no IL (CL_DEVICE_IL_VERSION)" \
    "and the SPIR-V, PoCL 3.1 taking no IL"
run "$CLC" --kernels "$KERNELS" --kernel Convolve_Def --widths 3 --wg 16x16 --device none \
    --spirv --no-sources -q -o nosrc.clcpack
expect_rc 0 "a --no-sources pack with SPIR-V"
run "$CLC" verify --load --device cpu nosrc.clcpack
expect_rc 1 "it does not load on a device without IL"
expect_err "no usable form of Convolve_Def [FILTER_WIDTH=3] wg 16x16: pack holds binaries for 'SPIR-V (driver clang" \
    "the error names the SPIR-V it holds"

# A target whose compile fails costs that target only, with one line.
cat >only.cl <<'EOF'
__kernel void scale(__global float *a, float s) { a[get_global_id(0)] *= s * K; }
#if defined(__gfx1030__)
#error "this program does not build for gfx1030"
#endif
EOF
run "$CLC" only.cl -D K=2 --device none --amd-gpu=gfx90a,gfx1030 -o only.clcpack
expect_rc 0 "a program that fails for one AMD target"
expect_err "warning: only K=2 for amd: no amd binary for gfx1030: " "one line names the target and the variant"
expect_err "this program does not build for gfx1030" "with the compiler's error"
run "$CLC" list only.clcpack
expect_out " amdgcn/gfx90a " "the other target is stored"
expect_no_out " amdgcn/gfx1030 " "the failed one is not"

# The SPIR-V ocloc puts into each Intel binary: left out by default (the
# pack's SPIR-V or source is the fallback), kept with --intel-ir, and kept
# when nothing else is left to rebuild from (--no-sources without --spirv).
# Without it, the kernels are read from the binary's own kernel headers.
intel_ir() { # PACK: "ir" when its tgllp entry has a SPIRV Object section
    n=$("$CLC" list "$1" | awk '/ intel\/tgllp / {print $1; exit}')
    "$CLC" extract "$1" --entry "${n:-x}" -o ir.bin >/dev/null 2>&1 || { echo missing; return; }
    readelf -S -W ir.bin | grep -q "SPIRV Object" && echo ir || echo none
}
for form in "default:none:" "--intel-ir:ir:--intel-ir" "--no-sources:ir:--no-sources" \
    "--no-sources --spirv:none:--no-sources --spirv"; do
    what=${form%%:*} rest=${form#*:}
    want=${rest%%:*} flags=${rest#*:}
    # shellcheck disable=SC2086
    run "$CLC" only.cl -D K=2 --device none --intel-gpu=tgllp $flags -q -o ir.clcpack
    expect_rc 0 "an Intel pack, $what"
    got=$(intel_ir ir.clcpack)
    if [ "$got" = "$want" ]; then ok "$what: SPIR-V inside the Intel binary: $got"; else bad "$what: SPIR-V inside the Intel binary: $got, wanted $want"; fi
    run "$CLC" list --json ir.clcpack
    expect_true "$what: the kernel is known" grep -q '"kernel_names": \["scale"\].*"kind": "intel"' "$OUT"
done

# A missing toolchain: one line naming its package, the rest builds.
mkdir -p nobin
run env PATH="$TMP/nobin" "$CLC" only.cl -D K=2 --device none --intel-gpu=tgllp --spirv -o miss.clcpack
expect_rc 0 "no ocloc on PATH: the pack is still built"
expect_err "no ocloc on PATH: install the Debian package intel-opencl-icd" "names the package"
run "$CLC" list miss.clcpack
expect_out " spirv/SPIR-V_1.0 " "the SPIR-V entry is there"
expect_no_out " intel/" "no Intel entry"

# A program of a public project (tests/data/public): silx's sparse.cl.
if [ ! -f "$PUBLIC/silx/opencl/sparse.cl" ]; then
    skip "the public kernels are not installed in $PUBLIC (sh scripts/public_kernels.sh" \
        "$PUBLIC): the public program's vendor pack"
    cli_done
fi
run "$CLC" "$PUBLIC/silx/opencl/sparse.cl" -D IMAGE_WIDTH=48 -D DTYPE=float -D IDX_DTYPE=int \
    --wg IMAGE_WIDTH,1 --device cpu --intel-gpu=$INTEL --amd-gpu=$AMD --spirv \
    --merge "$FIXTURE" --nv-arch $NV -j 2 -o public.clcpack
expect_rc 0 "one command line for silx's sparse.cl: PoCL, Intel, AMD, SPIR-V, NVIDIA"
run "$CLC" list public.clcpack
expect_true "the program's entry for pvc" grep -q "sparse  *DTYPE=float,IDX_DTYPE=int,IMAGE_WIDTH=48  *48 .* intel/pvc " "$OUT"
header_checks public.clcpack "silx sparse.cl"
run "$CLC" list --json public.clcpack
expect_true "the offline entries know the kernel they hold" \
    grep -q '"kernel_names": \["densify_csr"\].*"kind": "amdgcn"' "$OUT"
run "$CLC" verify --load public.clcpack
expect_rc 0 "verify --load of the public pack on PoCL"
expect_out "native 1," "PoCL loads the program's native entry"
cli_done
