#!/bin/sh
# The files clc-pack reads and writes (docs/CLI.md, "Files"):
#  - an output path is written only as a regular file (replaced atomically)
#    or a new one: a symbolic link (even dangling), a device, a FIFO, a
#    folder or a read-only file is refused with a message naming it, and is
#    left as it was; "-o -" writes to stdout for extract and embed, and is a
#    usage error for pack and merge; new files get 0666 less the umask; no
#    temporary file is left behind;
#  - an input (a manifest, a pack) that is a FIFO or a device is refused at
#    once, never waited on (each run under a short timeout, so a broken
#    build fails the check instead of hanging the test);
#  - messages name a path once and cut a long argument, not the reason.
# What each refusal prints is a golden case (tests/cli/golden/errors/
# output_*, input_*, manifest_fifo, no_kernels_folder, merge_empty_input;
# usage/merge_stdout, embed_format_clash, widths_long_cut; device/
# input_fifo), but for those that need root (a device node, another
# user's file) and pack's -o onto a link.
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1
SEL="--kernels $KERNELS --kernel Convolve_Def --no-check -q -j 1 --wg 8x8"

# run_t CMD...: like run, killed after 20 s (exit 124: it hung).
run_t() {
    timeout 20 "$@" >"$OUT" 2>"$ERR"
    RC=$?
}

run "$CLC" $SEL --widths 3 -o good.clcpack
expect_rc 0 "a pack to work on"
[ -f good.clcpack ] || cli_done
run "$CLC" extract good.clcpack --entry 0 -o ref.bin
expect_rc 0 "extract to a new file"

no_temps() {
    left=$(find . -name '*.tmp.*' | wc -l)
    if [ "$left" -eq 0 ]; then ok "$1: no temporary file left"; else bad "$1: $left temporary files left"; fi
}

# --- Outputs -------------------------------------------------------------
echo "target text" >target.txt
ln -s target.txt link.bin
run "$CLC" extract good.clcpack --entry 0 -o link.bin
expect_rc 1 "extract -o onto a symbolic link"
expect_true "the link is still a link" test -L link.bin
expect_true "the file it points to is unchanged" grep -qx "target text" target.txt

ln -s nowhere.bin dangling.bin
run "$CLC" extract good.clcpack --entry 0 -o dangling.bin
expect_rc 1 "extract -o onto a dangling link"
expect_true "the dangling link is still a link" test -L dangling.bin
expect_true "nothing was created where it points" test ! -e nowhere.bin

mkfifo out.fifo
run_t "$CLC" extract good.clcpack --entry 0 -o out.fifo
expect_rc 1 "extract -o onto a FIFO"
expect_true "the FIFO is still a FIFO" test -p out.fifo

if [ "$(id -u)" = 0 ] && mknod null.dev c 1 3 2>/dev/null; then
    run "$CLC" extract good.clcpack --entry 0 -o null.dev
    expect_rc 1 "extract -o onto a character device (as root)"
    expect_err "'null.dev' is a device" "the message names the device"
    expect_err "-o - writes to stdout" "the message says how to write to stdout"
    expect_true "the device is still a device" test -c null.dev
    run "$CLC" $SEL --widths 3 -o null.dev
    expect_rc 1 "pack -o onto a character device (as root)"
    expect_true "the device is still a device after pack" test -c null.dev
else
    skip "not root (mknod): the device-output checks"
fi

mkdir folder.bin
run "$CLC" extract good.clcpack --entry 0 -o folder.bin
expect_rc 1 "extract -o onto a folder"

echo "keep me" >readonly.bin
chmod 444 readonly.bin
run "$CLC" extract good.clcpack --entry 0 -o readonly.bin
expect_rc 1 "extract -o onto a read-only file (refused even as root)"
expect_true "the read-only file is unchanged" grep -qx "keep me" readonly.bin
if [ "$(id -u)" = 0 ]; then
    cp good.clcpack theirs.clcpack
    chown 65534 theirs.clcpack && chmod 444 theirs.clcpack
    before=$(cksum <theirs.clcpack)
    run "$CLC" merge good.clcpack -o theirs.clcpack
    expect_rc 1 "merge -o onto another user's read-only file (as root)"
    expect_err "'theirs.clcpack' is read-only" "the message names it"
    if [ "$(cksum <theirs.clcpack)" = "$before" ]; then ok "their file is unchanged"; else bad "their file changed"; fi
fi

