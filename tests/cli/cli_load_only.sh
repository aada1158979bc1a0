#!/bin/sh
# An application that only loads packs links no writer code (loader/README.md,
# docs/API.md "Linking"), and the load-only library holds none:
#  - libclcpack_load.so.1 (make all) defines and exports no symbol of the
#    writer, and imports none of the codecs' write sides (nm -D
#    --defined-only / --undefined-only): no zstd compressor or dictionary
#    trainer (ZSTD_compress*, ZSTD_*CCtx*, ZSTD_*CDict*, ZDICT_*), no zlib or
#    libdeflate compressor (deflate*, compress*, libdeflate_*compress*, its
#    decompressor aside); libclcpack.so.1 imports them, so the check finds
#    them where they are;
#  - libclcpack_load.a holds no object of loader/write/;
#  - a program that opens a pack, finds a key and makes its kernel, linked
#    statically against libclcpack_load.a and against libclcpack.a, holds
#    no symbol defined by the objects of loader/write/ (the encoder, the
#    codecs' write sides, the task pool) and no zstd dictionary trainer (the
#    linker takes from an archive only the objects a program calls into, so
#    this holds for libclcpack.a too as long as read/ and load/ never call
#    write/: the layer rows, tests/cli/cli_layers.sh). The programs' sizes
#    are printed for docs/BENCH.md ("The loader's size").
# No OpenCL device needed; tests/cli/cli_load_app.sh runs such a program on
# PoCL.
. "$(dirname "$0")/../lib/cli_lib.sh"

LIB=$BUILD/libclcpack.a
LOAD_A=$BUILD/libclcpack_load.a
LOAD_SO=$BUILD/libclcpack_load.so.1
CC=${CC:-cc}
if [ ! -f "$LIB" ] || [ ! -f "$LOAD_A" ] || [ ! -f "$LOAD_SO" ] ||
    ! ls "$BUILD"/pic/loader/write/*.o >/dev/null 2>&1; then
    bad "no $LIB, $LOAD_A, $LOAD_SO or objects of loader/write/ in $BUILD: build the libraries first (make all)"
    cli_done
fi
# Every function or object the writer's folder defines (its statics too).
nm --defined-only "$BUILD"/pic/loader/write/*.o | awk '$2 ~ /^[TtDdBbRr]$/ { print $3 }' |
    sed 's/\..*//' | sort -u >"$TMP/writer_syms"
[ "$(wc -l <"$TMP/writer_syms")" -ge 20 ] && ok "loader/write/ defines $(wc -l <"$TMP/writer_syms") symbols" ||
    bad "loader/write/ defines only $(wc -l <"$TMP/writer_syms") symbols: the check would check little"
# The codecs' write sides, as nm prints an import (name, maybe @version).
WRITE_IMPORTS='^(ZSTD_compress|ZSTD_(create|free|init|size)C(Ctx|Dict|Stream)|ZSTD_CCtx|ZSTD_CDict|ZDICT_|deflate|compress|libdeflate_[a-z_]*compress)'
writer_imports() {
    nm -D --undefined-only "$1" | awk '{ print $NF }' | sed 's/@.*//' | grep -E "$WRITE_IMPORTS" |
        grep -v 'decompress'
}
writer_imports "$BUILD/libclcpack.so.1" >"$TMP/full_imports"
if grep -q 'ZDICT_trainFromBuffer' "$TMP/full_imports" || grep -qx 'compress2' "$TMP/full_imports"; then
    ok "libclcpack.so.1 imports the write sides ($(tr '\n' ' ' <"$TMP/full_imports")): the check finds them"
else
    bad "libclcpack.so.1 imports no write side of a codec: the check below would check nothing"
fi
writer_imports "$LOAD_SO" >"$TMP/load_imports"
[ ! -s "$TMP/load_imports" ] && ok "libclcpack_load.so.1 imports no codec's write side (nm -D --undefined-only)" ||
    bad "libclcpack_load.so.1 imports: $(tr '\n' ' ' <"$TMP/load_imports")"
nm -D --defined-only "$LOAD_SO" | awk 'NF == 3 { print $3 }' | sed 's/@.*//' | sort -u >"$TMP/load_defined"
[ "$(wc -l <"$TMP/load_defined")" -ge 20 ] && ok "libclcpack_load.so.1 exports $(wc -l <"$TMP/load_defined") symbols" ||
    bad "libclcpack_load.so.1 exports $(wc -l <"$TMP/load_defined") symbols"
