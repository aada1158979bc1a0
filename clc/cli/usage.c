/* usage.c — the --help texts and --version (commands.h). Kept in step with
 * docs/CLI.md. */
#include "commands.h"

#include "clcpack.h"
#include "rcache_http.h"

void print_version(FILE *f)
{
    unsigned lib = clcpack_version();
    fprintf(f, "clc-pack %d.%d.%d (libclcpack %u.%u.%u)\n", CLCPACK_VERSION_MAJOR,
            CLCPACK_VERSION_MINOR, CLCPACK_VERSION_PATCH, lib / 10000, lib / 100 % 100, lib % 100);
    if (rch_available())
        fprintf(f, "remote cache: %s\n", rch_version());
    else
        fprintf(f, "remote cache: not available (built without libcurl)\n");
}

void usage_pack(FILE *f)
{
    fputs(
        "Usage: clc-pack FILE.cl... [-D NAME=LIST]... [--wg LIST] [OPTIONS] -o PACK\n"
        "       clc-pack [pack] [OPTIONS]          (the kernels folder's manifest)\n"
        "       clc-pack list PACK [--json]\n"
        "       clc-pack verify PACK [--load [--check]] [--device SPEC]\n"
        "       clc-pack extract PACK (--entry N | --kernel NAME [-D NAME=V]... [--wg WxH])\n"
        "                        [--source] [--kind KIND] -o FILE\n"
        "       clc-pack embed PACK -o FILE [--format asm|c] [--symbol NAME] [--header FILE.h]\n"
        "       clc-pack merge PACK... -o FILE\n"
        "       clc-pack retarget PACK [--nv-arch LIST] -o FILE\n"
        "       clc-pack warm PACK [--device SPEC] [--cache-dir DIR]\n"
        "       clc-pack record -o FILE -- APP [ARGS...]\n"
        "       clc-pack run PACK -- APP [ARGS...]\n"
        "       clc-pack best PACK (--family F --width N | --kernel NAME [-D NAME=V]...)\n"
        "       clc-pack tune-report PACK [--family F | --kernel NAME]\n"
        "       clc-pack --list-devices\n"
        "\n"
        "Builds every variant (-D values x work-group) of OpenCL programs for a device\n"
        "ahead of time and stores the binaries, with the sources and build options to\n"
        "check and rebuild them, in one pack file.\n"
        "\n"
        "Your own programs (source files as arguments; docs/CLI.md):\n"
        "  FILE.cl...           each file is one program; every kernel it holds is\n"
        "                       stored with it and found by its name\n"
        "  --program NAME=A,B   files A, B, ... as one program, texts in order\n"
        "  -D NAME=LIST         a define's values: numbers, ranges, names, types\n"
        "                       (Ti=uchar,float); -D NAME: defined, no value;\n"
        "                       -D 'F(x,y)=EXPR': a function-like macro\n"
        "  --derive NAME=EXPR   a define computed from the others (repeatable, in order)\n"
        "  --where EXPR         build only the variants where EXPR is not 0\n"
        "  --wg LIST            local sizes 16x16,8x8 | 64,128, or one expression per\n"
        "                       dimension naming defines: --wg 'TS,TS/WPT'\n"
        "  --wg-defines         also pass the local size as -DWG_X=.. -DWG_Y=.. -DWG_Z=..\n"
        "  --variant A=1,B=x    exactly these define sets (repeatable), each combined\n"
        "                       with the -D lists of the names it does not give\n"
        "  --default A=1,WG=16x16  mark matching variants as the pack's defaults\n"
        "  --kernel NAME        a kernel every program must hold (repeatable)\n"
        "  -I DIR               where #include looks after the including file's folder\n"
        "  --options STRING     more build options, e.g. -cl-std=CL2.0 (--options=...)\n"
        "  --check-cmd CMD      your own test per variant: {binary} {defines} {wg}\n"
        "                       {device} {kernel} are replaced; non-zero fails it;\n"
        "                       runs in the folder clc-pack was started in\n"
        "  --tune-cmd CMD       your own timing per variant (same placeholders): it\n"
        "                       prints 'median_ns=N runs=R size=WxH', which is stored\n"
        "  --check-timeout S    either command's time limit (default 600)\n"
        "Expressions: integers, defines, C operators (+ - * / % << >> < == && || ?: ...).\n"
        "\n"
        "The kernels folder (no source file given):\n"
        "  --kernels DIR        kernel folder holding manifest.txt (default: kernels)\n"
        "  --widths LIST        FILTER_WIDTH values (default: each kernel's defaults)\n"
        "  --wg LIST            work-groups, e.g. 8x8,16x16 (2-D) or 64,128 (1-D)\n"
        "  -D NAME=LIST         values of another axis, e.g. -D NUMCOEFFS=8,16\n"
        "  --kernel NAME        build this kernel (repeatable; default: every kernel)\n"
        "  With every kernel, a kernel skips the values it does not allow (a note\n"
        "  says so); with --kernel, such a value is an error.\n"
        "\n"
        "LIST: 3 | 3,5,9 | 3,5,7,...,31 (the step of the values before '...', up to\n"
        "and including the last) | 3-31 | 3-31:2. At most 64 values, no duplicates.\n"
        "\n"
        "Where:\n"
        "  --device SPEC        default | gpu | cpu | accelerator | all | N | NAME |\n"
        "                       none (default: the first GPU, else the first CPU; N as\n"
        "                       in --list-devices; NAME: a part of the device name;\n"
        "                       none: no OpenCL device, offline targets only)\n"
        "  --platform NAME      only platforms whose name contains NAME\n"
        "  --list-devices       print every platform and device, then exit\n"
        "  -o, --output FILE    the pack (default: packs/<device>.clcpack)\n"
        "\n"
        "Devices you do not have (offline compilers, no device needed; docs/vendors/):\n"
        "  --intel-gpu[=LIST]   Intel GPUs: a binary per target made by ocloc; LIST:\n"
        "                       ocloc's names (tgllp, acm-g10, pvc), families or\n"
        "                       releases (xe-hpg), ranges (dg1:acm-g12); default\n"
        "                       tgllp,rkl,adl-s,adl-p,adl-n,dg1,acm-g10,acm-g11,acm-g12,pvc\n"
        "                       (and mtl where this ocloc knows it)\n"
        "  --intel-ir           keep the program's SPIR-V inside each Intel binary (left\n"
        "                       out by default unless --no-sources without --spirv)\n"
        "  --amd-gpu[=LIST]     AMD GPUs: a code object per gfx target ID made by\n"
        "                       clang with the ROCm device libraries (gfx90a,\n"
        "                       gfx90a:xnack-); default gfx900,gfx906,gfx908,gfx90a,\n"
        "                       gfx1010,gfx1030,gfx1100,gfx1101,gfx1102\n"
        "  --spirv              a SPIR-V module per variant (clang + llvm-spirv), loaded\n"
        "                       with clCreateProgramWithIL where no binary fits\n"
        "  --merge PACK         take every entry of PACK into the result (repeatable),\n"
        "                       its PTX given cubins for --nv-arch when ptxas is found\n"
        "  --depfile FILE       also write a make rule: the pack depends on the manifest,\n"
        "                       the kernels and every file they include\n"
        "  -MD, -MF FILE, -MT TARGET   the same, as compilers spell it (-MD alone:\n"
        "                       FILE is the pack's name with .d; -MT: the rule's target)\n"
        "\n"
        "How:\n"
        "  -j, --jobs N         parallel builds (default: the number of cores; under\n"
        "                       make -jN with a '+' rule, N, sharing make's job slots)\n"
        "  -k, --keep-going     write the variants that built even if others failed\n"
        "  --rebuild            build every variant; by default, when -o exists, the\n"
        "                       variants it already holds unchanged are reused\n"
        "  --update             reuse what -o holds (the default)\n"
        "  --ptxas PATH         NVIDIA: ptxas for cubins (default: PATH, then\n"
        "                       /usr/local/cuda/bin); without one, PTX only;\n"
        "                       'none': PTX only, as the driver gave it\n"
        "  --nv-arch LIST       NVIDIA: a cubin for each sm number of LIST besides the\n"
        "                       device's own, from the PTX retargeted to it (default\n"
        "                       75,80,86,89,90,100,120); the PTX stored is its most\n"
        "                       portable form (docs/vendors/NVIDIA.md)\n"
        "  --no-sources         store no kernel sources (no rebuild fallback)\n"
        "  --store-cubins       store the cubins for the device's own architecture\n"
        "                       as they are (about 0.1 ms faster at a cold start,\n"
        "                       a pack about twice the size); by default they are\n"
        "                       compressed like every binary, except with --codec zlib\n"
        "  --compress-cubins    compress them with --codec zlib too\n"
        "  --codec zlib|zstd    zstd (the default where clc-pack has it): pack format\n"
        "                       5, about a third of zlib's size, read by libclcpack\n"
        "                       1.0 or newer built with zstd; zlib: formats 1-3, read\n"
        "                       by every libclcpack (docs/FORMAT.md)\n"
        "  --no-check           kernels folder: launch each variant once without\n"
        "                       checking its output against the CPU reference\n"
        "  --no-warmup          do not launch at all: on PoCL the binary then lacks the\n"
        "                       compiled work-group function (for comparisons)\n"
        "  --tune               time every variant (median of --tune-runs runs after a\n"
        "                       warm-up, event profiling, random data) and store the\n"
        "                       times; builds one variant at a time (docs/TUNING.md);\n"
        "                       bundled kernels only: for your own, --tune-cmd\n"
        "  --tune-size WxH      problem size for --tune (default 2048x2048; poly\n"
        "                       kernels take W*H inputs)\n"
        "  --tune-runs N        timed runs per variant, 10 or more (default 11)\n"
        "\n"
        "Many machines (docs/CLI.md, docs/REMOTE_CACHE.md):\n"
        "  --shard K/N          build part K of N of the variants (the same partition on\n"
        "                       every machine, by estimated cost); clc-pack merge joins\n"
        "                       the parts into the pack one machine would build\n"
        "  --remote-cache URL   before building a variant, look it up in an HTTP cache\n"
        "                       (Bazel's /ac/ and /cas/ layout: nginx with WebDAV PUT,\n"
        "                       bazel-remote); after, upload it (default:\n"
        "                       $CLC_PACK_REMOTE_CACHE); credentials from\n"
        "                       CLC_PACK_REMOTE_CACHE_TOKEN or ..._BASIC_AUTH\n"
        "  --remote-cache-readonly  look up, never upload\n"
        "  --remote-cache-timeout S  each request's time limit (default 10)\n"
        "  --no-remote-cache    ignore CLC_PACK_REMOTE_CACHE\n"
        "\n"
        "  -q, --quiet          only errors      -v, --verbose  more detail\n"
        "  -h, --help           this text        --version      the version\n"
        "Progress: a line redrawn in place on a terminal; otherwise (a log, a build\n"
        "system) a line every few seconds and at the end. -q silences both.\n"
        "\n"
        "Each subcommand takes --help too (clc-pack help CMD is the same).\n"
        "Exit status: 0 success; 1 failure (a variant failed to build or check, a pack\n"
        "is damaged, a file could not be written); 2 usage error (bad option, list or\n"
        "value; nothing was done).\n",
        f);
}

