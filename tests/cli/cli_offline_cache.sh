#!/bin/sh
# The offline toolchains' variants in the variant cache (docs/CACHE.md,
# "What it covers"): a build with Intel, AMD and SPIR-V targets into a new
# -o takes every variant from the cache and writes the cold build's bytes
# (at another -j, and those of --no-cache); another ocloc (another path, a
# new mtime, another version text) misses; a damaged entry and one that
# lies (its hashes right, its binaries garbled) are refused and rebuilt.
# Each toolchain that is not installed is left out, and the test says
# "skipped" when none is. Every cache folder is this test's own.
. "$(dirname "$0")/../lib/cli_lib.sh"
cd "$TMP" || exit 1
unset CLC_PACK_NO_CACHE CLC_PACK_CACHE_SIZE
export XDG_CACHE_HOME=$TMP/xdg-home

OFF="" chains=0 have_intel=0
if command -v ocloc >/dev/null 2>&1; then
    OFF="$OFF --intel-gpu=tgllp,dg1" chains=$((chains + 1)) have_intel=1
fi
if command -v clang-15 >/dev/null 2>&1 && [ -x /usr/lib/llvm-15/bin/ld.lld ] &&
    [ -f /usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ockl.bc ]; then
    OFF="$OFF --amd-gpu=gfx90a,gfx1030" chains=$((chains + 1))
fi
if command -v clang-15 >/dev/null 2>&1 && command -v llvm-spirv-15 >/dev/null 2>&1; then
    OFF="$OFF --spirv" chains=$((chains + 1))
fi
if [ $chains = 0 ]; then
    skip "no offline toolchain is installed (make deps installs intel-opencl-icd, clang-15," \
        "lld-15, llvm-spirv-15, rocm-device-libs): the offline variants in the cache"
    cli_done
fi

printf '__kernel void twice(__global float *a) { a[get_global_id(0)] *= F; }\n' >t.cl
SEL="t.cl -D F=1,2 --wg 32 $OFF"
# Two defines on PoCL's device and on each toolchain.
ALL=$((2 * (chains + 1)))
OFFN=$((2 * chains))

# entry CHAIN: the first entry of c1 built by that toolchain ("forms" in
# its key text is the toolchain's name).
entry() {
    grep -l "forms ${#1}:$1" c1/variants/*.rec 2>/dev/null | head -n 1
}

export CLC_PACK_CACHE_DIR=$TMP/c1
run "$CLC" $SEL -j 2 -o a.clcpack
expect_rc 0 "a cold build with offline targets"
expect_out "local     0 hits, $ALL misses, $ALL stored, 0 rejected" "stores every variant, the offline ones too"
run "$CLC" $SEL -j 1 -o b.clcpack
expect_rc 0 "the same into a new -o at -j 1"
expect_out "variants  0 built, 0 failed, $ALL from the local cache, of $ALL" "builds nothing"
expect_out "local     $ALL hits, 0 misses, 0 stored, 0 rejected" "takes every offline variant from the cache"
expect_true "the warm pack is the cold pack, byte for byte" cmp a.clcpack b.clcpack
CLC_PACK_CACHE_DIR=$TMP/c-off run "$CLC" $SEL -j 2 --no-cache -o n.clcpack
expect_rc 0 "--no-cache"
expect_true "a build without the cache writes the same bytes" cmp a.clcpack n.clcpack

# A damaged entry (a flipped byte: its SHA-256 is wrong) and one that lies
# (tests/remote_cache/lie.py --local: its binaries garbled, every hash
# right, so only the binaries' checks can tell): refused, the reason said,
# rebuilt and stored again; the pack is the cold one.
e=$(entry spirv)
[ -n "$e" ] || e=$(entry amd)
[ -n "$e" ] || e=$(entry intel)
size=$(wc -c <"$e")
printf 'X' | dd of="$e" bs=1 seek=$((size - 10)) conv=notrunc 2>/dev/null
run "$CLC" $SEL -j 2 -o d.clcpack
expect_rc 0 "a damaged offline entry does not fail the build"
expect_err "local cache: t F=" "the refusal is said"
expect_out "$((ALL - 1)) hits, 0 misses, 1 stored, 1 rejected" "it is refused and stored again"
expect_true "the pack is the cold one (damaged)" cmp a.clcpack d.clcpack
python3 "$ROOT/tests/remote_cache/lie.py" --local "$e" garble
run "$CLC" $SEL -j 2 -o g.clcpack
expect_rc 0 "an offline entry that lies does not fail the build"
expect_err "the cached variant failed its check: its" "it fails the checks of a fresh build's binaries"
expect_out "$((ALL - 1)) hits, 0 misses, 1 stored, 1 rejected" "it is refused and stored again"
expect_true "the pack is the cold one (garbled)" cmp a.clcpack g.clcpack
run "$CLC" $SEL -j 2 -o w.clcpack
expect_out "local     $ALL hits, 0 misses, 0 stored, 0 rejected" "what was stored again serves the next run"

# Another toolchain: ocloc behind a wrapper on PATH that answers its
# version query itself. Another path misses; the same wrapper hits; a new
# mtime or another version text misses again.
if [ $have_intel = 1 ]; then
    mkdir -p bin
    real=$(command -v ocloc)
    cat >bin/ocloc <<EOF
#!/bin/sh
if [ "\$1" = query ] && [ -n "\${FAKE_OCLOC_VERSION:-}" ]; then
    printf '%s' "\$FAKE_OCLOC_VERSION" >OCL_DRIVER_VERSION
    exit 0
fi
exec "$real" "\$@"
EOF
    chmod +x bin/ocloc
    W="env PATH=$TMP/bin:$PATH FAKE_OCLOC_VERSION=1.0.1"
    run $W "$CLC" $SEL -j 2 -o i1.clcpack
    expect_rc 0 "a build with another ocloc"
    expect_out "local     $((ALL - 2)) hits, 2 misses, 2 stored" "another ocloc's path misses (the Intel variants only)"
    run $W "$CLC" $SEL -j 2 -o i2.clcpack
    expect_out "local     $ALL hits, 0 misses" "the same ocloc again hits"
    expect_true "and writes that build's bytes" cmp i1.clcpack i2.clcpack
    touch -d '1 hour ago' bin/ocloc
    run $W "$CLC" $SEL -j 2 -o i3.clcpack
    expect_out "local     $((ALL - 2)) hits, 2 misses, 2 stored" "a new mtime misses"
    run env PATH="$TMP/bin:$PATH" FAKE_OCLOC_VERSION=1.0.2 "$CLC" $SEL -j 2 -o i4.clcpack
    expect_out "local     $((ALL - 2)) hits, 2 misses, 2 stored" "another version text misses"
    expect_true "the pack names that version" sh -c "! cmp -s i3.clcpack i4.clcpack"
else
    skip "no ocloc: another toolchain's identity"
fi
cli_done
