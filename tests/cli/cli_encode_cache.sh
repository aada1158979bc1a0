#!/bin/sh
# The encoder's results in the variant cache's folder (docs/CACHE.md, "The
# encoder's results"): a warm build into a new -o copies every dictionary
# and frame instead of compressing, and writes the cold build's bytes, at
# -j 1 and -j 2, as does a build with --no-cache; a damaged file (cut
# short, a flipped byte, another key's, a well-formed one whose frame is
# not the entry's) is refused with a line saying why, encoded again and
# stored, and the pack is the same; `cache clear` removes them. Every
# cache folder is this test's own.
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1
unset CLC_PACK_NO_CACHE CLC_PACK_CACHE_SIZE
export XDG_CACHE_HOME=$TMP/xdg-home

# Eight variants: enough bytes that their class gets a trained dictionary.
printf '__kernel void twice(__global float *a) { a[get_global_id(0)] *= F; }\n' >t.cl
SEL="t.cl -D F=1-8 --wg 32"

# blobs DIR: the encoder's files of cache DIR.
blobs() {
    ls "$1/variants/blobs" 2>/dev/null | grep -c '^[0-9a-f]\{64\}\.blob$'
}

# said WHAT: the count of WHAT ("copied", "encoded", ...) on -v's line.
said() {
    grep 'encoder cache: [0-9]' "$ERR" | grep -o "[0-9]* $1[,( ]" | cut -d' ' -f1
}

export CLC_PACK_CACHE_DIR=$TMP/c1
run "$CLC" $SEL -j 2 -v -o a.clcpack
expect_rc 0 "a cold build"
stored=$(said stored)
[ "$(said copied)" = 0 ] && [ "${stored:-0}" -gt 8 ] && [ "$(blobs c1)" = "$stored" ] &&
    ok "the cold build copies nothing and stores $stored results (frames, a dictionary)" ||
    bad "the cold build: copied '$(said copied)', stored '$stored', $(blobs c1) files"

for j in 2 1; do
    run "$CLC" $SEL -j $j -v -o warm$j.clcpack
    expect_rc 0 "a warm build into a new -o at -j $j"
    [ "$(said copied)" = "$stored" ] && [ "$(said encoded)" = 0 ] &&
        ok "-j $j copies all $stored results and encodes none" ||
        bad "-j $j: copied '$(said copied)', encoded '$(said encoded)'"
    expect_true "the warm pack at -j $j is the cold pack, byte for byte" cmp a.clcpack warm$j.clcpack
done

CLC_PACK_CACHE_DIR=$TMP/c-off run "$CLC" $SEL -j 2 --no-cache -v -o off.clcpack
expect_rc 0 "--no-cache"
expect_true "a build without the caches writes the same bytes" cmp a.clcpack off.clcpack
grep -q "encoder cache" "$ERR" && bad "--no-cache still used the encoder's store" ||
    ok "--no-cache uses no store"
[ ! -e c-off ] && ok "--no-cache makes no folder" || bad "--no-cache made $TMP/c-off"

CLC_PACK_CACHE_DIR=$TMP/c2 run "$CLC" $SEL -j 1 -o cold1.clcpack
expect_true "a cold build at -j 1 writes the same bytes" cmp a.clcpack cold1.clcpack

# Damage four files: the largest (the dictionary) cut short, one with a
# flipped byte, one holding another's bytes under its name, and one made
# well-formed (its head names its bytes) around another entry's frame,
# which only the library's decode check can refuse.
B=c1/variants/blobs
set -- $(ls -S "$B")
head -c 20 "$B/$1" >cut && mv cut "$B/$1"
python3 -c 'import sys; p=sys.argv[1]; d=bytearray(open(p,"rb").read()); d[-1]^=1; open(p,"wb").write(d)' "$B/$2"
cp "$B/$4" "$B/$3"
python3 -c '
import hashlib, sys
mine, other = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
body = other[72:]
open(sys.argv[1], "wb").write(mine[:40] + hashlib.sha256(body).digest() + body)' "$B/$5" "$B/$6"
run "$CLC" $SEL -j 2 -v -o d.clcpack
expect_rc 0 "a build over damaged files"
expect_true "it writes the cold pack all the same" cmp a.clcpack d.clcpack
[ "$(grep -c 'encoded here$' "$ERR")" = 4 ] && ok "four lines name a refused file" ||
    bad "$(grep -c 'encoded here$' "$ERR") lines name a refused file, not 4"
expect_err "dictionary 0: $TMP/$B/$1: shorter than its head; encoded here" "the cut dictionary: why"
expect_err "$TMP/$B/$2: its bytes' SHA-256 is not the one in its head; encoded here" "the flipped byte: why"
expect_err "$TMP/$B/$3: it holds another key (a file copied or renamed); encoded here" "another's file: why"
grep -F "encoded here" "$ERR" | grep -v "$B/" | grep -q . && ok "the frame that decodes to other bytes: refused by the library" ||
    bad "no line for the well-formed file of another frame"
[ "$(said refused)" = 4 ] && [ "$(said encoded)" = 4 ] && [ "$(said stored)" = 4 ] &&
    ok "the four are encoded again and stored" ||
    bad "refused '$(said refused)', encoded '$(said encoded)', stored '$(said stored)'"
run "$CLC" $SEL -j 2 -v -o d2.clcpack
[ "$(said copied)" = "$stored" ] && [ "$(said refused)" = 0 ] &&
    ok "the next build copies every result again" ||
    bad "after the repair: copied '$(said copied)', refused '$(said refused)'"
expect_true "and writes the same bytes" cmp a.clcpack d2.clcpack

run "$CLC" cache clear
expect_rc 0 "cache clear"
expect_out "removed $stored encoder results (" "clear removes the encoder's results too"
[ "$(blobs c1)" = 0 ] && ok "no result is left" || bad "after clear: $(ls "$B")"

cli_done
