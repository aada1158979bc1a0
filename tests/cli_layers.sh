#!/bin/sh
# The layers of docs/ARCHITECTURE.md: the library knows no kernel and no
# family of the bundled examples, and only the hook's interface connects the
# engine, the checks and the command line to the seeds' module.
. "$(dirname "$0")/lib/cli_lib.sh"
if grep -rn 'reda\|Convolve\|conv-grey\|conv-rgba\|poly_' "$ROOT/loader/" >"$TMP/hits"; then
    bad "loader/ names seed kernels or families: $(head -3 "$TMP/hits")"
else
    ok "loader/ names no seed kernel or family"
fi
seeds=$(cd "$ROOT/clc/seeds" && ls ./*.h | sed 's|./||' | grep -v '^seed_hook.h$' | tr '\n' '|' | sed 's/|$//')
# (clc/program/ reads the kernels folder's manifest, whose generator lines
# name the seeds' source generator: that reader may call it.)
if grep -rlE "#include \"($seeds)\"" "$ROOT/clc/engine" "$ROOT/clc/checks" "$ROOT/clc/cli" \
    "$ROOT/loader" >"$TMP/inc"; then
    bad "files include seed headers other than seed_hook.h: $(tr '\n' ' ' <"$TMP/inc")"
else
    ok "only seed_hook.h connects the other layers to the seeds"
fi
if grep -rl '#include "' "$ROOT/loader" | xargs grep -lE '#include "[a-z_]+\.h"' |
    xargs grep -hoE '#include "[a-z_]+\.h"' | sort -u | while read -r _ h; do
        h=$(echo "$h" | tr -d '"')
        [ -f "$ROOT/loader/$h" ] || echo "$h"
    done | grep . >"$TMP/outside"; then
    bad "loader/ includes headers from outside it: $(tr '\n' ' ' <"$TMP/outside")"
else
    ok "loader/ includes only its own headers"
fi
# The interposer's lock rule (preload/preload.h): one mutex, in table.c,
# which calls nothing outside itself while holding it.
locks=$(grep -l 'pthread_mutex_lock\|pthread_rwlock\|pthread_spin_lock' "$ROOT"/preload/*.c | xargs -n1 basename | tr '\n' ' ')
[ "$locks" = "table.c " ] && ok "preload/: only table.c takes a lock" || bad "preload/: locks in: $locks"
if grep -n 'DRV(\|pl_real\|PL_DISPATCH\|notify(\|rec_capture_now\|pl_say' "$ROOT/preload/table.c" >"$TMP/calls"; then
    bad "preload/table.c calls out while it may hold its lock: $(head -3 "$TMP/calls")"
else
    ok "preload/table.c calls no driver, callback or capture"
fi
# formats/ is shared by the interposer and the tool: it includes only its
# own headers and the public clcpack.h.
if grep -hoE '#include "[a-z_./]+"' "$ROOT"/formats/* | sort -u | grep -v '"capture_format.h"\|"clcpack.h"' >"$TMP/fmt"; then
    bad "formats/ includes: $(tr '\n' ' ' <"$TMP/fmt")"
else
    ok "formats/ includes only its own header and clcpack.h"
fi
cli_done
