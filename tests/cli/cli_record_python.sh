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
# nothing, and says so. A flavour that is not installed is skipped with a
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
