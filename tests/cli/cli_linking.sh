#!/bin/sh
# The link recipes of docs/LINKING.md, run as the page gives them: make
# install into a temporary prefix (not a system folder), then the page's
# program built shared (rpath: it runs without LD_LIBRARY_PATH, with the
# prefix's libclcpack.so.1), static twice (no libclcpack.so among its
# NEEDED entries) and in-tree (build/libclcpack.a and make print-libs).
# Also the trap the page warns of: pkg-config --static --libs alone links
# the shared library. No OpenCL device needed.
. "$(dirname "$0")/../lib/cli_lib.sh"

PREFIX=$TMP/prefix
run make -C "$ROOT" B="$BUILD" install PREFIX="$PREFIX"
expect_rc 0 "make install PREFIX=$PREFIX"
export PREFIX PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
unset LD_LIBRARY_PATH

# The page's blocks: files (doctest: file) and shell blocks, in order.
W=$TMP/work
mkdir -p "$W"
awk -v W="$W" '
    /^<!-- doctest: file / { f = $4; want = 1; next }
    /^```sh$/ { n++; out = W "/block" n ".sh"; body = 1; next }
    want && /^```/ { want = 0; out = W "/" f; body = 1; next }
    body && /^```$/ { body = 0; close(out); next }
    body { print >out }' "$ROOT/docs/LINKING.md"
[ -s "$W/app.c" ] && ok "docs/LINKING.md gives app.c" || bad "docs/LINKING.md lacks app.c"
# The in-tree recipe runs where build/ and the Makefile are.
ln -s "$BUILD" "$W/build"
ln -s "$ROOT/Makefile" "$W/Makefile"

# recipe PROGRAM: runs the page's block that builds PROGRAM.
recipe() {
    b=$(grep -l -- "-o $1 " "$W"/block*.sh | head -n 1)
    if [ -z "$b" ]; then
        bad "docs/LINKING.md has no block building $1"
        return 1
    fi
    (cd "$W" && timeout 120 sh -e "$b") >"$OUT" 2>"$ERR"
    RC=$?
    expect_rc 0 "$1: the page's recipe builds and runs it"
    expect_out "libclcpack 10300" "$1 prints the library's version"
}

needed() { readelf -d "$W/$1" | grep NEEDED; }

recipe app_shared
run env -u LD_LIBRARY_PATH "$W/app_shared"
expect_rc 0 "app_shared runs without LD_LIBRARY_PATH (rpath)"
ldd "$W/app_shared" | grep -q "libclcpack.so.1 => $PREFIX/lib/libclcpack.so.1" &&
    ok "app_shared loads the prefix's libclcpack.so.1" || bad "ldd app_shared: $(ldd "$W/app_shared")"

for app in app_static app_static2; do
    recipe $app
    needed $app | grep -q libclcpack && bad "$app needs libclcpack.so: $(needed $app)" ||
        ok "$app has no libclcpack.so among its NEEDED entries"
done

recipe app_intree
needed app_intree | grep -q libclcpack && bad "app_intree needs libclcpack.so" ||
    ok "app_intree links build/libclcpack.a"

# What the page warns of: --static alone links the shared library.
# shellcheck disable=SC2046
run ${CC:-cc} -std=c11 -Wl,--no-as-needed -o "$W/app_trap" "$W/app.c" \
    $(pkg-config --cflags clcpack) $(pkg-config --static --libs clcpack)
expect_rc 0 "app.c links with pkg-config --static --libs alone"
needed app_trap | grep -q "libclcpack.so" && ok "... and that needs libclcpack.so, as the page says" ||
    bad "pkg-config --static --libs linked statically: the page is wrong"
cli_done
