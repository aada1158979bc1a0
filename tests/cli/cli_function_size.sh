#!/bin/sh
# Small functions with one job: no function of the tool, the library, the
# interposer or formats/ is longer than LIMIT lines (its body, between the
# braces at the start of a line), outside the help texts (clc/cli/usage.c).
# The functions still longer are listed below with their length at the time:
# each may only shrink (split it, then lower or drop its line), and a new
# long function fails.
# Small files too: no .c file of those folders is longer than FILE_LIMIT
# lines, outside the ones listed below (by file name, so that a move keeps
# its line), each of which may only shrink.
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$ROOT" || exit 1
LIMIT=100

# function length name, one line per function of the files over LIMIT.
long_functions() {
    awk -v LIM="$LIMIT" '
        FNR == 1 { sig = ""; infn = 0 }
        /^[A-Za-z_].*\(/ && !infn { sig = $0; sigline = FNR }
        /^\{/ && sig != "" && !infn { start = FNR; infn = 1 }
        /^\}/ && infn {
            n = FNR - start - 1
            name = sig; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
            if (n > LIM) printf "%s:%s %d %s:%d\n", FILENAME, name, n, FILENAME, sigline
            infn = 0; sig = ""
        }' "$@"
}

# Still over the limit: file:function and the most lines it may have.
KNOWN="
preload/api.c:pl_clLinkProgram 103
clc/cli/cmd_record.c:cmd_record 101
"

files=$(ls clc/*/*.c loader/*/*.c preload/*.c preload/shim/*.c formats/*.c | grep -v '^clc/cli/usage\.c$')
long_functions $files >"$TMP/long"
n_files=$(echo "$files" | wc -l)
[ "$n_files" -gt 100 ] && ok "$n_files source files measured" || bad "only $n_files source files found"
# The measure itself: a function of LIMIT+1 lines is found, one of LIMIT is not.
{
    printf 'static int over(void)\n{\n'
    i=0; while [ $i -le $LIMIT ]; do echo "    x();"; i=$((i + 1)); done
    printf '}\n\nint under(int a,\n          int b)\n{\n'
    i=1; while [ $i -le $LIMIT ]; do echo "    y();"; i=$((i + 1)); done
    printf '}\n'
} >"$TMP/probe.c"
probe=$(long_functions "$TMP/probe.c" | cut -d' ' -f1,2)
[ "$probe" = "$TMP/probe.c:over $((LIMIT + 1))" ] && ok "the measure finds a function of $((LIMIT + 1)) lines and no shorter one" ||
    bad "the measure on a probe gave: '$probe'"

: >"$TMP/wrong"
while read -r key n where; do
    max=$(echo "$KNOWN" | awk -v k="$key" '$1 == k { print $2 }')
    if [ -z "$max" ]; then
        echo "$where: ${key#*:} is $n lines (at most $LIMIT)" >>"$TMP/wrong"
    elif [ "$n" -gt "$max" ]; then
        echo "$where: ${key#*:} grew to $n lines (was $max, to be split)" >>"$TMP/wrong"
    fi
done <"$TMP/long"
# ... and the list stays true: a known function that shrank has its line
# lowered, one back under the limit has it dropped.
echo "$KNOWN" | while read -r key max; do
    [ -n "$key" ] || continue
    n=$(awk -v k="$key" '$1 == k { print $2 }' "$TMP/long")
    if [ -z "$n" ]; then
        echo "$key is no longer over $LIMIT lines: drop its line from KNOWN" >>"$TMP/wrong"
    elif [ "$n" -lt "$max" ]; then
        echo "$key shrank to $n lines: lower its line in KNOWN (from $max)" >>"$TMP/wrong"
    fi
done
if [ -s "$TMP/wrong" ]; then
    bad "functions over $LIMIT lines: $(cat "$TMP/wrong")"
else
    ok "no new function over $LIMIT lines; $(wc -l <"$TMP/long") known ones still to split"
fi

FILE_LIMIT=800
# Still over it: the file's name, the most lines it may have, and why.
KNOWN_FILES="
pack_encode.c 1356 the pack encoder (with clcpk_entry_bytes since the split made pack_write.c and it call one way), to split into the encoder and its record layout
direct_jobs.c 1001 the direct command line's programs as jobs
program_load.c 934 loading a program: binary, rebuild cache, source
api.c 934 one wrapper per OpenCL call the interposer takes
"
# long_files FILE...: lines name path, for each file over FILE_LIMIT lines.
long_files() {
    wc -l "$@" | awk -v LIM="$FILE_LIMIT" '$2 != "total" && $1 > LIM {
        name = $2; sub(/.*\//, "", name); print $1, name, $2 }'
}
all_c=$(find clc loader preload formats -name '*.c' | sort)
printf 'x\n%.0s' $(seq "$FILE_LIMIT") >"$TMP/file_at.c"
printf 'x\n%.0s' $(seq $((FILE_LIMIT + 1))) >"$TMP/file_over.c"
probe=$(long_files "$TMP/file_at.c" "$TMP/file_over.c" | cut -d' ' -f1,2)
[ "$probe" = "$((FILE_LIMIT + 1)) file_over.c" ] && ok "the file measure finds a file of $((FILE_LIMIT + 1)) lines and no shorter one" ||
    bad "the file measure on two probes gave: '$probe'"
: >"$TMP/wrong_files"
long_files $all_c | while read -r n name path; do
    max=$(echo "$KNOWN_FILES" | awk -v k="$name" '$1 == k { print $2 }')
    if [ -z "$max" ]; then
        echo "$path is $n lines (at most $FILE_LIMIT: split it along its seams)" >>"$TMP/wrong_files"
    elif [ "$n" -gt "$max" ]; then
        echo "$path grew to $n lines (was $max, to be split)" >>"$TMP/wrong_files"
    fi
done
echo "$KNOWN_FILES" | while read -r name max why; do
    [ -n "$name" ] || continue
    n=$(long_files $all_c | awk -v k="$name" '$2 == k { print $1 }')
    if [ -z "$n" ]; then
        echo "$name is no longer over $FILE_LIMIT lines: drop its line from KNOWN_FILES" >>"$TMP/wrong_files"
    elif [ "$n" -lt "$max" ]; then
        echo "$name shrank to $n lines: lower its line in KNOWN_FILES (from $max)" >>"$TMP/wrong_files"
    fi
done
if [ -s "$TMP/wrong_files" ]; then
    bad "files over $FILE_LIMIT lines: $(cat "$TMP/wrong_files")"
else
    ok "no new .c file over $FILE_LIMIT lines among $(echo "$all_c" | wc -l); $(long_files $all_c | wc -l) known ones still to split"
fi
cli_done
