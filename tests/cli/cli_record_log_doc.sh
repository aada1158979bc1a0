#!/bin/sh
# The CLCPACK_LOG lines the interposer can print (every interposer_say of a
# program or link in preload/*.c) are the ones docs/RECORD.md lists in its
# CLCPACK_LOG row, and that row lists none the code cannot print (issue 37:
# hashcat's `compiled (...)` lines were missing).
. "$(dirname "$0")/../lib/cli_lib.sh"
row=$(grep '^| `CLCPACK_LOG=1`' "$ROOT/docs/RECORD.md")
[ -n "$row" ] && ok "RECORD.md has a CLCPACK_LOG row" || bad "RECORD.md: no CLCPACK_LOG row"
# The phrase after "program %p: " or "link %p: ", up to " (", ":", " in "
# or a format directive.
grep -ho 'interposer_say("\(program\|link\) %p: [^"]*' "$ROOT"/preload/*.c |
    sed 's/^interposer_say("[a-z]* %p: //; s/ (.*//; s/:.*//; s/ in .*//; s/%.*//; s/ *$//' |
    grep -v '^$' | sort -u >"$TMP/code"
[ -s "$TMP/code" ] && ok "$(wc -l <"$TMP/code") phrases found in preload/" ||
    bad "no interposer_say phrase found in preload/"
while read -r phrase; do
    case "$row" in
    *"\`$phrase"*) ok "documented: $phrase" ;;
    *) bad "CLCPACK_LOG prints '$phrase', docs/RECORD.md does not list it" ;;
    esac
done <"$TMP/code"
# The other way: each backticked phrase of the row (but the line prefixes
# and the capture count) begins with one the code prints.
printf '%s\n' "$row" | grep -o '`[a-z][^`]*`' | tr -d '`' | sed 's/ (.*//' |
    grep -v '^clcpack\|^cl[A-Z]\|^N of M' | sort -u >"$TMP/doc"
while read -r phrase; do
    grep -qx "$phrase" "$TMP/code" && ok "printed: $phrase" ||
        bad "docs/RECORD.md lists '$phrase', which CLCPACK_LOG never prints"
done <"$TMP/doc"
grep -q 'capture%s written' "$ROOT"/preload/*.c && ok "the capture count line exists" ||
    bad "docs list 'N of M captures written', the code has no such line"
cli_done