void usage_short(FILE *f)
{
    fputs("clc-pack: nothing to pack: no source file given, and no kernels/manifest.txt here\n"
          "Usage: clc-pack FILE.cl... [-D NAME=LIST]... [--wg LIST] [OPTIONS] -o PACK\n"
          "  e.g. clc-pack sobel.cl -D T=float,int --wg 16x16,8x8 -o sobel.clcpack\n"
          "       clc-pack [pack] [OPTIONS]    packs the kernels folder (--kernels DIR)\n"
          "Try 'clc-pack --help' for every option.\n",
          f);
}

void usage_list(FILE *f)
{
    fputs("Usage: clc-pack list PACK [--json]\n"
          "\n"
          "Prints the pack's devices, sources and entries (kernel, defines, work-group,\n"
          "device, kind/arch or kind/target, raw and stored size, codec, CRC-32, tuning),\n"
          "and the kernels each program entry holds.\n"
          "  --json         one JSON document instead of tables\n"
          "  -h, --help     this text\n"
          "Exit status: 0, 1 when the pack cannot be opened, 2 on a usage error.\n",
          f);
}

void usage_verify(FILE *f)
{
    fputs("Usage: clc-pack verify PACK [--load [--check]] [--device SPEC] [--platform NAME]\n"
          "\n"
          "Checks every structure of the index a load trusts (lookup table included),\n"
          "then decodes every entry and source and checks its CRC-32; names each bad one.\n"
          "  --load           also load every entry through libclcpack on the devices of\n"
          "                   this machine that the pack was built for (or --device), and\n"
          "                   report the path each took: native, cubin, ptx or source\n"
          "  --check          with --load: run each loaded program on random data and\n"
          "                   compare with the CPU reference (needs the manifest)\n"
          "  --kernels DIR    kernel folder for --check (default: kernels)\n"
          "  --no-cubin       with --load: skip cubins (CLCPACK_LOAD_NO_CUBIN), so NVIDIA\n"
          "                   devices load the PTX\n"
          "  --device SPEC    load on these devices (as for pack)\n"
          "  --platform NAME  only platforms whose name contains NAME\n"
          "  -q, --quiet      less output; -v, --verbose: more\n"
          "  -h, --help       this text\n"
          "Exit status: 0 all good; 1 a damaged index, a bad checksum, an entry that did\n"
          "not load or a failed check; 2 on a usage error.\n",
          f);
}

