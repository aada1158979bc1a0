#!/bin/sh
# A program of the user's own, end to end, as docs/TUTORIAL.md walks it: a
# two-kernel program with an include folder and compile-time T and RADIUS,
# packed with a check command and a timing command given by RELATIVE paths
# (they run in the folder clc-pack was started in), its timings read with
# tune-report and `best --kernel NAME -D ...`, the best variant picked in a C
# application with clcpack_best_variant and created with
# clcpack_create_kernel from clcpack_choice_key's key as it is, the pack
# embedded (asm and C) with NAME_sha256 pinning the same pack shipped as a
# file, and the same pack built through CMake from the .cl source without a
# manifest. Needs PoCL (an OpenCL CPU device); cmake for its last part.
. "$(dirname "$0")/../lib/cli_lib.sh"
CLC=$(cd "$(dirname "$CLC")" && pwd)/$(basename "$CLC")
cd "$TMP" || exit 1
mkdir -p proj/include
cd proj || exit 1

cat >include/blur_common.h <<'EOF'
#define AT(img, x, y, w, h) (img)[clamp((y), 0, (h) - 1) * (w) + clamp((x), 0, (w) - 1)]
EOF
cat >blur.cl <<'EOF'
#include "blur_common.h"
__kernel void box_blur(__global const T *src, __global T *dst, int w, int h)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    T sum = 0;
    for (int dy = -RADIUS; dy <= RADIUS; dy++)
        for (int dx = -RADIUS; dx <= RADIUS; dx++)
            sum += AT(src, x + dx, y + dy, w, h);
    dst[y * w + x] = sum / (T)((2 * RADIUS + 1) * (2 * RADIUS + 1));
}
__kernel void sharpen(__global const T *src, __global T *dst, int w, int h)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    dst[y * w + x] = 5 * AT(src, x, y, w, h) - AT(src, x - 1, y, w, h) - AT(src, x + 1, y, w, h) -
                     AT(src, x, y - 1, w, h) - AT(src, x, y + 1, w, h);
}
EOF
# The user's test: the binary exists and is not empty; it records what it
# saw (the folder it ran in, and PoCL's cache setting) for the checks below.
cat >check.sh <<'EOF'
#!/bin/sh
[ -s "$1" ] || { echo "no binary at $1"; exit 1; }
echo "$PWD ${POCL_CACHE_DIR:-unset} $2" >>check.log
EOF
# The user's timing: deterministic here, so that the test knows the answer:
# RADIUS=2 is fastest at 8x8, RADIUS=1 at 16x16.
cat >time.sh <<'EOF'
#!/bin/sh
case "$1 $2" in
*RADIUS=1*16x16) ns=1000 ;;
*RADIUS=1*8x8) ns=3000 ;;
*RADIUS=2*8x8) ns=2000 ;;
*RADIUS=2*16x16) ns=4000 ;;
*) echo "unexpected variant $1 $2"; exit 1 ;;
esac
echo "median_ns=$ns runs=5 size=64x64"
EOF
chmod +x check.sh time.sh

POCL_CACHE_DIR=/nonexistent/user-cache
export POCL_CACHE_DIR
run "$CLC" blur.cl -I include -D T=float -D RADIUS=1,2 --wg 8x8,16x16 \
    --check-cmd './check.sh {binary} {defines}' --tune-cmd './time.sh {defines} {wg}' \
    -q -o blur.clcpack
unset POCL_CACHE_DIR
if [ "$RC" -ne 0 ] && grep -q "No OpenCL\|no OpenCL device\|no device" "$ERR"; then
    skip "no OpenCL device here (PoCL): $(head -n 1 "$ERR")"
    cli_done
fi
expect_rc 0 "relative --check-cmd and --tune-cmd: the pack is written"
if [ -f check.log ]; then
    n=$(wc -l <check.log)
    [ "$n" -eq 4 ] && ok "the check ran once per variant" || bad "the check ran $n times, wanted 4"
    if awk -v d="$PWD" '$1 != d { exit 1 }' check.log; then ok "the check ran in the folder clc-pack started in"
    else bad "the check ran elsewhere: $(head -n 1 check.log)"; fi
    if awk '$2 != "/nonexistent/user-cache" { exit 1 }' check.log; then ok "the check saw the user's own POCL_CACHE_DIR"
    else bad "the check saw POCL_CACHE_DIR=$(awk '{print $2; exit}' check.log)"; fi
else
    bad "the check command never ran (no check.log)"
fi

# A failing relative command says where it ran and shows its output.
run "$CLC" blur.cl -I include -D T=float -D RADIUS=1 --wg 8x8 \
    --check-cmd './missing_check.sh {binary}' -q -o never.clcpack
