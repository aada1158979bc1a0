/*
 * test_tune_space.c — the tuner's pure parts, no device: a T1 space of a
 * million raw combinations walked (its valid count against a brute-force
 * count; the time printed, never asserted), a condition that fails to
 * evaluate named with its configuration, --reference's configurations,
 * the strategies (every position once, in order or shuffled; a genetic
 * search of a synthetic objective within its budget), T4 results
 * written and read back, and how many build workers a run starts.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "t1_spec.h"
#include "t4_results.h"
#include "tune_session.h"
#include "tune_space.h"
#include "tune_strategy.h"

/* A spec of params (each "[0, 1, ..., 9]"), its conditions (JSON
 * objects, comma-separated) and its local size. */
static int make_spec(t1_spec *s, int params, const char *conditions, const char *local, char *err)
{
    char text[8192];
    int n = snprintf(text, sizeof text, "{\"ConfigurationSpace\": {\"TuningParameters\": [");
    for (int k = 0; k < params; k++)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "%s{\"Name\": \"P%d\", \"Type\": \"int\", \"Values\": \"range(10)\"}",
                      k ? ", " : "", k);
    n += snprintf(text + n, sizeof text - (size_t)n,
                  "], \"Conditions\": [%s]},"
                  "\"KernelSpecification\": {\"Language\": \"OpenCL\", \"KernelName\": \"scale\","
                  "\"KernelFile\": \"scale.cl\", \"GlobalSize\": {\"X\": \"640\"},"
                  "\"LocalSize\": {\"X\": \"%s\"}}}", conditions, local);
    return t1_spec_parse("mem.json", "tests/data/tune", text, (size_t)n, s, err);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void test_walk(void)
{
    static t1_spec s;
    char err[T1_SPEC_ERR_MAX];
    /* Four conditions, each checked once its last parameter is bound. */
    int rc = make_spec(&s, 6,
                       "{\"Parameters\": [\"P0\"], \"Expression\": \"640 % (P0 + 1) == 0\"},"
                       "{\"Parameters\": [\"P0\", \"P1\"], \"Expression\": \"P0 < P1\"},"
                       "{\"Parameters\": [\"P2\", \"P3\"], \"Expression\": \"(P2 + P3) % 3 == 0\"},"
                       "{\"Parameters\": [\"P4\", \"P5\"], \"Expression\": \"P4 * P5 <= 20\"}",
                       "P0 + 1", err);
    CHECK(rc == 0, "a spec of 6 parameters parses (%s)", err);
    if (rc != 0)
        return;
    size_t want = 0;
    for (int a = 0; a < 10; a++)
        for (int b = 0; b < 10; b++)
            for (int c = 0; c < 10; c++)
                for (int d = 0; d < 10; d++)
                    for (int e = 0; e < 10; e++)
                        for (int f = 0; f < 10; f++)
                            want += a < b && (c + d) % 3 == 0 && e * f <= 20 && 640 % (a + 1) == 0;
    tune_space sp;
    char serr[TUNE_SPACE_ERR_MAX];
    double t0 = now_s();
    rc = tune_space_build(&sp, &s, serr);
    double took = now_s() - t0;
    CHECK(rc == 0, "the space walks (%s)", serr);
    if (rc == 0) {
        CHECK(sp.n_raw == 1000000, "1,000,000 raw combinations (%llu)", (unsigned long long)sp.n_raw);
        CHECK(sp.n_valid == want, "%zu valid, as a brute-force count says (%zu)", sp.n_valid, want);
        CHECK(sp.visits < 1000000, "the conditions pruned the walk (%llu visits)",
              (unsigned long long)sp.visits);
        int sorted = 1;
        for (size_t i = 1; i < sp.n_valid; i++)
            sorted &= sp.valid[i - 1] < sp.valid[i];
        CHECK(sorted, "the valid list is ascending");
        char *label = tune_space_label(&sp, sp.valid[0]);
        CHECK(label && strcmp(label, "P0=0,P1=1,P2=0,P3=0,P4=0,P5=0") == 0, "the first label (%s)",
              label ? label : "NULL");
        free(label);
        char *opts = tune_space_options(&sp, sp.valid[0]);
        CHECK(opts && strcmp(opts, "-D P0=0 -D P1=1 -D P2=0 -D P3=0 -D P4=0 -D P5=0") == 0,
              "the first options (%s)", opts ? opts : "NULL");
        free(opts);
        long long pos = tune_space_find_config(&sp, "P0=1,P1=2,P2=0,P3=0,P4=0,P5=3", serr, sizeof serr);
        CHECK(pos >= 0 && tune_space_find(&sp, sp.valid[pos]) == pos, "--reference finds a valid configuration");
        CHECK(tune_space_find_config(&sp, "P0=2,P1=1,P2=0,P3=0,P4=0,P5=3", serr, sizeof serr) < 0 &&
                  strstr(serr, "does not meet the conditions"),
              "an invalid one is refused (%s)", serr);
        CHECK(tune_space_find_config(&sp, "P0=1,P1=2", serr, sizeof serr) < 0 &&
                  strstr(serr, "P2 is not given"),
              "a partial one is refused (%s)", serr);
        printf("walk: 1,000,000 raw combinations, %zu valid, %llu visits, %.3f s\n", sp.n_valid,
               (unsigned long long)sp.visits, took);
        tune_space_free(&sp);
    }
    t1_spec_free(&s);
    rc = make_spec(&s, 2, "{\"Parameters\": [\"P1\"], \"Expression\": \"100 // (P1 - 3) > 0\"}",
                   "1", err);
    CHECK(rc == 0, "a spec whose condition divides by zero somewhere parses (%s)", err);
    if (rc == 0) {
        rc = tune_space_build(&sp, &s, serr);
        CHECK(rc != 0 && strstr(serr, "Conditions[0].Expression") && strstr(serr, "P0=0,P1=3"),
              "the condition's failure names it and the configuration (%s)", serr);
    }
    t1_spec_free(&s);
}

