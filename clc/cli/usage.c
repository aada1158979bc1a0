/* usage.c — the --help texts and --version (commands.h): each command's
 * intro and closing lines around the option lines its table gives
 * (cli_opts_help). Kept in step with docs/CLI.md. */
#include "commands.h"

#include <string.h>

#include "clcpack.h"
#include "rcache_http.h"

void print_version(FILE *f)
{
    unsigned lib = clcpack_version();
    fprintf(f, "clc-pack %d.%d.%d (libclcpack %u.%u.%u)\n", CLCPACK_VERSION_MAJOR,
            CLCPACK_VERSION_MINOR, CLCPACK_VERSION_PATCH, lib / 10000, lib / 100 % 100, lib % 100);
    if (rcache_http_available())
        fprintf(f, "remote cache: %s\n", rcache_http_version());
    else
        fprintf(f, "remote cache: not available (built without libcurl)\n");
}

/* head, the option lines of s, tail. */
static void usage_of(FILE *f, const char *head, const cli_optspec *s, const char *tail)
{
    fputs(head, f);
    cli_opts_help(f, s);
    fputs(tail, f);
}

/* "       clc-pack NAME SYNOPSIS" for every command of the table but pack. */
static void synopses(FILE *f)
{
    for (size_t i = 0; i < clc_n_commands; i++)
        if (strcmp(clc_commands[i].name, "pack") != 0)
            fprintf(f, "       clc-pack %s %s\n", clc_commands[i].name, clc_commands[i].synopsis);
}

/* "  NAME         summary" for every command of the table. */
static void summaries(FILE *f)
{
    for (size_t i = 0; i < clc_n_commands; i++)
        fprintf(f, "  %-13s%s\n", clc_commands[i].name, clc_commands[i].summary);
}

void usage_pack(FILE *f)
{
    fputs("Usage: clc-pack [AXES] FILE.cl [AXES]... [OPTIONS] [-o PACK]\n"
          "       (AXES: -D NAME=LIST, --wg LIST, ...: before the first file every\n"
          "       program's, after a file its own)\n"
          "       clc-pack [pack] [OPTIONS]          (the kernels folder's manifest)\n",
          f);
    synopses(f);
    fputs("       clc-pack --list-devices\n"
          "\n"
          "Builds every variant (-D values x work-group) of OpenCL programs for a device\n"
          "ahead of time and stores the binaries, with the sources and build options to\n"
          "check and rebuild them, in one pack file.\n"
          "\n",
          f);
    cli_opts_help(f, &pack_optspec);
    fputs("Progress: a line redrawn in place on a terminal; otherwise (a log, a build\n"
          "system) a line every few seconds and at the end. -q silences both.\n"
          "\n"
          "Commands (each takes --help too; clc-pack help CMD is the same):\n",
          f);
    summaries(f);
    fputs("Exit status: 0 success; 1 failure (a variant failed to build or check, a pack\n"
          "is damaged, a file could not be written); 2 usage error (bad option, list or\n"
          "value; nothing was done).\n",
          f);
}

void usage_short(FILE *f)
{
    fputs("clc-pack: nothing to pack: no source file given, and no kernels/manifest.txt here\n"
          "Usage: clc-pack FILE.cl... [-D NAME=LIST]... [--wg LIST] [OPTIONS] [-o PACK]\n"
          "  e.g. clc-pack sobel.cl -D T=float,int --wg 16x16,8x8 -o sobel.clcpack\n"
          "       clc-pack [pack] [OPTIONS]    packs the kernels folder (--kernels DIR)\n"
          "Try 'clc-pack --help' for every option.\n",
          f);
}


void usage_list(FILE *f)
{
    usage_of(f,
             "Usage: clc-pack list PACK [--json]\n"
             "\n"
             "Prints the pack's devices, sources and entries (kernel, defines, work-group,\n"
             "device, kind/arch or kind/target, raw and stored size, codec, CRC-32, tuning),\n"
             "and the kernels each program entry holds.\n",
             &list_optspec, "Exit status: 0, 1 when the pack cannot be opened, 2 on a usage error.\n");
}

