#!/bin/sh
# The documents a user copies from are run: every shell and C block of
# README.md, docs/ (less the measurements under docs/bench and docs/results)
# and the man pages' examples, in one scratch folder per document, unless an
# annotation makes it a file or a skip with its reason (docs/TUTORIAL.md,
# "Doc-tests", gives the syntax). A failing block is named FILE:LINE.
#   sh tests/cli/cli_doctest.sh BUILD [DOC...]     e.g. build docs/TUTORIAL.md
. "$(dirname "$0")/../lib/cli_lib.sh"
shift 2>/dev/null
if [ -n "${CLCPACK_IN_DOCTEST:-}" ]; then
    skip "run from a block of the doc-test itself"
    cli_done
fi
if ! command -v python3 >/dev/null 2>&1; then
    skip "python3 is not installed (it extracts the blocks)"
    cli_done
fi
if ! command -v cc >/dev/null 2>&1; then
    skip "no C compiler (cc) for the C blocks"
    cli_done
fi
# The documents name paths relative to the repository (docs/X.md).
cd "$ROOT" || exit 1
python3 "$ROOT/tests/doctest/run_docs.py" "$ROOT" "$BUILD" "$TMP" "$@"
