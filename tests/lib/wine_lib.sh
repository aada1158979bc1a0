# wine_lib.sh — running Windows programs under Wine in the tests
# (tests/cli/cli_windows*.sh), sourced after cli_lib.sh:
#   . "$(dirname "$0")/../lib/wine_lib.sh"
# wine_start sets WINE to the Wine program (empty, returning 1, when there is
# none) and gives the script a fresh prefix of its own, $TMP/wineprefix.
#
# The prefix is made first, whole (wineboot --init, then waiting for its
# processes and its wineserver to end), and only then is a wineserver
# started for it and kept running (-p) until the script ends:
#  - without a kept server, each program's exit lets the server stop a few
#    seconds later, and a program started just then can find it going away
#    ("wine client error:0: recvmsg: Connection reset by peer", exit 1, the
#    program never run);
#  - a server started before the prefix is made lets the first program run
#    with the prefix half made ("could not open working directory
#    C:\windows\system32"), and a program started beside it can fail with
#    "could not load kernel32.dll".
# The EXIT trap ends the server, so the prefix's folder can be removed.
wine_start() {
    WINE=$(command -v wine64 || command -v wine || true)
    [ -n "$WINE" ] || return 1
    export WINEPREFIX="$TMP/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
    trap 'WINEPREFIX="$TMP/wineprefix" wineserver -k 2>/dev/null; rm -rf "$TMP"' EXIT
    timeout 300 "$WINE" wineboot --init >"$TMP/wineboot.log" 2>&1 ||
        echo "note: wineboot --init failed: $(tail -n 2 "$TMP/wineboot.log" | tr '\n' ' ')"
    timeout 120 wineserver -w 2>/dev/null
    wineserver -p 2>/dev/null
    return 0
}
