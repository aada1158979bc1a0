#!/bin/sh
# Bad input to clc-pack: bad options and arguments of the subcommands,
# numbers that overflow, kernels folders that are missing or damaged, files
# that cannot be read, a pack path that is a folder, an output on a full
# disk. Each gives a non-zero exit and leaves every file that existed
# before byte for byte as it was (checked with checksums before and after);
# the messages are golden cases (tests/cli/golden/), but for those of the
# unreadable pack and the full disk, which need root.
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1
SEL1="--kernels $KERNELS --kernel Convolve_Def --no-check -q -j 1"
SEL="$SEL1 --wg 8x8"

run "$CLC" $SEL --widths 3 -o good.clcpack
expect_rc 0 "a valid pack to work on"
[ -f good.clcpack ] || cli_done
cp good.clcpack keep.clcpack
before=$(cksum good.clcpack keep.clcpack)
unchanged() {
    if [ "$(cksum good.clcpack keep.clcpack)" = "$before" ]; then ok "$1: existing files unchanged"; else bad "$1: an existing file changed"; fi
}

# fails RC WHAT ARGS...: exit RC, and every file as it was. What each
# prints is a golden case (tests/cli/golden/usage/, errors/, device/).
fails() {
    want=$1 what=$2
    shift 2
    run "$CLC" "$@"
    expect_rc "$want" "$what"
    unchanged "$what"
}

# Subcommands: unknown options, missing and extra arguments.
fails 2 "list --bogus" list good.clcpack --bogus
fails 2 "verify --frob" verify good.clcpack --frob
fails 2 "extract --nope" extract good.clcpack --nope -o x.bin
fails 2 "list without a pack" list
fails 2 "verify with an extra argument" verify good.clcpack extra
fails 2 "extract without -o" extract good.clcpack --entry 0
fails 2 "extract --entry x" extract good.clcpack --entry x -o x.bin
fails 2 "extract --entry -1" extract good.clcpack --entry -1 -o x.bin
fails 2 "extract --entry 99" extract good.clcpack --entry 99 -o x.bin
fails 2 "extract --kind weird" extract good.clcpack --entry 0 --kind weird -o x.bin

# Malformed lists and numbers that overflow.
fails 2 "--widths beyond 64 bits" $SEL --widths 99999999999999999999 -o good.clcpack
fails 2 "--widths beyond 32 bits" $SEL --widths 4294967299 -o good.clcpack
fails 2 "--wg 0x8" $SEL1 --widths 3 --wg 0x8 -o good.clcpack
fails 2 "--wg 8x8x" $SEL1 --widths 3 --wg 8x8x -o good.clcpack
fails 2 "-j abc" $SEL --widths 3 -j abc -o good.clcpack
fails 2 "-j 99999999999999999999" $SEL --widths 3 -j 99999999999999999999 -o good.clcpack
fails 2 "--widths 3-" $SEL --widths 3- -o good.clcpack
fails 2 "-D with an empty name" $SEL --widths 3 -D =5 -o good.clcpack

# Kernels folders: missing, without a manifest, with a manifest that is a
# folder, with a source file missing.
fails 1 "missing kernels folder" --kernels "$TMP/none" --kernel Convolve_Def --widths 3 -o good.clcpack
mkdir empty_kernels
fails 1 "kernels folder without a manifest" --kernels empty_kernels -o good.clcpack
mkdir -p dir_manifest/manifest.txt
fails 1 "a manifest that is a folder" --kernels dir_manifest -o good.clcpack
cp -r "$KERNELS" no_source
rm no_source/amd_convolve.cl
fails 1 "a kernel source file missing" --kernels no_source --kernel Convolve_Def --widths 3 --wg 8x8 -o good.clcpack

# Packs that are not packs, or not readable.
mkdir a_folder.clcpack
fails 1 "list of a folder" list a_folder.clcpack
fails 1 "verify of a folder" verify a_folder.clcpack
fails 1 "list of a missing file" list missing.clcpack
: >empty.clcpack
fails 1 "list of an empty file" list empty.clcpack
fails 1 "output below a file" $SEL --widths 3 -o good.clcpack/x.clcpack
fails 1 "output onto a folder" $SEL --widths 3 -o a_folder.clcpack
# As root every file is readable, so permissions are checked as nobody
# when setpriv can switch to it and nobody can run the built clc-pack.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 &&
    chmod 755 "$TMP" &&
    setpriv --reuid=65534 --regid=65534 --clear-groups "$CLC" --version >/dev/null 2>&1; then
    cp good.clcpack locked.clcpack
    chmod 000 locked.clcpack
    run setpriv --reuid=65534 --regid=65534 --clear-groups "$CLC" list "$TMP/locked.clcpack"
    expect_rc 1 "an unreadable pack (as nobody)"
    expect_err "Permission denied" "the message says permission denied"
    expect_err "locked.clcpack" "the message names the file"
else
    skip "not root, no setpriv, or nobody cannot run $CLC: the unreadable-file check"
fi

# A full disk: a 64 KiB tmpfs holding the previous pack and a filler, so
# the new pack does not fit. Needs root (mount); skipped with a note
# otherwise.
mkdir small
if mount -t tmpfs -o size=64k tmpfs small 2>/dev/null; then
    cp good.clcpack small/out.clcpack
    head -c 20000 /dev/zero >small/filler
    small_before=$(cksum small/out.clcpack small/filler)
    run "$CLC" $SEL --widths 3,5,7 -o small/out.clcpack
    expect_rc 1 "writing a pack on a full disk"
    expect_err "No space left on device" "the message says the disk is full"
    expect_err "small/out.clcpack" "the message names the pack"
    if [ "$(cksum small/out.clcpack small/filler)" = "$small_before" ]; then ok "full disk: the previous pack is unchanged"; else bad "full disk: the previous pack changed"; fi
    left=$(ls small | grep -c tmp)
    if [ "$left" -eq 0 ]; then ok "full disk: no temporary file left"; else bad "full disk: $left temporary files left"; fi
    run "$CLC" extract good.clcpack --entry 0 -o small/filler
    expect_rc 1 "extract onto a full disk"
    expect_err "No space left on device" "extract says the disk is full"
    if [ "$(cksum small/out.clcpack small/filler)" = "$small_before" ]; then ok "full disk: extract left the files unchanged"; else bad "full disk: extract changed a file"; fi
    left=$(ls small | grep -c tmp)
    if [ "$left" -eq 0 ]; then ok "full disk: extract left no temporary file"; else bad "full disk: extract left $left temporary files"; fi
    umount small
else
    skip "cannot mount a tmpfs (not root?): the full-disk checks"
fi
# /dev/full fails every write: extract to it through stdout.
run sh -c "\"$CLC\" extract good.clcpack --entry 0 -o - >/dev/full"
expect_rc 1 "extract to stdout on /dev/full"
expect_err "No space left on device" "the message says no space"
cli_done
