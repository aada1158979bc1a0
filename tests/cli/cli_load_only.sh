#!/bin/sh
# An application that only loads packs links no writer code (docs/API.md,
# "Linking"): a program that opens a pack, finds a key and makes its kernel,
# linked statically against libclcpack.a, holds no symbol defined by the
# objects of loader/write/ (the encoder, the codecs' write sides, the task
# pool) and no zstd dictionary trainer. The linker takes from an archive
# only the objects a program calls into, so this holds as long as read/ and
# load/ never call write/ (the layer rows, tests/cli/cli_layers.sh). Its size
# is printed for docs/ARCHITECTURE.md. No OpenCL device needed.
. "$(dirname "$0")/../lib/cli_lib.sh"

LIB=$BUILD/libclcpack.a
CC=${CC:-cc}
if [ ! -f "$LIB" ] || ! ls "$BUILD"/pic/loader/write/*.o >/dev/null 2>&1; then
    skip "no $LIB or objects of loader/write/ in $BUILD: build the library first (make all)"
    cli_done
fi
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
# shellcheck disable=SC2086
run "$CC" -std=c11 ${CFLAGS:-} -I"$BUILD/include" -o "$TMP/load_only" "$TMP/load_only.c" \
    ${LDFLAGS:-} "$LIB" $LIBS
expect_rc 0 "a load-only program links statically with libclcpack.a"
[ -x "$TMP/load_only" ] || cli_done
nm "$TMP/load_only" | awk '$2 ~ /^[TtDdBbRr]$/ { print $3 }' | sort -u >"$TMP/app_syms"
# The program does load: the reader's and the loader's code are in it.
for f in clcpack_open_file clcpack_find clcpack_create_kernel; do
    grep -qx "$f" "$TMP/app_syms" && ok "the program holds $f" || bad "the program lacks $f"
done
# Every function or object the writer's folder defines (its statics too).
nm --defined-only "$BUILD"/pic/loader/write/*.o | awk '$2 ~ /^[TtDdBbRr]$/ { print $3 }' |
    sed 's/\..*//' | sort -u >"$TMP/writer_syms"
[ "$(wc -l <"$TMP/writer_syms")" -ge 20 ] && ok "loader/write/ defines $(wc -l <"$TMP/writer_syms") symbols" ||
    bad "loader/write/ defines only $(wc -l <"$TMP/writer_syms") symbols: the check would check little"
sed 's/\..*//' "$TMP/app_syms" | sort -u | comm -12 - "$TMP/writer_syms" >"$TMP/linked"
[ ! -s "$TMP/linked" ] && ok "no symbol of loader/write/ is in the load-only program" ||
    bad "writer code linked into a load-only program: $(head -10 "$TMP/linked" | tr '\n' ' ')"
nm "$TMP/load_only" | grep -q 'ZDICT_trainFromBuffer' &&
    bad "the load-only program links ZDICT_trainFromBuffer (zstd's dictionary trainer)" ||
    ok "the load-only program does not link ZDICT_trainFromBuffer"
echo "load-only program: $(size "$TMP/load_only" | awk 'NR == 2 { print "text " $1 ", data " $2 ", bss " $3 " bytes" }')"
cli_done
