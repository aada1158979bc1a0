#!/bin/sh
# The C a user copies from the library's docs works as copied:
#   - man/clcpack.3's EXAMPLES is a whole function that compiles against the
#     public header alone (-Wall -Wextra -Werror), and, linked with a pack
#     clc-pack built and embedded under the symbol it names, loads the
#     program on the OpenCL device; locals start zeroed
#     (-ftrivial-auto-var-init=zero), so a struct whose struct_size the
#     snippet forgot fails as it would for the user;
#   - docs/API.md's best-variant snippets (a GEMM, then a filter width)
#     compile as one body, given only what the text says they are given:
#     the pack, the context and the device.
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1
CC=${CC:-cc}
CFLAGS_SNIP="-std=c11 -Wall -Wextra -Werror -I$BUILD/include -DCL_TARGET_OPENCL_VERSION=120"

# The man page's example, roff escapes undone.
awk '/^\.SH EXAMPLES/ { ex = 1; next } ex && /^\.nf/ { on = 1; next } on && /^\.fi/ { exit } on' \
    "$ROOT/man/clcpack.3" |
    sed -e 's/\\e/\\/g' -e 's/\\-/-/g' >example.c
[ -s example.c ] && ok "man/clcpack.3 has an EXAMPLES block" || bad "no EXAMPLES block in man/clcpack.3"
ZERO=""
$CC -ftrivial-auto-var-init=zero -x c -c -o /dev/null /dev/null 2>/dev/null && ZERO=-ftrivial-auto-var-init=zero
if $CC $CFLAGS_SNIP $ZERO -c -o example.o example.c 2>"$ERR"; then
    ok "the man page's example compiles as copied"
else
    bad "the man page's example does not compile: $(head -3 "$ERR")"
fi
symbol=$(sed -n 's/.*extern const unsigned char \([A-Za-z_0-9]*\)\[\].*/\1/p' example.c)
fn=$(sed -n 's/^cl_program \([A-Za-z_0-9]*\)(cl_context ctx, cl_device_id dev)$/\1/p' example.c)
[ -n "$symbol" ] && [ -n "$fn" ] && ok "it declares the pack '$symbol' and defines $fn(ctx, dev)" ||
    bad "the example's pack symbol '$symbol' or function '$fn' not found"

# Run it: a pack with its key, embedded as the example expects.
run "$CLC" --kernels "$KERNELS" --kernel Convolve_Def --widths 5 --wg 16x16 --no-check -q -j 1 \
    -o conv.clcpack
if [ "$RC" -ne 0 ] || [ -z "$fn" ] || [ ! -f example.o ]; then
    skip "no pack for the example's key (no OpenCL device?), or no example: not run"
else
    run "$CLC" embed conv.clcpack -o app_pack.c --format c --symbol "$symbol" -q
    cat >main.c <<EOF
#include <stdio.h>
#include <clcpack.h>
cl_program $fn(cl_context ctx, cl_device_id dev);
int main(void)
{
    cl_platform_id plat;
    cl_device_id dev;
    cl_int rc;
    if (clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS)
        return 3;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
    cl_program prog = $fn(ctx, dev);
    if (prog)
        clReleaseProgram(prog);
    clReleaseContext(ctx);
    return prog ? 0 : 1;
}
EOF
    LIBS=$(make -s --no-print-directory -C "$ROOT" B="$BUILD" print-libs)
    if $CC $CFLAGS_SNIP ${CFLAGS:-} -o example example.o app_pack.c main.c "$BUILD/libclcpack.a" $LIBS ${LDFLAGS:-} 2>"$ERR"; then
        run ./example
        [ "$RC" -eq 0 ] && grep -q "^program from native" "$OUT" &&
            ok "the example loads the program: $(cat "$OUT")" ||
            bad "the example fails (status $RC): $(cat "$OUT" "$ERR" | head -3)"
    else
        bad "the example does not link: $(head -3 "$ERR")"
    fi
fi

# docs/API.md: the two blocks of "The best variant, for any program's
# axes", in one function given the pack, the context and the device.
awk '/^## The best variant/ { on = 1 } /^## / && !/best variant/ { on = 0 }
     on && /^```c/ { code = 1; next } /^```/ { code = 0 } on && code' "$ROOT/docs/API.md" >best_body.c
{
    echo '#include <clcpack.h>'
    echo 'void best(clcpack *pack, cl_context ctx, cl_device_id device);'
    echo 'void best(clcpack *pack, cl_context ctx, cl_device_id device)'
    echo '{'
    cat best_body.c
    echo '}'
} >best.c
[ "$(grep -c clcpack_best_variant best_body.c)" -eq 2 ] && ok "docs/API.md has its two best-variant snippets" ||
    bad "docs/API.md's best-variant snippets not found: $(cat best_body.c)"
if $CC $CFLAGS_SNIP -Wno-unused-variable -c -o best.o best.c 2>"$ERR"; then
    ok "docs/API.md's best-variant snippets compile, given the pack, the context and the device"
else
    bad "docs/API.md's best-variant snippets do not compile: $(grep error "$ERR" | head -3)"
fi
cli_done
