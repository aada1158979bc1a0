#!/bin/sh
# A load-only application on PoCL (loader/README.md): a program that opens a
# pack clc-pack made for the CPU device, makes the kernel of its first entry
# and asks for a key the pack lacks, linked against the load-only library
# as an application links it: libclcpack_load.so.1 (-lclcpack_load) and
# libclcpack_load.a, and against the core alone (make LOAD_MIN=1: every
# optional part left out), which loads the same kernel, names a missed key
# without its nearest entries, and has no clcpack_best_variant. The
# programs' text sizes are printed for docs/BENCH.md ("The loader's size").
# tests/cli/cli_load_only.sh checks the libraries' symbols without a device.
. "$(dirname "$0")/../lib/cli_lib.sh"

CC=${CC:-cc}
if [ ! -f "$BUILD/libclcpack_load.so.1" ] || [ ! -f "$BUILD/libclcpack_load.a" ]; then
    bad "no libclcpack_load in $BUILD: build it first (make all)"
    cli_done
fi
PACK=$TMP/app.clcpack
run "$CLC" --kernels "$KERNELS" --device cpu --kernel Convolve_Def --widths 5 -q -o "$PACK"
if [ "$RC" -ne 0 ]; then
    skip "no pack for the CPU device (PoCL): $(head -c 200 "$ERR")"
    cli_done
fi
ok "clc-pack made a pack for the CPU device"

cat >"$TMP/app.c" <<'EOC'
#include <stdio.h>
#include <string.h>
#include <clcpack.h>
/* The first CPU device of any platform. */
static cl_device_id cpu_device(void)
{
    cl_platform_id plats[8];
    cl_uint n = 0;
    if (clGetPlatformIDs(8, plats, &n) != CL_SUCCESS)
        return NULL;
    for (cl_uint i = 0; i < n && i < 8; i++) {
        cl_device_id d;
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_CPU, 1, &d, NULL) == CL_SUCCESS)
            return d;
    }
    return NULL;
}
int main(int argc, char **argv)
{
    clcpack *p;
    clcpack_error err;
    if (argc != 2 || clcpack_open_file(argv[1], &p, &err) != CLCPACK_OK) {
        fprintf(stderr, "open: %s\n", argc == 2 ? err.message : "usage: app PACK");
        return 1;
    }
    clcpack_entry_info e;
    memset(&e, 0, sizeof e);
    e.struct_size = sizeof e;
    if (clcpack_get_entry(p, 0, &e) != CLCPACK_OK)
        return 1;
    clcpack_key key = {e.kernel, e.defines, e.define_count, {e.wg[0], e.wg[1], e.wg[2]}};
    cl_device_id dev = cpu_device();
    cl_int rc;
    cl_context ctx = dev ? clCreateContext(NULL, 1, &dev, NULL, NULL, &rc) : NULL;
    if (!ctx) {
        fprintf(stderr, "no CPU device\n");
        return 1;
    }
    cl_program prog;
    cl_kernel k;
    clcpack_load_report rep;
    memset(&rep, 0, sizeof rep);
    rep.struct_size = sizeof rep;
    if (clcpack_create_kernel(p, &key, ctx, dev, NULL, &prog, &k, &rep, &err) != CLCPACK_OK) {
        fprintf(stderr, "load: %s\n", err.message);
        return 1;
    }
    char name[128] = "";
    clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
    printf("kernel %s from %s, entry %u\n", name, clcpack_path_name(rep.path), (unsigned)rep.entry);
    clcpack_key miss = key;
    miss.kernel = "Convolve_Deff";
    if (clcpack_find(p, &miss, NULL, 0, NULL, &err) == CLCPACK_E_NOT_FOUND)
        printf("miss: %s\n", err.message);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseContext(ctx);
    clcpack_close(p);
    return 0;
}
EOC
LIBS=$(make -s --no-print-directory -C "$ROOT" B="$BUILD" print-libs)
# app NAME LINK...: the program linked so, run on the pack.
app() {
    name=$1
    shift
    # shellcheck disable=SC2086
    run "$CC" -std=c11 ${CFLAGS:-} -I"$ROOT/loader/include" -o "$TMP/$name" "$TMP/app.c" ${LDFLAGS:-} "$@"
    expect_rc 0 "$name links ($*)"
    [ -x "$TMP/$name" ] || return 0
    run "$TMP/$name" "$PACK"
    expect_rc 0 "$name loads the pack's kernel"
    expect_out "kernel Convolve_Def from native" "$name made Convolve_Def from the native binary"
    expect_out "miss: no entry for Convolve_Deff" "$name names the missed key"
    cp "$OUT" "$TMP/$name.out"
    sed "s/^/    $name: /" "$OUT"
}
app app_shared -L"$BUILD" -lclcpack_load -lOpenCL -Wl,-rpath,"$BUILD"
readelf -d "$TMP/app_shared" | grep -q 'NEEDED.*libclcpack_load.so.1' &&
    ok "app_shared needs libclcpack_load.so.1" || bad "app_shared: $(readelf -d "$TMP/app_shared" | grep NEEDED)"
# shellcheck disable=SC2086
app app_static "$BUILD/libclcpack_load.a" $LIBS
grep -q "did you mean Convolve_Def" "$TMP/app_static.out" &&
    ok "with every part, the miss names the nearest kernel" || bad "the miss: $(cat "$TMP/app_static.out")"
echo "app_static (libclcpack_load.a): $(size "$TMP/app_static" | awk 'NR == 2 { print "text " $1 ", data " $2 ", bss " $3 " bytes" }')"

# The core: every optional part left out, in a build folder of its own.
MIN=$TMP/bmin
run make -s -j2 --no-print-directory -C "$ROOT" B="$MIN" LOAD_MIN=1 "$MIN/libclcpack_load.a" \
    "$MIN/libclcpack_load.so"
expect_rc 0 "make LOAD_MIN=1 builds the core load-only library"
if [ -f "$MIN/libclcpack_load.a" ]; then
    # shellcheck disable=SC2086
    app app_core "$MIN/libclcpack_load.a" $LIBS
    grep -q "did you mean" "$TMP/app_core.out" && bad "the core still names the nearest entries" ||
        ok "the core's miss names the key alone"
    nm -D --defined-only "$MIN/libclcpack_load.so.1" | grep -q ' clcpack_best_variant@' &&
        bad "the core exports clcpack_best_variant" || ok "the core exports no clcpack_best_variant"
    nm -D --defined-only "$MIN/libclcpack_load.so.1" | grep -q ' clcpack_open_file@' &&
        ok "the core exports clcpack_open_file" || bad "the core lacks clcpack_open_file"
    echo "app_core (LOAD_MIN=1 libclcpack_load.a): $(size "$TMP/app_core" | awk 'NR == 2 { print "text " $1 ", data " $2 ", bss " $3 " bytes" }')"
fi
cli_done
