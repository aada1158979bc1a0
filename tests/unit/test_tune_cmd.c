/*
 * test_tune_cmd.c — the timing line of --tune-cmd (clc/checks/tune_cmd.h):
 * what is taken, and every way the untrusted output is refused, each with
 * a message that quotes the line. No OpenCL device needed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tune_cmd.h"

static void good(const char *out, uint64_t ns, uint32_t runs, uint32_t w, uint32_t h,
                 uint32_t value)
{
    clcpack_tuning t;
    char msg[TUNE_CMD_MSG_MAX] = "";
    int rc = tune_cmd_parse(out, &t, msg);
    CHECK(rc == 0 && t.median_ns == ns && t.runs == runs && t.width == w && t.height == h &&
              t.runtime_value == value,
          "taken: '%.60s' (%s)", out, msg);
}

static void bad(const char *out, const char *want)
{
    clcpack_tuning t;
    char msg[TUNE_CMD_MSG_MAX] = "";
    CHECK(tune_cmd_parse(out, &t, msg) == -1 && strstr(msg, want),
          "refused: '%.60s' with '%s' (got '%s')", out, want, msg);
}

int main(void)
{
    good("median_ns=123456 runs=11 size=1024x768\n", 123456, 11, 1024, 768, 0);
    good("warming up\nmedian_ns=5 runs=1 size=4096x1 value=7\ndone\n", 5, 1, 4096, 1, 7);
    good("median_ns=9 size=2x3   runs=3\t", 9, 3, 2, 3, 0);
    good("median_ns=9 runs=3 size=2x3\r\n", 9, 3, 2, 3, 0);
    good("median_ns=9223372036854775807 runs=1000000 size=2147483647x2147483647 value=4294967295",
         9223372036854775807ull, 1000000, 2147483647u, 2147483647u, 4294967295u);

    bad("", "printed no timing line");
    bad("time: 5 ns\n  median_ns=5 runs=1 size=1x1\n", "printed no timing line");
    bad("median_ns=5 runs=1 size=1x1\nmedian_ns=6 runs=1 size=1x1\n", "printed 2 timing lines");
    bad("median_ns=5 runs=0 size=1x1", "bad field 'runs=0'");
    bad("median_ns=0 runs=1 size=1x1", "bad field 'median_ns=0'");
    bad("median_ns=-5 runs=1 size=1x1", "bad field 'median_ns=-5'");
    bad("median_ns=5 runs=1000001 size=1x1", "bad field 'runs=1000001'");
    bad("median_ns=5 runs=1 size=0x1", "bad field 'size=0x1'");
    bad("median_ns=5 runs=1 size=2147483648x1", "bad field");
    bad("median_ns=5 runs=1 size=12", "bad field 'size=12'");
    bad("median_ns=5 runs=1 size=1x1 value=4294967296", "bad field 'value=4294967296'");
    bad("median_ns=9223372036854775808 runs=1 size=1x1", "bad field");
    bad("median_ns=99999999999999999999 runs=1 size=1x1", "bad field");
    bad("median_ns=5.5 runs=1 size=1x1", "bad field 'median_ns=5.5'");
    bad("median_ns=0x10 runs=1 size=1x1", "bad field");
    bad("median_ns=5 runs=1", "lacks size=WxH");
    bad("median_ns=5 size=1x1", "lacks runs=R");
    bad("median_ns=5 runs=1 size=1x1 speed=fast", "unknown field 'speed'");
    bad("median_ns=5 runs=1 size=1x1 runs=2", "field runs given twice");
    bad("median_ns=5 runs=1 size=1x1 junk", "bad field 'junk'");
    bad("median_ns=5 runs=\x1b[31m1 size=1x1", "runs=?[31m1");

    /* A line over the bound is refused, quoted but cut. */
    char *big = malloc(4096);
    snprintf(big, 4096, "median_ns=5 runs=1 size=1x1 ");
    size_t len = strlen(big);
    memset(big + len, 'v', 1000);
    big[len + 1000] = '\0';
    bad(big, "longer than 256 bytes");
    clcpack_tuning t;
    char msg[TUNE_CMD_MSG_MAX];
    tune_cmd_parse(big, &t, msg);
    CHECK(strlen(msg) < TUNE_CMD_MSG_MAX, "the message stays within its buffer (%zu)", strlen(msg));
    free(big);
    return check_summary();
}
