#!/bin/sh
# Installing and using clc-pack as an application would: make install into a
# staging tree (DESTDIR), a small program compiled with
# `pkg-config --cflags --libs clcpack` against that tree opens a pack, the
# example app built with the pack embedded filters PGM and PPM images (the
# same pixels as the app that compiles the kernel source), the man pages
# render, and make uninstall leaves nothing behind. Two PoCL builds.
. "$(dirname "$0")/../lib/cli_lib.sh"

STAGE=$TMP/stage
run make -C "$ROOT" B="$BUILD" install PREFIX=/usr DESTDIR="$STAGE"
expect_rc 0 "make install PREFIX=/usr DESTDIR=..."
for f in bin/clc-pack lib/libclcpack.a lib/libclcpack.so.1.3.0 include/clcpack.h include/clcpack_inspect.h include/clcpack_write.h \
    lib/libclcpack_load.a lib/libclcpack_load.so.1.3.0 lib/pkgconfig/clcpack_load.pc \
    lib/libclcpack-preload.so lib/clcpack-opencl/libOpenCL.so.1 lib/pkgconfig/clcpack.pc \
    share/man/man1/clc-pack.1 share/man/man3/clcpack.3 \
    share/bash-completion/completions/clc-pack; do
    [ -f "$STAGE/usr/$f" ] && ok "installed $f" || bad "missing $STAGE/usr/$f"
done
[ "$(readlink "$STAGE/usr/lib/libclcpack.so.1")" = libclcpack.so.1.3.0 ] &&
    [ "$(readlink "$STAGE/usr/lib/libclcpack.so")" = libclcpack.so.1 ] &&
    ok "libclcpack.so -> .so.1 -> .so.1.0.0" || bad "shared library symlinks"
SO=$STAGE/usr/lib/libclcpack.so.1.3.0
objdump -p "$SO" | grep -q 'SONAME *libclcpack.so.1$' && ok "soname libclcpack.so.1" ||
    bad "soname"
nm -D --defined-only "$SO" | awk '$2 != "A" {print $3}' | grep -Ev '^clcpack_.*@@CLCPACK_1\.[0-9]+$' >"$TMP/leaked"
[ ! -s "$TMP/leaked" ] && ok "only clcpack_* symbols exported, each at a CLCPACK_1.y version" ||
    bad "symbols exported besides clcpack_*: $(tr '\n' ' ' <"$TMP/leaked")"
for m in man1/clc-pack.1 man3/clcpack.3; do
    groff -man -ww -z "$STAGE/usr/share/man/$m" >"$TMP/manwarn" 2>&1
    [ ! -s "$TMP/manwarn" ] && ok "$m renders without warnings" || bad "$m: $(head -3 "$TMP/manwarn")"
done
MANWIDTH=80 man -l "$STAGE/usr/share/man/man1/clc-pack.1" 2>/dev/null | grep -q "EXIT STATUS" &&
    ok "man -l clc-pack.1 documents the exit status" || bad "man -l clc-pack.1"

# Tools as a user has them: the installed clc-pack, pkg-config on the tree.
CLCI=$STAGE/usr/bin/clc-pack
export PKG_CONFIG_PATH="$STAGE/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$STAGE"
export LD_LIBRARY_PATH="$STAGE/usr/lib"
run pkg-config --cflags --libs clcpack
expect_out "-I$STAGE/usr/include" "pkg-config --cflags points into the tree"
expect_out "-lclcpack" "pkg-config --libs names the library"

PACK=$TMP/filter.clcpack
run "$CLCI" --kernels "$KERNELS" --device cpu --kernel Convolve_Def --kernel reda_float4 \
    --widths 5 -q -o "$PACK"
expect_rc 0 "installed clc-pack builds a pack"

