#!/bin/sh
# The remote cache (docs/REMOTE_CACHE.md) against a real server: nginx with
# WebDAV PUT (tests/remote_cache/nginx.conf.in), started here on 127.0.0.1
# on a free port, in this test's own folder, and stopped at the end, even
# on a failure. Two runners with their own cache folders, where the second
# builds nothing and writes the same bytes; the server stopped mid-build; a
# damaged object; a record that lies; credentials refused (basic and
# bearer); a server too slow for the time limit; read-only; the
# environment variables. Nothing goes beyond the loopback address.
. "$(dirname "$0")/../lib/cli_lib.sh"
CLC=$(cd "$(dirname "$CLC")" && pwd)/$(basename "$CLC")
HERE=$ROOT/tests/remote_cache
cd "$TMP" || exit 1
# clc-pack's temporary folders land here, where the test can see them.
export TMPDIR=$TMP/tmpdir
mkdir -p "$TMPDIR"

if ! command -v nginx >/dev/null 2>&1; then
    skip "nginx is not installed (scripts/deps.sh installs it): no server to test against"
    cli_done
fi
if ! "$CLC" --version | grep -q '^remote cache: libcurl'; then
    skip "clc-pack was built without libcurl (make CURL=0): it has no remote cache"
    cli_done
fi

# No proxy between us and 127.0.0.1, whatever the environment says.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
unset CLC_PACK_REMOTE_CACHE CLC_PACK_REMOTE_CACHE_READONLY CLC_PACK_REMOTE_CACHE_TOKEN \
    CLC_PACK_REMOTE_CACHE_TOKEN_FILE CLC_PACK_REMOTE_CACHE_BASIC_AUTH \
    CLC_PACK_REMOTE_CACHE_BASIC_AUTH_FILE

NG=$TMP/nginx
WWW=$NG/www
NGINX_PID=""
SLOW_PID=""
TOKEN=t0k3n-$$

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_nginx: on a free port (PORT, BASE), its pid in NGINX_PID; the folder
# www/ is kept from an earlier start. Fails after 5 tries.
start_nginx() {
    mkdir -p "$WWW" "$NG/tmp"
    for try in 1 2 3 4 5; do
        PORT=$(free_port)
        sed -e "s|@PREFIX@|$NG|g" -e "s|@PORT@|$PORT|g" -e "s|@TOKEN@|$TOKEN|g" \
            "$HERE/nginx.conf.in" >"$NG/nginx.conf"
        nginx -p "$NG" -e "$NG/error.log" -c "$NG/nginx.conf" >/dev/null 2>&1 &
        NGINX_PID=$!
        i=0
        while [ $i -lt 50 ] && kill -0 "$NGINX_PID" 2>/dev/null; do
            if python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 0.2)" 2>/dev/null; then
                BASE=http://127.0.0.1:$PORT
                return 0
            fi
            sleep 0.1
            i=$((i + 1))
        done
        stop_nginx
    done
    return 1
}

stop_nginx() {
    if [ -n "$NGINX_PID" ]; then
        kill "$NGINX_PID" 2>/dev/null
        wait "$NGINX_PID" 2>/dev/null
    fi
    NGINX_PID=""
}

stop_slow() {
    if [ -n "$SLOW_PID" ]; then
        kill "$SLOW_PID" 2>/dev/null
        wait "$SLOW_PID" 2>/dev/null
    fi
    SLOW_PID=""
}

trap 'stop_nginx; stop_slow; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM HUP

if ! start_nginx; then
    bad "nginx did not start: $(tail -n 3 "$NG/error.log" 2>/dev/null)"
    cli_done
fi
ok "nginx serves $WWW on $BASE"

# objects: the number of files the server holds under ac/ and cas/.
objects() {
    find "$WWW/ac" "$WWW/cas" -type f 2>/dev/null | wc -l | tr -d ' '
}

# Runner A and runner B: separate cache folders, separate processes.
SEL="--kernels $KERNELS --kernel Convolve_Def --kernel reda_local --widths 3,5 --wg 16x16 -j 2"
XDG_CACHE_HOME=$TMP/runner-a run "$CLC" $SEL --remote-cache "$BASE" -o a.clcpack
expect_rc 0 "runner A builds with the remote cache"
expect_out "variants  4 built, 0 failed, of 4" "runner A builds all 4 variants"
expect_out "remote    0 hits, 4 misses, 4 uploaded, 0 rejected, 0 request errors ($BASE)" \
    "runner A misses each variant and uploads it"
