#!/bin/sh
# clc-pack embed for a Windows loader (docs/CLI.md, "embed"; docs/PLATFORMS.md):
#   - --format rc (or -o FILE.rc) writes an RCDATA resource script naming
#     the pack by its absolute path, and a header defining NAME_resource,
#     NAME_size and NAME_sha256 that compiles warning-free as C and C++;
#   - --loader-codecs: a zstd pack embedded for a loader without zstd is
#     refused (exit 1) naming the fix (--codec zlib); --format rc assumes
#     the zlib-only library `make windows` builds unless told otherwise;
#   - clcpack_open_resource on Linux says resources are Windows'.
# Packs are built on this host's OpenCL device (skipped without one).
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1

printf '__kernel void add_k(__global const float *a, __global float *b, int n)\n{\n    int i = get_global_id(0);\n    if (i < n)\n        b[i] = a[i] * SCALE + 1.0f;\n}\n' >add.cl
if ! "$CLC" add.cl -D SCALE=3 -o zstd.clcpack -q 2>"$ERR"; then
    skip "no OpenCL device builds a pack here: $(head -1 "$ERR")"
    cli_done
fi
run "$CLC" add.cl -D SCALE=3 --codec zlib -o zlib.clcpack -q
expect_rc 0 "a zlib pack builds"

# A zstd pack (the default codec) for a resource: refused, naming the fix
# (tests/cli/golden/errors/embed_rc_zstd).
run "$CLC" embed zstd.clcpack -o app.rc
expect_rc 1 "embed -o FILE.rc refuses a zstd pack (the Windows library reads zlib only)"
[ ! -e app.rc ] && ok "nothing is written when refused" || bad "app.rc was written though refused"
run "$CLC" embed zstd.clcpack --format rc -o app.rc --loader-codecs zlib,zstd -q
expect_rc 0 "--loader-codecs zlib,zstd embeds it for a library built with zstd"
run "$CLC" embed zstd.clcpack -o app.c --loader-codecs zlib
expect_rc 1 "--loader-codecs zlib refuses a zstd pack in the C format too"
run "$CLC" embed zstd.clcpack -o app.c -q
expect_rc 0 "the C format assumes a library with zstd by default"
run "$CLC" embed zlib.clcpack -o app.c --loader-codecs zlib -q
expect_rc 0 "--loader-codecs zlib takes a zlib pack"
run "$CLC" embed zlib.clcpack -o app.c --loader-codecs zlib,lz4
expect_rc 2 "--loader-codecs with an unknown codec is a usage error"
run "$CLC" embed zlib.clcpack --format rc -o app.c
expect_rc 2 "--format rc with -o FILE.c is a usage error"

# The resource script and its header.
run "$CLC" embed zlib.clcpack -o add.rc --symbol add_pack --header add_pack.h
expect_rc 0 "embed --format rc by the name FILE.rc"
expect_err "RCDATA resource" "the summary says it is a resource"
grep -qx "add_pack RCDATA \"$TMP/zlib.clcpack\"" add.rc && ok "add.rc holds add_pack RCDATA \"<absolute path>\"" ||
    bad "add.rc is: $(grep -v '^[/ ]' add.rc | head -3)"
size=$(wc -c <zlib.clcpack | tr -d ' ')
grep -q "static const size_t add_pack_size = $size;" add_pack.h && ok "the header gives the pack's size" ||
    bad "the header gives no add_pack_size of $size"
grep -q 'static const char add_pack_resource\[\] = "add_pack";' add_pack.h &&
    ok "the header names the resource" || bad "the header names no add_pack_resource"
sha=$(sha256sum zlib.clcpack | cut -c1-8 | sed 's/\(..\)\(..\)\(..\)\(..\)/0x\1, 0x\2, 0x\3, 0x\4/')
grep -q "$sha" add_pack.h && ok "the header holds the pack's SHA-256" || bad "the header lacks the SHA-256 ($sha)"
printf '#include <stdio.h>\n#include "add_pack.h"\nint main(void) { printf("%%s %%zu %%d\\n", add_pack_resource, add_pack_size, add_pack_sha256[0]); return 0; }\n' >use.c
run cc -std=c11 -Wall -Wextra -Werror -c -o use.o use.c
expect_rc 0 "the rc header compiles warning-free as C"
printf '#include "add_pack.h"\n' >unused.c
run cc -std=c11 -Wall -Wextra -Werror -c -o unused.o unused.c
expect_rc 0 "an including file that uses none of it has no unused-variable warning"
if command -v c++ >/dev/null 2>&1; then
    run c++ -Wall -Wextra -Werror -x c++ -c -o use_cc.o use.c
    expect_rc 0 "the rc header compiles warning-free as C++"
else
    skip "no C++ compiler"
fi
if command -v x86_64-w64-mingw32-windres >/dev/null 2>&1; then
    run x86_64-w64-mingw32-windres add.rc -O coff -o add_rc.o
    expect_rc 0 "windres compiles the resource script"
else
    skip "no windres (binutils-mingw-w64-x86-64): the resource script is not compiled"
fi
run "$CLC" embed zlib.clcpack -o add.rc --symbol add_pack --header add_pack.h -q
expect_rc 0 "embed again"
[ "$(find add.rc add_pack.h -newer add_rc.o 2>/dev/null | wc -l)" -eq 0 ] || [ ! -e add_rc.o ] &&
    ok "an unchanged resource script and header are not rewritten" || bad "embed rewrote unchanged files"

# clcpack_open_resource on Linux: no resources, a message that says what to use.
printf '#include <stdio.h>\n#include "clcpack.h"\nint main(void) { clcpack *p = (clcpack *)1; clcpack_error e;\n  clcpack_status st = clcpack_open_resource(NULL, "add_pack", &p, &e);\n  printf("%%d %%d %%s\\n", (int)st, p == NULL, e.message); return 0; }\n' >res.c
run ${CC:-cc} -std=c11 ${CFLAGS:-} -I"$ROOT/loader/include" -o res res.c "$BUILD/libclcpack.a" $(make -s --no-print-directory -C "$ROOT" print-libs) ${LDFLAGS:-}
expect_rc 0 "a program calling clcpack_open_resource links on Linux"
run ./res
expect_out "1 1 resource add_pack: resources are a Windows feature" "clcpack_open_resource on Linux: CLCPACK_E_IO, out NULL, the message naming the resource"
expect_out "clcpack_open_memory" "the message says to use clcpack_open_memory"
cli_done
