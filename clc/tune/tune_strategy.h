/*
 * tune_strategy.h — which configurations of a space to try next: the
 * search strategies of `clc-pack tune` (docs/TUNING.md, "Strategies").
 *
 * Ask and tell, in batches: tune_strategy_next hands out positions in the
 * space's valid list, never one twice; tune_strategy_tell reports each
 * one's time (INFINITY for an invalid configuration). A batch is what the
 * tuner builds in parallel before timing it, so a learning strategy hands
 * out one generation at a time.
 *
 *   FullSearch (also brute_force, Deterministic, exhaustive): every valid
 *     configuration, in the space's order;
 *   Random (also random_sample, RandomSearch): a seeded random order;
 *   GeneticAlgorithm (also genetic_algorithm): a population evolved by
 *     tournament selection, uniform crossover and mutation, with elitism;
 *     attributes popsize (default: a tenth of the budget, from 8 to 20) and
 *     mutation_chance (default 0.15).
 *
 * Pure computation: no printing, no device, no clock.
 */
#ifndef CLC_TUNE_STRATEGY_H
#define CLC_TUNE_STRATEGY_H

#include <stddef.h>
#include <stdint.h>

#include "tune_space.h"

#define TUNE_STRATEGY_ERR_MAX 512

typedef struct tune_strategy tune_strategy;

/* name NULL is FullSearch; attrs_json is Search.Attributes as JSON text
 * (NULL for none); budget the configurations the run may try (0: no
 * bound). NULL with err for an unknown name (listing the known ones) or a
 * bad attribute. sp must outlive the strategy. */
tune_strategy *tune_strategy_new(const char *name, const char *attrs_json, const tune_space *sp,
                                 uint64_t seed, size_t budget, char err[TUNE_STRATEGY_ERR_MAX]);
void tune_strategy_free(tune_strategy *st);

/* The strategy's own name ("FullSearch", "Random", "GeneticAlgorithm"). */
const char *tune_strategy_name(const tune_strategy *st);

/* Up to max positions not handed out before, into out. Returns how many;
 * 0 when the strategy has nothing more to try (the space is exhausted).
 * A learning strategy returns fewer than max, or 0, while results of its
 * last batch are still untold. */
size_t tune_strategy_next(tune_strategy *st, size_t max, size_t *out);

/* The result of position pos (handed out, or known beforehand: a resumed
 * run tells its earlier results first, and those are then never handed
 * out). ns: the median time, INFINITY when invalid. */
void tune_strategy_tell(tune_strategy *st, size_t pos, double ns);

#endif /* CLC_TUNE_STRATEGY_H */