[ "$(objects)" = 8 ] && ok "the server holds 4 action results and 4 objects" ||
    bad "the server holds $(objects) files, not 8"
XDG_CACHE_HOME=$TMP/runner-b run "$CLC" $SEL -v --remote-cache "$BASE/" -o b.clcpack
expect_rc 0 "runner B"
expect_out "variants  0 built, 0 failed, 4 fetched from the remote cache, of 4" \
    "runner B builds nothing"
expect_out "4 hits, 0 misses, 0 uploaded" "runner B finds each variant"
expect_err "fetched Convolve_Def FILTER_WIDTH=3 wg=16x16 from the remote cache" "-v names what it fetched"
expect_true "runner B writes runner A's bytes" cmp a.clcpack b.clcpack
XDG_CACHE_HOME=$TMP/runner-n run "$CLC" $SEL --rebuild -o local.clcpack
expect_true "a build without the cache writes the same bytes" cmp a.clcpack local.clcpack

# The environment variable, and --no-remote-cache over it.
CLC_PACK_REMOTE_CACHE=$BASE XDG_CACHE_HOME=$TMP/runner-c run "$CLC" $SEL -o c.clcpack
expect_out "4 fetched from the remote cache" "CLC_PACK_REMOTE_CACHE names the cache"
CLC_PACK_REMOTE_CACHE=$BASE XDG_CACHE_HOME=$TMP/runner-c run "$CLC" $SEL --no-remote-cache --rebuild -o c.clcpack
expect_no_out "remote " "--no-remote-cache wins over CLC_PACK_REMOTE_CACHE"
expect_out "4 built" "and builds every variant"

# Read-only: looks up, never uploads.
printf '__kernel void twice(__global float *a) { a[get_global_id(0)] *= F; }\n' >t.cl
before=$(objects)
XDG_CACHE_HOME=$TMP/runner-r run "$CLC" t.cl -D F=1,2 --wg 64 --remote-cache "$BASE" --remote-cache-readonly -o r.clcpack
expect_rc 0 "a read-only runner"
expect_out "0 hits, 2 misses, 0 uploaded" "a read-only runner uploads nothing"
expect_out "read-only)" "the summary says read-only"
CLC_PACK_REMOTE_CACHE_READONLY=1 XDG_CACHE_HOME=$TMP/runner-r run "$CLC" t.cl -D F=1,2 --wg 64 --remote-cache "$BASE" --rebuild -o r.clcpack
expect_out "0 uploaded" "CLC_PACK_REMOTE_CACHE_READONLY=1 too"
[ "$(objects)" = "$before" ] && ok "the server got nothing from read-only runners" ||
    bad "read-only runners changed the server: $before -> $(objects) files"

# A damaged object: found by its SHA-256, built here, uploaded again.
obj=$(ls "$WWW/cas" | head -n 1)
python3 -c 'import sys; p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[len(b) // 2] ^= 1; open(p, "wb").write(b)' "$WWW/cas/$obj"
XDG_CACHE_HOME=$TMP/runner-d run "$CLC" $SEL --remote-cache "$BASE" -o d.clcpack
expect_rc 0 "a damaged object does not fail the build"
expect_err "SHA-256 is" "the damaged object is named by its SHA-256"
expect_err "; built here" "and the variant is built here"
[ "$(grep -c 'remote cache:' "$ERR")" = 1 ] && ok "in one line" || bad "$(grep -c 'remote cache:' "$ERR") lines about it"
expect_out "3 hits, 0 misses, 1 uploaded, 1 rejected" "the summary counts it"
expect_true "the pack is runner A's" cmp a.clcpack d.clcpack
XDG_CACHE_HOME=$TMP/runner-e run "$CLC" $SEL --remote-cache "$BASE" -o e.clcpack
expect_out "4 hits, 0 misses" "the object uploaded again serves the next runner"

# The variant cache in front of the server (docs/CACHE.md; off in the
# other runs here): what the server gives is kept on disk, and the next run
# into a new -o takes it from there without asking the server.
LOCAL="env -u CLC_PACK_NO_CACHE CLC_PACK_CACHE_DIR=$TMP/local-g XDG_CACHE_HOME=$TMP/runner-g"
run $LOCAL "$CLC" $SEL --remote-cache "$BASE" -o loc1.clcpack
expect_out "4 fetched from the remote cache" "with the variant cache on, a cold one: the server's variants"
expect_out "local     0 hits, 4 misses, 4 stored, 0 rejected" "are stored in the variant cache"
run $LOCAL "$CLC" $SEL --remote-cache "$BASE" -o loc2.clcpack
expect_out "variants  0 built, 0 failed, 4 from the local cache, of 4" "the next run takes them from the variant cache"
expect_out "remote    0 hits, 0 misses, 0 uploaded" "without asking the server"
expect_true "the pack is runner A's" cmp a.clcpack loc2.clcpack

