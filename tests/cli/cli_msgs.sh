#!/bin/sh
# The messages of the direct mode that used to point at the wrong thing
# (issue 41: a value list split at a blank, a range given to --wg, an
# option spelt out in full, a list past its limit) are golden cases
# (tests/cli/golden/usage/direct_*.sh). What stays here: the limit of a -D
# list that docs/CLI.md states is the one the tool holds to.
. "$(dirname "$0")/../lib/cli_lib.sh"

grep -q 'holds at most 65,536 (`DEFINE_VALUE_VALUES_MAX`)' "$ROOT/docs/CLI.md" &&
    grep -q 'define DEFINE_VALUE_VALUES_MAX 65536 ' "$ROOT/clc/program/define_value.h" &&
    ok "docs/CLI.md states the -D limit of define_value.h, 65,536" ||
    bad "docs/CLI.md and define_value.h disagree on the -D limit"
# The golden case refuses one more than that limit.
grep -q -- '-D TAPS=1-65537$' "$ROOT/tests/cli/golden/usage/direct_define_too_many.sh" &&
    grep -q "gives 65537 values; a list holds at most 65536" "$ROOT/tests/cli/golden/usage/direct_define_too_many.err" &&
    ok "the golden case refuses 65,537 values" ||
    bad "tests/cli/golden/usage/direct_define_too_many no longer refuses one past the limit"

cli_done
