/* pack_run_state.c — a pack run's parts (pack_run.h) allocated together
 * and freed each by its owner: the run is on the heap, so neither its size
 * nor the plan's is in the tool's bss or on the stack. */
#include "pack_run.h"

#include <stdlib.h>

pack_run *pack_run_new(const pack_args *a)
{
    pack_run *run = calloc(1, sizeof *run);
    if (!run)
        return NULL;
    run->a = a;
    run->in = calloc(1, sizeof *run->in);
    run->slots = calloc(1, sizeof *run->slots);
    run->work = calloc(1, sizeof *run->work);
    run->out = calloc(1, sizeof *run->out);
    run->rep = calloc(1, sizeof *run->rep);
    run->cache = calloc(1, sizeof *run->cache);
    if (!run->in || !run->slots || !run->work || !run->out || !run->rep || !run->cache) {
        pack_run_free(run);
        return NULL;
    }
    pack_timings_start(&run->rep->timings, a->timings);
    return run;
}

/* The writer and the output's name: setup_writer's and choose_output's. */
static void output_free(pack_run_output *out)
{
    if (!out)
        return;
    clcpack_writer_free(out->w);
    free(out->output);
    free(out);
}

/* The --shard part is a view: its jobs are the plan's. */
static void inputs_free(pack_run_inputs *in)
{
    if (!in)
        return;
    free(in->part.jobs);
    free(in);
}

void pack_run_free(pack_run *run)
{
    if (!run)
        return;
    pack_run_work_free(run->work);
    pack_cache_free(run->cache);
    output_free(run->out);
    inputs_free(run->in);
    pack_run_report_free(run->rep);
    free(run->slots);
    free(run);
}
