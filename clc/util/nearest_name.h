/*
 * nearest_name.h — the "did you mean" of a message: among the names the
 * tool knows (options, kernels), the one closest to a mistyped name, by
 * edit distance (insertions, deletions, substitutions and swaps of two
 * neighbouring characters count 1 each).
 *
 *   nearest_name_best b;
 *   nearest_name_init(&b, "widht");
 *   for (each known name) nearest_name_offer(&b, name);
 *   if (nearest_name_result(&b)) ... "did you mean --%s?", nearest_name_result(&b)
 *
 * Only a likely typo is suggested: a name within 1 edit of a short word,
 * 2 of a longer one, 3 of a long one; on a tie, the first offered wins.
 */
#ifndef CLC_NEAREST_NAME_H
#define CLC_NEAREST_NAME_H

#include <stddef.h>

typedef struct nearest_name_best {
    const char *word; /* what was given */
    size_t word_len;  /* of word: up to the first '=' (--name=VALUE) */
    const char *best; /* the closest name offered so far that is a likely typo, or NULL */
    size_t distance;  /* best's */
} nearest_name_best;

/* The edit distance of a and b, a and b read up to their first '='. Names
 * longer than NEAREST_NAME_MAX_LEN characters are as far as they are long. */
#define NEAREST_NAME_MAX_LEN 63
size_t nearest_name_distance(const char *a, const char *b);

void nearest_name_init(nearest_name_best *b, const char *word);
/* Considers name (NULL and the word itself are ignored). */
void nearest_name_offer(nearest_name_best *b, const char *name);
/* The closest name offered when it is a likely typo of the word, else NULL. */
const char *nearest_name_result(const nearest_name_best *b);

/* 1 when short_name is a contraction of word, as option names shorten a
 * last part ("check-cmd" of "check-command", "tune-sz" of "tune-size"):
 * the same text up to short_name's last '-', then the rest of short_name
 * is a subsequence of the rest of word, starting with its first character.
 * Edit distance misses these (4 edits from check-cmd to check-command). */
int nearest_name_contracts(const char *short_name, const char *word);

#endif /* CLC_NEAREST_NAME_H */
