#!/bin/sh
# The size of the load-only library in lines (docs/BENCH.md, "The loader's
# size"), as `make loader-lines` runs it:
#   loader_lines.sh CC CPPFLAGS SOURCE...
# counts each source and every header of the project it includes (the
# compiler's own dependency list, CC -MM with CPPFLAGS, so a header a part
# left out no longer includes is not counted), once each. Prints a line per
# file, "lines code path", then the totals: lines as wc -l counts them, and
# code lines (neither blank nor comment alone). System headers (OpenCL,
# zlib, zstd) are not the loader's and are not counted.
set -eu
cc=$1
flags=$2
shift 2
[ $# -gt 0 ] || { echo "loader_lines.sh: no sources" >&2; exit 2; }
list=$(mktemp)
trap 'rm -f "$list"' EXIT
for src in "$@"; do
    # shellcheck disable=SC2086
    $cc $flags -MM "$src" | tr ' \\' '\n\n' | grep -E '^loader/.*\.[ch]$' || {
        echo "loader_lines.sh: $cc -MM $src failed" >&2
        exit 1
    }
done | sort -u >"$list"
# Code lines: what is left of a line once its comments are taken out
# (strings and character constants kept whole) is not blank.
code_lines() {
    awk '
    {
        out = ""; i = 1; n = length($0)
        while (i <= n) {
            c = substr($0, i, 1); d = substr($0, i, 2)
            if (incomment) {
                if (d == "*/") { incomment = 0; i += 2 } else i++
                continue
            }
            if (d == "/*") { incomment = 1; i += 2; continue }
            if (d == "//") break
            if (c == "\"" || c == "\047") {
                q = c; out = out c; i++
                while (i <= n && substr($0, i, 1) != q) {
                    if (substr($0, i, 1) == "\\") { out = out substr($0, i, 2); i += 2; continue }
                    out = out substr($0, i, 1); i++
                }
                out = out q; i++
                continue
            }
            out = out c; i++
        }
        if (out ~ /[^[:space:]]/) code++
    }
    END { print code + 0 }' "$1"
}
total=0
total_code=0
while read -r f; do
    n=$(wc -l <"$f")
    k=$(code_lines "$f")
    printf '%6d %6d  %s\n' "$n" "$k" "$f"
    total=$((total + n))
    total_code=$((total_code + k))
done <"$list"
echo "$(wc -l <"$list") files: $total lines, $total_code code lines (neither blank nor comment alone)"
