# table_opts.awk: "COMMAND OPTION" for every row of every option table of
# clc/cli/*.c (static const cli_opt CMD_opts[] = { ... };), read from the C
# source so that tests/cli/cli_surface.sh follows the tables without a hidden
# option in the tool. A short key M stands for -MD, -MF and -MT (opt_m).
# A row may span lines (its help text goes on); only its first line, which
# opens with OPT_...( and holds the names, is read. OPT_TEXT and OPT_OPERAND
# rows are help lines, no option.
/^static const cli_opt [a-z_]*_opts\[\] = \{/ {
    t = $4; sub(/_opts\[\]$/, "", t); gsub(/_/, "-", t); intable = 1; next
}
intable && /^\};/ { intable = 0; next }
!intable { next }
/^[ \t]*OPT_(TEXT|OPERAND)\(/ { next }
/OPT_HELP/ { print t, "--help"; print t, "-h"; next }
/OPT_QUIET/ { print t, "--quiet"; print t, "-q"; next }
/OPT_VERBOSE/ { print t, "--verbose"; print t, "-v"; next }
/^[ \t]*(OPT_[A-Z_]*\(|\{)/ {
    row = $0; sub(/^[ \t]*(OPT_[A-Z_]*\(|\{)/, "", row)
    split(row, f, ",")
    name = f[1]; key = f[2]; gsub(/[ \t"]/, "", name); gsub(/[ \t']/, "", key)
    if (name != "NULL") print t, "--" name
    if (key == "M") { print t, "-MD"; print t, "-MF"; print t, "-MT" }
    else if (key != "0") print t, "-" key
}