void usage_warm(FILE *f)
{
    fputs("Usage: clc-pack warm PACK [--device SPEC] [--platform NAME] [--cache-dir DIR]\n"
          "                     [--nice N] [-q] [-v]\n"
          "\n"
          "Builds, on this machine, every key of PACK that has no binary for a local device\n"
          "into the rebuild cache (docs/CACHE.md), so that the application's first start\n"
          "loads natively (report path \"cache\"). Keys already warm are skipped; after a\n"
          "driver update they are built again. Each key is native (a pack binary for the\n"
          "device: native, cubin, or an Intel or AMD entry of its target), already warm,\n"
          "built (from the pack's SPIR-V or source), ptx (the NVIDIA driver's own cache)\n"
          "or failed.\n"
          "  --device SPEC    the devices to warm (as for pack; default: every device)\n"
          "  --platform NAME  only platforms whose name contains NAME\n"
          "  --cache-dir DIR  the cache folder (the application loads with\n"
          "                   CLCPACK_CACHE_DIR=DIR); made with mode 0755 when missing.\n"
          "                   Default: the library's ($CLCPACK_CACHE_DIR,\n"
          "                   $XDG_CACHE_HOME/clcpack, $HOME/.cache/clcpack)\n"
          "  --nice N         N steps below the current priority, 0..19 (default 10)\n"
          "  -q, --quiet      only errors; -v, --verbose: a line per key\n"
          "  -h, --help       this text\n"
          "SIGINT or SIGTERM stops it after the build under way; run it again to finish.\n"
          "Exit status: 0 done (also when this machine has no OpenCL device); 1 the pack\n"
          "cannot be read, a key failed, or the cache folder cannot be used; 2 on a usage\n"
          "error; 130/143 interrupted by SIGINT/SIGTERM.\n",
          f);
}

