#!/bin/sh
# The README's walk from a kernel to a program is run as written: its
# `doctest: file` blocks (blur.cl, app.c) are written out, its unannotated
# sh blocks run in order with /bin/sh -e in one scratch folder (clc-pack on
# PATH, `build` a link to the build), and the output its `doctest: output`
# block names must appear. So the C example a newcomer copies compiles with
# -Wall -Werror, links, and loads its kernel from the pack the README built
# (its load report set up with struct_size, which clcpack_create_kernel
# requires). Skipped without an OpenCL device.
. "$(dirname "$0")/../lib/cli_lib.sh"

README=$ROOT/README.md
if ! "$CLC" --list-devices >/dev/null 2>&1; then
    skip "no OpenCL device: install pocl-opencl-icd (make deps)"
    cli_done
fi

# blocks: the README cut into $TMP/blocks/NNN.KIND[.PATH] files, in order;
# KIND is file, skip, output, or the fence's language.
mkdir -p "$TMP/blocks" "$TMP/work" "$TMP/bin"
awk -v dir="$TMP/blocks" '
    /^<!-- doctest: / { ann = $0; sub(/^<!-- doctest: /, "", ann); sub(/ *-->$/, "", ann); next }
    /^```/ && !fence { fence = 1; n++; lang = substr($0, 4)
        kind = lang
        if (ann ~ /^file /) kind = "file." substr(ann, 6)
        else if (ann ~ /^skip:/) kind = "skip"
        else if (ann == "output") kind = "output"
        out = sprintf("%s/%03d.%s", dir, n, kind); printf "" >out; ann = ""; next }
    /^```/ && fence { fence = 0; close(out); next }
    fence { print >out }
    { ann = "" }' "$README"

# cc takes the build's sanitizer flags, as the other app tests do.
real_cc=$(command -v "${CC:-cc}")
printf '#!/bin/sh\nexec "%s" "$@" %s %s\n' "$real_cc" "${CFLAGS:-}" "${LDFLAGS:-}" >"$TMP/bin/cc"
chmod +x "$TMP/bin/cc"
ln -s "$BUILD" "$TMP/work/build"

ran=0
for b in "$TMP"/blocks/*; do
    kind=${b##*/}
    kind=${kind#*.}
    case $kind in
        file.*) cp "$b" "$TMP/work/${kind#file.}" ;;
        sh | bash | console)
            (cd "$TMP/work" && PATH=$TMP/bin:$BUILD:$PATH /bin/sh -e "$b") >"$TMP/last" 2>&1 &&
                ok "README block ${b##*/} runs" ||
                bad "README block ${b##*/} fails: $(tail -5 "$TMP/last")"
            ran=$((ran + 1)) ;;
        output)
            while IFS= read -r line; do
                grep -qF -- "$line" "$TMP/last" && ok "README's output '$line' is printed" ||
                    bad "README says '$line' is printed; the block printed: $(tail -3 "$TMP/last")"
            done <"$b" ;;
    esac
done
[ "$ran" -ge 2 ] && ok "$ran README blocks ran" || bad "only $ran runnable sh blocks found in README.md"
[ -f "$TMP/work/app.c" ] && ok "README writes app.c" || bad "README has no '<!-- doctest: file app.c -->' block"
cli_done
