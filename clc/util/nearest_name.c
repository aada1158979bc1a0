/* nearest_name.c — the closest known name to a mistyped one (nearest_name.h). */
#include "nearest_name.h"

#include <string.h>

static size_t name_len(const char *s)
{
    return strcspn(s, "=");
}

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

/* Within how many edits of the word a name is a likely typo (the limit
 * of nearest_name_result). Short words are within few edits of many
 * names: "-j" is 2 from "-o", so a short word gets only one edit. */
static size_t typo_limit(size_t word_len)
{
    return word_len <= 4 ? 1 : word_len <= 9 ? 2 : 3;
}

/* The optimal string alignment distance (Damerau-Levenshtein without
 * edits of a swapped pair) of a[0..n) and b[0..m), or cap when it is cap
 * or more: three rows of the dynamic programme, left as soon as two rows
 * in a row are all cap or more (no later cell can then be less). */
static size_t distance_capped(const char *a, size_t n, const char *b, size_t m, size_t cap)
{
    if ((n > m ? n - m : m - n) >= cap)
        return cap;
    size_t rows[3][NEAREST_NAME_MAX_LEN + 1];
    size_t *before = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    int far = 0; /* the previous row is all cap or more */
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        size_t low = cur[0];
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                before[j - 2] + 1 < cur[j])
                cur[j] = before[j - 2] + 1;
            if (cur[j] < low)
                low = cur[j];
        }
        if (low >= cap && far)
            return cap;
        far = low >= cap;
        size_t *t = before;
        before = prev;
        prev = cur;
        cur = t;
    }
    return prev[m] < cap ? prev[m] : cap;
}

size_t nearest_name_distance(const char *a, const char *b)
{
    size_t n = name_len(a), m = name_len(b);
    if (n > NEAREST_NAME_MAX_LEN || m > NEAREST_NAME_MAX_LEN)
        return n > m ? n : m;
    return distance_capped(a, n, b, m, (size_t)-1);
}

void nearest_name_init(nearest_name_best *b, const char *word)
{
    b->word = word;
    b->word_len = name_len(word);
    b->best = NULL;
    b->distance = (size_t)-1;
}

/* Only a name within the limit can be the result, and only one closer
 * than the best so far can take its place: the distance is worked out no
 * further than that (a word of 63 characters against every option name
 * would otherwise fill 4,000 cells a name). */
void nearest_name_offer(nearest_name_best *b, const char *name)
{
    if (!name || (name_len(name) == b->word_len && strncmp(name, b->word, b->word_len) == 0))
        return;
    size_t n = b->word_len, m = name_len(name);
    if (n > NEAREST_NAME_MAX_LEN || m > NEAREST_NAME_MAX_LEN)
        return; /* as far as it is long: more than the limit */
    size_t limit = typo_limit(n), cap = b->distance < limit + 1 ? b->distance : limit + 1;
    size_t d = distance_capped(b->word, n, name, m, cap);
    if (d < cap) {
        b->best = name;
        b->distance = d;
    }
}

const char *nearest_name_result(const nearest_name_best *b)
{
    return b->best && b->distance <= typo_limit(b->word_len) ? b->best : NULL;
}

int nearest_name_contracts(const char *short_name, const char *word)
{
    size_t n = name_len(short_name), m = name_len(word);
    const char *dash = NULL;
    for (size_t i = 0; i < n; i++)
        if (short_name[i] == '-')
            dash = short_name + i;
    size_t head = dash ? (size_t)(dash - short_name) + 1 : 0;
    /* A whole word of one part would match far too much ("c" of "cpu"). */
    if (!dash || head >= n || n >= m || strncmp(short_name, word, head) != 0 ||
        short_name[head] != word[head] || memchr(word + head, '-', m - head))
        return 0;
    size_t j = head;
    for (size_t i = head; i < n; i++) {
        while (j < m && word[j] != short_name[i])
            j++;
        if (j == m)
            return 0;
        j++;
    }
    return 1;
}