void usage_extract(FILE *f)
{
    fputs("Usage: clc-pack extract PACK (--entry N | --kernel NAME [-D NAME=VALUE]...\n"
          "                         [--wg WxH]) [--source] [--kind KIND] -o FILE\n"
          "\n"
          "Writes one entry's binary (or, with --source, its program source) to FILE\n"
          "('-' for stdout), after checking its CRC-32.\n"
          "  --entry N        the entry with index N (as in list)\n"
          "  --kernel NAME    the entry of this kernel, narrowed by -D and --wg: each -D\n"
          "                   must match one of its defines; it must be the only match\n"
          "  --kind KIND      only entries of this kind: native, ptx, cubin, intel,\n"
          "                   amdgcn or spirv\n"
          "  --source         the source instead of the binary\n"
          "  -o, --output FILE  where to write (written atomically; '-' for stdout; a\n"
          "                   link, device, FIFO, folder or read-only file is refused)\n"
          "  -q, --quiet      no line saying what was written\n"
          "  -h, --help       this text\n"
          "Exit status: 0, 1 when the pack or entry is bad or FILE cannot be written,\n"
          "2 on a usage error (including no or several matching entries).\n",
          f);
}

void usage_embed(FILE *f)
{
    fputs("Usage: clc-pack embed PACK -o FILE [--format asm|c] [--symbol NAME] [--header FILE.h]\n"
          "\n"
          "Writes the pack into a file the application's build compiles and links, so\n"
          "that it opens it with clcpack_open_memory(NAME, NAME_size, ...), which does\n"
          "not copy it. The pack is checked first (as clcpack_open_memory will check\n"
          "it). Files whose text would not change are not rewritten.\n"
          "  -o, --output FILE  the output, FILE.S for asm, FILE.c for c (written\n"
          "                   atomically; '-' for stdout); without --format, FILE.c\n"
          "                   gives c and FILE.s or FILE.S asm; a --format they\n"
          "                   contradict is an error\n"
          "  --format asm     an assembler file that pulls in the pack with .incbin by\n"
          "                   its absolute path (GNU as, ELF; the default there)\n"
          "  --format c       a C array, for any C compiler (slow to compile when large)\n"
          "                   Both give 'const unsigned char NAME[]' aligned to 64 bytes,\n"
          "                   'const size_t NAME_size' and 'const unsigned char\n"
          "                   NAME_sha256[32]' (for clcpack_open_file_pinned).\n"
          "  --symbol NAME    the array's name, a C identifier (default: embedded_pack)\n"
          "  --header FILE.h  also write a header declaring all three\n"
          "  -q, --quiet      no summary line\n"
          "  -h, --help       this text\n"
          "Exit status: 0, 1 when PACK is not a usable pack or a file cannot be written,\n"
          "2 on a usage error (including a NAME that is not a C identifier).\n",
          f);
}

