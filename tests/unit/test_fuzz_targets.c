/*
 * test_fuzz_targets.c — replays the corpus of every fuzz target of
 * tests/fuzz/targets.h with the project's own compiler, so `make test`
 * runs them without clang or libFuzzer (test_fuzz_replay.c does the same
 * for the pack parsing target): open_file, tuning, best and load over the
 * pack corpus (tests/fuzz/corpus/) and the regression files, writer over
 * tests/fuzz/corpus_writer/, through the harness of
 * tests/common/fuzz_replay.h (a crash is named and the rest still run). The load target runs on the fake driver
 * of tests/fuzz/fake_cl.h, whose OpenCL functions take the place of the
 * real ones in this program; a pass over the pack corpus with each of its
 * failure knobs also runs here, so every driver failure path is replayed.
 * The targets over the command-line side's parsers (tests/fuzz/NAME_target.h)
 * replay tests/fuzz/corpus_NAME/ and, when there is one,
 * tests/fuzz/regressions_NAME/.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fuzz_replay.h"
#include "fuzz/fake_cl.h"
#include "fuzz/targets.h"

#include "fuzz/capture_target.h"
#include "fuzz/define_value_target.h"
#include "fuzz/expr_target.h"
#include "fuzz/t1_spec_target.h"
#include "fuzz/manifest_target.h"
#include "fuzz/pack_args_target.h"
#include "fuzz/pocl_canon_target.h"
#include "fuzz/ptx_text_target.h"
#include "fuzz/remote_record_target.h"
#include "fuzz/source_fold_target.h"
#include "fuzz/worker_proto_target.h"

typedef fuzz_replay_target target_fn;

typedef struct replay_job {
    const char *target;
    target_fn fn;
    int knobs;
} replay_job;

/* Runs the job's target on one file (with each of `knobs` driver failures
 * when knobs > 0). */
static void replay_one(const char *path, const char *name, const uint8_t *data, size_t size,
                       void *ctx)
{
    const replay_job *job = ctx;
    int knobs = job->knobs;
    char why[64];
    (void)name;
    const char *fail = fuzz_replay_run(job->fn, data, size, why, sizeof why);
    CHECK(fail == NULL, "%s on %s: %s", job->target, path, fail ? fail : "");
    /* The load target reads its knob from the last byte: a pack
     * with one more byte does not open, so the knobs go through
     * fake_cl_fail here instead, in the child. */
    for (int k = 1; k < knobs; k++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            clcpack *p = NULL;
            clcpack_error err;
            if (clcpack_open_memory(data, size, &p, &err) == CLCPACK_OK) {
                static int context_object;
                if (clcpack_device_count(p))
                    clcpack_get_device(p, 0, &fake_cl_device);
                fake_cl_fail = (unsigned)k;
                for (size_t e = 0; e < clcpack_entry_count(p) && e < 32; e++) {
                    clcpack_entry_info ei = {.struct_size = sizeof ei};
                    clcpack_get_entry(p, e, &ei);
                    clcpack_key key = {ei.kernel, ei.defines, ei.define_count,
                                       {ei.wg[0], ei.wg[1], ei.wg[2]}};
                    cl_program prog = NULL;
                    clcpack_load_report r = {.struct_size = sizeof r};
                    long live = fake_cl_live;
                    if (clcpack_create_program(p, &key, (cl_context)(void *)&context_object,
                                               FAKE_DEVICE, NULL, &prog, &r,
                                               &err) == CLCPACK_OK)
                        clReleaseProgram(prog);
                    else if (prog || !err.message[0])
                        _exit(4);
                    if (fake_cl_live != live)
                        _exit(5);
                }
                clcpack_close(p);
            }
            _exit(0);
        }
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "load on %s with driver failures 0x%x: status 0x%x", path, (unsigned)k,
              (unsigned)status);
    }
}

/* Runs fn on every file of tests/fuzz/sub (with each of `knobs` driver
 * failures when knobs > 0); returns how many files ran. */
static int replay(const char *target, target_fn fn, const char *sub, int knobs)
{
    replay_job job = {target, fn, knobs};
    return fuzz_replay_each(sub, replay_one, &job);
}

int main(void)
{
    static const struct {
        const char *name;
        target_fn fn;
    } targets[] = {
        {"open_file", fuzz_open_file},
        {"tuning", fuzz_tuning},
        {"best", fuzz_best},
        {"load", fuzz_load},
    };
    /* Every combination of driver failures, or under valgrind (20 to 50
     * times slower) the first 8. */
    const char *pre = getenv("LD_PRELOAD");
    int knobs = pre && (strstr(pre, "vgpreload") || strstr(pre, "valgrind")) ? 8 : 128;
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        int inputs = replay(targets[t].name, targets[t].fn, "corpus",
                           targets[t].fn == fuzz_load ? knobs : 0);
        int regressions = replay(targets[t].name, targets[t].fn, "regressions", 0);
        CHECK(inputs >= 3, "%s: at least 3 corpus inputs (%d)", targets[t].name, inputs);
        printf("%s: replayed %d corpus inputs and %d regression files\n", targets[t].name, inputs,
               regressions);
    }
    int w = replay("writer", fuzz_writer, "corpus_writer", 0);
    CHECK(w >= 3, "writer: at least 3 corpus inputs (%d)", w);
    printf("writer: replayed %d corpus inputs\n", w);
    static const struct {
        const char *name;
        target_fn fn;
    } cli[] = {
        {"expr", fuzz_expr},
        {"define_value", fuzz_define_value},
        {"pack_args", fuzz_pack_args},
        {"manifest", fuzz_manifest},
        {"source_fold", fuzz_source_fold},
        {"worker_proto", fuzz_worker_proto},
        {"pocl_canon", fuzz_pocl_canon},
        {"ptx_text", fuzz_ptx_text},
        {"remote_record", fuzz_remote_record},
        {"capture", fuzz_capture},
        {"t1_spec", fuzz_t1_spec},
    };
    for (size_t t = 0; t < sizeof cli / sizeof cli[0]; t++) {
        char sub[64], dir[4200];
        snprintf(sub, sizeof sub, "corpus_%s", cli[t].name);
        int inputs = replay(cli[t].name, cli[t].fn, sub, 0);
        CHECK(inputs >= 3, "%s: at least 3 corpus inputs (%d)", cli[t].name, inputs);
        snprintf(sub, sizeof sub, "regressions_%s", cli[t].name);
        snprintf(dir, sizeof dir, "%s/%s", fuzz_replay_dir(), sub);
        int regressions = access(dir, F_OK) == 0 ? replay(cli[t].name, cli[t].fn, sub, 0) : 0;
        printf("%s: replayed %d corpus inputs and %d regression files\n", cli[t].name, inputs,
               regressions);
    }
    return check_summary();
}
