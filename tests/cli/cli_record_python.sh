#!/bin/sh
# clc-pack record / run on a PyOpenCL script (tests/data/record/pyopencl_app.py),
# with PyOpenCL from PyPI (a virtual environment; its wheel bundles its own
# ICD loader, whose symbols are versioned OPENCL_1.0 and which Python loads
# privately, out of the global symbol scope) and from Debian
# (python3-pyopencl, on the system loader). For each: the recorded pack
# serves the program, output identical to a run without the interposer, the
# script moved to another folder between record and replay; PyOpenCL adds
# "-I <its install folder>/cl" to the options, which the key leaves out.
# An application that loads its own binaries is recorded as capturing
# nothing, and says so. Under PyOpenCL's defaults (its cache on and empty:
# PyOpenCL appends a randomly named constant to the source) a script of two
# programs is served whole, recorded with the cache on or off. A flavour that is not installed is skipped with a
# note (.ci/run installs both). PoCL.
. "$(dirname "$0")/../lib/cli_lib.sh"

APP=$ROOT/tests/data/record/pyopencl_app.py
VENV=${PYOPENCL_VENV:-$ROOT/.pyopencl-venv}
PRELOAD=$BUILD/libclcpack-preload.so
export PYOPENCL_NO_CACHE=1 PYOPENCL_CTX=0

# flavour NAME PYTHON: the checks with one PyOpenCL.
flavour() {
    name=$1
    py=$2
    dir=$TMP/$name
    mkdir -p "$dir/a" "$dir/b"
    cp "$APP" "$dir/a/app.py"
    run "$py" "$dir/a/app.py"
    expect_rc 0 "$name: the script runs"
    expect_out "kernels: ['saxpy', 'square']" "$name: both kernels"
    cp "$OUT" "$dir/plain.out"

    run "$CLC" record --log -o "$dir/app.clcpack" -- "$py" "$dir/a/app.py"
    expect_rc 0 "$name: record"
    cmp -s "$OUT" "$dir/plain.out" && ok "$name: record keeps the output" ||
        bad "$name: record changed the output"
    expect_err "recorded 1 program build" "$name: one program captured"
    run "$CLC" list --json "$dir/app.clcpack"
    expect_out "/pyopencl/cl" "$name: the exact options, with PyOpenCL's -I, are stored"

    mv "$dir/a/app.py" "$dir/b/app.py"
    POCL_KERNEL_CACHE=0 run "$CLC" run --log "$dir/app.clcpack" -- "$py" "$dir/b/app.py"
    expect_rc 0 "$name: run"
    cmp -s "$OUT" "$dir/plain.out" && ok "$name: byte-identical output (kernel names, source)" ||
        bad "$name: run changed the output"
    expect_err "served from the pack" "$name: served"
    if grep -q "passed through" "$ERR"; then bad "$name: passed through"; else ok "$name: nothing passed through"; fi

    CLCPACK_LOG=1 CLCPACK_PACK="$dir/app.clcpack" LD_PRELOAD="$PRELOAD" run "$py" "$dir/b/app.py"
    cmp -s "$OUT" "$dir/plain.out" && ok "$name: LD_PRELOAD, same output" ||
        bad "$name: LD_PRELOAD changed the output"
    expect_err "served from the pack" "$name: LD_PRELOAD, served"

    # Programs made from the application's own binaries: nothing to capture.
    run "$py" "$dir/b/app.py" --save "$dir/prog.bin"
    expect_rc 0 "$name: save the program's binary"
    run "$CLC" record -o "$dir/none.clcpack" -- "$py" "$dir/b/app.py" --load "$dir/prog.bin"
    expect_rc 1 "$name: record of an app that loads binaries"
    expect_err "built no program from source" "$name: says nothing was built from source"
    expect_err "created its programs from binaries" "$name: says it loaded binaries"
    [ "$(grep '^sum:' "$OUT")" = "$(grep '^sum:' "$dir/plain.out")" ] &&
        ok "$name: --load gives the same result" || bad "$name: --load result"
    cached "$name" "$py"
}

# cached NAME PYTHON: a script of two programs (three kernels) under
# PyOpenCL's defaults, its binary cache on and empty (a fresh
# XDG_CACHE_HOME each run): on a miss PyOpenCL appends a declaration of a
# randomly named constant to the source before it builds (Debian's PyOpenCL
# on PoCL does; PyPI's builds plainly there), which the key leaves out, so
# every build is served whether the record or the run had the cache on.
cached() {
    name=$1
    py=$2
    dir=$TMP/$name-cached
    app=$ROOT/tests/data/record/pyopencl_cached.py
    mkdir -p "$dir"
    XDG_CACHE_HOME=$dir/c0 run env -u PYOPENCL_NO_CACHE "$py" "$app"
    expect_rc 0 "$name, cache on: the script runs"
    expect_out "kernels: ['pairs', 'scale', 'shift']" "$name, cache on: three kernels"
    cp "$OUT" "$dir/plain.out"
    XDG_CACHE_HOME=$dir/c1 run env -u PYOPENCL_NO_CACHE "$CLC" record -o "$dir/on.clcpack" -- "$py" "$app"
    expect_rc 0 "$name, cache on: record"
    expect_err "recorded 2 program builds (2 distinct programs)" "$name, cache on: two programs recorded"
    run "$CLC" record -o "$dir/off.clcpack" -- "$py" "$app"
    expect_rc 0 "$name, cache off: record"
    for pack in on off; do
        XDG_CACHE_HOME=$dir/c2-$pack run env -u PYOPENCL_NO_CACHE "$CLC" run --log "$dir/$pack.clcpack" -- "$py" "$app"
        expect_rc 0 "$name, cache on, recorded with the cache $pack: run"
        cmp -s "$OUT" "$dir/plain.out" && ok "$name, cache on, recorded with the cache $pack: same output" ||
            bad "$name, cache on, recorded with the cache $pack: the output changed"
        served=$(grep -c "served from the pack" "$ERR")
        [ "$served" -eq 2 ] && ok "$name, cache on, recorded with the cache $pack: both builds served" ||
            bad "$name, cache on, recorded with the cache $pack: $served of 2 builds served"
    done
    # The pack's source is the program's own text, without PyOpenCL's line.
    for e in 0 1; do
        run "$CLC" extract -q "$dir/on.clcpack" --source --entry $e -o -
        expect_out "__kernel void" "$name: entry $e's source extracted"
        if grep -q pyopencl_defeat_cache "$OUT"; then bad "$name: entry $e: the declaration PyOpenCL added is stored"
        else ok "$name: entry $e: the stored source is the program's own"; fi
    done
}

# Python is not built with the sanitizers: an instrumented interposer inside
# it reports Python's and PyOpenCL's own leaks and load order, not ours.
if ldd "$PRELOAD" 2>/dev/null | grep -q 'lib[at]san'; then
    skip "$PRELOAD is built with a sanitizer, Python is not" \
        "(tests/cli/cli_record.sh and test_record_threads cover the interposer under ASan and TSan)"
    cli_done
fi
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import pyopencl, numpy" 2>/dev/null; then
    flavour pypi "$VENV/bin/python"
else
    skip "PyOpenCL from PyPI: no $VENV with pyopencl and numpy" \
        "(python3 -m venv $VENV && $VENV/bin/pip install pyopencl numpy; .ci/run does it)"
fi
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import pyopencl, numpy" 2>/dev/null; then
    flavour debian /usr/bin/python3
else
    skip "PyOpenCL from Debian: python3-pyopencl is not installed" \
        "(apt-get install python3-pyopencl; .ci/run does it)"
fi
cli_done
