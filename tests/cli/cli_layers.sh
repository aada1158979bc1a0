#!/bin/sh
# The layers of docs/ARCHITECTURE.md, from the one table that defines them:
# the Makefile's LAYER.<folder> lines, which give each folder's objects only
# the -I paths of the folders they may use. Checked here:
#   - every folder of the tool, the library (loader/common/ too), the interposer
#     and formats/ has a row;
#   - every #include "..." (and <...> naming a header of the project) of
#     every .c and .h file resolves in the file's own folder or in a folder
#     of its row, and nowhere else ("public" is the library's public
#     headers, not loader/);
#   - no header of the library's inside (read/, load/, write/) is included
#     outside loader/ (its own tests excepted: they test those insides);
#   - the library's common code (loader/common/) includes no public header
#     but clcpack.h, and read/ and load/ never include clcpack_write.h (the
#     writer's header): the arrows point down;
#   - the library's objects (loader/read, load, write and loader/common/) call
#     only functions of their own folder and of their row (nm -u);
#   - no object calls the file and digest helpers through their
#     compatibility exports (clcpack_write_file_atomic, ...);
#   - the build compiles each folder with exactly its row's -I paths;
#   - the library names no kernel or family of the bundled examples;
#   - the interposer's lock rule (preload/preload.h).
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$ROOT" || exit 1

# folder<TAB>allowed folders, from the Makefile.
sed -n 's/^LAYER\.\([^ ]*\) *:= *\(.*\)$/\1	\2/p' Makefile >"$TMP/table"
[ -s "$TMP/table" ] && ok "the Makefile's layer table is read" || bad "no LAYER. lines in the Makefile"
# The public headers: those the Makefile copies to the public folder.
public=$(sed -n 's/^PUB_H .*wildcard \([^)]*\)).*/\1/p' Makefile)
public=$(for g in $public; do ls $g 2>/dev/null; done | grep '^loader/.*\.h$')
[ -n "$public" ] && ok "the public headers are read: $(echo $public)" || bad "no public headers in the Makefile"
for h in $public; do
    [ -f "$h" ] || continue
    echo "${h##*/}"
done >"$TMP/public_names"
row() { awk -F'\t' -v d="$1" '$1 == d { print $2; found = 1 } END { exit !found }' "$TMP/table"; }

# Every folder holding sources has a row.
missing=""
for d in $(find clc formats preload loader -name '*.[ch]' | xargs -n1 dirname | sort -u); do
    row "$d" >/dev/null || missing="$missing $d"
done
[ -z "$missing" ] && ok "every source folder has a row in the layer table" ||
    bad "folders without a row in the Makefile's layer table:$missing"

# Names of the project's headers, and the folder(s) holding each.
find clc formats preload loader -name '*.h' | sort >"$TMP/headers"

# includes FILE: each header name it includes, quoted or angled; angled
# ones only when the project has a header of that name.
includes() {
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*<\([^>]*\)>.*/\1/p' "$1" |
        while read -r h; do
            grep -q "/$h\$" "$TMP/headers" && echo "$h"
        done
}

# resolves FILE NAME: 0 when NAME, included from FILE, is found in FILE's
# folder or one of its row's; else prints where it is and returns 1.
resolves() {
    dir=$(dirname "$1")
    name=$2
    if [ -f "$dir/$name" ]; then
        # Within the folder itself, not through ../ into another.
        [ "$(cd "$(dirname "$dir/$name")" && pwd -P)" = "$(cd "$dir" && pwd -P)" ] && return 0
        echo "$(dirname "$dir/$name") (through a relative path)"
        return 1
    fi
    for f in $(row "$dir"); do
        if [ "$f" = public ]; then
            grep -qx "$name" "$TMP/public_names" && return 0
        elif [ -f "$f/$name" ]; then
            return 0
        fi
    done
    where=$(grep "/$name\$" "$TMP/headers" | xargs -n1 dirname 2>/dev/null | tr '\n' ' ')
    echo "${where:-nowhere}"
    return 1
}