# Every subcommand with an output goes through the same check.
run "$CLC" merge good.clcpack -o link.bin
expect_rc 1 "merge -o onto a symbolic link"
run "$CLC" embed good.clcpack -o link.bin
expect_rc 1 "embed -o onto a symbolic link"
run "$CLC" embed good.clcpack -o pack.c --header link.bin
expect_rc 1 "embed --header onto a symbolic link"
expect_true "embed wrote nothing when its header cannot be written" test ! -e pack.c
run "$CLC" $SEL --widths 3 -o link.bin
expect_rc 1 "pack -o onto a symbolic link"
expect_err "symbolic link" "pack names the link"
expect_true "the link is still a link after pack and merge" test -L link.bin
expect_true "its target is unchanged" grep -qx "target text" target.txt

# "-" is stdout where that makes sense.
run "$CLC" extract good.clcpack --entry 0 -o -
expect_rc 0 "extract -o -"
expect_true "extract -o - writes the same bytes as to a file" cmp -s "$OUT" ref.bin
run "$CLC" embed good.clcpack --format c -o -
expect_rc 0 "embed -o -"
expect_out "const unsigned char embedded_pack[]" "embed -o - writes the C file to stdout"
run "$CLC" embed good.clcpack -o pack.c --header -
expect_rc 2 "embed --header - is a usage error"
run "$CLC" merge good.clcpack -o -
expect_rc 2 "merge -o - is a usage error"
run "$CLC" $SEL --widths 3 -o -
expect_rc 2 "pack -o - is a usage error"
expect_true "no file named '-' was made" test ! -e ./-

# New files: 0666 less the umask; a replaced file keeps its mode.
rm -f m1.bin m2.bin
(umask 027 && "$CLC" extract good.clcpack --entry 0 -q -o m1.bin)
mode=$(stat -c %a m1.bin)
if [ "$mode" = 640 ]; then ok "a new file under umask 027 is 640"; else bad "a new file under umask 027 is $mode"; fi
(umask 0 && "$CLC" extract good.clcpack --entry 0 -q -o m2.bin)
mode=$(stat -c %a m2.bin)
if [ "$mode" = 666 ]; then ok "a new file under umask 0 is 666"; else bad "a new file under umask 0 is $mode"; fi
chmod 600 m2.bin
(umask 0 && "$CLC" extract good.clcpack --entry 0 -q -o m2.bin)
mode=$(stat -c %a m2.bin)
if [ "$mode" = 600 ]; then ok "a replaced file keeps its mode 600"; else bad "a replaced 600 file became $mode"; fi
no_temps "after every write and refusal"

# --- Inputs: a FIFO or a device never blocks ------------------------------
mkfifo in.fifo
for sub in list verify tune-report warm; do
    run_t "$CLC" $sub in.fifo
    expect_rc 1 "$sub of a FIFO returns at once"
done
run_t "$CLC" extract in.fifo --entry 0 -o x.bin
expect_rc 1 "extract of a FIFO returns at once"
run_t "$CLC" merge good.clcpack in.fifo -o merged.clcpack
expect_rc 1 "merge of a FIFO returns at once"
run_t "$CLC" embed in.fifo -o x.c
expect_rc 1 "embed of a FIFO returns at once"
run_t "$CLC" best in.fifo --family conv-grey --width 3
expect_rc 1 "best of a FIFO returns at once"
run_t "$CLC" list /dev/zero
expect_rc 1 "list of a device returns at once"