grep -E '^clcpack_(writer_(new|free|add_|set_|write_)|compression_available|write_file_atomic|check_output_path|free)$' \
    "$TMP/load_defined" >"$TMP/load_writer_api"
[ ! -s "$TMP/load_writer_api" ] && ok "libclcpack_load.so.1 exports no function of clcpack_write.h (nm -D --defined-only)" ||
    bad "libclcpack_load.so.1 exports: $(tr '\n' ' ' <"$TMP/load_writer_api")"
# Nothing of loader/write/ inside it, exported or hidden (the symbol table).
nm --defined-only "$LOAD_SO" | awk '$2 ~ /^[TtDdBbRr]$/ { print $3 }' | sed 's/\..*//; s/@.*//' | sort -u |
    comm -12 - "$TMP/writer_syms" >"$TMP/load_has_writer"
[ ! -s "$TMP/load_has_writer" ] && ok "libclcpack_load.so.1 holds no symbol of loader/write/" ||
    bad "libclcpack_load.so.1 holds writer code: $(head -10 "$TMP/load_has_writer" | tr '\n' ' ')"
ar t "$LOAD_A" | grep -E '^(pack_write|pack_encode|pack_order|codec_write|codec_zstd_write|lookup_write|task_pool|write_files)\.o$' \
    >"$TMP/load_a_writer"
[ ! -s "$TMP/load_a_writer" ] && ok "libclcpack_load.a holds no object of loader/write/ ($(ar t "$LOAD_A" | wc -l) objects)" ||
    bad "libclcpack_load.a holds: $(tr '\n' ' ' <"$TMP/load_a_writer")"
cat >"$TMP/load_only.c" <<'EOC'
#include <stdio.h>
#include <string.h>
#include <clcpack.h>
int main(int argc, char **argv)
{
    clcpack *p = NULL;
    clcpack_error err;
    if (clcpack_open_file(argc > 1 ? argv[1] : "x.clcpack", &p, &err) != CLCPACK_OK) {
        printf("%s\n", err.message);
        return 1;
    }
    clcpack_key key;
    memset(&key, 0, sizeof key);
    key.kernel = argc > 2 ? argv[2] : "k";
    size_t idx[4], n = 0;
    clcpack_find(p, &key, idx, 4, &n, &err);
    printf("%zu entries, %zu found\n", clcpack_entry_count(p), n);
    if (argc > 3) {
        cl_program prog;
        cl_kernel k;
        clcpack_create_kernel(p, &key, NULL, NULL, NULL, &prog, &k, NULL, &err);
    }
    clcpack_close(p);
    return 0;
}
EOC
LIBS=$(make -s --no-print-directory -C "$ROOT" B="$BUILD" print-libs)
# linked NAME ARCHIVE: the program against ARCHIVE, checked.
linked() {
    # shellcheck disable=SC2086
    run "$CC" -std=c11 ${CFLAGS:-} -I"$BUILD/include" -o "$TMP/$1" "$TMP/load_only.c" \
        ${LDFLAGS:-} "$2" $LIBS
    expect_rc 0 "a load-only program links statically with $(basename "$2")"
    [ -x "$TMP/$1" ] || return 0
    nm "$TMP/$1" | awk '$2 ~ /^[TtDdBbRr]$/ { print $3 }' | sort -u >"$TMP/app_syms"
    # The program does load: the reader's and the loader's code are in it.
    for f in clcpack_open_file clcpack_find clcpack_create_kernel; do
        grep -qx "$f" "$TMP/app_syms" && ok "$1 holds $f" || bad "$1 lacks $f"
    done
    sed 's/\..*//' "$TMP/app_syms" | sort -u | comm -12 - "$TMP/writer_syms" >"$TMP/linked"
    [ ! -s "$TMP/linked" ] && ok "no symbol of loader/write/ is in $1" ||
        bad "writer code linked into $1: $(head -10 "$TMP/linked" | tr '\n' ' ')"
    nm "$TMP/$1" | grep -q 'ZDICT_trainFromBuffer' &&
        bad "$1 links ZDICT_trainFromBuffer (zstd's dictionary trainer)" ||
        ok "$1 does not link ZDICT_trainFromBuffer"
    echo "$1 ($(basename "$2")): $(size "$TMP/$1" | awk 'NR == 2 { print "text " $1 ", data " $2 ", bss " $3 " bytes" }')"
}
linked load_only "$LOAD_A"
linked load_only_full "$LIB"
cli_done
