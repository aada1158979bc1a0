/* tune_options.c — the default --tune request (tune_options.h). */
#include "tune_options.h"

#include <string.h>

void tv_default_options(tv_options *o)
{
    memset(o, 0, sizeof *o);
    o->width = o->height = TV_DEFAULT_SIZE;
    o->runs = TV_DEFAULT_RUNS;
    o->warmup = TV_WARMUP;
}
