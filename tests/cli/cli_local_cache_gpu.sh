#!/bin/sh
# The variant cache (docs/CACHE.md) on a GPU, the stub driver's Intel one
# (tests/stubs/gpu_driver/README.md): a warm build into a new -o takes
# every variant from the cache with no context made and no binary loaded
# (an NVIDIA context costs tenths of a second, and sixteen workers' contexts
# are made one after another by the driver), and writes the cold build's
# bytes; CLC_PACK_CACHE_LOAD=1 loads each hit back on the device, as a
# remote hit is, with the same bytes; a damaged entry is refused and
# rebuilt in a context of its own.
. "$(dirname "$0")/../lib/cli_lib.sh"
. "$(dirname "$0")/../lib/stub_lib.sh"
cd "$TMP" || exit 1
unset CLC_PACK_NO_CACHE
export CLC_PACK_CACHE_DIR=$TMP/cache

cat >k.cl <<'EOF2'
__kernel void twice(__global float *x) { x[get_global_id(0)] *= 2.0f * W; }
EOF2
if ! stub_use "intel:tgllp"; then
    bad "the stub driver is not built ($STUB_LIB)"
    cli_done
fi
SEL="k.cl -D W=1,2,3 --device 0 -j 2"

run "$CLC" $SEL -o cold.clcpack
expect_rc 0 "a cold build on the stub's GPU, with the cache"
expect_out "local     0 hits, 3 misses, 3 stored, 0 rejected" "stores each variant"
n=$(stub_count context intel:tgllp)
[ "$n" -ge 1 ] && ok "the cold build makes contexts ($n)" || bad "the cold build made no context"

: >"$STUB_LOG"
run "$CLC" $SEL -o warm.clcpack
expect_rc 0 "a warm build into a new -o"
expect_out "variants  0 built, 0 failed, 3 from the local cache, of 3" "builds nothing"
n=$(stub_count context intel:tgllp)
[ "$n" -eq 0 ] && ok "no context made for the hits" || bad "$n contexts made for local hits"
n=$(stub_count binary intel:tgllp)
[ "$n" -eq 0 ] && ok "no binary loaded for the hits" || bad "$n binaries loaded for local hits"
expect_true "the warm pack is the cold pack, byte for byte" cmp cold.clcpack warm.clcpack

: >"$STUB_LOG"
CLC_PACK_CACHE_LOAD=1 run "$CLC" $SEL -o load.clcpack
expect_rc 0 "CLC_PACK_CACHE_LOAD=1"
expect_out "local     3 hits, 0 misses, 0 stored, 0 rejected" "takes every variant from the cache"
n=$(stub_count binary intel:tgllp - CL_SUCCESS)
[ "$n" -ge 3 ] && ok "and loads each back on the device ($n loads)" || bad "$n loads, wanted 3 or more"
expect_true "with the cold bytes" cmp cold.clcpack load.clcpack

# A flipped byte: the SHA-256 refuses it with no device; the variant is
# built again, in a context.
e=$(ls cache/variants/*.rec | head -n 1)
size=$(wc -c <"$e")
printf 'X' | dd of="$e" bs=1 seek=$((size - 10)) conv=notrunc 2>/dev/null
: >"$STUB_LOG"
run "$CLC" $SEL -o damaged.clcpack
expect_rc 0 "a damaged entry does not fail the build"
expect_err "SHA-256 is not the one in the entry's head; built here" "the refusal is said"
expect_out "local     2 hits, 0 misses, 1 stored, 1 rejected" "it is rebuilt and stored again"
n=$(stub_count context intel:tgllp)
[ "$n" -ge 1 ] && ok "its build makes a context ($n)" || bad "no context for the rebuild"
expect_true "the pack is the cold one" cmp cold.clcpack damaged.clcpack
cli_done