void usage_verify(FILE *f)
{
    usage_of(f,
             "Usage: clc-pack verify PACK [--load [--check]] [--device SPEC] [--platform NAME]\n"
             "\n"
             "Checks every structure of the index a load trusts (lookup table included),\n"
             "then decodes every entry and source and checks its CRC-32; names each bad one.\n",
             &verify_optspec,
             "Exit status: 0 all good; 1 a damaged index, a bad checksum, an entry that did\n"
             "not load or a failed check; 2 on a usage error.\n");
}

void usage_warm(FILE *f)
{
    usage_of(f,
             "Usage: clc-pack warm PACK [--device SPEC] [--platform NAME] [--cache-dir DIR]\n"
             "                     [--nice N] [-q] [-v]\n"
             "\n"
             "Builds, on this machine, every key of PACK that has no binary for a local device\n"
             "into the rebuild cache (docs/CACHE.md), so that the application's first start\n"
             "loads natively (report path \"cache\"). Keys already warm are skipped; after a\n"
             "driver update they are built again. Each key is native (a pack binary for the\n"
             "device: native, cubin, or an Intel or AMD entry of its target), already warm,\n"
             "built (from the pack's SPIR-V or source), ptx (the NVIDIA driver's own cache)\n"
             "or failed.\n",
             &warm_optspec,
             "SIGINT or SIGTERM stops it after the build under way; run it again to finish.\n"
             "Exit status: 0 done (also when this machine has no OpenCL device); 1 the pack\n"
             "cannot be read, a key failed, or the cache folder cannot be used; 2 on a usage\n"
             "error; 130/143 interrupted by SIGINT/SIGTERM.\n");
}

void usage_extract(FILE *f)
{
    usage_of(f,
             "Usage: clc-pack extract PACK (--entry N | --kernel NAME [-D NAME=VALUE]...\n"
             "                         [--wg WxH]) [--source] [--kind KIND] -o FILE\n"
             "\n"
             "Writes one entry's binary (or, with --source, its program source) to FILE\n"
             "('-' for stdout), after checking its CRC-32.\n",
             &extract_optspec,
             "Exit status: 0, 1 when the pack or entry is bad or FILE cannot be written,\n"
             "2 on a usage error (including no or several matching entries).\n");
}

void usage_embed(FILE *f)
{
    usage_of(f,
             "Usage: clc-pack embed PACK -o FILE [--format asm|c|rc] [--symbol NAME]\n"
             "                      [--header FILE.h] [--loader-codecs LIST]\n"
             "\n"
             "Writes the pack into a file the application's build compiles and links, so\n"
             "that it opens it with clcpack_open_memory(NAME, NAME_size, ...), which does\n"
             "not copy it (rc: clcpack_open_resource). The pack is checked first (as\n"
             "clcpack_open_memory will check it, and against --loader-codecs). Files whose\n"
             "text would not change are not rewritten.\n",
             &embed_optspec,
             "Exit status: 0, 1 when PACK is not a usable pack, needs a codec the loader\n"
             "lacks (--loader-codecs) or a file cannot be written,\n"
             "2 on a usage error (including a NAME that is not a C identifier).\n");
}

void usage_merge(FILE *f)
{
    usage_of(f,
             "Usage: clc-pack merge PACK... -o FILE [--store-cubins|--compress-cubins]\n"
             "                        [--codec zlib|zstd]\n"
             "\n"
             "Joins packs built on different machines (say a CPU build host and a GPU\n"
             "build host) into one; the loader then picks the entry for whatever device\n"
             "it runs on. Devices, sources, entries and tuning results are kept; an\n"
             "entry found in several packs (same kernel, defines, work-group, device,\n"
             "kind and arch) must have the same bytes, options and source there, and is\n"
             "stored once. A conflict names the entry and both files, and nothing is\n"
             "written. The result does not depend on the order of the packs.\n",
             &merge_optspec,
             "Exit status: 0, 1 on a conflict, a damaged pack or a file that cannot be\n"
             "written, 2 on a usage error.\n");
}