cat >"$TMP/count.c" <<'CEOF'
#include <stdio.h>
#include <clcpack.h>
int main(int argc, char **argv)
{
    clcpack *p;
    clcpack_error err;
    if (argc != 2 || clcpack_open_file(argv[1], &p, &err) != CLCPACK_OK) {
        fprintf(stderr, "open: %s\n", argc == 2 ? err.message : "usage: count PACK");
        return 1;
    }
    printf("library %u, %zu entries, %zu devices\n", clcpack_version(), clcpack_entry_count(p),
           clcpack_device_count(p));
    clcpack_close(p);
    return 0;
}
CEOF
# shellcheck disable=SC2046
run ${CC:-cc} -std=c11 -Wall -Wextra -Werror -o "$TMP/count" "$TMP/count.c" \
    $(pkg-config --cflags --libs clcpack)
expect_rc 0 "a program compiles and links with pkg-config --cflags --libs clcpack"
run "$TMP/count" "$PACK"
expect_rc 0 "it opens a pack"
expect_out "library 10300, 2 entries, 1 devices" "it reads the pack through the installed library"
ldd "$TMP/count" | grep -q "libclcpack.so.1 => $STAGE/usr/lib/libclcpack.so.1" &&
    ok "it runs with the installed libclcpack.so.1" || bad "ldd: $(ldd "$TMP/count" | grep clcpack)"
# The load-only library, as an application that only loads links it.
[ "$(readlink "$STAGE/usr/lib/libclcpack_load.so.1")" = libclcpack_load.so.1.3.0 ] &&
    [ "$(readlink "$STAGE/usr/lib/libclcpack_load.so")" = libclcpack_load.so.1 ] &&
    ok "libclcpack_load.so -> .so.1 -> .so.1.3.0" || bad "load-only shared library symlinks"
# shellcheck disable=SC2046
run ${CC:-cc} -std=c11 -Wall -Wextra -Werror -o "$TMP/count_load" "$TMP/count.c" \
    $(pkg-config --cflags --libs clcpack_load)
expect_rc 0 "a program compiles and links with pkg-config --cflags --libs clcpack_load"
run "$TMP/count_load" "$PACK"
expect_out "library 10300, 2 entries, 1 devices" "it reads the pack through the installed load-only library"
ldd "$TMP/count_load" | grep -q "libclcpack_load.so.1 => $STAGE/usr/lib/libclcpack_load.so.1" &&
    ok "it runs with the installed libclcpack_load.so.1" || bad "ldd: $(ldd "$TMP/count_load" | grep clcpack)"
# Statically: the installed archive and pkg-config --static's private
# libraries (libdeflate, zstd where the library was built with them).
STATIC_LIBS=$(pkg-config --static --libs clcpack | sed 's/ -lclcpack / /')
# shellcheck disable=SC2046,SC2086
run ${CC:-cc} -std=c11 -Wall -Wextra -Werror ${CFLAGS:-} -o "$TMP/count_static" "$TMP/count.c" \
    $(pkg-config --cflags clcpack) ${LDFLAGS:-} "$STAGE/usr/lib/libclcpack.a" $STATIC_LIBS
expect_rc 0 "a program links with libclcpack.a and pkg-config --static --libs ($STATIC_LIBS)"
run "$TMP/count_static" "$PACK"
expect_out "library 10300, 2 entries, 1 devices" "and reads the pack"
readelf -d "$TMP/count_static" | grep -q 'NEEDED.*libclcpack' &&
    bad "the static program needs libclcpack.so" || ok "the static program does not load libclcpack.so"

# The example app, its pack embedded (examples/Makefile: clc-pack embed).
EX=$TMP/ex
mkdir -p "$EX"
run make -C "$ROOT/examples" INSTALLED=1 O="$EX" CLC_PACK="$CLCI" PACK="$PACK" \
    CFLAGS="-O2 -Wall -Wextra -Werror"
expect_rc 0 "examples build with the embedded pack"
grep -q '\.balign 64' "$EX/filter_pack.S" && grep -q '\.incbin ".*filter.clcpack"' "$EX/filter_pack.S" &&
    ok "embedded with .incbin, aligned" || bad "embedded .S"
# The C-array form, for compilers without GNU as.
run "$CLCI" embed "$PACK" -o "$TMP/arr.c" --format c --symbol filter_pack
expect_rc 0 "embed --format c"
grep -q 'CLCPACK_EMBED_ALIGN const unsigned char filter_pack\[' "$TMP/arr.c" &&
    ok "embedded array is aligned" || bad "embedded array"
