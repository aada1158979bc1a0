/*
 * test_spec_rules.c — rules of docs/FORMAT.md where the library and the
 * text once disagreed:
 *
 *  - define values are ordered by a total order: integers of any length by
 *    value, before every other value, the rest in byte order (checked as
 *    antisymmetry and transitivity over many values, long numbers too);
 *  - the tuning list is read only from packs of format version 2 or later;
 *    what follows the version-1 fields of a version-1 record, and 1 to 3
 *    bytes after them in any version, are skipped;
 *  - a native entry with a non-zero arch is refused at open (so verify,
 *    list, --load and merge agree).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clcpack.h"
#include "hostile_pack.h"
#include "pack_writer.h"

static int sign(int c) { return c < 0 ? -1 : c > 0; }

static void test_value_order(void)
{
    static const char *v[] = {
        "", "0", "00", "-0", "1", "01", "2", "9", "10", "-1", "-10", "-2", "1a", "2b", "9a", "a",
        "B", "FLOAT", "float4", "123456789012345678", "1234567890123456789",
        "99999999999999999999999", "100000000000000000000000", "-99999999999999999999",
        "-100000000000000000000", "0x10", "1e3", "- 1", "--1", "1-", "18446744073709551616",
    };
    const size_t n = sizeof v / sizeof v[0];
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        ok &= CHECK(clcpk_value_compare(v[i], v[i]) == 0, "'%s' equals itself", v[i]);
        for (size_t j = 0; j < n; j++) {
            int ij = sign(clcpk_value_compare(v[i], v[j]));
            int ji = sign(clcpk_value_compare(v[j], v[i]));
            if (i != j && !CHECK(ij == -ji && ij != 0, "'%s' vs '%s': %d and %d", v[i], v[j], ij, ji))
                ok = 0;
            for (size_t k = 0; k < n && ok; k++) {
                int jk = sign(clcpk_value_compare(v[j], v[k]));
                int ik = sign(clcpk_value_compare(v[i], v[k]));
                if (ij < 0 && jk < 0 && !CHECK(ik < 0, "transitive: '%s' < '%s' < '%s'", v[i], v[j], v[k]))
                    ok = 0;
            }
        }
    }
    /* The order the text states. */
    CHECK(clcpk_value_compare("9", "10") < 0, "9 before 10");
    CHECK(clcpk_value_compare("99999999999999999999999", "100000000000000000000000") < 0,
          "23 digits before 24 digits");
    CHECK(clcpk_value_compare("-10", "-2") < 0 && clcpk_value_compare("-1", "0") < 0,
          "negative numbers by value");
    CHECK(clcpk_value_compare("31", "1a") < 0 && clcpk_value_compare("2", "1a") < 0,
          "numbers before non-numbers");
    CHECK(clcpk_value_compare("05", "5") < 0, "equal numbers by bytes ('05' before '5')");
}

static void test_record_tails(void)
{
    static const struct {
        uint16_t version;
        size_t tail;
        clcpack_status want;
        size_t tunings;
    } cases[] = {
        {1, 0, CLCPACK_OK, 0},  {1, 1, CLCPACK_OK, 0},  {1, 3, CLCPACK_OK, 0},
        {1, 4, CLCPACK_OK, 0},  /* 0xEEEEEEEE timings in a v1 record: not a list, skipped */
        {1, 40, CLCPACK_OK, 0}, {2, 1, CLCPACK_OK, 0},  {2, 2, CLCPACK_OK, 0},
        {2, 3, CLCPACK_OK, 0},  {2, 4, CLCPACK_E_FORMAT, 0}, /* a count with no room for it */
        {3, 3, CLCPACK_OK, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t size;
        uint8_t *pack = hostile_tail_pack(cases[i].version, cases[i].tail, 0, &size);
        clcpack *p = NULL;
        clcpack_error err;
        clcpack_status st = clcpack_open_memory(pack, size, &p, &err);
        CHECK(st == cases[i].want, "version %u record with %zu bytes after the v1 fields: status %d (%s)",
              cases[i].version, cases[i].tail, (int)st, st ? err.message : "ok");
        if (st == CLCPACK_OK)
            CHECK(clcpack_entry_tuning_count(p, 0) == cases[i].tunings, "no timings read");
        clcpack_close(p);
        free(pack);
    }
}

static void test_native_arch(void)
{
    size_t size;
    uint8_t *pack = hostile_tail_pack(1, 0, 90, &size);
    clcpack *p = NULL;
    clcpack_error err;
    clcpack_status st = clcpack_open_memory(pack, size, &p, &err);
    CHECK(st == CLCPACK_E_FORMAT && strstr(err.message, "arch 90 on a native binary"),
          "native entry with arch 90: status %d, '%s'", (int)st, err.message);
    clcpack_close(p);
    free(pack);
}

int main(void)
{
    test_value_order();
    test_record_tails();
    test_native_arch();
    return check_summary();
}
