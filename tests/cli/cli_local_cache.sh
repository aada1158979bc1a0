#!/bin/sh
# The variant cache on this machine's disk (docs/CACHE.md, "The variant
# cache"): a build into a new -o with a warm cache builds nothing and
# writes the cold build's bytes (and a build without the cache's); two runs
# at once share a folder and leave whole entries; damaged entries (a
# flipped bit, an empty file, another variant's entry) are refused, removed
# and rebuilt, entries that lie too (a cut binary, changed bitcode); the
# bound evicts the least recently used; --no-cache and
# CLC_PACK_NO_CACHE; the folder's rule; `clc-pack cache stats|clear`.
# Every cache folder is this test's own.
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1
unset CLC_PACK_NO_CACHE CLC_PACK_CACHE_SIZE
# The workers' own folder (PoCL's kernel cache, when the cache is off) is
# the test's too: what other runs left in the user's would not be this
# test's inputs.
export XDG_CACHE_HOME=$TMP/xdg-home

printf '__kernel void twice(__global float *a) { a[get_global_id(0)] *= F; }\n' >t.cl
SEL="t.cl -D F=1,2 --wg 32,64 -j 2"
ONE="t.cl -D F=1 --wg 32 -j 1"

# entries DIR: the number of entries of cache DIR.
entries() {
    ls "$1/variants" 2>/dev/null | grep -c '^[0-9a-f]\{64\}\.rec$'
}

# The cold build, then the same into a new -o from the warm cache.
export CLC_PACK_CACHE_DIR=$TMP/c1
run "$CLC" $SEL -o a.clcpack
expect_rc 0 "a cold build with the cache"
expect_out "variants  4 built, 0 failed, of 4" "builds every variant"
expect_out "local     0 hits, 4 misses, 4 stored, 0 rejected ($TMP/c1/variants," "and stores each"
[ "$(entries c1)" = 4 ] && ok "the folder holds 4 entries" || bad "the folder holds $(entries c1) entries, not 4"
run "$CLC" $SEL -v -o b.clcpack
expect_rc 0 "a warm build into a new -o"
expect_out "variants  0 built, 0 failed, 4 from the local cache, of 4" "builds nothing"
expect_out "local     4 hits, 0 misses, 0 stored, 0 rejected" "finds every variant"
expect_err "took t F=1 wg=32 from the local cache, checked in" "-v names what it took"
expect_true "the warm pack is the cold pack, byte for byte" cmp a.clcpack b.clcpack

# Off: --no-cache, CLC_PACK_NO_CACHE=1 (or CLCPACK_NO_CACHE=1). Nothing read,
# nothing written.
CLC_PACK_CACHE_DIR=$TMP/c-off run "$CLC" $SEL --no-cache -o n.clcpack
expect_rc 0 "--no-cache"
expect_out "variants  4 built" "--no-cache builds every variant"
expect_no_out "local " "--no-cache: no local line"
[ ! -e c-off ] && ok "--no-cache makes no folder" || bad "--no-cache made $TMP/c-off"
expect_true "a build without the cache writes the same bytes" cmp a.clcpack n.clcpack
CLC_PACK_NO_CACHE=1 run "$CLC" $ONE -o e.clcpack
expect_out "variants  1 built" "CLC_PACK_NO_CACHE=1 builds though the variant is cached"
expect_no_out "local " "CLC_PACK_NO_CACHE=1: no local line"
CLCPACK_NO_CACHE=1 run "$CLC" $ONE -o e2.clcpack
expect_out "variants  1 built" "CLCPACK_NO_CACHE=1, the library's spelling, does the same"
expect_no_out "local " "CLCPACK_NO_CACHE=1: no local line"

# Two runs at once, sharing an empty folder: both succeed, with the same
# bytes; every entry is whole (a third run takes all four, refusing none)
# and no temporary file is left.
export CLC_PACK_CACHE_DIR=$TMP/c2
"$CLC" $SEL -o p1.clcpack >p1.out 2>p1.err &
pid1=$!
"$CLC" $SEL -o p2.clcpack >p2.out 2>p2.err &
pid2=$!
wait $pid1
rc1=$?
wait $pid2
rc2=$?
[ $rc1 = 0 ] && [ $rc2 = 0 ] && ok "two runs at once on one folder both succeed" ||
    bad "two runs at once: exit $rc1 and $rc2: $(cat p1.err p2.err | head -n 5)"