void usage_merge(FILE *f)
{
    fputs("Usage: clc-pack merge PACK... -o FILE [--store-cubins|--compress-cubins]\n"
          "                        [--codec zlib|zstd]\n"
          "\n"
          "Joins packs built on different machines (say a CPU build host and a GPU\n"
          "build host) into one; the loader then picks the entry for whatever device\n"
          "it runs on. Devices, sources, entries and tuning results are kept; an\n"
          "entry found in several packs (same kernel, defines, work-group, device,\n"
          "kind and arch) must have the same bytes, options and source there, and is\n"
          "stored once. A conflict names the entry and both files, and nothing is\n"
          "written. The result does not depend on the order of the packs.\n"
          "  -o, --output FILE  the merged pack (written atomically; may be one of the\n"
          "                   inputs)\n"
          "  --store-cubins   store the device's own cubins as they are (by default\n"
          "                   compressed, except with --codec zlib)\n"
          "  --compress-cubins  compress them with --codec zlib too\n"
          "  --codec zlib|zstd  the codecs written (default zstd where clc-pack has\n"
          "                   it; zlib packs are read by every libclcpack)\n"
          "  -q, --quiet      no summary line; -v, --verbose: more detail\n"
          "  -h, --help       this text\n"
          "Exit status: 0, 1 on a conflict, a damaged pack or a file that cannot be\n"
          "written, 2 on a usage error.\n",
          f);
}

void usage_retarget(FILE *f)
{
    fputs("Usage: clc-pack retarget PACK [--nv-arch LIST] [--ptxas PATH] -o FILE\n"
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
          "sources, other entries and tuning results are copied (docs/vendors/NVIDIA.md).\n"
          "  --nv-arch LIST   sm numbers (default 75,80,86,89,90,100,120)\n"
          "  --ptxas PATH     ptxas to use (default: PATH, then /usr/local/cuda/bin)\n"
          "  -o, --output FILE  the new pack (written atomically; may be PACK itself)\n"
          "  -j, --jobs N     ptxas runs for N entries at a time (default: the cores)\n"
          "  --store-cubins   store the cubins for each device's own architecture as\n"
          "                   they are (by default compressed, except with --codec zlib)\n"
          "  --compress-cubins  compress them with --codec zlib too\n"
          "  --codec zlib|zstd  the codecs written (default zstd where clc-pack has\n"
          "                   it; zlib packs are read by every libclcpack)\n"
          "  -q, --quiet      no notes, no summary line; -v, --verbose: more detail\n"
          "  -h, --help       this text\n"
          "Exit status: 0, 1 on a damaged pack, no ptxas, or a file that cannot be\n"
          "written, 2 on a usage error.\n",
          f);
}