[ "$RC" -ne 0 ] && ok "a missing check command fails the pack" || bad "a missing check command passed"
expect_err "$PWD" "the failure names the folder the command ran in"
expect_err "missing_check.sh" "the failure shows the command's output"
[ ! -e never.clcpack ] && ok "nothing written on failure" || bad "never.clcpack was written"

run "$CLC" tune-report blur.clcpack
expect_rc 0 "tune-report reads a --tune-cmd pack"
expect_out "RADIUS=2" "tune-report names the program's own axes"
expect_out "| RADIUS=2,T=float | 8x8 | 64x64 | 2.0 |" "tune-report shows the timing line's median (2000 ns as 2.0 us)"

run "$CLC" best blur.clcpack --kernel box_blur -D RADIUS=2
expect_rc 0 "best --kernel NAME -D RADIUS=2"
expect_out "8x8" "best picks the work-group the timing made fastest for RADIUS=2"
expect_no_out "16x16" "best does not answer the slower work-group"
run "$CLC" best blur.clcpack --kernel box_blur -D RADIUS=1
expect_out "16x16" "best picks 16x16 for RADIUS=1"

# The application: the best variant of one kernel of the two, created from
# clcpack_choice_key's key unchanged, run and checked against the CPU.
cat >app.c <<'EOF'
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <clcpack.h>
#ifdef EMBEDDED
#include "blur_pack.h"
#endif

int main(int argc, char **argv)
{
    enum { W = 37, H = 29 };
    clcpack *pack;
    clcpack_error err;
#ifdef EMBEDDED
    clcpack_status st = clcpack_open_memory(blur_pack, blur_pack_size, &pack, &err);
    if (st == CLCPACK_OK && argc > 1) {
        clcpack *pinned;
        if (clcpack_open_file_pinned(argv[1], blur_pack_sha256, &pinned, &err) != CLCPACK_OK) {
            fprintf(stderr, "pinned open: %s\n", err.message);
            return 1;
        }
        clcpack_close(pinned);
        puts("pinned open ok");
    }
#else
    clcpack_status st = clcpack_open_file(argc > 1 ? argv[1] : "blur.clcpack", &pack, &err);
#endif
    if (st != CLCPACK_OK) {
        fprintf(stderr, "open: %s\n", err.message);
        return 1;
    }
    cl_platform_id plat;
    cl_device_id dev;
    cl_int e;
    if (clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS)
        return 2;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    clcpack_device_info here = {.struct_size = sizeof here};
    clcpack_choice choice = {.struct_size = sizeof choice};
    clcpack_define want[] = {{"RADIUS", "2"}};
    if (clcpack_device_query(dev, &here, &err) != CLCPACK_OK ||
        clcpack_best_variant(pack, "box_blur", want, 1, NULL, &here, &choice, &err) != CLCPACK_OK) {
        fprintf(stderr, "best: %s\n", err.message);
        return 1;
    }
    clcpack_key key;
    clcpack_choice_key(&choice, &key);
    cl_program prog;
    cl_kernel k;
    clcpack_load_report report = {.struct_size = sizeof report};
    if (clcpack_create_kernel(pack, &key, ctx, dev, NULL, &prog, &k, &report, &err) != CLCPACK_OK) {
        fprintf(stderr, "create: %s\n", err.message);
        return 1;
    }
    printf("kernel %s wg %ux%u\n", key.kernel, (unsigned)key.wg[0], (unsigned)key.wg[1]);
    float src[W * H], dst[W * H];
    for (int i = 0; i < W * H; i++)
        src[i] = (float)((i * 7919) % 101);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &e);
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof src, src, &e);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof dst, NULL, &e);
    int w = W, h = H;
    clSetKernelArg(k, 0, sizeof a, &a);
    clSetKernelArg(k, 1, sizeof b, &b);
    clSetKernelArg(k, 2, sizeof w, &w);
    clSetKernelArg(k, 3, sizeof h, &h);
    size_t local[2] = {key.wg[0], key.wg[1]};
    size_t global[2] = {(W + local[0] - 1) / local[0] * local[0], (H + local[1] - 1) / local[1] * local[1]};
    memset(dst, 0xff, sizeof dst); /* poisoned: a kernel that writes nothing fails */
    if (clEnqueueNDRangeKernel(q, k, 2, NULL, global, local, 0, NULL, NULL) != CL_SUCCESS ||
        clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof dst, dst, 0, NULL, NULL) != CL_SUCCESS)
        return 3;
    int bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double s = 0;
            for (int dy = -2; dy <= 2; dy++)
                for (int dx = -2; dx <= 2; dx++) {
                    int xx = x + dx < 0 ? 0 : x + dx >= W ? W - 1 : x + dx;
                    int yy = y + dy < 0 ? 0 : y + dy >= H ? H - 1 : y + dy;
                    s += src[yy * W + xx];
                }
            if (fabs(s / 25 - dst[y * W + x]) > 1e-3)
                bad++;
        }
    printf("%s, %d wrong\n", report.path == CLCPACK_PATH_NATIVE ? "native" : "not native", bad);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    clcpack_close(pack);
    return bad != 0;
}
EOF
LIBS=$(make -s -C "$ROOT" --no-print-directory B="$BUILD" print-libs 2>/dev/null)
# CFLAGS and LDFLAGS reach the application (a sanitized build's library
# needs its runtime).
if ${CC:-cc} -std=c11 -Wall -Werror ${CFLAGS:-} -I"$BUILD/include" app.c "$BUILD/libclcpack.a" $LIBS ${LDFLAGS:-} -o app 2>"$ERR"; then
    ok "the application compiles"
    run ./app blur.clcpack
    expect_rc 0 "the application loads the best box_blur and its output is right"
    expect_out "kernel box_blur wg 8x8" "the choice's key names the kernel asked for, with the best work-group"
    expect_out "native, 0 wrong" "the best variant loads natively and computes the blur"
