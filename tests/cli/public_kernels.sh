# public_kernels.sh — for each public project of tests/data/public/, the one
# direct clc-pack command line that packs it. Sourced by
# tests/cli/cli_public_kernels.sh; tests/device/test_public_kernels.c expects exactly
# these variants (same defines, same work-groups).
#
# Needs: CLC (the clc-pack to run), K (the kernels, installed by
# scripts/public_kernels.sh), D (tests/data/public), TEST (the built
# test_public_kernels), all absolute. pack_PROJECT OUT writes the project's
# pack to OUT. Each command line checks every variant it builds with
# --check-cmd: test_public_kernels --check runs the variant's kernels from
# clc-pack's binary and from source and compares the output bytes.

PUBLIC_PROJECTS="hashcat silx pyfai pyclesperanto"

# check_cmd PROJECT: the --check-cmd of PROJECT's command line.
check_cmd() {
    echo "CLC_PUBLIC_KERNELS='$K' CLC_PUBLIC_DATA='$D' '$TEST' --check $1 {binary} {defines} {wg}"
}

# hashcat: three kernels of one file whose headers sit in the OpenCL folder,
# found through #include M2S(INCLUDE_PATH/inc_vendor.h); 2 variants. clc-pack
# folds only literal #include "..." lines into the stored source and does
# not hand -I to the compiler, so the folder is given with --options too (K
# is absolute).
pack_hashcat() {
    "$CLC" "$K/hashcat/OpenCL/markov_le.cl" -I "$K/hashcat" --options "-I $K/hashcat" \
        -D KERNEL_STATIC -D INCLUDE_PATH=OpenCL \
        -D 'XM2S(x)=#x' -D 'M2S(x)=XM2S(x)' -D DGST_ELEM=4 -D VECT_SIZE=1,4 --wg 64 \
        --check-cmd "$(check_cmd hashcat)" -j 2 -q -o "$1"
}

# silx: type-valued defines, the work-group tied to IMAGE_WIDTH, and a
# constraint that drops IMAGE_WIDTH=1024; 4 variants.
pack_silx() {
    "$CLC" "$K/silx/opencl/sparse.cl" -D IMAGE_WIDTH=48,1024 -D DTYPE=uchar,float -D IDX_DTYPE=int,uint \
        --where 'IMAGE_WIDTH <= 256' --wg 'IMAGE_WIDTH,1' --check-cmd "$(check_cmd silx)" -j 2 -q -o "$1"
}

# pyFAI: six files of two projects as one program, two literal work-groups;
# 2 variants. pyFAI drops the files' #include lines before concatenating
# them; here -I finds the one they name, for_eclipse.h, as an empty header of
# this project's own.
pack_pyfai() {
    "$CLC" --program "azim_csr=$K/silx/opencl/doubleword.cl,$K/pyfai/openCL/preprocess.cl,$K/pyfai/openCL/memset.cl,$K/pyfai/openCL/ocl_azim_CSR.cl,$K/pyfai/openCL/collective/reduction.cl,$K/pyfai/openCL/collective/scan.cl" \
        -I "$D/pyfai/include" -D NBINS=16 -D NIMAGE=512 --wg 32,64 --check-cmd "$(check_cmd pyfai)" -j 2 -q -o "$1"
}

# pyclesperanto-prototype: the defines its Python side writes for a 2-D
# source of uchar or float pixels (the type and the functions that read it
# vary together: one --variant each) and a float destination, the
# destination's sizes derived from the source's; 4 variants, no work-group.
# Its two defines whose values hold a space ('IMAGE_src_TYPE=__global
# uchar*'), which -D refuses, are in a header of this project's own put first
# in the program.
pack_pyclesperanto() {
    "$CLC" --program "divide=$D/pyclesperanto/image_types.h,$K/pyclesperanto/_tier0/preamble.cl,$K/pyclesperanto/_tier1/divide_scalar_by_image.cl" \
        --variant 'IMAGE_src_PIXEL_TYPE=uchar,CONVERT_src_PIXEL_TYPE=clij_convert_uchar_sat,READ_src_IMAGE(a,b,c)=read_buffer2duc(GET_IMAGE_WIDTH(a),GET_IMAGE_HEIGHT(a),GET_IMAGE_DEPTH(a),a,b,c),WRITE_src_IMAGE(a,b,c)=write_buffer2duc(GET_IMAGE_WIDTH(a),GET_IMAGE_HEIGHT(a),GET_IMAGE_DEPTH(a),a,b,c)' \
        --variant 'IMAGE_src_PIXEL_TYPE=float,CONVERT_src_PIXEL_TYPE=clij_convert_float_sat,READ_src_IMAGE(a,b,c)=read_buffer2df(GET_IMAGE_WIDTH(a),GET_IMAGE_HEIGHT(a),GET_IMAGE_DEPTH(a),a,b,c),WRITE_src_IMAGE(a,b,c)=write_buffer2df(GET_IMAGE_WIDTH(a),GET_IMAGE_HEIGHT(a),GET_IMAGE_DEPTH(a),a,b,c)' \
        -D MAX_ARRAY_SIZE=1000 \
        -D 'GET_IMAGE_WIDTH(image_key)=IMAGE_SIZE_##image_key##_WIDTH' \
        -D 'GET_IMAGE_HEIGHT(image_key)=IMAGE_SIZE_##image_key##_HEIGHT' \
        -D 'GET_IMAGE_DEPTH(image_key)=IMAGE_SIZE_##image_key##_DEPTH' \
        -D POS_src_TYPE=int2 -D 'POS_src_INSTANCE(pos0,pos1,pos2,pos3)=(int2)(pos0,pos1)' \
        -D POS_dst_TYPE=int2 -D 'POS_dst_INSTANCE(pos0,pos1,pos2,pos3)=(int2)(pos0,pos1)' \
        -D IMAGE_dst_PIXEL_TYPE=float -D CONVERT_dst_PIXEL_TYPE=clij_convert_float_sat \
        -D 'READ_dst_IMAGE(a,b,c)=read_buffer2df(GET_IMAGE_WIDTH(a),GET_IMAGE_HEIGHT(a),GET_IMAGE_DEPTH(a),a,b,c)' \
        -D 'WRITE_dst_IMAGE(a,b,c)=write_buffer2df(GET_IMAGE_WIDTH(a),GET_IMAGE_HEIGHT(a),GET_IMAGE_DEPTH(a),a,b,c)' \
        -D IMAGE_SIZE_src_WIDTH=40,64 -D IMAGE_SIZE_src_HEIGHT=24 -D IMAGE_SIZE_src_DEPTH=1 \
        --derive 'IMAGE_SIZE_dst_WIDTH=IMAGE_SIZE_src_WIDTH' \
        --derive 'IMAGE_SIZE_dst_HEIGHT=IMAGE_SIZE_src_HEIGHT' \
        --derive 'IMAGE_SIZE_dst_DEPTH=IMAGE_SIZE_src_DEPTH' \
        --check-cmd "$(check_cmd pyclesperanto)" -j 2 -q -o "$1"
}
