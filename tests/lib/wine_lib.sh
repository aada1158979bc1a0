# wine_lib.sh — running Windows programs under Wine in the tests
# (tests/cli/cli_windows*.sh), sourced after cli_lib.sh:
#   . "$(dirname "$0")/../lib/wine_lib.sh"
# wine_start sets WINE to the Wine program (empty, returning 1, when there is
# none) and gives the script a fresh prefix of its own, $TMP/wineprefix.
#
# Its wineserver is started first and kept running (-p) until the script
# ends: otherwise each program's exit lets the server stop a few seconds
# later, and a program started just then can find it going away ("wine
# client error:0: recvmsg: Connection reset by peer", exit 1, the program
# never run). The EXIT trap ends it, so the prefix's folder can be removed.
wine_start() {
    WINE=$(command -v wine64 || command -v wine || true)
    [ -n "$WINE" ] || return 1
    export WINEPREFIX="$TMP/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
    mkdir -p "$WINEPREFIX"
    wineserver -p 2>/dev/null
    trap 'WINEPREFIX="$TMP/wineprefix" wineserver -k 2>/dev/null; rm -rf "$TMP"' EXIT
    return 0
}
