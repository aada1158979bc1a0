/* The "did you mean" helpers (clc/util/nearest_name.h): the edit distance's
 * limits, and contractions, which the distance misses. */
#include <stddef.h>

#include "check.h"
#include "nearest_name.h"

/* The nearest of names[0..n) to word, or NULL. */
static const char *nearest(const char *word, const char *const *names, size_t n)
{
    nearest_name_best b;
    nearest_name_init(&b, word);
    for (size_t i = 0; i < n; i++)
        nearest_name_offer(&b, names[i]);
    return nearest_name_result(&b);
}

static int same(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

int main(void)
{
    static const char *const opts[] = {"widths", "check-cmd", "check-timeout", "tune-size"};
    size_t n = sizeof opts / sizeof opts[0];
    CHECK(same(nearest("widht", opts, n), "widths"), "widht: %s", nearest("widht", opts, n));
    CHECK(same(nearest("widht=5", opts, n), "widths"), "widht=5: the value is not read");
    /* check-command is 4 edits from check-cmd: beyond a typo's limit. */
    CHECK(nearest_name_distance("check-command", "check-cmd") == 4, "distance %zu",
          nearest_name_distance("check-command", "check-cmd"));
    CHECK(!nearest("check-command", opts, n), "check-command is no typo of an option");
    CHECK(!nearest("totally", opts, n), "totally: %s", nearest("totally", opts, n));

    CHECK(nearest_name_contracts("check-cmd", "check-command"), "check-cmd contracts check-command");
    CHECK(nearest_name_contracts("check-cmd", "check-command=x"), "the value is not read");
    CHECK(nearest_name_contracts("tune-sz", "tune-size"), "tune-sz contracts tune-size");
    CHECK(!nearest_name_contracts("check-command", "check-cmd"), "the longer name contracts nothing");
    CHECK(!nearest_name_contracts("check-cmd", "check-timeout"), "cmd is not in timeout");
    CHECK(!nearest_name_contracts("check-cmd", "check-c-m-d"), "no '-' past the shared head");
    CHECK(!nearest_name_contracts("cmd", "command"), "a name of one part contracts nothing");
    CHECK(!nearest_name_contracts("tune-s", "tone-size"), "the head must be the same");
    CHECK(!nearest_name_contracts("tune-mz", "tune-size"), "the part starts with its first letter");
    return check_summary();
}
