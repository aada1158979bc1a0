/* tune_strategy.c — FullSearch, Random and GeneticAlgorithm
 * (tune_strategy.h). */
#include "tune_strategy.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"

typedef enum kind { K_FULL, K_RANDOM, K_GENETIC } kind;

typedef struct member {
    size_t pos;
    double ns;
} member;

struct tune_strategy {
    kind k;
    const tune_space *sp;
    uint64_t rng;
    unsigned char *seen;   /* bit per position: handed out or told */
    size_t n_seen;
    size_t cursor;         /* FullSearch: the next position to look at */
    uint32_t *perm;        /* Random and the genetic start: a lazy shuffle */
    size_t perm_k;
    /* GeneticAlgorithm */
    size_t popsize;
    double mutation;
    member *pop;           /* the current population, best first */
    size_t n_pop;
    member *brood;         /* the batch handed out, told as results come */
    size_t n_brood, n_told;
    int started;
};

static uint64_t next_u64(tune_strategy *st)
{
    /* splitmix64: small, seeded, the same sequence on every machine. */
    uint64_t z = (st->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static size_t below(tune_strategy *st, size_t n)
{
    return n ? (size_t)(next_u64(st) % n) : 0;
}

static double unit(tune_strategy *st)
{
    return (double)(next_u64(st) >> 11) / 9007199254740992.0;
}

static int is_seen(const tune_strategy *st, size_t pos)
{
    return st->seen[pos / 8] >> (pos % 8) & 1;
}

static void mark(tune_strategy *st, size_t pos)
{
    if (!is_seen(st, pos)) {
        st->seen[pos / 8] |= (unsigned char)(1u << (pos % 8));
        st->n_seen++;
    }
}

/* The next unseen position of a seeded shuffle of the whole list, or
 * SIZE_MAX once every position is seen. */
static size_t random_unseen(tune_strategy *st)
{
    size_t n = st->sp->n_valid;
    if (!st->perm) {
        st->perm = malloc(n * sizeof *st->perm);
        if (!st->perm)
            return SIZE_MAX;
        for (size_t i = 0; i < n; i++)
            st->perm[i] = (uint32_t)i;
    }
    while (st->perm_k < n) {
        size_t j = st->perm_k + below(st, n - st->perm_k);
        uint32_t t = st->perm[j];
        st->perm[j] = st->perm[st->perm_k];
        st->perm[st->perm_k++] = t;
        if (!is_seen(st, t))
            return t;
    }
    return SIZE_MAX;
}

static int attr_number(json_t *attrs, const char *name, double *out)
{
    size_t i;
    json_t *a;
    json_array_foreach(attrs, i, a) {
        json_t *n = json_object_get(a, "Name");
        json_t *v = json_object_get(a, "Value");
        if (json_is_string(n) && strcmp(json_string_value(n), name) == 0) {
            if (!json_is_number(v))
                return -1;
            *out = json_number_value(v);
            return 1;
        }
    }
    return 0;
}

static int read_attrs(tune_strategy *st, const char *attrs_json, size_t budget, char *err)
{
    /* A population of a tenth of the budget lives ten generations: on the
     * 2,187-configuration convolution timed on an H200 (docs/BENCH.md,
     * "Tuning"), 10 at a budget of 110 found the best within 0.3 % in the
     * median of 10 seeds, 20 within 5 %. */
    st->popsize = budget ? budget / 10 : 20;
    if (st->popsize < 8)
        st->popsize = 8;
    if (st->popsize > 20)
        st->popsize = 20;
    st->mutation = 0.15;
    if (!attrs_json)
        return 0;
    json_t *attrs = json_loads(attrs_json, 0, NULL);
    int rc = 0;
    double v;
    int got = attr_number(attrs, "popsize", &v);
    if (got < 0 || (got && (v < 2 || v > 10000 || v != floor(v))))
        rc = -1, bfmt(err, TUNE_STRATEGY_ERR_MAX, "Search.Attributes: popsize must be a whole "
                      "number from 2 to 10000");
    else if (got)
        st->popsize = (size_t)v;
    got = rc ? 0 : attr_number(attrs, "mutation_chance", &v);
    if (got < 0 || (got && !(v >= 0 && v <= 1)))
        rc = -1, bfmt(err, TUNE_STRATEGY_ERR_MAX, "Search.Attributes: mutation_chance must be "
                      "from 0 to 1");
    else if (got)
        st->mutation = v;
    json_decref(attrs);
    return rc;
}

tune_strategy *tune_strategy_new(const char *name, const char *attrs_json, const tune_space *sp,
                                 uint64_t seed, size_t budget, char err[TUNE_STRATEGY_ERR_MAX])
{
    static const struct { const char *name; kind k; } names[] = {
        {"FullSearch", K_FULL},        {"brute_force", K_FULL},     {"Deterministic", K_FULL},
        {"exhaustive", K_FULL},        {"Random", K_RANDOM},        {"random_sample", K_RANDOM},
        {"RandomSearch", K_RANDOM},    {"GeneticAlgorithm", K_GENETIC},
        {"genetic_algorithm", K_GENETIC},
    };
    size_t i = 0;
    if (name)
        while (i < sizeof names / sizeof names[0] && strcmp(names[i].name, name) != 0)
            i++;
    if (i == sizeof names / sizeof names[0]) {
        bfmt(err, TUNE_STRATEGY_ERR_MAX, "Search.Name: '%s' is not a strategy clc-pack knows "
             "(FullSearch, Deterministic, Random, GeneticAlgorithm; also Kernel Tuner's "
             "brute_force, random_sample, genetic_algorithm)", name);
        return NULL;
    }
    tune_strategy *st = calloc(1, sizeof *st);
    if (!st || !(st->seen = calloc(sp->n_valid / 8 + 1, 1))) {
        free(st);
        bfmt(err, TUNE_STRATEGY_ERR_MAX, "out of memory");
        return NULL;
    }
    st->k = names[i].k;
    st->sp = sp;
    st->rng = seed * 0x2545f4914f6cdd1dull + 1;
    if (read_attrs(st, attrs_json, budget, err) != 0) {
        tune_strategy_free(st);
        return NULL;
    }
    if (st->k == K_GENETIC) {
        st->pop = calloc(st->popsize * 2, sizeof *st->pop);
        st->brood = calloc(st->popsize, sizeof *st->brood);
        if (!st->pop || !st->brood) {
            tune_strategy_free(st);
            bfmt(err, TUNE_STRATEGY_ERR_MAX, "out of memory");
            return NULL;
        }
    }
    return st;
}

void tune_strategy_free(tune_strategy *st)
{
    if (!st)
        return;
    free(st->seen);
    free(st->perm);
    free(st->pop);
    free(st->brood);
    free(st);
}

const char *tune_strategy_name(const tune_strategy *st)
{
    return st->k == K_FULL ? "FullSearch" : st->k == K_RANDOM ? "Random" : "GeneticAlgorithm";
}

static int by_time(const void *a, const void *b)
{
    const member *x = a, *y = b;
    if (x->ns != y->ns)
        return x->ns < y->ns ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The better of two members drawn at random. */
static const member *tournament(tune_strategy *st)
{
    const member *a = &st->pop[below(st, st->n_pop)], *b = &st->pop[below(st, st->n_pop)];
    return b->ns < a->ns ? b : a;
}

/* A child of two parents: each parameter's value from either, then
 * mutated (half the time a neighbouring value, which suits the ordered
 * values of most tuning parameters; else any). A child that is invalid or
 * tried already is made again; after enough tries, any unseen one. */
static size_t make_child(tune_strategy *st)
{
    const tune_space *sp = st->sp;
    size_t np = sp->spec->n_params;
    uint32_t a[T1_SPEC_PARAMS_MAX], b[T1_SPEC_PARAMS_MAX], c[T1_SPEC_PARAMS_MAX];
    for (int attempt = 0; attempt < 64 && st->n_pop > 0; attempt++) {
        tune_space_decode(sp, sp->valid[tournament(st)->pos], a);
        tune_space_decode(sp, sp->valid[tournament(st)->pos], b);
        for (size_t k = 0; k < np; k++) {
            uint32_t nv = (uint32_t)sp->spec->params[k].n_values;
            c[k] = (next_u64(st) & 1) ? a[k] : b[k];
            if (unit(st) < st->mutation + attempt * 0.02) {
                if (next_u64(st) & 1) {
                    int64_t step = (next_u64(st) & 1) ? 1 : -1;
                    int64_t v = (int64_t)c[k] + step;
                    c[k] = v < 0 ? 1 % nv : v >= nv ? (nv >= 2 ? nv - 2 : 0) : (uint32_t)v;
                } else {
                    c[k] = (uint32_t)below(st, nv);
                }
            }
        }
        long long pos = tune_space_find(sp, tune_space_encode(sp, c));
        if (pos >= 0 && !is_seen(st, (size_t)pos))
            return (size_t)pos;
    }
    return random_unseen(st);
}

static size_t next_genetic(tune_strategy *st, size_t max, size_t *out)
{
    if (st->n_told < st->n_brood)
        return 0; /* a generation is out: wait for all of it */
    if (st->n_brood) {
        /* (mu + lambda): the best of parents and children go on. */
        for (size_t i = 0; i < st->n_brood; i++)
            st->pop[st->n_pop++] = st->brood[i];
        qsort(st->pop, st->n_pop, sizeof *st->pop, by_time);
        if (st->n_pop > st->popsize)
            st->n_pop = st->popsize;
        st->n_brood = st->n_told = 0;
    }
    size_t want = st->popsize < max ? st->popsize : max;
    size_t n = 0;
    while (n < want) {
        size_t pos = st->started && st->n_pop ? make_child(st) : random_unseen(st);
        if (pos == SIZE_MAX)
            break;
        mark(st, pos);
        st->brood[n] = (member){pos, INFINITY};
        out[n++] = pos;
    }
    st->started = 1;
    st->n_brood = n;
    return n;
}

size_t tune_strategy_next(tune_strategy *st, size_t max, size_t *out)
{
    size_t n = 0;
    if (st->k == K_GENETIC)
        return next_genetic(st, max, out);
    while (n < max && st->n_seen < st->sp->n_valid) {
        size_t pos;
        if (st->k == K_FULL) {
            while (st->cursor < st->sp->n_valid && is_seen(st, st->cursor))
                st->cursor++;
            if (st->cursor >= st->sp->n_valid)
                break;
            pos = st->cursor++;
        } else {
            pos = random_unseen(st);
            if (pos == SIZE_MAX)
                break;
        }
        mark(st, pos);
        out[n++] = pos;
    }
    return n;
}

void tune_strategy_tell(tune_strategy *st, size_t pos, double ns)
{
    if (pos >= st->sp->n_valid)
        return;
    if (st->k == K_GENETIC) {
        for (size_t i = 0; i < st->n_brood; i++)
            if (st->brood[i].pos == pos) {
                st->brood[i].ns = ns;
                st->n_told++;
                return;
            }
        /* Known beforehand (a resumed run): part of the first population. */
        if (!is_seen(st, pos) && st->n_pop < st->popsize * 2) {
            st->pop[st->n_pop++] = (member){pos, ns};
            qsort(st->pop, st->n_pop, sizeof *st->pop, by_time);
            if (st->n_pop > st->popsize)
                st->n_pop = st->popsize;
            st->started = 1;
        }
    }
    mark(st, pos);
}
