#!/bin/sh
# --codec zlib|zstd (docs/CLI.md, docs/FORMAT.md): merge writes format 4
# with zstd and formats 1-3 with zlib; a pack goes zlib -> zstd -> zlib to
# the same bytes; both verify; list shows the zstd codecs and the
# dictionaries; a bad codec name is a usage error. No OpenCL device needed.
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1
REAL=$ROOT/tests/fuzz/corpus/pocl_conv_6.clcpack
DICT=$ROOT/tests/fuzz/corpus/zstd_dict.clcpack

# header_versions FILE: "format_version min_reader_version".
header_versions() {
    od -An -tu2 -j8 -N4 "$1" | awk '{print $1, $2}'
}

# A bad codec name (a usage error, nothing written) is the golden case
# tests/cli/golden/usage/codec_unknown.

run "$CLC" merge -q "$REAL" --codec zlib -o zlib.clcpack
expect_rc 0 "merge --codec zlib"
case $(header_versions zlib.clcpack) in
"1 1" | "2 1" | "3 1") ok "zlib: format 1 to 3, any reader ($(header_versions zlib.clcpack))" ;;
*) bad "zlib: header versions $(header_versions zlib.clcpack)" ;;
esac

run "$CLC" merge -q "$REAL" --codec zstd -o probe.clcpack
if [ "$RC" -ne 0 ]; then
    expect_rc 2 "a clc-pack without zstd refuses --codec zstd"
    expect_err "built without zstd" "and says why"
    skip "zstd packs: this clc-pack was built without zstd"
    cli_done
fi

run "$CLC" merge -q zlib.clcpack --codec zstd -o zstd.clcpack
expect_rc 0 "merge --codec zstd"
[ "$(header_versions zstd.clcpack)" = "5 4" ] && ok "zstd: format 5 (a lookup table), reader 4" ||
    bad "zstd: header versions $(header_versions zstd.clcpack)"
[ "$(wc -c <zstd.clcpack)" -lt "$(wc -c <zlib.clcpack)" ] &&
    ok "zstd: $(wc -c <zstd.clcpack) bytes against zlib's $(wc -c <zlib.clcpack)" ||
    bad "zstd pack not smaller: $(wc -c <zstd.clcpack) against $(wc -c <zlib.clcpack)"
run "$CLC" verify zstd.clcpack
expect_rc 0 "verify the zstd pack"
run "$CLC" list zstd.clcpack
expect_out "zstd" "list names zstd codecs"

# Same bytes both ways: zlib -> zstd -> zlib, and zstd written again.
run "$CLC" merge -q zstd.clcpack --codec zlib -o back.clcpack
expect_rc 0 "zstd back to zlib"
cmp -s back.clcpack zlib.clcpack && ok "zlib -> zstd -> zlib gives the same bytes" ||
    bad "the zlib pack made from the zstd one differs"
run "$CLC" merge -q back.clcpack -o again.clcpack
expect_rc 0 "merge with the default codec"
cmp -s again.clcpack zstd.clcpack && ok "the default codec is zstd, and it writes the same bytes again" ||
    bad "the default merge differs from --codec zstd"

# Dictionaries listed, text and JSON.
run "$CLC" list "$DICT"
expect_out "dictionaries:" "list has a dictionaries section"
expect_out "zstd-dict" "an entry coded with a dictionary"
run "$CLC" list --json "$DICT"
expect_out '"dictionaries": [' "list --json has dictionaries"
run "$CLC" merge -q "$DICT" --codec zlib -o dict_zlib.clcpack
expect_rc 0 "a pack with a dictionary rewritten with zlib"
n=$("$CLC" list --json dict_zlib.clcpack | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["dictionaries"]))')
[ "$n" = 0 ] && ok "and it has none" || bad "the zlib pack lists $n dictionaries"
n=$("$CLC" list --json "$DICT" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["dictionaries"]))')
[ "$n" -ge 1 ] && ok "the zstd seed lists $n dictionaries" || bad "the zstd seed lists $n dictionaries"
cli_done