expect_true "the first writes the cold pack" cmp a.clcpack p1.clcpack
expect_true "the second too" cmp a.clcpack p2.clcpack
[ "$(entries c2)" = 4 ] && ok "they leave 4 entries" || bad "they leave $(entries c2) entries"
[ -z "$(ls c2/variants | grep -v '^[0-9a-f]\{64\}\.rec$' | grep -vx counts | grep -vx blobs)" ] &&
    ok "and nothing else (no temporary file)" || bad "left behind: $(ls c2/variants)"
[ -z "$(find c2/variants -name '*.rec' -size 0)" ] && ok "no entry is empty" || bad "empty entries"
run "$CLC" $SEL -o p3.clcpack
expect_out "local     4 hits, 0 misses, 0 stored, 0 rejected" "every entry they wrote is whole"

# cache stats and clear, on that folder: 4 entries, their bytes, and the
# counts of the three runs (12 lookups; the first two may have found what
# the other stored).
run "$CLC" cache stats
expect_rc 0 "cache stats"
expect_out "location  $TMP/c2/variants (from CLC_PACK_CACHE_DIR)" "stats names the folder"
expect_out "entries   4" "stats counts the entries"
bytes=$(cat c2/variants/*.rec | wc -c | tr -d ' ')
expect_out "($bytes bytes)" "stats sums their bytes"
expect_out "bound     1.0 GiB (1073741824 bytes), the default" "stats gives the default bound"
hits=$(sed -n 's/^hits *//p' "$OUT")
misses=$(sed -n 's/^misses *//p' "$OUT")
[ $((hits + misses)) = 12 ] && [ "$hits" -ge 4 ] && ok "stats counts $hits hits and $misses misses over 3 runs" ||
    bad "stats counts hits '$hits', misses '$misses'"
CLC_PACK_CACHE_SIZE=512M run "$CLC" cache stats
expect_out "bound     512.0 MiB (536870912 bytes), CLC_PACK_CACHE_SIZE" "CLC_PACK_CACHE_SIZE sets the bound"
run "$CLC" cache clear
expect_rc 0 "cache clear"
expect_out "removed 4 entries (" "clear says what it removed"
[ "$(entries c2)" = 0 ] && [ ! -e c2/variants/counts ] && ok "clear leaves no entry and no counts" ||
    bad "after clear: $(ls c2/variants)"
run "$CLC" cache stats
expect_out "entries   0" "stats after clear: no entry"
expect_out "hits      0" "stats after clear: no hit"
run "$CLC" $ONE -o cl.clcpack
expect_out "variants  1 built" "after clear the variant is built again"

# Damage: each is refused with one line, removed, rebuilt, stored again,
# and the pack is the cold one.
export CLC_PACK_CACHE_DIR=$TMP/c1
set -- c1/variants/*.rec
python3 -c 'import sys; p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[len(b) // 2] ^= 1; open(p, "wb").write(b)' "$1"
run "$CLC" $SEL -o d.clcpack
expect_rc 0 "a damaged entry does not fail the build"
expect_err "SHA-256 is not the one in the entry's head; built here" "a flipped bit is caught by the SHA-256"
[ "$(grep -c 'local cache:' "$ERR")" = 1 ] && ok "in one line" || bad "$(grep -c 'local cache:' "$ERR") lines about it"
expect_out "variants  1 built" "the damaged variant is built"
expect_out "local     3 hits, 0 misses, 1 stored, 1 rejected" "the summary counts it"
expect_true "the pack is the cold one" cmp a.clcpack d.clcpack
: >"$2"
run "$CLC" $SEL -o d2.clcpack
expect_err "the entry has 0 bytes; built here" "an empty entry is refused"
expect_true "the pack is the cold one" cmp a.clcpack d2.clcpack
cp "$3" "$4"
run "$CLC" $SEL -o d3.clcpack
expect_err "built for another variant (its key text differs); built here" "another variant's entry is refused by its key text"
expect_true "the pack is the cold one" cmp a.clcpack d3.clcpack
run "$CLC" $SEL -o d4.clcpack
expect_out "local     4 hits, 0 misses, 0 stored, 0 rejected" "what was rebuilt serves the next run"

# Entries that lie (tests/remote_cache/lie.py --local): their SHA-256 and
# CRC-32 right, their binaries cut, or their LLVM bitcode changed. Both are
# refused before the driver sees them (program.bc must parse: PoCL can load
# a binary with its work-group functions without reading it), stored
# again, and the pack is the cold one.
set -- c1/variants/*.rec
python3 "$ROOT/tests/remote_cache/lie.py" --local "$1" cut
run "$CLC" $SEL -o l1.clcpack
expect_rc 0 "a cut binary in an entry does not fail the build"
expect_err "is not the canonical form a build of it makes" "it is refused before the driver sees it"
expect_out "1 stored, 1 rejected" "and stored again"
expect_true "the pack is the cold one (cut)" cmp a.clcpack l1.clcpack
python3 "$ROOT/tests/remote_cache/lie.py" --local "$2" bitcode
run "$CLC" $SEL -o l2.clcpack
expect_rc 0 "changed bitcode in an entry does not fail the build"
expect_err "program.bc is not LLVM bitcode that parses" "it is refused before the driver sees it"
expect_out "1 stored, 1 rejected" "and stored again"
expect_true "the pack is the cold one (bitcode)" cmp a.clcpack l2.clcpack
run "$CLC" $SEL -o l3.clcpack
expect_out "local     4 hits, 0 misses, 0 stored, 0 rejected" "what the fresh worker stored serves the next run"

# The bound: entries last used 5, 4, 3 and 2 days ago; a run takes the
# oldest (its use is now) under a bound that holds two entries: it and the
# most recently used of the others stay, the two others go.
CLC_PACK_CACHE_DIR=$TMP/c-one run "$CLC" $ONE -o one.clcpack
hit=$(ls c-one/variants | grep '\.rec$')
[ -f "c1/variants/$hit" ] && ok "one variant's entry has one name in every folder (the key)" ||
    bad "$hit is not in c1"
others=$(ls c1/variants | grep '\.rec$' | grep -vx "$hit")
touch -d '5 days ago' "c1/variants/$hit"
age=4
for f in $others; do
    touch -d "$age days ago" "c1/variants/$f"
    newest=$f
    age=$((age - 1))
done
bound=$(($(wc -c <"c1/variants/$hit") + $(wc -c <"c1/variants/$newest")))
CLC_PACK_CACHE_SIZE=$bound run "$CLC" $ONE -o lru.clcpack
expect_out "local     1 hits, 0 misses" "the oldest entry is taken"
left=$(ls c1/variants | grep '\.rec$' | sort | tr '\n' ' ')
want=$(printf '%s\n%s\n' "$hit" "$newest" | sort | tr '\n' ' ')
[ "$left" = "$want" ] && ok "the bound keeps the two most recently used entries" ||
    bad "the bound left '$left', not '$want'"
run "$CLC" $SEL -o lru2.clcpack
expect_out "local     2 hits, 2 misses, 2 stored" "the evicted variants are built again"
CLC_PACK_CACHE_SIZE=lots run "$CLC" $ONE -o x.clcpack
expect_rc 2 "a CLC_PACK_CACHE_SIZE that is not a size"

# The folder's rule: CLC_PACK_CACHE_DIR, else XDG_CACHE_HOME, else HOME;
# a folder that cannot be made costs the cache, not the build.
unset CLC_PACK_CACHE_DIR
XDG_CACHE_HOME=$TMP/xdg run "$CLC" $ONE -o x1.clcpack
[ "$(entries xdg/clc-pack)" = 1 ] && ok "without CLC_PACK_CACHE_DIR: \$XDG_CACHE_HOME/clc-pack" ||
    bad "nothing in $TMP/xdg/clc-pack/variants"
(unset XDG_CACHE_HOME; HOME=$TMP/home run "$CLC" cache stats; cat "$OUT" >home.out)
grep -qF "location  $TMP/home/.cache/clc-pack/variants (from HOME)" home.out &&
    ok "without XDG_CACHE_HOME: \$HOME/.cache/clc-pack" || bad "stats says $(head -n 1 home.out)"
: >afile
CLC_PACK_CACHE_DIR=$TMP/afile run "$CLC" $ONE -o x2.clcpack
expect_rc 0 "a cache folder that cannot be made"
expect_err "variant cache: cannot use $TMP/afile/variants" "is one note"
expect_out "variants  1 built" "and the variant is built"
run "$CLC" cache
expect_rc 2 "cache without stats or clear"
run "$CLC" cache tidy
expect_rc 2 "cache tidy"

cli_done
