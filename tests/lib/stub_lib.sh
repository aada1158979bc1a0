# stub_lib.sh — the stub OpenCL driver (tests/stubs/gpu_driver/README.md) in shell
# tests. Source it after cli_lib.sh:
#   . "$(dirname "$0")/../lib/stub_lib.sh"
#
#   stub_use DEVICES [pocl]  point the ICD loader at the stub playing DEVICES
#                            ("intel:tgllp,amd:gfx90a:xnack-"; "" for the
#                            stub's default), with the machine's PoCL too when
#                            the second argument is "pocl"; the log is $STUB_LOG,
#                            emptied. Fails (status 1) when the stub is not built.
#   stub_off                 the machine's own drivers again
#   stub_sha FILE            the SHA-256 of FILE, as the log writes it
#   stub_count CALL DEV [SHA [RESULT]]
#                            how many lines of the log are CALL (source,
#                            binary, il, build) on DEV (a label such as
#                            intel:tgllp; "-" for any), handing bytes with
#                            SHA ("-" any), with RESULT (CL_SUCCESS, ...)
#   stub_got CALL DEV FILE   whether DEV was handed exactly FILE's bytes by
#                            CALL and took them (status 0) — e.g.
#                            clc-pack extract PACK --entry 3 -o e3.bin
#                            stub_got binary intel:tgllp e3.bin
#   stub_options CALL DEV    the options of the last such line (build)
#
# Switches (CLCSTUB_REFUSE_BINARIES, ...) are plain environment variables;
# set them for one command: CLCSTUB_REFUSE_BINARIES=1 run "$CLC" ...

STUB_LIB=$BUILD/tests/libclcstub.so
STUB_LOG=$TMP/stub.log
# The drivers the caller chose (scripts/sanitize.sh leaves out one that
# sanitized programs cannot load): stub_off goes back to them, not to all.
STUB_SAVED_VENDORS=${OCL_ICD_VENDORS-}
STUB_SAVED_VENDORS_SET=${OCL_ICD_VENDORS+1}

stub_use() {
    [ -f "$STUB_LIB" ] || return 1
    mkdir -p "$TMP/stub-vendors" || return 1
    rm -f "$TMP/stub-vendors/"*.icd
    echo "$STUB_LIB" >"$TMP/stub-vendors/clcstub.icd"
    if [ "${2:-}" = pocl ]; then
        for f in /etc/OpenCL/vendors/*pocl*.icd; do
            [ -f "$f" ] && head -n 1 "$f" >"$TMP/stub-vendors/$(basename "$f")"
        done
    fi
    : >"$STUB_LOG"
    OCL_ICD_VENDORS=$TMP/stub-vendors
    CLCSTUB_LOG=$STUB_LOG
    export OCL_ICD_VENDORS CLCSTUB_LOG
    if [ -n "$1" ]; then
        CLCSTUB_DEVICES=$1
        export CLCSTUB_DEVICES
    else
        unset CLCSTUB_DEVICES
    fi
    unset CLCSTUB_REFUSE_BINARIES CLCSTUB_FAIL_BUILD CLCSTUB_BUILD_DELAY_MS \
        CLCSTUB_CRASH_BUILD CLCSTUB_INTEL_RECOMPILE CLCSTUB_SAVE_DIR
    return 0
}

stub_off() {
    unset OCL_ICD_VENDORS CLCSTUB_LOG CLCSTUB_DEVICES
    if [ -n "$STUB_SAVED_VENDORS_SET" ]; then
        OCL_ICD_VENDORS=$STUB_SAVED_VENDORS
        export OCL_ICD_VENDORS
    fi
}

stub_sha() {
    sha256sum "$1" | cut -c1-64
}

stub_count() {
    call=$1 dev=$2 sha=${3:--} result=${4:--}
    grep -F " call=$call " "$STUB_LOG" |
        { if [ "$dev" = - ]; then cat; else grep -F " dev=$dev "; fi; } |
        { if [ "$sha" = - ]; then cat; else grep -F " sha256=$sha "; fi; } |
        { if [ "$result" = - ]; then cat; else grep -F " result=$result "; fi; } |
        wc -l | tr -d ' '
}

stub_got() {
    [ "$(stub_count "$1" "$2" "$(stub_sha "$3")" CL_SUCCESS)" -ge 1 ] &&
        grep -F " call=$1 dev=$2 " "$STUB_LOG" | grep -F " sha256=$(stub_sha "$3") " |
        grep -qF " bytes=$(wc -c <"$3" | tr -d ' ') "
}

stub_options() {
    grep -F " call=$1 dev=$2 " "$STUB_LOG" | tail -n 1 | sed 's/.* options="\(.*\)"$/\1/'
}