# A record pointing at another variant's object: its key text differs.
set -- "$WWW"/ac/*
cp "$1" "$NG/saved-ac"
cp "$2" "$1"
XDG_CACHE_HOME=$TMP/runner-f run "$CLC" $SEL --remote-cache "$BASE" -o f.clcpack
expect_rc 0 "an action result naming another variant's object"
expect_err "built for another variant" "is refused by the record's key text"
expect_true "the pack is runner A's" cmp a.clcpack f.clcpack

# Records that lie: their forms changed, their CRC-32 and SHA-256 made
# right, so only the device-side checks can tell. Bytes that are not a
# PoCL binary, and one cut short (which crashes PoCL and would stay in its
# kernel cache), are refused before the driver sees them; so is a binary
# whose layout is intact but whose LLVM bitcode is changed (its program.bc
# must parse: PoCL loads a binary with its work-group functions without
# reading it).
# Each time the pack is runner A's, and the runner's cache folder builds
# the same pack afterwards without the remote cache (nothing of the lie
# stayed in PoCL's kernel cache).
n=0
for how in garble cut bitcode; do
    n=$((n + 1))
    set -- "$WWW"/ac/*
    eval "ac=\${$n}"
    python3 "$HERE/lie.py" "$WWW" "$ac" $how
    XDG_CACHE_HOME=$TMP/runner-g$n run "$CLC" $SEL --remote-cache "$BASE" -o g$n.clcpack
    expect_rc 0 "a lying record ($how) does not fail the build"
    case $how in
    garble | cut)
        expect_err "is not the canonical form a build of it makes" \
            "the lie ($how) is refused before the driver sees it" ;;
    bitcode)
        expect_err "program.bc is not LLVM bitcode that parses" \
            "the lie ($how) is refused before the driver sees it" ;;
    esac
    expect_out "1 uploaded" "the lie ($how) is replaced on the server"
    expect_true "the pack is runner A's ($how)" cmp a.clcpack g$n.clcpack
    XDG_CACHE_HOME=$TMP/runner-g$n run "$CLC" $SEL --rebuild -o g$n-local.clcpack
    expect_true "the runner's cache folder still builds runner A's pack ($how)" cmp a.clcpack g$n-local.clcpack
done
ls "$TMPDIR" | grep -q "^clc-pack-run-" && bad "a run left its workers' folder behind" ||
    ok "no workers' folder left behind"

# --check-cmd runs on fetched variants too.
CHECK_LOG=$TMP/checked.log
XDG_CACHE_HOME=$TMP/runner-h run "$CLC" t.cl -D F=3,4 --wg 64 --remote-cache "$BASE" \
    --check-cmd "echo {defines} >>$CHECK_LOG" -o h1.clcpack
XDG_CACHE_HOME=$TMP/runner-i run "$CLC" t.cl -D F=3,4 --wg 64 --remote-cache "$BASE" \
    --check-cmd "echo {defines} >>$CHECK_LOG" -o h2.clcpack
expect_out "2 fetched from the remote cache" "the second runner fetches both"
[ "$(wc -l <"$CHECK_LOG" | tr -d ' ')" = 4 ] && ok "--check-cmd ran on every variant, fetched or built" ||
    bad "--check-cmd ran $(wc -l <"$CHECK_LOG") times, not 4"
expect_true "the same bytes" cmp h1.clcpack h2.clcpack

# The server stopped in the middle of a build (by the check command of the
# second variant): the build goes on without it, with one line about it.
printf 'n=$(cat %s/count 2>/dev/null || echo 0); n=$((n + 1)); echo $n >%s/count\n[ "$n" = 2 ] && kill %s\nexit 0\n' \
    "$TMP" "$TMP" "$NGINX_PID" >stop.sh
XDG_CACHE_HOME=$TMP/runner-j run "$CLC" t.cl -D F=11-16 --wg 64 -j 1 --remote-cache "$BASE" \
    --check-cmd "sh $TMP/stop.sh" -o j.clcpack
expect_rc 0 "a server stopped mid-build does not fail the build"
kill -0 "$NGINX_PID" 2>/dev/null && bad "nginx was not stopped by the check command" ||
    ok "nginx was stopped at the second variant"
wait "$NGINX_PID" 2>/dev/null
NGINX_PID=""
expect_err "remote cache: " "a line says the cache failed"
expect_err "from now on" "and that the worker goes on without it"
expect_out "variants  6 built, 0 failed, of 6" "every variant is built"
XDG_CACHE_HOME=$TMP/runner-j run "$CLC" t.cl -D F=11-16 --wg 64 -j 1 --rebuild -o j-local.clcpack
expect_true "the pack is the one a build without the cache writes" cmp j.clcpack j-local.clcpack

# A server that is not there at all.
XDG_CACHE_HOME=$TMP/runner-j run "$CLC" t.cl -D F=11-16 --wg 64 -j 2 --remote-cache "$BASE" --rebuild -o k.clcpack
expect_rc 0 "a server that is down does not fail the build"
expect_err "Couldn't connect" "the line says why"
[ "$(grep -c 'remote cache:' "$ERR")" = 1 ] && ok "once, for both workers" ||
    bad "$(grep -c 'remote cache:' "$ERR") lines about the cache"
expect_true "the pack is the same" cmp k.clcpack j-local.clcpack

if ! start_nginx; then
    bad "nginx did not start again"
    cli_done
fi

# Credentials refused: basic authentication, then a bearer token.
if command -v openssl >/dev/null 2>&1; then
    printf 'runner:%s\n' "$(openssl passwd -apr1 'right horse')" >"$NG/htpasswd"
else
    printf 'runner:{PLAIN}right horse\n' >"$NG/htpasswd"
fi
CLC_PACK_REMOTE_CACHE_BASIC_AUTH='runner:wrong horse' XDG_CACHE_HOME=$TMP/runner-l \
    run "$CLC" t.cl -D F=21,22 --wg 64 -j 1 --remote-cache "$BASE/basic" -o l.clcpack
expect_rc 0 "refused credentials do not fail the build"
expect_err "HTTP 401 (the credentials are refused)" "the refusal is named"
expect_out "2 built" "every variant is built"
XDG_CACHE_HOME=$TMP/runner-l run "$CLC" t.cl -D F=21,22 --wg 64 -j 1 --remote-cache "$BASE/basic" --rebuild -o l.clcpack
expect_err "HTTP 401" "no credentials: refused too"
printf 'runner:right horse\n' >"$TMP/basic-auth"
CLC_PACK_REMOTE_CACHE_BASIC_AUTH_FILE=$TMP/basic-auth XDG_CACHE_HOME=$TMP/runner-l \
    run "$CLC" t.cl -D F=21,22 --wg 64 -j 1 --remote-cache "$BASE/basic" --rebuild -o l.clcpack
expect_out "0 hits, 2 misses, 2 uploaded" "the right credentials from a file upload"
CLC_PACK_REMOTE_CACHE_BASIC_AUTH='runner:right horse' XDG_CACHE_HOME=$TMP/runner-m \
    run "$CLC" t.cl -D F=21,22 --wg 64 -j 1 --remote-cache "$BASE/basic" -o m.clcpack
expect_out "2 fetched from the remote cache" "and serve the next runner"
CLC_PACK_REMOTE_CACHE_TOKEN=not-it XDG_CACHE_HOME=$TMP/runner-m \
    run "$CLC" t.cl -D F=21,22 --wg 64 -j 1 --remote-cache "$BASE/bearer" --rebuild -o m.clcpack
expect_err "HTTP 401 (the credentials are refused)" "a wrong bearer token is refused"
printf '%s\r\n' "$TOKEN" >"$TMP/token"
CLC_PACK_REMOTE_CACHE_TOKEN_FILE=$TMP/token XDG_CACHE_HOME=$TMP/runner-m \
    run "$CLC" t.cl -D F=21,22 --wg 64 -j 1 --remote-cache "$BASE/bearer" --rebuild -o m.clcpack
expect_out "2 uploaded" "the token from a file (its CR dropped) is taken"
CLC_PACK_REMOTE_CACHE_TOKEN=$TOKEN XDG_CACHE_HOME=$TMP/runner-o \
    run "$CLC" t.cl -D F=21,22 --wg 64 -j 1 --remote-cache "$BASE/bearer" -o o.clcpack
expect_out "2 fetched from the remote cache" "and the token from the variable"
CLC_PACK_REMOTE_CACHE_TOKEN_FILE=$TMP/no-such-file XDG_CACHE_HOME=$TMP/runner-o \
    run "$CLC" t.cl -D F=21,22 --wg 64 -j 1 --remote-cache "$BASE/bearer" --rebuild -o o.clcpack
expect_rc 0 "an unreadable token file does not fail the build"
expect_err "CLC_PACK_REMOTE_CACHE_TOKEN_FILE=$TMP/no-such-file cannot be read" "a note names the file"

# An offline toolchain's variants (SPIR-V: the cheapest to build): runner
# A uploads them, runner B fetches them and writes A's bytes; a record
# that lies (its binaries garbled, its hashes right) fails the checks of a
# fresh build's binaries, is built here and replaced on the server.
if command -v clang-15 >/dev/null 2>&1 && command -v llvm-spirv-15 >/dev/null 2>&1; then
    OSEL="t.cl -D F=41,42 --wg 64 --device none --spirv -j 2"
    ls "$WWW/ac" >ac-before.txt
    XDG_CACHE_HOME=$TMP/runner-oa run "$CLC" $OSEL --remote-cache "$BASE" -o oa.clcpack
    expect_rc 0 "runner A builds SPIR-V variants with the remote cache"
    expect_out "remote    0 hits, 2 misses, 2 uploaded, 0 rejected" "and uploads each"
    XDG_CACHE_HOME=$TMP/runner-ob run "$CLC" $OSEL --remote-cache "$BASE" -o ob.clcpack
    expect_out "variants  0 built, 0 failed, 2 fetched from the remote cache, of 2" \
        "runner B fetches every SPIR-V variant"
    expect_true "runner B writes runner A's bytes (SPIR-V)" cmp oa.clcpack ob.clcpack
    ac=$(ls "$WWW/ac" | grep -vxFf ac-before.txt | head -n 1)
    python3 "$HERE/lie.py" "$WWW" "$WWW/ac/$ac" garble
    XDG_CACHE_HOME=$TMP/runner-oc run "$CLC" $OSEL --remote-cache "$BASE" -o oc.clcpack
    expect_rc 0 "a lying SPIR-V record does not fail the build"
    expect_err "the fetched variant failed its check: its SPIR-V_1.0 binary" "it fails a fresh build's checks"
    expect_out "1 hits, 0 misses, 1 uploaded, 1 rejected" "it is built here and replaced on the server"
    expect_true "the pack is runner A's (SPIR-V)" cmp oa.clcpack oc.clcpack
else
    skip "no clang-15 and llvm-spirv-15: the offline variants in the remote cache"
fi

# A server too slow for the time limit: each worker waits once, then
# builds without it.
python3 "$HERE/slow_server.py" "$TMP/slow-port" 30 &
SLOW_PID=$!
i=0
while [ ! -s "$TMP/slow-port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
XDG_CACHE_HOME=$TMP/runner-s run "$CLC" t.cl -D F=31-34 --wg 64 -j 2 \
    --remote-cache "http://127.0.0.1:$(cat "$TMP/slow-port")" --remote-cache-timeout 1 -o s.clcpack
expect_rc 0 "a slow server does not fail the build"
expect_err "timed out" "the time limit is named"
expect_out "4 built" "every variant is built"
expect_out "2 request errors" "one timeout per worker, then no more requests"
stop_slow

# URLs that cannot be used: usage errors, nothing built.
run "$CLC" t.cl -D F=1 --wg 64 --remote-cache "http://runner:pw@127.0.0.1:$PORT" -o x.clcpack
expect_rc 2 "a URL with a password"
expect_err "CLC_PACK_REMOTE_CACHE_BASIC_AUTH" "says where credentials go"
run "$CLC" t.cl -D F=1 --wg 64 --remote-cache "ftp://127.0.0.1/" -o x.clcpack
expect_rc 2 "an ftp:// URL"
CLC_PACK_REMOTE_CACHE="http://127.0.0.1:$PORT/a?b" run "$CLC" t.cl -D F=1 --wg 64 -o x.clcpack
expect_rc 2 "a URL with a query, from the environment"
expect_err "CLC_PACK_REMOTE_CACHE:" "names the variable"
for o in --remote-cache-timeout=0 --remote-cache-timeout=601 --remote-cache-timeout=x; do
    run "$CLC" t.cl -D F=1 --wg 64 "$o" -o x.clcpack
    expect_rc 2 "$o"
done
[ -e x.clcpack ] && bad "a usage error wrote a pack" || ok "no pack written by a usage error"
cli_done