run ${CC:-cc} -std=c11 -Wall -Wextra -Werror -c -o "$TMP/arr.o" "$TMP/arr.c"
expect_rc 0 "the C array compiles warning-free"
# The installed tool runs without LD_LIBRARY_PATH (libclcpack is linked in).
run env -u LD_LIBRARY_PATH "$CLCI" --version
expect_rc 0 "installed clc-pack runs without LD_LIBRARY_PATH"
readelf -d "$CLCI" | grep -q 'NEEDED.*libclcpack' && bad "clc-pack needs libclcpack.so" ||
    ok "clc-pack does not load libclcpack.so"

# Test images, not multiples of the 16x16 work-group: noise over a gradient.
LC_ALL=C awk 'BEGIN { w = 53; h = 37; srand(7); printf "P5\n%d %d\n255\n", w, h;
    for (y = 0; y < h; y++) for (x = 0; x < w; x++) printf "%c", int(x * 4 + rand() * 40) % 256 }' \
    >"$TMP/in.pgm"
LC_ALL=C awk 'BEGIN { w = 41; h = 29; srand(9); printf "P6\n%d %d\n255\n", w, h;
    for (i = 0; i < w * h * 3; i++) printf "%c", 20 + int(rand() * 200) }' >"$TMP/in.ppm"
LC_ALL=C wc -c <"$TMP/in.pgm" | grep -q "^$((53 * 37 + 13))$" && ok "test PGM written" ||
    bad "test PGM size"

for img in pgm ppm; do
    run "$EX/filter_app" --width 5 "$TMP/in.$img" "$TMP/out.$img"
    expect_rc 0 "filter_app filters the $img image"
    expect_out "program: binary (native" "filter_app's $img program came from a binary"
    expect_out "start-up:" "filter_app prints its start-up time"
    cp "$OUT" "$TMP/app.$img.txt"
    [ "$(head -c 15 "$TMP/out.$img" | head -n 2)" = "$(head -c 15 "$TMP/in.$img" | head -n 2)" ] &&
        [ "$(wc -c <"$TMP/out.$img")" -eq "$(wc -c <"$TMP/in.$img")" ] &&
        ok "$img output has the input's format and size" || bad "$img output size"
    cmp -s "$TMP/in.$img" "$TMP/out.$img" && bad "$img output equals the input" ||
        ok "$img output differs from the input"
    run "$EX/filter_app_source" --kernels "$KERNELS" --width 5 "$TMP/in.$img" "$TMP/src.$img"
    expect_rc 0 "filter_app_source filters the $img image"
    expect_out "program: source" "filter_app_source built from source"
    cmp -s "$TMP/out.$img" "$TMP/src.$img" && ok "$img: binary and source apps give the same pixels" ||
        bad "$img: the binary and source apps differ"
done
# A uniform image stays uniform: the filter is normalised and the border
# repeats the edge (any other padding darkens or brightens the edges).
LC_ALL=C awk 'BEGIN { printf "P5\n19 23\n255\n"; for (i = 0; i < 19 * 23; i++) printf "%c", 173 }' >"$TMP/flat.pgm"
run "$EX/filter_app" --width 5 "$TMP/flat.pgm" "$TMP/flat_out.pgm"
cmp -s "$TMP/flat.pgm" "$TMP/flat_out.pgm" && ok "a uniform image is unchanged, edges included" ||
    bad "a uniform image changed"
run "$EX/filter_app" --width 9 "$TMP/in.pgm" "$TMP/out9.pgm"
expect_rc 1 "a width the embedded pack lacks fails"
expect_err "Convolve_Def" "and names the kernel"

run make -C "$ROOT" B="$BUILD" uninstall PREFIX=/usr DESTDIR="$STAGE"
expect_rc 0 "make uninstall"
left=$(find "$STAGE" ! -type d | wc -l)
[ "$left" -eq 0 ] && ok "uninstall leaves no file behind" || bad "uninstall left $left files: $(find "$STAGE" ! -type d | head -3)"
cli_done
