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

/* The optimal string alignment distance (Damerau-Levenshtein without
 * edits of a swapped pair): three rows of the dynamic programme. */
size_t nearest_name_distance(const char *a, const char *b)
{
    size_t n = name_len(a), m = name_len(b);
    if (n > NEAREST_NAME_MAX_LEN || m > NEAREST_NAME_MAX_LEN)
        return n > m ? n : m;
    size_t rows[3][NEAREST_NAME_MAX_LEN + 1];
    size_t *before = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                before[j - 2] + 1 < cur[j])
                cur[j] = before[j - 2] + 1;
        }
        size_t *t = before;
        before = prev;
        prev = cur;
        cur = t;
    }
    return prev[m];
}

void nearest_name_init(nearest_name_best *b, const char *word)
{
    b->word = word;
    b->word_len = name_len(word);
    b->best = NULL;
    b->distance = (size_t)-1;
}

void nearest_name_offer(nearest_name_best *b, const char *name)
{
    if (!name || (name_len(name) == b->word_len && strncmp(name, b->word, b->word_len) == 0))
        return;
    size_t d = nearest_name_distance(b->word, name);
    if (d < b->distance) {
        b->best = name;
        b->distance = d;
    }
}

const char *nearest_name_result(const nearest_name_best *b)
{
    /* Short words are within few edits of many names: "-j" is 2 from
     * "-o", so a short word gets only one edit. */
    size_t limit = b->word_len <= 4 ? 1 : b->word_len <= 9 ? 2 : 3;
    return b->best && b->distance <= limit ? b->best : NULL;
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