void usage_retarget(FILE *f)
{
    usage_of(f,
             "Usage: clc-pack retarget PACK [--nv-arch LIST] [--ptxas PATH] -o FILE\n"
             "                             [-j N] [--store-cubins|--compress-cubins]\n"
             "                             [--codec zlib|zstd]\n"
             "\n"
             "Adds cubins for more NVIDIA architectures to an existing pack, on any\n"
             "machine with NVIDIA's ptxas (no GPU needed). Every PTX entry is stored in\n"
             "its most portable form (the lowest .target and .version ptxas accepts) and\n"
             "gets a cubin for each sm number of LIST and for its device's own compute\n"
             "capability, assembled from the PTX with its .target set to that\n"
             "architecture. An architecture ptxas refuses the PTX for gets no cubin and\n"
             "a note saying why; a cubin the pack already holds is kept. Devices,\n"
             "sources, other entries and tuning results are copied (docs/vendors/NVIDIA.md).\n",
             &retarget_optspec,
             "Exit status: 0, 1 on a damaged pack, no ptxas, or a file that cannot be\n"
             "written, 2 on a usage error.\n");
}

void usage_record(FILE *f)
{
    usage_of(f,
             "Usage: clc-pack record -o FILE [--replace] [--log] [--ptxas PATH]\n"
             "                       [--keep-captures DIR] [--codec zlib|zstd]\n"
             "                       -- APP [ARGS...]\n"
             "\n"
             "Runs an unmodified OpenCL application with libclcpack-preload.so, which\n"
             "captures every program it builds from source, and every link of programs it\n"
             "compiled from source (sources, options, device, and the binary taken right\n"
             "after the build or link, with its work-group functions), then adds them to\n"
             "the pack FILE keyed by content (a new pack when there is none; records into\n"
             "one FILE accumulate, made one after another or at once, and what it held\n"
             "stays; docs/RECORD.md). The interposer is loaded with LD_PRELOAD, as an OpenCL\n"
             "layer, and through a forwarding libOpenCL.so first on LD_LIBRARY_PATH, so\n"
             "applications that load OpenCL themselves are seen too; PoCL gets a private\n"
             "kernel cache for the run. `clc-pack run FILE -- APP` then serves those\n"
             "builds from the pack. Packs recorded on several machines join with merge.\n",
             &record_optspec,
             "Exit status: 0; 1 when nothing was built from source (the message says why,\n"
             "and when no OpenCL call was seen at all), the application failed (the pack\n"
             "is still written) or could not be started, or FILE or DIR cannot be written\n"
             "or FILE is there but not a pack (checked before the application starts); 2\n"
             "on a usage error.\n");
}

void usage_run(FILE *f)
{
    usage_of(f,
             "Usage: clc-pack run PACK [--log] [--strict] -- APP [ARGS...]\n"
             "\n"
             "Runs an unmodified OpenCL application with libclcpack-preload.so and\n"
             "CLCPACK_PACK=PACK: a program whose exact source, options and device the\n"
             "pack holds (or a link whose inputs it holds) is made from the pack's binary\n"
             "instead of being compiled; any other build goes to the driver untouched\n"
             "(docs/RECORD.md). A PACK that does not open is reported and the\n"
             "application still runs, every build passed to the driver.\n",
             &run_optspec,
             "Exit status: the application's; 127 when APP is not found, 126 when it\n"
             "cannot be executed (as env(1)); 1 with --strict when PACK does not open,\n"
             "or when the interposer is not found; 2 on a usage error.\n");
}