: >"$TMP/wrong"
n_files=0
for file in $(find clc formats preload loader -name '*.[ch]' | sort); do
    n_files=$((n_files + 1))
    row "$(dirname "$file")" >/dev/null || continue
    for name in $(includes "$file"); do
        if ! where=$(resolves "$file" "$name"); then
            echo "$file includes $name from $where; $(dirname "$file") may use: $(row "$(dirname "$file")")" >>"$TMP/wrong"
        fi
    done
done
if [ -s "$TMP/wrong" ]; then
    bad "includes outside the layers ($(wc -l <"$TMP/wrong") of them):"
    sed 's/^/    /' "$TMP/wrong"
else
    ok "every #include of $n_files files stays within its layers"
fi

# The library's inside, included from outside it (the examples too): the
# headers of read/, load/ and write/. Its common code (loader/common/) is
# the tool's and the interposer's too, as zstd's lib/common/ is its
# programs': their rows name it.
internal=$(cd loader && ls read/*.h load/*.h write/*.h | sed 's|^.*/||' | grep -vxF -f "$TMP/public_names" | tr '\n' '|' | sed 's/|$//')
if [ -z "$internal" ]; then
    bad "no loader-internal header found under loader/: the check would check nothing"
elif grep -rnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<]($internal)[\">]" clc formats preload examples >"$TMP/internal"; then
    bad "loader-internal headers included outside loader/: $(cut -d: -f1,3 "$TMP/internal" | tr '\n' ' ')"
else
    ok "no loader-internal header is included outside loader/"
fi

# The build gives each folder's objects exactly its row's -I paths.
: >"$TMP/flags"
while IFS='	' read -r dir allowed; do
    src=$(ls "$dir"/*.c 2>/dev/null | head -n 1)
    [ -n "$src" ] || continue
    [ "$dir" = preload/shim ] && continue # linked by its own rule, with no -I
    obj=$TMP/b/${src%.c}.o
    case $dir in preload | formats | loader/*) obj=$TMP/b/pic/${src%.c}.o ;; esac
    line=$(make -n -B B="$TMP/b" "$obj" 2>/dev/null | grep -- "-c -o $obj")
    got=$(echo "$line" | tr ' ' '\n' | sed -n 's/^-I//p' | sed "s|^$TMP/b/include\$|public|" | tr '\n' ' ')
    want=$(echo "$allowed" | tr -s ' ' | sed 's/^ //; s/ $//')
    [ "$(echo $got)" = "$want" ] || echo "$dir: compiled with -I '$(echo $got)', its row says '$want'" >>"$TMP/flags"
done <"$TMP/table"
if [ -s "$TMP/flags" ]; then
    bad "the build's -I paths differ from the table: $(cat "$TMP/flags")"
else
    ok "the build compiles each folder with only its row's -I paths"
fi

# The layers at link time: a prototype written by hand compiles past the
# -I paths, so the built objects are checked too (nm -u). Each undefined
# symbol of a folder's objects must be defined in the folder itself, in a
# folder of its row ("public": what libclcpack.so exports), or by no object
# of the project (the C library, OpenCL, zlib, zstd, curl).
# obj_of SRC: its object in the build, non-PIC first (formats/ is both).
obj_of() {
    for o in "$BUILD/${1%.c}.o" "$BUILD/pic/${1%.c}.o"; do
        [ -f "$o" ] && echo "$o" && return 0
    done
    return 1
}
# cross_layer UNDEFS: the lines of UNDEFS (symbol, folder, file) whose
# symbol a project folder defines that the folder may not use.
cross_layer() {
    awk -F'\t' '
        FILENAME == ARGV[1] { row[$1] = " " $2 " "; next }
        FILENAME == ARGV[2] { defs[$1] = defs[$1] " " $2; next }
        FILENAME == ARGV[3] { public[$1] = 1; next }
        !($1 in defs) { next }
        {
            n = split(defs[$1], where, " ")
            for (i = 1; i <= n; i++)
                if (where[i] == $2 || index(row[$2], " " where[i] " ")) next
            if (public[$1] && index(row[$2], " public ")) next
            printf "%s calls %s, defined in%s; %s may use:%s\n", $3, $1, defs[$1], $2, row[$2]
        }' "$TMP/table" "$TMP/defs" "$TMP/public_syms" "$1"
}
if ! command -v nm >/dev/null 2>&1; then
    skip "nm is not installed: the link-time layer check"
elif [ ! -f "$BUILD/libclcpack.so" ]; then
    bad "no $BUILD/libclcpack.so: build first (make all) for the link-time layer check"
else
    : >"$TMP/defs"
    : >"$TMP/undefs"
    missing=""
    n_objs=0
    while IFS='	' read -r dir allowed; do
        [ "$dir" = preload/shim ] && continue # linked by its own rule, no object
        for src in "$dir"/*.c; do
            [ -f "$src" ] || continue
            obj=$(obj_of "$src") || { missing="$missing $src"; continue; }
            n_objs=$((n_objs + 1))
            # The OpenCL API is the driver's, whoever wraps it (preload/).
            nm -g --defined-only "$obj" | awk -v d="$dir" 'NF == 3 && $3 !~ /^cl[A-Z]/ { print $3 "\t" d }' >>"$TMP/defs"
            nm -u "$obj" | awk -v d="$dir" -v f="$src" '{ print $NF "\t" d "\t" f }' >>"$TMP/undefs"
        done
    done <"$TMP/table"
    nm -D --defined-only "$BUILD/libclcpack.so" | awk 'NF == 3 { sub(/@.*/, "", $3); print $3 }' >"$TMP/public_syms"
    [ -z "$missing" ] || bad "objects not built (make all first):$missing"
    cross_layer "$TMP/undefs" >"$TMP/links"
    if [ -s "$TMP/links" ]; then
        bad "calls across the layers in the built objects ($(wc -l <"$TMP/links") of them):"
        sed 's/^/    /' "$TMP/links"
    else
        ok "the $(wc -l <"$TMP/undefs") undefined symbols of $n_objs objects stay within their layers"
    fi
    # The tool's helpers are out of the stable ABI where they can be
    # (docs/API.md): clcpack_write_file_atomic, clcpack_check_output_path
    # and clcpack_digest_sha256 stay exported for applications, while the
    # tool, the interposer and the library call loader/common/'s clcpk_* names.
    awk -F'\t' '$1 ~ /^clcpack_(write_file_atomic|check_output_path|digest_sha256)$/ {
        print "    " $3 " calls " $1 }' "$TMP/undefs" >"$TMP/compat"
    if [ -s "$TMP/compat" ]; then
        bad "calls of the compatibility exports (call the clcpk_* names of loader/common/):"
        cat "$TMP/compat"
    else
        ok "clc/, preload/ and loader/ call loader/common/'s helpers, not their compatibility exports"
    fi
    # No command calls another, as git's builtin/*.c do not: what two
    # commands share is a module of clc/cli/ of its own (pack_merge.c,
    # pack_retarget.c, pack_run.c). Only the command table (commands.c)
    # and the help (usage.c) name every command.
    for src in clc/cli/cmd_*.c; do
        obj=$(obj_of "$src") || continue
        nm -g --defined-only "$obj" | awk -v f="$src" 'NF == 3 { print $3 "\t" f }'
    done >"$TMP/cmd_defs"
    cmd_calls() {
        awk -F'\t' 'NR == FNR { def[$1] = $2; next }
            $3 ~ /^clc\/cli\// && $3 !~ /\/(commands|usage)\.c$/ && ($1 in def) && def[$1] != $3 {
                print "    " $3 " calls " $1 ", defined in " def[$1] }' "$TMP/cmd_defs" "$1"
    }
    cmd_calls "$TMP/undefs" >"$TMP/cmd_calls"
    if [ -s "$TMP/cmd_calls" ]; then
        bad "a command calls another command's file (move what they share into a module):"
        cat "$TMP/cmd_calls"
    else
        ok "no cmd_*.c calls another; the commands share modules of clc/cli/"
    fi
    printf 'cmd_merge\tclc/cli\tclc/cli/cmd_probe.c\n' >"$TMP/probe_cmd"
    cmd_calls "$TMP/probe_cmd" | grep -q "cmd_probe.c calls cmd_merge" &&
        ok "a command calling another (cmd_merge) would be found" ||
        bad "the check misses a command calling cmd_merge"
    # A key's way (docs/ARCHITECTURE.md): its files in the order listed
    # there, at most five, each calling only files below it, so that the key
    # is followed top down with each file read once.
    way=$(awk '/^## A key.s way/ { on = 1; next } on && /^## / { exit }
        on && /^[0-9]+\. `loader\// { s = $2; gsub(/[`:,]/, "", s); print s }' docs/ARCHITECTURE.md)
    # calls_up FILE...: "A calls S, defined in B above it" for each call of
    # a file into one listed before it.
    calls_up() {
        above=""
        for src in "$@"; do
            obj=$(obj_of "$src") || { echo "$src has no object"; continue; }
            for a in $above; do
                nm -g --defined-only "$(obj_of "$a")" | awk 'NF == 3 { print $3 }' >"$TMP/above_defs"
                nm -u "$obj" | awk '{ print $NF }' | grep -Fx -f "$TMP/above_defs" |
                    sed "s|^|$src calls |; s|\$|, defined in $a above it|"
            done
            above="$above $src"
        done
    }
    n_way=$(echo "$way" | grep -c .)
    calls_up $way >"$TMP/way_up"
    if [ "$n_way" -lt 2 ] || [ "$n_way" -gt 5 ]; then
        bad "docs/ARCHITECTURE.md, \"A key's way\", lists $n_way files (2 to 5 wanted): $(echo $way)"
    elif [ -s "$TMP/way_up" ]; then
        bad "a key's way calls back up its list (docs/ARCHITECTURE.md): $(tr '\n' ';' <"$TMP/way_up")"
    else
        ok "a key's way passes through $n_way files, each calling only those below it: $(echo $way)"
    fi
    calls_up loader/read/key_hash.c loader/read/key_find.c | grep -q "key_find.c calls clcpk_" &&
        ok "a call up a key's way (key_find.c into key_hash.c, listed first) would be found" ||
        bad "the key's way check misses key_find.c calling into key_hash.c listed above it"
    # The check itself: a call from clc/engine/ into clc/cli/ is found.
    cli_sym=$(awk -F'\t' '$2 == "clc/cli" { print $1; exit }' "$TMP/defs")
    printf '%s\tclc/engine\tclc/engine/probe.c\n' "$cli_sym" >"$TMP/probe_undefs"
    if [ -n "$cli_sym" ] && cross_layer "$TMP/probe_undefs" | grep -q "probe.c calls $cli_sym"; then
        ok "a call from clc/engine/ into clc/cli/ ($cli_sym) would be found"
    else
        bad "the link-time check misses a call from clc/engine/ into clc/cli/ ('$cli_sym')"
    fi