mkdir fifo_kernels
cp "$KERNELS"/*.cl fifo_kernels/ 2>/dev/null
mkfifo fifo_kernels/manifest.txt
run_t "$CLC" --kernels fifo_kernels --widths 3 -o fifo.clcpack
expect_rc 1 "a FIFO as manifest.txt returns at once"
run_t "$CLC" verify good.clcpack --load --check --kernels fifo_kernels
expect_rc 1 "verify --check with a FIFO as manifest.txt returns at once"
expect_err "is a FIFO" "verify names it"

# --- embed: the format follows -o's name; every declared symbol is defined --
run "$CLC" embed good.clcpack -o named.c -q
expect_rc 0 "embed -o named.c without --format"
grep -q 'const unsigned char embedded_pack\[' named.c && ! grep -q '\.incbin' named.c &&
    ok "-o FILE.c writes C" || bad "-o FILE.c wrote: $(head -c 300 named.c)"
for ext in s S; do
    run "$CLC" embed good.clcpack -o "named.$ext" -q
    grep -q '\.incbin' "named.$ext" && ok "-o FILE.$ext writes assembler" ||
        bad "-o FILE.$ext wrote: $(head -c 300 "named.$ext")"
done
run "$CLC" embed good.clcpack --format asm -o clash.c
expect_rc 2 "embed --format asm -o FILE.c is a usage error"
expect_true "nothing was written" test ! -e clash.c
run "$CLC" embed good.clcpack --format c -o clash.S
expect_rc 2 "embed --format c -o FILE.S is a usage error"
run "$CLC" embed good.clcpack --format c -o pack.inc -q
expect_rc 0 "--format decides for a name of no known kind"
grep -q 'const unsigned char embedded_pack\[' pack.inc && ok "... C for --format c" || bad "pack.inc"

# A program that uses every symbol the header declares, for both formats:
# the pack opened in place, and the same pack as a file pinned to its digest.
cat >use_embed.c <<'CEOF'
#include <stdio.h>
#include <clcpack.h>
#include "pk.h"
int main(int argc, char **argv)
{
    clcpack *p;
    clcpack_error e;
    if (argc != 2 || clcpack_open_memory(pk, pk_size, &p, &e) != CLCPACK_OK)
        return fprintf(stderr, "memory: %s\n", argc == 2 ? e.message : "usage"), 1;
    size_t n = clcpack_entry_count(p);
    clcpack_close(p);
    if (clcpack_open_file_pinned(argv[1], pk_sha256, &p, &e) != CLCPACK_OK)
        return fprintf(stderr, "pinned: %s\n", e.message), 1;
    printf("entries %zu %zu\n", n, clcpack_entry_count(p));
    clcpack_close(p);
    return 0;
}
CEOF
# shellcheck disable=SC2046
LIBS=$(make -s -C "$ROOT" B="$BUILD" print-libs)
for fmt in asm c; do
    ext=S
    [ $fmt = c ] && ext=c
    run "$CLC" embed good.clcpack --format $fmt -o "pk_$fmt.$ext" --symbol pk --header pk.h -q
    expect_rc 0 "embed --format $fmt --header pk.h"
    # shellcheck disable=SC2086
    run ${CC:-cc} -std=c11 -Wall -Werror ${CFLAGS:-} -I"$BUILD/include" -I. -o "use_$fmt" use_embed.c \
        "pk_$fmt.$ext" "$BUILD/libclcpack.a" $LIBS ${LDFLAGS:-}
    expect_rc 0 "$fmt: a program using pk, pk_size and pk_sha256 links"
    run "./use_$fmt" good.clcpack
    expect_rc 0 "$fmt: it opens the embedded pack, and the file pinned to pk_sha256"
    expect_out "entries 1 1" "$fmt: both hold the pack's entry"
done

# --- Dependency files: the manifest, whatever blocks it holds ---------------
mkdir prog_only
printf '__kernel void twice(__global float *x) { x[get_global_id(0)] *= 2; }\n' >prog_only/twice.cl
printf 'program twice\n  source twice.cl\n  define K=1,2\nend\n' >prog_only/manifest.txt
run "$CLC" --kernels prog_only --no-check -q -j 1 -o prog.clcpack --depfile prog.d
expect_rc 0 "a pack from a manifest of program blocks only"
grep -q 'prog_only/twice.cl' prog.d && ok "its depfile lists the program's source" ||
    bad "depfile: $(cat prog.d)"
grep -q 'prog_only/manifest.txt' prog.d && ok "its depfile lists the manifest" ||
    bad "the depfile lacks the manifest: $(cat prog.d)"

# --- Messages: one path, whole reasons -----------------------------------
mkdir elsewhere
(cd elsewhere && timeout 20 "$CLC" --widths 3 -o x.clcpack) >"$OUT" 2>"$ERR"
RC=$?
expect_rc 1 "packing where there is no kernels folder"
if grep -q "kernels/kernels" "$ERR"; then bad "the folder is named twice"; else ok "the folder is named once"; fi

run "$CLC" $SEL --widths "$(seq -s, 1 200)"
expect_rc 2 "--widths with 200 values"
len=$(head -n 1 "$ERR" | wc -c)
if [ "$len" -lt 300 ]; then ok "the message is short ($len bytes)"; else bad "the message is $len bytes"; fi

: >empty.clcpack
for f in missing.clcpack empty.clcpack; do
    run "$CLC" list "$f"
    expect_rc 1 "list $f"
    n=$(head -n 1 "$ERR" | grep -o "$f" | wc -l)
    if [ "$n" -eq 1 ]; then ok "list $f names the file once"; else bad "list $f names the file $n times"; fi
done
run "$CLC" merge good.clcpack empty.clcpack -o merged.clcpack
expect_rc 1 "merge with an empty input"
n=$(head -n 1 "$ERR" | grep -o "empty.clcpack" | wc -l)
if [ "$n" -eq 1 ]; then ok "merge names the bad input once"; else bad "merge names it $n times"; fi
cli_done
