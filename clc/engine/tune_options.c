/* tune_options.c — the default --tune request (tune_options.h). */
#include "tune_options.h"

#include <string.h>

void tune_options_default(tune_options *o)
{
    memset(o, 0, sizeof *o);
    o->width = o->height = TUNE_OPTIONS_DEFAULT_SIZE;
    o->runs = TUNE_OPTIONS_DEFAULT_RUNS;
    o->warmup = TUNE_OPTIONS_WARMUP;
}
