#!/bin/sh
# clc-pack on devices this machine does not have: the stub driver
# (tests/stubs/gpu_driver/README.md) plays an Intel tgllp and an AMD
# gfx90a:sramecc+:xnack- through the system's ICD loader.
#  - --list-devices shows both, with NEO's and ROCm's names and versions;
#  - a pack built on PoCL, verify --load on the stub devices: every key from
#    the source, none of PoCL's binaries handed over (the log has no binary),
#    the stored source and options handed exactly, the reason (another
#    platform) in the load report;
#  - a driver that refuses every binary, a driver that crashes while
#    building: verify says which entry and why, and goes on.
. "$(dirname "$0")/../lib/cli_lib.sh"
. "$(dirname "$0")/../lib/stub_lib.sh"
cd "$TMP" || exit 1
DEVS="intel:tgllp,amd:gfx90a:sramecc+:xnack-"

if ! stub_use "$DEVS"; then
    bad "the stub driver is not built ($STUB_LIB)"
    cli_done
fi
run "$CLC" --list-devices
expect_rc 0 "--list-devices on the stub"
expect_out "platform 0: Intel(R) OpenCL Graphics" "the Intel platform"
expect_out "device 0: Intel(R) Iris(R) Xe Graphics [GPU] OpenCL 3.0 NEO , driver 22.43.24595.41" "the tgllp device"
expect_out "platform 1: AMD Accelerated Parallel Processing" "the AMD platform"
expect_out "device 1: gfx90a:sramecc+:xnack- [GPU] OpenCL 2.0 , driver 3513.0 (HSA1.1,LC)" "the gfx90a device"

# A pack built on PoCL: native binaries for this CPU, and the source.
stub_off
cat >k.cl <<'EOF'
__kernel void twice(__global float *x) { x[get_global_id(0)] *= 2.0f * W; }
__kernel void plus(__global float *x) { x[get_global_id(0)] += W; }
EOF
run "$CLC" k.cl -D W=1,2 -q -o k.clcpack
expect_rc 0 "a pack built on PoCL"
run "$CLC" extract k.clcpack --entry 0 --source -o src.cl
expect_rc 0 "its stored source extracted"
run "$CLC" extract k.clcpack --entry 0 -o native0.bin
expect_rc 0 "its first native binary extracted"

stub_use "$DEVS"
run "$CLC" verify --load --device all -v k.clcpack
expect_rc 0 "verify --load on both stub devices"
expect_out "loaded 4 of 4: native 0, cubin 0, ptx 0, source 4, failed 0" "every key from the source"
expect_out "platform name differs: Portable Computing Language in pack, Intel(R) OpenCL Graphics here" "says why not PoCL's binary on Intel"
expect_out "platform name differs: Portable Computing Language in pack, AMD Accelerated Parallel Processing here" "and on AMD"
n=$(stub_count binary -)
if [ "$n" -eq 0 ]; then ok "no binary handed to a stub device"; else bad "$n binaries handed to stub devices"; fi
if stub_got binary intel:tgllp native0.bin; then bad "PoCL's binary reached the Intel device"; else ok "PoCL's binary never reached the Intel device"; fi
for dev in intel:tgllp amd:gfx90a:sramecc+:xnack-; do
    n=$(stub_count source "$dev" "$(stub_sha src.cl)" CL_SUCCESS)
    if [ "$n" -eq 2 ]; then ok "$dev: handed exactly the stored source, once a key"; else bad "$dev: the stored source $n times, wanted 2"; fi
    opts=$(stub_options build "$dev")
    case $opts in
    -DW=1 | -DW=2) ok "$dev: built with the stored options ($opts)" ;;
    *) bad "$dev: built with options '$opts'" ;;
    esac
done

# A driver that refuses every binary: verify checks the pack, not a cache,
# so the source is built as before; a crash while building costs its entry.
CLCSTUB_REFUSE_BINARIES=1 run "$CLC" verify --load --device 0 k.clcpack
expect_rc 0 "a driver refusing every binary: the sources still load"
: >"$STUB_LOG"
CLCSTUB_CRASH_BUILD=intel:tgllp run "$CLC" verify --load --device all k.clcpack
expect_rc 1 "a driver that crashes while building: verify fails"
expect_err "the driver crashed (signal 6" "names the crash"
expect_out "loaded 2 of 4" "the other device's keys still load"

# A pack built on the stub's Intel device (clc-pack's whole build, round
# trip included): its binaries go to that device, exactly, and never to AMD.
run "$CLC" k.cl -D W=1,2 --device 0 -q -o intel.clcpack
expect_rc 0 "a pack built on the stub's Intel device"
run "$CLC" extract intel.clcpack --entry 1 -o e1.bin
expect_rc 0 "its entry 1 extracted"
: >"$STUB_LOG"
run "$CLC" verify --load --device all intel.clcpack
expect_rc 0 "verify --load on both devices"
expect_out "loaded 4 of 4: native 2, cubin 0, ptx 0, source 2, failed 0" "native on Intel, source on AMD"
if stub_got binary intel:tgllp e1.bin; then ok "intel:tgllp got exactly entry 1's bytes"; else bad "intel:tgllp did not get entry 1's bytes"; fi
n=$(stub_count binary amd:gfx90a:sramecc+:xnack-)
[ "$n" -eq 0 ] && ok "the AMD device got no binary" || bad "the AMD device got $n binaries"
cli_done