/* A synthetic objective: the distance from (3, 7, 5, 1) squared, plus 1. */
static double objective(const tune_space *sp, size_t pos)
{
    uint32_t idx[T1_SPEC_PARAMS_MAX];
    tune_space_decode(sp, sp->valid[pos], idx);
    static const int target[4] = {3, 7, 5, 1};
    double d = 1;
    for (int k = 0; k < 4; k++)
        d += (double)((int)idx[k] - target[k]) * ((int)idx[k] - target[k]);
    return d;
}

static void test_strategies(void)
{
    static t1_spec s;
    char err[T1_SPEC_ERR_MAX];
    if (make_spec(&s, 4, "{\"Parameters\": [\"P0\"], \"Expression\": \"P0 >= 0\"}", "1", err) != 0) {
        CHECK(0, "the strategies' spec parses (%s)", err);
        return;
    }
    tune_space sp;
    char serr[TUNE_SPACE_ERR_MAX];
    CHECK(tune_space_build(&sp, &s, serr) == 0 && sp.n_valid == 10000, "10,000 configurations");
    static const char *const names[] = {"FullSearch", "Random", "GeneticAlgorithm"};
    for (int n = 0; n < 3; n++) {
        char e[TUNE_STRATEGY_ERR_MAX];
        size_t budget = n == 2 ? 300 : 0;
        tune_strategy *st = tune_strategy_new(names[n], NULL, &sp, 5, budget, e);
        CHECK(st != NULL, "%s starts (%s)", names[n], st ? "" : e);
        if (!st)
            continue;
        unsigned char *seen = calloc(sp.n_valid, 1);
        size_t total = 0, twice = 0, batch[64], in_order = 1;
        double best = INFINITY;
        for (;;) {
            size_t k = tune_strategy_next(st, 64, batch);
            if (!k || (budget && total >= budget))
                break;
            for (size_t i = 0; i < k; i++) {
                twice += seen[batch[i]]++;
                in_order &= batch[i] == total;
                double t = objective(&sp, batch[i]);
                if (t < best)
                    best = t;
                tune_strategy_tell(st, batch[i], t);
                total++;
            }
        }
        CHECK(twice == 0, "%s hands out no configuration twice", names[n]);
        if (n < 2)
            CHECK(total == sp.n_valid, "%s tries all %zu (%zu)", names[n], sp.n_valid, total);
        if (n == 0)
            CHECK(in_order, "FullSearch goes in the space's order");
        if (n == 1)
            CHECK(!in_order, "Random does not");
        if (n == 2)
            CHECK(best <= 2, "GeneticAlgorithm within 300 of 10,000 finds the optimum or a "
                  "neighbour of it (objective %g, 1 is the optimum)", best);
        free(seen);
        tune_strategy_free(st);
    }
    char e[TUNE_STRATEGY_ERR_MAX];
    CHECK(tune_strategy_new("Genetic", NULL, &sp, 1, 0, e) == NULL && strstr(e, "'Genetic' is not a strategy"),
          "an unknown strategy is named (%s)", e);
    CHECK(tune_strategy_new("GeneticAlgorithm", "[{\"Name\": \"popsize\", \"Value\": 1}]", &sp, 1, 0, e) == NULL &&
              strstr(e, "popsize"),
          "a popsize of 1 is refused (%s)", e);

    /* T4 written and read back. */
    tune_results rs = {0}, back = {0};
    double runs[3] = {1000, 1100, 1200};
    for (size_t i = 0; i < 5; i++) {
        tune_result r = {.raw = sp.valid[i * 7], .verdict = i == 3 ? TUNE_CORRECTNESS : TUNE_CORRECT,
                         .timestamp = 1.7e9, .compile_s = 0.1, .n_runs = i == 3 ? 0 : 3,
                         .runs_ns = runs, .median_ns = i == 3 ? INFINITY : 1100,
                         .message = i == 3 ? (char *)"differs" : NULL};
        tune_results_add(&rs, &r);
    }
    char path[] = "/tmp/test_tune_space_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    t4_run_info info = {"dev", "FullSearch", 1.0};
    char terr[T4_ERR_MAX];
    const char *why = NULL;
    CHECK(t4_results_write(path, &sp, &rs, &info, terr) == 0, "T4 written (%s)", terr);
    CHECK(t4_results_read(path, &sp, "dev", &back, &why, terr) == 1 && back.n == 5,
          "read back: 5 results (%zu)", back.n);
    int same = back.n == 5;
    for (size_t i = 0; same && i < 5; i++)
        same = back.r[i].raw == rs.r[i].raw && back.r[i].verdict == rs.r[i].verdict &&
               back.r[i].n_runs == rs.r[i].n_runs &&
               (rs.r[i].verdict != TUNE_CORRECT || fabs(back.r[i].median_ns - 1100) < 1e-6);
    CHECK(same, "each with its configuration, verdict, runs and median");
    tune_results_free(&back);
    CHECK(t4_results_read(path, &sp, "other", &back, &why, terr) == 0 && why && strstr(why, "another device"),
          "another device's results are not resumed (%s)", why ? why : "");
    unlink(path);
    tune_results_free(&rs);
    tune_results_free(&back);
    tune_space_free(&sp);
    t1_spec_free(&s);
}