fi

# The string builder is util/strbuf.h; wire.h is the engine's encoding of
# its worker messages and records, used by the engine, by the remote
# cache for its records and by the tuner's protocol (tune_proto.c) alone
# (no other folder builds strings or messages with it).
if grep -rlE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]wire\.h[">]' clc formats preload |
    grep -v '^clc/engine/\|^clc/rcache/\|^clc/tune/tune_proto\.c$' >"$TMP/wire"; then
    bad "wire.h (the workers' message encoding) included outside clc/engine/, clc/rcache/ and clc/tune/tune_proto.c: $(tr '\n' ' ' <"$TMP/wire")"
else
    ok "only clc/engine/, clc/rcache/ and the tuner's protocol include wire.h; the others build strings with strbuf.h"
fi

# The capture files' format lives in formats/capture_format.h alone: no
# other file spells its magic.
if grep -rn 'CLCPREC' clc preload loader | grep -v '^formats/' >"$TMP/magic"; then
    bad "the capture magic spelt outside formats/: $(cut -d: -f1,2 "$TMP/magic" | tr '\n' ' ')"
else
    ok "the capture format's magic is spelt in formats/ alone"
fi

# The library knows no kernel of the bundled examples: none of the names
# of kernels/manifest.txt's kernel and program blocks, as a word in any
# case, nor the convolution families' names.
sed -nE 's/^[[:space:]]*(kernel|program)[[:space:]]+([^[:space:]]+).*/\2/p' kernels/manifest.txt |
    sort -u >"$TMP/seed_names"
printf 'conv-grey\nconv-rgba\n' >>"$TMP/seed_names"
if [ "$(wc -l <"$TMP/seed_names")" -lt 10 ]; then
    bad "kernels/manifest.txt gave $(wc -l <"$TMP/seed_names") names: the check would check little"
elif grep -rniwF -f "$TMP/seed_names" loader/ >"$TMP/hits"; then
    bad "loader/ names seed kernels or families: $(head -3 "$TMP/hits")"
else
    ok "loader/ names none of the $(wc -l <"$TMP/seed_names") seed kernels and families"
fi

# The interposer's lock rule (preload/preload.h): one mutex, in table.c,
# which calls nothing outside itself while holding it.
locks=$(grep -l 'pthread_mutex_lock\|pthread_rwlock\|pthread_spin_lock' preload/*.c | xargs -n1 basename | tr '\n' ' ')
[ "$locks" = "table.c " ] && ok "preload/: only table.c takes a lock" || bad "preload/: locks in: $locks"
if grep -n 'DRV(\|interposer_real\|INTERPOSER_DISPATCH\|notify(\|rec_capture_now\|interposer_say' preload/table.c >"$TMP/calls"; then
    bad "preload/table.c calls out while it may hold its lock: $(head -3 "$TMP/calls")"
else
    ok "preload/table.c calls no driver, callback or capture"
fi
# The library names no system header outside its platform layer
# (loader/common/platform.h; docs/PLATFORMS.md): the C library's, the threads'
# (MinGW has them too) and the codecs' only.
grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*<' loader/*/*.[ch] |
    grep -v '^loader/common/platform_[a-z0-9]*\.c:' |
    grep -v -E '<(assert|ctype|errno|inttypes|limits|math|stdarg|stdatomic|stdbool|stddef|stdint|stdio|stdlib|string|time|pthread|zlib|zstd|zstd_errors|zdict|libdeflate|immintrin|arm_acle)\.h>|<CL/[a-z_]*\.h>' \
    >"$TMP/syshdr"
if [ -s "$TMP/syshdr" ]; then
    bad "the library names system headers outside loader/common/platform_*.c: $(head -3 "$TMP/syshdr" | tr '\n' ' ')"
else
    ok "the library names system headers in loader/common/platform_*.c only"
fi
# The arrows point down (loader/README.md): the library's common code
# includes no public header but clcpack.h (its types: statuses, errors),
# and neither read/ nor load/ includes the writer's header, clcpack_write.h
# (what they define of clcpack_inspect.h is declared there). An include
# written any way (quoted, angled, a path) counts.
inc_of_file() {
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p' "$1" | sed 's|.*/||'
}
: >"$TMP/up"
for f in loader/common/*.[ch]; do
    for h in $(inc_of_file "$f"); do
        grep -qx "$h" "$TMP/public_names" && [ "$h" != clcpack.h ] && echo "$f includes $h" >>"$TMP/up"
    done
done
for f in loader/read/*.[ch] loader/load/*.[ch]; do
    inc_of_file "$f" | grep -qx 'clcpack_write.h' && echo "$f includes clcpack_write.h" >>"$TMP/up"
done
if [ -s "$TMP/up" ]; then
    bad "includes against the arrows: $(tr '\n' ';' <"$TMP/up")"
else
    ok "loader/common/ includes clcpack.h alone of the public headers; read/ and load/ never include clcpack_write.h"
fi
# ... and the check finds one.
printf '#include "clcpack_write.h"\n' >"$TMP/probe_up.c"
inc_of_file "$TMP/probe_up.c" | grep -qx 'clcpack_write.h' && ok "an include of clcpack_write.h would be found" ||
    bad "the arrow check misses an include of clcpack_write.h"
cli_done
