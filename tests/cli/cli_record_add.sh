#!/bin/sh
# clc-pack record -o PACK adds to PACK when it exists (docs/RECORD.md,
# "Adding to a pack"): records of different programs, made one after the
# other and two at once (background processes), all end up in it, each
# entry listed by `clc-pack list`; recording a program again adds nothing,
# and one recorded with other exact options keeps the recorded entry;
# no lock file is left; a file there that is not a pack is refused before
# the application runs, and left as it was; --replace starts afresh. The
# summary counts distinct entries: a program built twice with the same
# bytes is one. tests/data/record/include_app.c builds one program (its
# options make it another); PoCL.
. "$(dirname "$0")/../lib/cli_lib.sh"

APP=$TMP/include_app
cc -O1 -DCL_TARGET_OPENCL_VERSION=120 -o "$APP" "$ROOT/tests/data/record/include_app.c" -lOpenCL &&
    ok "the application builds" || bad "building include_app"
printf '__kernel void fill(__global int *y) { y[get_global_id(0)] = V * (int)get_global_id(0); }\n' \
    >"$TMP/fill.cl"

# entries PACK: how many entries `clc-pack list` says PACK holds.
entries() {
    "$CLC" list "$1" | sed -n 's/.* \([0-9]*\) entr\(y\|ies\)$/\1/p'
}
# holds PACK V WHAT: PACK has the entry of the program built with -DV=V.
holds() {
    "$CLC" list --json "$1" >"$TMP/list.json"
    grep -qF -- "\"options\": \"-DV=$2\"" "$TMP/list.json" && ok "$3" || bad "$3: no -DV=$2 in $(cat "$TMP/list.json" | head -c 600)"
}

# One after the other.
run "$CLC" record -o "$TMP/seq.clcpack" -- "$APP" "$TMP/fill.cl" "-DV=1"
expect_rc 0 "first record"
expect_out "0 1 2 3 4 5 6 7" "first record: the application's output"
run "$CLC" record -o "$TMP/seq.clcpack" -- "$APP" "$TMP/fill.cl" "-DV=2"
expect_rc 0 "second record, another program, into the same pack"
expect_err "into $TMP/seq.clcpack: 1 entry, 1 new, 2 in the pack" "second record: added, says so"
[ "$(entries "$TMP/seq.clcpack")" = 2 ] && ok "both records' entries are in the pack" ||
    bad "entries after two records: $(entries "$TMP/seq.clcpack")"
holds "$TMP/seq.clcpack" 1 "the first program is still there"
holds "$TMP/seq.clcpack" 2 "the second program is there"
run "$CLC" record -o "$TMP/seq.clcpack" -- "$APP" "$TMP/fill.cl" "-DV=1"
expect_rc 0 "the first program recorded again"
expect_err "1 entry, 0 new, 2 in the pack" "recorded again: nothing new"
[ "$(entries "$TMP/seq.clcpack")" = 2 ] && ok "recorded again: still 2 entries" ||
    bad "recorded again: $(entries "$TMP/seq.clcpack") entries"
[ ! -e "$TMP/seq.clcpack.lock" ] && ok "no lock file left" || bad "a lock file is left"
run "$CLC" run --log "$TMP/seq.clcpack" -- "$APP" "$TMP/fill.cl" "-DV=2"
expect_err "served from the pack" "the added program is served"
expect_out "0 2 4 6 8 10 12 14" "served: the application's output"