void usage_best(FILE *f)
{
    usage_of(f,
             "Usage: clc-pack best PACK --family F --width N [--device SPEC] [--platform NAME]\n"
             "                         [--no-load]\n"
             "       clc-pack best PACK --kernel NAME [-D NAME=VALUE]... [--device SPEC]\n"
             "                         [--platform NAME] [--no-load]\n"
             "\n"
             "Asks the pack, as an application would (clcpack_best_variant), for the fastest\n"
             "variant of family F (conv-grey, conv-rgba, poly) at filter width N (0 for poly)\n"
             "on the device, says whether it was measured (--tune) or is the default rule,\n"
             "and loads it with clcpack_create_program.\n",
             &best_optspec,
             "Exit status: 0, 1 when the pack cannot be opened, no entry serves the width\n"
             "or the defines, NAME is not in it, nothing of NAME was timed or the choice\n"
             "does not load, 2 on a usage error.\n");
}

void usage_tune(FILE *f)
{
    usage_of(f,
             "Usage: clc-pack tune SPEC.json [-o PACK] [--t4 FILE] [--device SPEC] [-j N]\n"
             "                     [--strategy NAME] [--budget N|Ns] [--keep best|N|all] [-q|-v]\n"
             "\n"
             "Tunes any OpenCL program on the device from a T1 spec (the TuningSchema input\n"
             "of Kernel Tuner's tune_kernel_T1 and KTT): builds its configurations in\n"
             "parallel, times each one on the device in one worker that holds the arguments,\n"
             "after comparing its output with the reference, and records every\n"
             "configuration tried with its T4 invalidity (compile, constraints, runtime,\n"
             "correctness, timeout). Writes the T4 results and a pack of the fastest correct\n"
             "configurations with their timings, which clcpack_best_variant, best --kernel\n"
             "and tune-report choose from. A second run with the same results file resumes.\n"
             "docs/TUNING.md, \"Tuning any program from a T1 spec\".\n",
             &tune_optspec,
             "Exit status: 0; 1 when the spec is wrong (one line names its field), the device\n"
             "cannot be used or no configuration is correct; 2 on a usage error.\n");
}

void usage_tune_report(FILE *f)
{
    usage_of(f,
             "Usage: clc-pack tune-report PACK [--family F | --kernel NAME] [--t4 FILE]\n"
             "\n"
             "For a pack built with --tune: for each device, family and filter width, the\n"
             "fastest variant, its margin over the second fastest and over the seeds'\n"
             "recommended kernel (conv-rgba: reda_local 16x16; conv-grey: Convolve_Def\n"
             "16x16), as Markdown tables. Every other program with timings (--tune-cmd):\n"
             "its timed variants by defines and work-group, fastest first per size.\n"
             "--t4 FILE writes the timings reported as T4 results too (docs/TUNING.md).\n",
             &tune_report_optspec,
             "Exit status: 0, 1 when the pack cannot be opened or holds no timings, 2 on a\n"
             "usage error.\n");
}

void usage_cache(FILE *f)
{
    usage_of(f,
             "Usage: clc-pack cache stats | clear\n"
             "\n"
             "The variant cache (docs/CACHE.md): every variant clc-pack built on a device, kept\n"
             "by its key and looked up before the next build. stats prints its folder, state,\n"
             "entries, bytes, bound and the hits and misses counted over the runs; clear\n"
             "removes every entry and the counts. The folder: $CLC_PACK_CACHE_DIR/variants,\n"
             "else $XDG_CACHE_HOME/clc-pack/variants, else ~/.cache/clc-pack/variants; the\n"
             "bound: CLC_PACK_CACHE_SIZE (default 1G); CLC_PACK_NO_CACHE=1 or clc-pack\n"
             "--no-cache turn it off for a run. A hit is checked without the device (its\n"
             "SHA-256, its key); CLC_PACK_CACHE_LOAD=1 loads each back on the device too.\n",
             &cache_optspec,
             "Exit status: 0; 1 when the folder cannot be read or emptied; 2 on a usage error.\n");
}