/* How many build workers a GPU run starts (numbers of the H200's gemm
 * space: 12 configurations, a build 0.15 s, a worker's start 1.9 s). */
static void test_builders_wanted(void)
{
    CHECK(tune_session_builders_wanted(11, 0.15, 1.9, 1.9, 16) == 1,
          "11 builds of 0.15 s left, a worker's start 1.9 s: one worker");
    CHECK(tune_session_builders_wanted(11, 0.15, 0, 1.9, 16) == 1,
          "the same when only the timing worker has said how long its start took "
          "(the first build back was its own): one worker, not all 16");
    CHECK(tune_session_builders_wanted(11, 0.15, 0, 0, 16) == 16,
          "no start known at all: 0.05 s assumed, as many as -j allows");
    CHECK(tune_session_builders_wanted(2000, 0.8, 2.0, 1.0, 16) == 16,
          "a large space: at most -j");
    CHECK(tune_session_builders_wanted(40, 0.5, 2.0, 0, 16) == 10,
          "40 builds of 0.5 s, a start of 2 s: 10 workers");
    CHECK(tune_session_builders_wanted(0, 0.5, 2.0, 0, 16) == 0, "nothing left: no more workers");
}

int main(void)
{
    test_walk();
    test_strategies();
    test_builders_wanted();
    return check_summary();
}
