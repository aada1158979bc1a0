#!/bin/sh
# --timings (docs/TIMINGS.md): the page a browser draws and the trace
# Perfetto reads, from a small pack of real PoCL builds. The page is
# rendered by headless Chromium: its script must have run (#status and the
# title say so; a broken copy of the page must fail the same check) and its
# chart must hold a bar for every entry `clc-pack list` counts; the trace
# is read by python3's json module, every variant one event. The pack's
# bytes must not depend on --timings, and an unknown extension is refused.
. "$(dirname "$0")/../lib/cli_lib.sh"
CLC=$(cd "$(dirname "$CLC")" && pwd)/$(basename "$CLC")
cd "$TMP" || exit 1

cat >scale.cl <<'EOF'
__kernel void scale(__global float *x) { x[get_global_id(0)] *= F; }
EOF

# The extension picks the format; anything else is a usage error naming
# the file and the extensions allowed (tests/cli/golden/usage/timings_extension).
run "$CLC" scale.cl -D F=1 -q -o x.clcpack --timings build.txt
expect_rc 2 "--timings build.txt is refused"
[ ! -e x.clcpack ] && ok "nothing is built after the refusal" || bad "a pack was written"
run "$CLC" scale.cl -D F=1 -q -o x.clcpack --timings x.clcpack.json
expect_rc 0 "a .json beside the pack is taken"

run "$CLC" scale.cl -D F=1-5 -q -o plain.clcpack
expect_rc 0 "the pack without --timings"
run "$CLC" scale.cl -D F=1-5 -q -o paged.clcpack --rebuild --timings build.html
expect_rc 0 "the pack with --timings build.html"
run "$CLC" scale.cl -D F=1-5 -q -o traced.clcpack --rebuild --timings build.json
expect_rc 0 "the pack with --timings build.json"
cmp -s plain.clcpack paged.clcpack && cmp -s plain.clcpack traced.clcpack &&
    ok "the pack's bytes do not depend on --timings" ||
    bad "the packs with and without --timings differ"

run "$CLC" list plain.clcpack
entries=$(sed -n '1s/.*, \([0-9][0-9]*\) entries$/\1/p' "$OUT")
[ "${entries:-0}" -eq 5 ] && ok "the pack holds 5 entries" ||
    { bad "clc-pack list counts $entries entries, wanted 5"; sed 's/^/    /' "$OUT"; }

# The trace: valid JSON, every variant an event with its steps, and the
# totals' counts.
if command -v python3 >/dev/null 2>&1; then
    python3 - build.json "$entries" >"$TMP/py" 2>&1 <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
events = doc["traceEvents"]
variants = [e for e in events if e.get("cat") == "variant"]
assert len(variants) == want, "%d variant events, wanted %d" % (len(variants), want)
names = {e["name"] for e in variants}
assert names == {"scale F=%d" % f for f in range(1, 6)}, names
for e in events:
    for k in ("name", "ph", "pid", "tid"):
        assert k in e, "an event lacks %s: %r" % (k, e)
    if e["ph"] == "X":
        assert isinstance(e["ts"], int) and isinstance(e["dur"], int) and e["dur"] >= 0, e
for v in variants:
    a = v["args"]
    assert a["outcome"] == "built" and v["tid"] >= 1, v
    steps = [e for e in events if e.get("cat") == "phase" and e["args"]["job"] == a["job"]]
    assert any(s["name"] == "compile" for s in steps), "no compile step for %s" % v["name"]
    for s in steps:
        assert s["tid"] == v["tid"] and v["ts"] <= s["ts"] and s["ts"] + s["dur"] <= v["ts"] + v["dur"], (v, s)
other = doc["otherData"]
assert other["variants"] == want and other["built"] == want, other
assert other["builds_us"] > 0 and other["wall_us"] >= max(v["ts"] + v["dur"] for v in variants), other
assert sum(w["variants"] for w in other["workers"]) == want, other["workers"]
print("ok")
EOF
    grep -qx ok "$TMP/py" && ok "the trace is JSON with every variant an event, its steps inside it" ||
        { bad "the trace is not what docs/TIMINGS.md says"; sed 's/^/    /' "$TMP/py" | tail -n 8; }
else
    skip "python3 is not installed: the trace is not read back"
fi

CHROMIUM=
for c in chromium chromium-browser google-chrome; do
    command -v "$c" >/dev/null 2>&1 && CHROMIUM=$c && break
done
if [ -z "$CHROMIUM" ]; then
    skip "chromium is not installed (scripts/test_deps.sh installs Debian's): the page is not rendered"
    cli_done
fi

# browse PAGE NAME: PAGE rendered by headless Chromium: NAME.png (a
# screenshot) and NAME.dom (the document after its script ran).
browse() {
    flags="--headless --no-sandbox --disable-gpu --no-first-run --user-data-dir=$TMP/chromium-$2"
    # shellcheck disable=SC2086
    timeout 120 "$CHROMIUM" $flags --window-size=1400,900 --screenshot="$TMP/$2.png" \
        "file://$TMP/$1" >/dev/null 2>&1
    # shellcheck disable=SC2086
    timeout 120 "$CHROMIUM" $flags --dump-dom "file://$TMP/$1" >"$TMP/$2.dom" 2>/dev/null
}

# drawn NAME: the page's script ran to its end (status and title) and its
# chart holds one bar per entry. Prints what is wrong, fails when anything is.
drawn() {
    dom=$TMP/$1.dom
    grep -q "<p id=\"status\" class=\"ok\">ok: $entries variants</p>" "$dom" ||
        { echo "the page's #status does not say 'ok: $entries variants'"; return 1; }
    grep -q "<title>clc-pack timings: $entries variants, " "$dom" ||
        { echo "the page's title was not set by its script"; return 1; }
    bars=$(grep -o '<g class="bar [a-z]*" data-job="[0-9]*"' "$dom" | sort -u | wc -l)
    [ "$bars" -eq "$entries" ] || { echo "the chart holds $bars bars, the pack $entries entries"; return 1; }
}

browse build.html page
[ -s "$TMP/page.png" ] && ok "headless Chromium renders the page to a PNG" ||
    bad "no screenshot of the page from $CHROMIUM"
why=$(drawn page) && ok "the page's script ran and its chart holds all $entries variants" ||
    bad "the rendered page: $why"
grep -q '<script src=\|<link \|@import\|url(http' build.html &&
    bad "the page loads something from outside itself" || ok "the page is self-contained"

# The check must be able to fail: a copy whose script stops at an error,
# at its start (nothing drawn) or at its end (all drawn but the status),
# fails it.
n=0
for slip in 's/JSON.parse(/JSON.parze(/' 's/status.className = .ok.;/status.className = ok;/'; do
    n=$((n + 1))
    sed "$slip" build.html >broken$n.html
    if cmp -s build.html broken$n.html; then
        bad "the scratch copy of the page was not broken by $slip"
        continue
    fi
    browse broken$n.html broken$n
    if why=$(drawn broken$n); then
        bad "a page whose script fails ($slip) passed the check"
    else
        ok "a page whose script fails ($slip) is caught: $why"
    fi
done
cli_done
