#!/bin/sh
# Runs the tests under a sanitizer or valgrind (docs/ROBUSTNESS.md):
#   sanitize.sh asan BUILD       the tests (less tests/sanitize/asan_skip.list),
#                                built with -fsanitize=address,undefined
#   sanitize.sh tsan BUILD       the threaded tests, built with -fsanitize=thread
#   sanitize.sh valgrind BUILD   memcheck on the test programs that need no
#                                OpenCL driver, and two that do (see below)
# Suppressions for the OpenCL driver and ICD loader are in tests/sanitize/.
# CFLAGS and LDFLAGS come from the Makefile (exported): a test that runs
# make itself (cli_install.sh) then rebuilds with the same sanitizer.
set -u
mode=$1
build=$2
root=$(cd "$(dirname "$0")/.." && pwd)
supp=$root/tests/sanitize
# The test programs run here without run_tests.sh: the variant cache
# (docs/CACHE.md) is off for them too, never the user's.
export CLC_PACK_NO_CACHE=1

# Intel's OpenCL runtime (intel-opencl-icd, which `make deps` installs for
# its offline compiler, ocloc) loads a library with RTLD_DEEPBIND, which
# the sanitizers' runtimes refuse by aborting the process: the sanitized
# programs see every registered driver but that one (the tests' device is
# PoCL's). OCL_ICD_VENDORS, when already set, is left as it is.
if [ -z "${OCL_ICD_VENDORS:-}" ] && ls /etc/OpenCL/vendors/*.icd >/dev/null 2>&1; then
    vendors=$(mktemp -d "${TMPDIR:-/tmp}/clc-sanitize-vendors.XXXXXX")
    trap 'rm -rf "$vendors"' EXIT
    for icd in /etc/OpenCL/vendors/*.icd; do
        grep -q libigdrcl "$icd" || cp "$icd" "$vendors/"
    done
    export OCL_ICD_VENDORS=$vendors
fi

case $mode in
asan)
    # halt_on_error makes the first error fail the program; LSan runs at
    # exit and fails it (status 23) on any leak not in lsan.supp.
    # verify_asan_link_order=0: cli_install.sh links an uninstrumented example
    # program against the instrumented libclcpack.so, which loads the ASan
    # runtime after libc.
    # intercept_tls_get_addr=0: gcc 12's runtime tracks the thread-local
    # blocks of dlopen'd libraries (PoCL's, LLVM's) through __tls_get_addr,
    # and for a block that starts 16 bytes past a page (glibc 2.36 mallocs
    # them, so the heap's layout decides) it takes the 16 bytes before it
    # for an old glibc's header and records a range such as
    # 0x6f0-0x8000017f2; LeakSanitizer's tracer then dies reading it at
    # exit ("Tracer caught signal 11", "LeakSanitizer has encountered a
    # fatal error", status 1) in whichever PoCL process has that layout:
    # a pack's --pocl-wg-fill helper, test_warm_pocl's application. Off,
    # those blocks are not scanned for pointers: a leak can only be
    # reported more, never hidden, and the driver's are in lsan.supp.
    export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1:verify_asan_link_order=0:intercept_tls_get_addr=0"
    export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
    # Every test but those tests/sanitize/asan_skip.list names (with why):
    # each expensive suite runs once in CI.
    skip=$(grep -v '^#' "$supp/asan_skip.list" | awk 'NF { print $1 }')
    names=$(for f in "$root"/tests/unit/test_*.c "$root"/tests/device/test_*.c "$root"/tests/cli/cli_*.sh; do
        [ -f "$f" ] && basename "$f" | sed 's/\.c$//; s/\.sh$//'
    done | grep -vxF "$skip")
    echo "asan: $(echo "$names" | wc -l) tests; not again here (tests/sanitize/asan_skip.list): $(echo $skip)"
    sh "$root/tests/run_tests.sh" "$build" $names
    exit $?
    ;;
tsan)
    export TSAN_OPTIONS="suppressions=$supp/tsan.supp:halt_on_error=1:second_deadlock_stack=1:print_suppressions=0"
    total=0 failed=0
    for t in test_loader_pocl test_record_threads test_record_stress test_hardening test_write_threads test_read_on_demand test_lookup test_gpu_stub; do
        echo "== $t (ThreadSanitizer)"
        if "$build/tests/$t"; then total=$((total + 1)); else total=$((total + 1)); failed=$((failed + 1)); fi
    done
    echo "tsan: $((total - failed)) of $total programs clean"
    [ "$failed" -eq 0 ]
    ;;
valgrind)
    # PoCL under valgrind runs LLVM for every kernel build at a fraction of
    # its speed (test_corrupt_pocl, 2 builds and ~300 binary loads: 5 min;
    # the tests that build dozens of variants would take hours), and LLVM
    # and ld.so report their own errors (tests/sanitize/valgrind.supp). So
    # valgrind runs every program that never opens an OpenCL platform
    # (found by its symbols: no clGetPlatformIDs) plus the OpenCL ones
    # below, which cover device enumeration, every load path of
    # clcpack_create_program and the stub driver (no LLVM: 25 s); ASan
    # covers the rest.
    with_cl="test_device_select test_corrupt_pocl test_gpu_stub"
    # Long under valgrind and covered by another tool (the list says which).
    slow=$(grep -v '^#' "$supp/valgrind_skip.list" | awk 'NF { print $1 }')
    pass=0 fail=0 skipped=""
    for t in "$build"/tests/test_*; do
        [ -x "$t" ] || continue
        name=$(basename "$t")
        if echo "$slow" | grep -qxF "$name"; then
            skipped="$skipped $name"
            continue
        fi
        if nm "$t" 2>/dev/null | grep -q ' U clGetPlatformIDs'; then
            case " $with_cl " in
            *" $name "*) ;;
            *) skipped="$skipped $name"; continue ;;
            esac
        fi
        echo "== $name (valgrind)"
        if valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible \
            --errors-for-leak-kinds=definite,indirect,possible --suppressions="$supp/valgrind.supp" \
            "$t" >"$build/valgrind_$name.log" 2>&1; then
            tail -n 1 "$build/valgrind_$name.log"
            pass=$((pass + 1))
        else
            cat "$build/valgrind_$name.log"
            echo "$name: valgrind found errors or leaks (or a check failed)"
            fail=$((fail + 1))
        fi
    done
    echo "valgrind: $pass programs clean, $fail with errors; not run under valgrind (OpenCL builds, run under ASan; tests/sanitize/valgrind_skip.list):$skipped"
    [ "$fail" -eq 0 ]
    ;;
*)
    echo "usage: sanitize.sh asan|tsan|valgrind BUILD" >&2
    exit 2
    ;;
esac
