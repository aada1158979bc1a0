#!/bin/sh
# 64-bit Arm Linux (docs/PLATFORMS.md): the library, the tool and the
# driver-free C tests cross-built with aarch64-linux-gnu-gcc into
# BUILD-arm64 (make arm64), then run under qemu-aarch64 with no OpenCL
# driver (an empty OCL_ICD_VENDORS):
#   - the library and the tool are AArch64 ELF files, and the tool runs;
#   - every test of TESTS below passes;
#   - the CRC-32 takes the ARMv8 CRC32 instructions (loader/read/crc32_arm.c;
#     qemu's default CPU has them), and test_crc32 holds it to zlib's.
# TESTS are the C tests that pass without a device (each was run with no
# ICD), less the four that take 40 s to 2 min each under qemu
# (test_fuzz_targets, test_hardening, test_verify_mutants,
# test_write_threads): CLC_ARM64_ALL=1 adds them. Where the cross compiler,
# qemu-aarch64 or the arm64 libraries are missing, every part is skipped.
#
# No QEMU_LD_PREFIX / -L: qemu-user 7.2 (Debian 12) hangs in every child a
# program forks when given one, and the tests fork; the arm64 C library
# installed beside the host's (libc6:arm64) is where qemu looks without it.
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1
unset QEMU_LD_PREFIX
CROSS=${ARM64_CROSS:-aarch64-linux-gnu-}
AB=$BUILD-arm64

TESTS="best_variant cl_error_name cli_help crc32 define_value depfile device_select
expr fast_load file_atomic format fuzz_replay independent_reader jobserver
key_subset lookup manifest offline_targets pack_args pocl_canon program_keys ptx
ptx_retarget read_on_demand rec_key reference remote_format retarget
source_fold spec_rules target_load tune_cmd value_list"
[ -n "${CLC_ARM64_ALL:-}" ] && TESTS="$TESTS fuzz_targets hardening verify_mutants write_threads"

skip_all() {
    skip "arm64 build: $1"
    for t in $TESTS; do skip "arm64 test_$t: $1"; done
    cli_done
}

# What is needed: the cross compiler, qemu-user, and the arm64 libraries
# the library links (linked and run once).
command -v "${CROSS}gcc" >/dev/null 2>&1 ||
    skip_all "no ${CROSS}gcc (apt-get install gcc-aarch64-linux-gnu)"
command -v qemu-aarch64 >/dev/null 2>&1 || skip_all "no qemu-aarch64 (apt-get install qemu-user)"
printf 'int main(void){return 0;}\n' >probe.c
"${CROSS}gcc" -o probe probe.c -lOpenCL -lz 2>/dev/null && qemu-aarch64 ./probe 2>/dev/null ||
    skip_all "no arm64 OpenCL loader, zlib or C library to link and run (dpkg --add-architecture arm64;" \
        "apt-get install ocl-icd-opencl-dev:arm64 zlib1g-dev:arm64 libzstd-dev:arm64)"

GOALS="all"
for t in $TESTS; do GOALS="$GOALS $AB/tests/test_$t"; done
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
run make -C "$ROOT" --no-print-directory -j"$jobs" B="$BUILD" ARM64_CROSS="$CROSS" \
    ARM64_GOALS="$GOALS" arm64
expect_rc 0 "make arm64 builds the library, the tool and the tests into $AB"
[ "$RC" -eq 0 ] || cli_done

# e_machine, bytes 18-19 of the ELF header: 183 (0xb7) is AArch64.
machine() { od -An -tu2 -j18 -N2 "$1" 2>/dev/null | tr -d ' '; }
# The static library's through one of its members.
ar x "$AB/libclcpack.a" crc32_arm.o 2>/dev/null
for f in "$AB/libclcpack.so.1" crc32_arm.o "$AB/clc-pack"; do
    [ "$(machine "$f")" = 183 ] && ok "$f is AArch64" || bad "$f is not an AArch64 ELF file"
done
run qemu-aarch64 "$AB/clc-pack" --version
expect_rc 0 "the arm64 clc-pack runs under qemu-aarch64"
expect_out "clc-pack " "the arm64 clc-pack says its version"

# The tests, from the checkout's root as make test runs them (they read
# kernels/ and tests/fuzz/), two at a time (a few take tens of seconds
# under qemu; test_retarget, 1 s natively, once ran past 300 s under qemu
# while make test ran beside it on a 2-core host, hence 900); each log is
# read afterwards, in order.
mkdir -p empty-vendors logs
for t in $TESTS; do echo "$t"; done | (cd "$ROOT" &&
    OCL_ICD_VENDORS=$TMP/empty-vendors xargs -P "$jobs" -I{} \
        sh -c 'timeout 900 qemu-aarch64 "$1/tests/test_$2" >"$3/test_$2.log" 2>&1; echo $? >"$3/test_$2.rc"' \
        sh "$AB" {} "$TMP/logs")
for t in $TESTS; do
    log=logs/test_$t.log
    line=$(grep -E '^checks: ' "$log" | tail -n 1)
    if [ "$(cat "logs/test_$t.rc")" = 0 ] && echo "$line" | grep -q ' 0 failed' &&
        ! echo "$line" | grep -q '^checks: 0 passed'; then
        ok "arm64 test_$t under qemu: $line"
    else
        bad "arm64 test_$t under qemu (exit $(cat "logs/test_$t.rc")): ${line:-no summary line}"
        grep -E '^FAIL' "$log" | head -n 10 | sed 's/^/    /'
    fi
done

# The CRC-32's ARMv8 path is the one taken (not zlib's, silently).
case " $TESTS " in *" crc32 "*)
    method=$(sed -n 's/^crc32 method: //p' logs/test_crc32.log)
    [ "$method" = armv8-crc ] && ok "the CRC-32 uses the ARMv8 CRC32 instructions under qemu" ||
        bad "the CRC-32 under qemu-aarch64 is '$method', wanted armv8-crc" ;;
esac
cli_done
