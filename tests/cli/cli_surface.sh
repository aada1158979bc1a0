#!/bin/sh
# The tool's surface follows its option tables: every option of every
# command's table (clc/cli/*.c, read from the C source by
# tests/lib/table_opts.awk) is in that command's --help, in docs/CLI.md, in
# man/clc-pack.1 and offered by the bash completion for that command; and
# the completion offers .cl files to pack. Adding an option to a table
# without its help, docs and completion fails here. No OpenCL device needed.
. "$(dirname "$0")/../lib/cli_lib.sh"

# Tables of internal modes, not a user's surface: the load worker (--load-worker).
INTERNAL="load-worker"

awk -f "$ROOT/tests/lib/table_opts.awk" "$ROOT"/clc/cli/*.c | LC_ALL=C sort -u >"$TMP/all"
grep -v -E "^($(echo $INTERNAL | tr ' ' '|')) " "$TMP/all" >"$TMP/table"
n_cmd=$(cut -d' ' -f1 "$TMP/table" | sort -u | wc -l)
n_opt=$(wc -l <"$TMP/table")
[ "$n_cmd" -ge 12 ] && [ "$n_opt" -ge 100 ] && ok "the tables give $n_opt options of $n_cmd commands" ||
    bad "the option tables were not read: $n_opt options of $n_cmd commands"

# has FILE OPTION: FILE names OPTION as a word of its own.
has() {
    grep -qE -- "(^|[^A-Za-z0-9-])$2([^A-Za-z0-9-]|$)" "$1"
}

sed 's/\\-/-/g' "$ROOT/man/clc-pack.1" >"$TMP/man"
if command -v bash >/dev/null 2>&1; then
    HAVE_BASH=1
else
    HAVE_BASH=
    skip "bash is not installed: the completion is not checked"
fi
# offered CMD WORD...: what the completion offers after "clc-pack WORD...",
# one per line (the last WORD is the one being completed).
offered() {
    bash -c '. "$1"; shift; COMP_WORDS=(clc-pack "$@"); COMP_CWORD=$#
             _clc_pack; printf "%s\n" "${COMPREPLY[@]}"' sh "$ROOT/completions/clc-pack" "$@"
}

for cmd in $(cut -d' ' -f1 "$TMP/table" | sort -u); do
    if [ "$cmd" = pack ]; then
        "$CLC" --help >"$TMP/help" 2>&1
        [ -n "$HAVE_BASH" ] && offered - >"$TMP/comp"
    else
        "$CLC" "$cmd" --help >"$TMP/help" 2>&1
        [ -n "$HAVE_BASH" ] && offered "$cmd" - >"$TMP/comp"
    fi
    for o in $(awk -v c="$cmd" '$1 == c { print $2 }' "$TMP/table"); do
        has "$TMP/help" "$o" && ok "$cmd $o: in --help" || bad "$cmd $o: not in clc-pack $cmd --help"
        has "$ROOT/docs/CLI.md" "$o" && ok "$cmd $o: in docs/CLI.md" || bad "$cmd $o: not in docs/CLI.md"
        has "$TMP/man" "$o" && ok "$cmd $o: in the man page" || bad "$cmd $o: not in man/clc-pack.1"
        [ -z "$HAVE_BASH" ] && continue
        grep -qxF -- "$o" "$TMP/comp" && ok "$cmd $o: completed" ||
            bad "$cmd $o: not offered by completions/clc-pack for $cmd"
    done
done

# The completion's command words are the command table's names (clc/cli/
# commands.h) and help; the unknown-command message names them all.
sed -n 's/^ *X([a-z_]*, "\([a-z-]*\)".*/\1/p' "$ROOT/clc/cli/commands.h" >"$TMP/cmds"
[ "$(wc -l <"$TMP/cmds")" -ge 12 ] && ok "the command table gives $(wc -l <"$TMP/cmds") commands" ||
    bad "the command table (clc/cli/commands.h) was not read"
(cat "$TMP/cmds" && echo help) | LC_ALL=C sort >"$TMP/cmds.want"
sed -n 's/^ *local cmds="\(.*\)"$/\1/p' "$ROOT/completions/clc-pack" | tr ' ' '\n' | LC_ALL=C sort >"$TMP/cmds.got"
cmp -s "$TMP/cmds.want" "$TMP/cmds.got" && ok "the completion offers the table's commands" ||
    bad "completions/clc-pack's commands differ from the table: $(diff "$TMP/cmds.want" "$TMP/cmds.got" | grep '^[<>]' | tr '\n' ' ')"
"$CLC" frobnicate >/dev/null 2>"$TMP/unknown"
for c in $(cat "$TMP/cmds"); do
    grep -qE -- "[ ,]$c[,)]" "$TMP/unknown" && ok "the unknown-command message names $c" ||
        bad "the unknown-command message does not name $c: $(cat "$TMP/unknown")"
done

# Source files to pack: .cl files are offered, first word or later, not
# other files.
if [ -n "$HAVE_BASH" ]; then
    mkdir -p "$TMP/w/sub" && cd "$TMP/w" && : >sobel.cl && : >notes.txt
    offered "" >"$TMP/comp"
    grep -qxF sobel.cl "$TMP/comp" && ok "a .cl file is offered as the first word" ||
        bad "no .cl file offered as the first word"
    grep -qxF list "$TMP/comp" && ok "the subcommands are offered as the first word" ||
        bad "no subcommand offered as the first word"
    offered sobel.cl -o x.clcpack "" >"$TMP/comp"
    grep -qxF sobel.cl "$TMP/comp" && ok "a .cl file is offered after options" ||
        bad "no .cl file offered after options"
    grep -qxF notes.txt "$TMP/comp" && bad "a .txt file is offered as a source" ||
        ok "other files are not offered as sources"
    offered sobel.cl -I "" >"$TMP/comp"
    grep -qxF sub "$TMP/comp" && ! grep -qxF sobel.cl "$TMP/comp" && ok "-I completes folders" ||
        bad "-I does not complete folders"
fi
cli_done