void usage_record(FILE *f)
{
    fputs("Usage: clc-pack record -o FILE [--log] [--ptxas PATH] [--keep-captures DIR]\n"
          "                       [--codec zlib|zstd]\n"
          "                       -- APP [ARGS...]\n"
          "\n"
          "Runs an unmodified OpenCL application with libclcpack-preload.so, which\n"
          "captures every program it builds from source, and every link of programs it\n"
          "compiled from source (sources, options, device, and the binary taken right\n"
          "after the build or link, with its work-group functions), then writes a pack\n"
          "of them keyed by content\n"
          "(docs/RECORD.md). The interposer is loaded with LD_PRELOAD, as an OpenCL\n"
          "layer, and through a forwarding libOpenCL.so first on LD_LIBRARY_PATH, so\n"
          "applications that load OpenCL themselves are seen too; PoCL gets a private\n"
          "kernel cache for the run. `clc-pack run FILE -- APP` then serves those\n"
          "builds from the pack. Packs recorded on several machines join with merge.\n"
          "  -o, --output FILE  the pack to write (written atomically; checked first)\n"
          "  --log              CLCPACK_LOG=1: one line per program build on stderr\n"
          "  --ptxas PATH       NVIDIA: assemble the PTX into cubins with this ptxas\n"
          "                     (default: ptxas on $PATH or in /usr/local/cuda/bin)\n"
          "  --keep-captures DIR  capture into DIR (an existing folder) and keep the files\n"
          "  --codec zlib|zstd  the codecs written (default zstd where clc-pack has it)\n"
          "  -q, --quiet        no summary line; -v, --verbose: one line per capture\n"
          "  -h, --help         this text\n"
          "Exit status: 0; 1 when nothing was built from source (the message says why,\n"
          "and when no OpenCL call was seen at all), the application failed (the pack\n"
          "is still written) or could not be started, or FILE or DIR cannot be written\n"
          "(checked before the application starts); 2 on a usage error.\n",
          f);
}

void usage_run(FILE *f)
{
    fputs("Usage: clc-pack run PACK [--log] [--strict] -- APP [ARGS...]\n"
          "\n"
          "Runs an unmodified OpenCL application with libclcpack-preload.so and\n"
          "CLCPACK_PACK=PACK: a program whose exact source, options and device the\n"
          "pack holds (or a link whose inputs it holds) is made from the pack's binary\n"
          "instead of being compiled; any other build goes to the driver untouched\n"
          "(docs/RECORD.md). A PACK that does not open is reported and the\n"
          "application still runs, every build passed to the driver.\n"
          "  --log       CLCPACK_LOG=1: one line per program build on stderr (served\n"
          "              from the pack, or passed through and why), and a note when\n"
          "              no OpenCL call was seen at all, with the likely cause\n"
          "  --strict    refuse to start APP when PACK does not open (exit 1)\n"
          "  -h, --help  this text\n"
          "Exit status: the application's; 127 when APP is not found, 126 when it\n"
          "cannot be executed (as env(1)); 1 with --strict when PACK does not open,\n"
          "or when the interposer is not found; 2 on a usage error.\n",
          f);
}

void usage_best(FILE *f)
{
    fputs("Usage: clc-pack best PACK --family F --width N [--device SPEC] [--platform NAME]\n"
          "                         [--no-load]\n"
          "       clc-pack best PACK --kernel NAME [-D NAME=VALUE]... [--device SPEC]\n"
          "                         [--platform NAME] [--no-load]\n"
          "\n"
          "Asks the pack, as an application would (clcpack_best_variant), for the fastest\n"
          "variant of family F (conv-grey, conv-rgba, poly) at filter width N (0 for poly)\n"
          "on the device, says whether it was measured (--tune) or is the default rule,\n"
          "and loads it with clcpack_create_program.\n"
          "  --kernel NAME  instead: a program of your own (or a kernel it holds), timed\n"
          "                 with --tune-cmd; its fastest measured variant\n"
          "  -D NAME=VALUE  with --kernel: only variants with this define value\n"
          "  --device SPEC  as for pack (default: the default device)\n"
          "  --no-load      only choose, do not load\n"
          "  -h, --help     this text\n"
          "Exit status: 0, 1 when the pack cannot be opened, no entry serves the width\n"
          "or the defines, NAME is not in it, nothing of NAME was timed or the choice\n"
          "does not load, 2 on a usage error.\n",
          f);
}

void usage_tune_report(FILE *f)
{
    fputs("Usage: clc-pack tune-report PACK [--family F | --kernel NAME]\n"
          "\n"
          "For a pack built with --tune: for each device, family and filter width, the\n"
          "fastest variant, its margin over the second fastest and over the seeds'\n"
          "recommended kernel (conv-rgba: reda_local 16x16; conv-grey: Convolve_Def\n"
          "16x16), as Markdown tables. Every other program with timings (--tune-cmd):\n"
          "its timed variants by defines and work-group, fastest first per size.\n"
          "  --family F     only the bundled family F\n"
          "  --kernel NAME  only the program NAME (or the one holding kernel NAME)\n"
          "  -h, --help     this text\n"
          "Exit status: 0, 1 when the pack cannot be opened or holds no timings, 2 on a\n"
          "usage error.\n",
          f);
}
