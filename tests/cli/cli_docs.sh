#!/bin/sh
# The documentation matches the tool: every option docs/CLI.md and
# docs/MANIFEST.md mention (in `code` or a code block) is in the --help
# output of clc-pack or one of its subcommands, and every option a --help
# prints is documented in docs/CLI.md. Also `clc-pack help CMD` prints
# exactly `clc-pack CMD --help`; every path the tree's files name exists.
# No OpenCL device needed.
. "$(dirname "$0")/../lib/cli_lib.sh"

# The subcommands, from the command table (clc/cli/commands.h) main
# dispatches through: a new command is checked here without an edit.
SUBS=$(sed -n 's/^ *X([a-z_]*, "\([a-z-]*\)".*/\1/p' "$ROOT/clc/cli/commands.h" | grep -vx pack | tr '\n' ' ')
[ "$(echo $SUBS | wc -w)" -ge 11 ] && ok "the command table gives the subcommands: $SUBS" ||
    bad "the command table (clc/cli/commands.h) was not read: '$SUBS'"

# Documented names that are not options of clc-pack's --help: make's
# jobserver flags, flags of cc (-c, -MP) and python3 (-m) in examples, the
# benchmark first_enqueue's --size, the internal --worker and --load-worker
# modes, the manifest expressions' negation (-x), and the misspelt --widht
# and --check-command of the "did you mean" examples, and the flags of test and cut (-s, -d) in
# the example scripts.
ALLOW="--jobserver-auth --jobserver-fds -MP -c -m --size --worker --load-worker -x --widht --check-command -s -d"

# options FILE...: the options the text mentions, one per line, sorted.
# A long option is --name; a short one -X or -XY standing alone (so build
# options such as -DFILTER_WIDTH=5 or -cl-std=CL1.2 are not taken).
options() {
    sed -e 's/\\//g' "$@" | LC_ALL=C grep -oE '(^|[^A-Za-z0-9_-])--?[A-Za-z][A-Za-z0-9-]*' |
        sed -E 's/^[^-]+//' |
        LC_ALL=C grep -E '^--[a-z][a-z0-9-]+$|^-[A-Za-z]{1,2}$' | LC_ALL=C sort -u
}

# code_of FILE: the text inside `backticks` and fenced code blocks.
code_of() {
    awk '/^```/ { fence = !fence; next }
         fence { print; next }
         { line = $0
           while (match(line, /`[^`]*`/)) {
               print substr(line, RSTART + 1, RLENGTH - 2)
               line = substr(line, RSTART + RLENGTH)
           } }' "$1"
}

"$CLC" --help >"$TMP/help.txt" 2>&1
for s in $SUBS; do
    "$CLC" "$s" --help >>"$TMP/help.txt" 2>&1 || bad "clc-pack $s --help fails"
done
options "$TMP/help.txt" >"$TMP/help.opts"
[ "$(wc -l <"$TMP/help.opts")" -ge 30 ] && ok "--help texts name $(wc -l <"$TMP/help.opts") options" ||
    bad "too few options found in --help: $(tr '\n' ' ' <"$TMP/help.opts")"

for doc in CLI MANIFEST; do
    code_of "$ROOT/docs/$doc.md" >"$TMP/$doc.code"
    options "$TMP/$doc.code" >"$TMP/$doc.opts"
    for o in $(cat "$TMP/$doc.opts"); do
        case " $ALLOW " in *" $o "*) continue ;; esac
        grep -qxF -- "$o" "$TMP/help.opts" && ok "docs/$doc.md: $o is in --help" ||
            bad "docs/$doc.md mentions $o, which no --help of clc-pack lists"
    done
done
for o in $(cat "$TMP/help.opts"); do
    grep -qxF -- "$o" "$TMP/CLI.opts" && ok "--help's $o is in docs/CLI.md" ||
        bad "--help lists $o, which docs/CLI.md does not document"
done
# The allow-list stays small and each of its names is still used.
for o in $ALLOW; do
    cat "$TMP/CLI.opts" "$TMP/MANIFEST.opts" | grep -qxF -- "$o" && ok "allow-listed $o is still mentioned" ||
        bad "allow-listed $o is no longer in the docs: drop it from ALLOW"
done

# help CMD = CMD --help.
for s in pack $SUBS; do
    run "$CLC" help "$s"
    cp "$OUT" "$TMP/a"
    expect_rc 0 "clc-pack help $s"
    run "$CLC" "$s" --help
    cmp -s "$TMP/a" "$OUT" && ok "help $s prints $s --help" || bad "help $s differs from $s --help"
done
run "$CLC" help
expect_rc 0 "clc-pack help"
run "$CLC" --help
cp "$OUT" "$TMP/a"
run "$CLC" help
cmp -s "$TMP/a" "$OUT" && ok "help alone prints the main usage (--help)" || bad "help differs from --help"
run "$CLC" help nosuch
expect_rc 2 "help of an unknown command"
expect_err "unknown command 'nosuch'" "names it"
# docs/ARCHITECTURE.md is the map: every source file of the tool, the
# library, the shared layer, the interposer and the formats is named there.
unnamed=$(cd "$ROOT" && for f in clc/*/*.[ch] loader/*.[ch] loader/*/*.[ch] preload/*.[ch] preload/*/*.[ch] formats/*.[ch]; do
    [ -f "$f" ] || continue
    b=${f##*/}
    grep -qF "${b%.*}" docs/ARCHITECTURE.md || echo "$f"
done)
if [ -z "$unnamed" ]; then ok "docs/ARCHITECTURE.md names every source file"
else bad "docs/ARCHITECTURE.md does not name: $(echo $unnamed)"; fi

# Every path a document, a comment or a test names exists (tests/lib/dead_paths.py).
if dead=$(python3 "$ROOT/tests/lib/dead_paths.py" "$ROOT"); then
    ok "every path the docs, comments and tests name exists"
else
    bad "paths named that do not exist: $(echo $dead)"
fi
# ... and the check finds one: a scratch copy of the tree's docs with a
# path that does not exist, a moved file's old one.
mkdir -p "$TMP/scratch/docs" "$TMP/scratch/clc/tune"
cp "$ROOT/docs/TUNING.md" "$TMP/scratch/docs/"
: >"$TMP/scratch/clc/tune/tune_measure.c"
echo 'The median is taken in `clc/tune/tune_results.c` and clc/tune/tune_measure.c.' >>"$TMP/scratch/docs/TUNING.md"
if dead=$(python3 "$ROOT/tests/lib/dead_paths.py" "$TMP/scratch" 2>&1); then
    bad "a dead path in a scratch copy was not found"
else
    case $dead in
    *"docs/TUNING.md:"*": clc/tune/tune_results.c"*) ok "a dead path in a scratch copy is found, with its file and line" ;;
    *) bad "the scratch copy's dead path was not named: $dead" ;;
    esac
    case $dead in *": clc/tune/tune_measure.c"*) bad "a path that exists was called dead" ;; esac
fi

cli_done
