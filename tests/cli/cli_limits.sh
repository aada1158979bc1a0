#!/bin/sh
# docs/LIMITS.md's table of every fixed capacity is the tree's
# (scripts/limits_table.py): a capacity added, removed or changed changes
# the document too. And the check can fail: a scratch copy of the document
# with a row taken out is refused, naming the command that remakes it.
. "$(dirname "$0")/../lib/cli_lib.sh"
run python3 "$ROOT/scripts/limits_table.py" --check "$ROOT/docs/LIMITS.md"
expect_rc 0 "docs/LIMITS.md lists the tree's fixed capacities"
grep -v '^| `EXPR_DEPTH_MAX`' "$ROOT/docs/LIMITS.md" >"$TMP/LIMITS.md"
run python3 "$ROOT/scripts/limits_table.py" --check "$TMP/LIMITS.md"
expect_rc 1 "a copy missing a row is refused"
expect_err "limits_table.py --write" "naming the command that remakes it"
cli_done
