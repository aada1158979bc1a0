/*
 * nearest_name.h — the "did you mean" of a message: among the names the
 * tool knows (options, kernels), the one closest to a mistyped name, by
 * edit distance (insertions, deletions, substitutions and swaps of two
 * neighbouring characters count 1 each).
 *
 *   nn_best b;
 *   nn_init(&b, "widht");
 *   for (each known name) nn_offer(&b, name);
 *   if (nn_result(&b)) ... "did you mean --%s?", nn_result(&b)
 *
 * Only a likely typo is suggested: a name within 1 edit of a short word,
 * 2 of a longer one, 3 of a long one; on a tie, the first offered wins.
 */
#ifndef CLC_NEAREST_NAME_H
#define CLC_NEAREST_NAME_H

#include <stddef.h>

typedef struct nn_best {
    const char *word; /* what was given */
    size_t word_len;  /* of word: up to the first '=' (--name=VALUE) */
    const char *best; /* the closest name offered so far, or NULL */
    size_t distance;  /* best's */
} nn_best;

/* The edit distance of a and b, a and b read up to their first '='. Names
 * longer than NN_MAX_LEN characters are as far as they are long. */
#define NN_MAX_LEN 63
size_t nn_distance(const char *a, const char *b);

void nn_init(nn_best *b, const char *word);
/* Considers name (NULL and the word itself are ignored). */
void nn_offer(nn_best *b, const char *name);
/* The closest name offered when it is a likely typo of the word, else NULL. */
const char *nn_result(const nn_best *b);

#endif /* CLC_NEAREST_NAME_H */
