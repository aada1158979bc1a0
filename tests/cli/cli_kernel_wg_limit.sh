#!/bin/sh
# The work-group limit a pack build and the tuner check is the kernel's
# real one (docs/TUNING.md, "The kernel's real limits"). NVIDIA's driver
# reports CL_KERNEL_WORK_GROUP_SIZE 256 for a kernel compiled with
# reqd_work_group_size(32,32,1) on an H200, and launches it at 32x32 (the
# examples/gemm variants 32x32 and 32x16 were refused before). The stub
# driver plays that driver (CLCSTUB_KERNEL_WORK_GROUP_SIZE=256,
# CLCSTUB_KERNEL_COMPILE_WORK_GROUP_SIZE=32x32x1):
#  - the variant compiled for exactly its work-group is packed;
#  - a work-group the kernel was not compiled for, above the reported
#    limit, is still refused, naming the limit;
#  - above the device's own limit, refused whatever the kernel says.
. "$(dirname "$0")/../lib/cli_lib.sh"
. "$(dirname "$0")/../lib/stub_lib.sh"
cd "$TMP" || exit 1
if ! stub_use "intel:tgllp"; then
    bad "the stub driver is not built ($STUB_LIB)"
    cli_done
fi
cat >k.cl <<'K'
__kernel __attribute__((reqd_work_group_size(TS, RTS, 1)))
void tile(__global float *x) { x[get_global_id(0)] *= 2.0f; }
K
CLCSTUB_KERNEL_WORK_GROUP_SIZE=256 CLCSTUB_KERNEL_COMPILE_WORK_GROUP_SIZE=32x32x1 \
    run "$CLC" k.cl -D TS=32 -D RTS=32 --wg 'TS,RTS' --device 0 -q -o k1.clcpack
expect_rc 0 "32x32, compiled for 32x32, reported limit 256: packed"
CLCSTUB_KERNEL_WORK_GROUP_SIZE=256 CLCSTUB_KERNEL_COMPILE_WORK_GROUP_SIZE=32x32x1 \
    run "$CLC" k.cl -D TS=32 -D RTS=16 --wg 'TS,RTS' --device 0 -q -o k2.clcpack
expect_rc 1 "32x16, compiled for 32x32 (another size), limit 256: refused"
expect_err "is larger than kernel tile can be launched with on this device (256)" "it names the limit"
CLCSTUB_KERNEL_WORK_GROUP_SIZE=256 \
    run "$CLC" k.cl -D TS=32 -D RTS=32 --wg 'TS,RTS' --device 0 -q -o k3.clcpack
expect_rc 1 "32x32 with no compiled size, limit 256: refused"
CLCSTUB_KERNEL_COMPILE_WORK_GROUP_SIZE=64x32x1 \
    run "$CLC" k.cl -D TS=64 -D RTS=32 --wg 'TS,RTS' --device 0 -q -o k4.clcpack
expect_rc 1 "64x32 (2048 work-items) above the device's 1024: refused"
cli_done