else
    bad "the application does not compile"
fi

# Embedded, both formats; the generated header's NAME_sha256 pins the
# same pack shipped as a file.
for fmt in asm c; do
    ext=s
    [ "$fmt" = c ] && ext=c
    rm -f blur_pack.h blur_pack.$ext
    run "$CLC" embed blur.clcpack --format "$fmt" --symbol blur_pack --header blur_pack.h -o blur_pack.$ext
    expect_rc 0 "embed --format $fmt"
    if ${CC:-cc} -std=c11 -Wall -Werror ${CFLAGS:-} ${LDFLAGS:-} -DEMBEDDED -I. -I"$BUILD/include" app.c blur_pack.$ext \
        "$BUILD/libclcpack.a" $LIBS -o app_$fmt 2>"$ERR"; then
        ok "an application with the $fmt embedding links (every declared symbol defined)"
        run ./app_$fmt blur.clcpack
        expect_rc 0 "the $fmt-embedded pack loads and runs"
        expect_out "pinned open ok" "NAME_sha256 pins the shipped file ($fmt)"
        expect_out "native, 0 wrong" "the $fmt-embedded best variant computes the blur"
    else
        bad "an application with the $fmt embedding does not link"
    fi
done
run "$CLC" embed blur.clcpack -o by_name.c
if grep -q "const unsigned char" by_name.c 2>/dev/null; then ok "embed -o FILE.c writes C"
else bad "embed -o FILE.c did not write C"; fi

# CMake, from the .cl source, without a manifest.
if ! command -v cmake >/dev/null 2>&1; then
    skip "cmake is not installed"
    cli_done
fi
PREFIX=$TMP/prefix
if ! make -s -C "$ROOT" --no-print-directory B="$BUILD" install PREFIX="$PREFIX" >"$OUT" 2>"$ERR"; then
    bad "make install to a scratch prefix"
    cli_done
fi
mkdir -p cm
cp blur.cl check.sh time.sh cm/ && cp -r include cm/ && cp app.c cm/
cat >cm/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(blur_app C)
find_package(clcpack 1.0 REQUIRED)
add_executable(app app.c)
target_compile_definitions(app PRIVATE EMBEDDED)
target_link_libraries(app PRIVATE clcpack::clcpack)
clcpack_add_pack(blur_pack
    TARGET              app
    SOURCES             blur.cl
    INCLUDE_DIRECTORIES include
    DEFINES             T=float RADIUS=1,2
    WORK_GROUPS         8x8 16x16
    CHECK_COMMAND       "./check.sh {binary} {defines}"
    TUNE_COMMAND        "./time.sh {defines} {wg}"
    OUTPUT              ${CMAKE_CURRENT_BINARY_DIR}/blur.clcpack
    EMBED)
EOF
run cmake -S cm -B cm/build -DCMAKE_PREFIX_PATH="$PREFIX"
expect_rc 0 "cmake configures a project packing blur.cl without a manifest"
run cmake --build cm/build
expect_rc 0 "cmake builds the pack and the application"
if [ -x cm/build/app ]; then
    LD_LIBRARY_PATH=$PREFIX/lib run cm/build/app cm/build/blur.clcpack
    expect_rc 0 "the CMake-built application runs"
    expect_out "kernel box_blur wg 8x8" "the CMake-built pack holds the tuned timings"
    expect_out "native, 0 wrong" "the CMake-built application computes the blur"
else
    bad "cm/build/app was not built"
fi
cli_done