# At once, three times: the two processes end together (each waits for the
# other's build before it exits), so their records write at the same time.
for round in 1 2 3; do
    pack=$TMP/par$round.clcpack
    rm -f "$TMP"/done-*
    for v in 3 4; do
        "$CLC" record -q -o "$pack" -- sh -c "'$APP' '$TMP/fill.cl' '-DV=$v' >/dev/null &&
            touch '$TMP/done-$v' && while [ ! -e '$TMP/done-3' ] || [ ! -e '$TMP/done-4' ]; do sleep 0.02; done" \
            >"$TMP/par-$v.out" 2>"$TMP/par-$v.err" &
        eval "pid$v=\$!"
    done
    wait "$pid3"
    rc3=$?
    wait "$pid4"
    rc4=$?
    [ "$rc3" -eq 0 ] && [ "$rc4" -eq 0 ] && ok "round $round: both records at once succeed" ||
        bad "round $round: exits $rc3 and $rc4: $(cat "$TMP/par-3.err" "$TMP/par-4.err")"
    [ "$(entries "$pack")" = 2 ] && ok "round $round: both records' entries are in the pack" ||
        bad "round $round: $(entries "$pack") entries after two records at once"
    holds "$pack" 3 "round $round: the first program is there"
    holds "$pack" 4 "round $round: the second program is there"
    [ ! -e "$pack.lock" ] && ok "round $round: no lock file left" || bad "round $round: a lock file is left"
done

# The same program (the same key: -I folders are left out of it) recorded
# with other exact options: the recorded entry stays.
mkdir -p "$TMP/inc-a" "$TMP/inc-b"
run "$CLC" record -o "$TMP/keep.clcpack" -- "$APP" "$TMP/fill.cl" "-I $TMP/inc-a -DV=7"
expect_rc 0 "record with -I inc-a"
run "$CLC" record -o "$TMP/keep.clcpack" -- "$APP" "$TMP/fill.cl" "-I $TMP/inc-b -DV=7"
expect_rc 0 "the same program recorded with -I inc-b"
expect_err "1 entry, 0 new, 1 in the pack; 1 already recorded there otherwise, the recorded kept" \
    "another record of an entry the pack holds: the recorded one kept, said"
"$CLC" list --json "$TMP/keep.clcpack" >"$TMP/list.json"
grep -qF -- "\"options\": \"-I $TMP/inc-a -DV=7\"" "$TMP/list.json" && ok "the recorded options stay" ||
    bad "the recorded entry was replaced: $(head -c 600 "$TMP/list.json")"

# What is there must be a pack: else refused, before the application runs.
printf 'not a pack' >"$TMP/junk.clcpack"
run "$CLC" record -o "$TMP/junk.clcpack" -- sh -c "touch '$TMP/ran'"
expect_rc 1 "record into a file that is not a pack"
expect_err "the record cannot be added to it (--replace writes a new pack there)" "says why, and the way out"
[ ! -e "$TMP/ran" ] && ok "the application did not run" || bad "the application ran"
[ "$(cat "$TMP/junk.clcpack")" = "not a pack" ] && ok "the file is left as it was" || bad "the file changed"

# --replace: a new pack.
run "$CLC" record --replace -o "$TMP/seq.clcpack" -- "$APP" "$TMP/fill.cl" "-DV=5"
expect_rc 0 "record --replace"
expect_err "into $TMP/seq.clcpack: 1 entry" "--replace: the summary"
if grep -q "in the pack" "$ERR"; then bad "--replace: said it added"; else ok "--replace: says nothing of adding"; fi
[ "$(entries "$TMP/seq.clcpack")" = 1 ] && ok "--replace: only the new record" ||
    bad "--replace: $(entries "$TMP/seq.clcpack") entries"
holds "$TMP/seq.clcpack" 5 "--replace: the new program"
run "$CLC" record --replace -o "$TMP/junk.clcpack" -- "$APP" "$TMP/fill.cl" "-DV=5"
expect_rc 0 "record --replace over a file that is not a pack"

# Distinct entries: two processes build the same program with the same
# bytes (PoCL's records are made canonical), one entry.
run "$CLC" record -o "$TMP/twice.clcpack" -- sh -c "'$APP' '$TMP/fill.cl' -DV=6 && '$APP' '$TMP/fill.cl' -DV=6"
expect_rc 0 "a program built twice"
expect_err "recorded 2 program builds (1 distinct program) into $TMP/twice.clcpack: 1 entry" \
    "the summary counts the entry once"
[ "$(entries "$TMP/twice.clcpack")" = 1 ] && ok "one entry in the pack" ||
    bad "$(entries "$TMP/twice.clcpack") entries"
cli_done
