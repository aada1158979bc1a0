/* usage.c — the --help texts and --version (commands.h). Kept in step with
 * docs/CLI.md. */
#include "commands.h"

#include "clcpack.h"

void print_version(FILE *f)
{
    unsigned lib = clcpack_version();
    fprintf(f, "clc-pack %d.%d.%d (libclcpack %u.%u.%u)\n", CLCPACK_VERSION_MAJOR,
            CLCPACK_VERSION_MINOR, CLCPACK_VERSION_PATCH, lib / 10000, lib / 100 % 100, lib % 100);
}

void usage_pack(FILE *f)
{
    fputs(
        "Usage: clc-pack [pack] [OPTIONS]\n"
        "       clc-pack list PACK [--json]\n"
        "       clc-pack verify PACK [--load [--check]] [--device SPEC]\n"
        "       clc-pack extract PACK (--entry N | --kernel NAME [-D NAME=V]... [--wg WxH])\n"
        "                        [--source] [--kind native|ptx|cubin] -o FILE\n"
        "       clc-pack --list-devices\n"
        "\n"
        "Builds every (kernel, FILTER_WIDTH, work-group, ...) variant of the kernels\n"
        "for an OpenCL device ahead of time and stores the binaries, with the sources\n"
        "and build options to check and rebuild them, in one pack file.\n"
        "\n"
        "What to build:\n"
        "  --kernels DIR        kernel folder holding manifest.txt (default: kernels)\n"
        "  --kernel NAME        build this kernel (repeatable; default: every kernel)\n"
        "  --widths LIST        FILTER_WIDTH values (default: each kernel's defaults)\n"
        "  --wg LIST            work-groups, e.g. 8x8,16x16 (2-D) or 64,128 (1-D)\n"
        "  -D NAME=LIST         values of another axis, e.g. -D NUMCOEFFS=8,16\n"
        "  With every kernel, a kernel skips the values it does not allow (a note\n"
        "  says so); with --kernel, such a value is an error.\n"
        "\n"
        "LIST: 3 | 3,5,9 | 3,5,7,...,31 (the step of the values before '...', up to\n"
        "and including the last) | 3-31 | 3-31:2. At most 64 values, no duplicates.\n"
        "\n"
        "Where:\n"
        "  --device SPEC        default | gpu | cpu | accelerator | all | N | NAME\n"
        "                       (default: the first GPU, else the first CPU; N as in\n"
        "                       --list-devices; NAME: a part of the device name)\n"
        "  --platform NAME      only platforms whose name contains NAME\n"
        "  --list-devices       print every platform and device, then exit\n"
        "  -o, --output FILE    the pack (default: packs/<device>.clcpack)\n"
        "\n"
        "How:\n"
        "  -j, --jobs N         parallel builds (default: the number of cores)\n"
        "  -k, --keep-going     write the variants that built even if others failed\n"
        "  --ptxas PATH         NVIDIA: ptxas for cubins (default: PATH, then\n"
        "                       /usr/local/cuda/bin); without one, PTX only\n"
        "  --no-sources         store no kernel sources (no rebuild fallback)\n"
        "  --no-check           launch each variant once without checking its output\n"
        "                       against the CPU reference\n"
        "  --no-warmup          do not launch at all: on PoCL the binary then lacks the\n"
        "                       compiled work-group function (for comparisons)\n"
        "  -q, --quiet          only errors      -v, --verbose  more detail\n"
        "  -h, --help           this text        --version      the version\n"
        "\n"
        "Each subcommand takes --help too. Exit status: 0 success; 1 failure (a variant\n"
        "failed to build or check, a pack is damaged, a file could not be written);\n"
        "2 usage error (bad option, list or value; nothing was done).\n",
        f);
}

void usage_list(FILE *f)
{
    fputs("Usage: clc-pack list PACK [--json]\n"
          "\n"
          "Prints the pack's devices, sources and entries (kernel, defines, work-group,\n"
          "device, kind/arch, raw and stored size, codec, CRC-32, tuning).\n"
          "  --json         one JSON document instead of tables\n"
          "  -h, --help     this text\n"
          "Exit status: 0, 1 when the pack cannot be opened, 2 on a usage error.\n",
          f);
}

void usage_verify(FILE *f)
{
    fputs("Usage: clc-pack verify PACK [--load [--check]] [--device SPEC] [--platform NAME]\n"
          "\n"
          "Decodes every entry and source and checks its CRC-32; names each bad one.\n"
          "  --load           also load every entry through libclcpack on the devices of\n"
          "                   this machine that the pack was built for (or --device), and\n"
          "                   report the path each took: native, cubin, ptx or source\n"
          "  --check          with --load: run each loaded program on random data and\n"
          "                   compare with the CPU reference (needs the manifest)\n"
          "  --kernels DIR    kernel folder for --check (default: kernels)\n"
          "  --device SPEC    load on these devices (as for pack)\n"
          "  --platform NAME  only platforms whose name contains NAME\n"
          "  -q, -v           less, more output\n"
          "Exit status: 0 all good; 1 a bad checksum, an entry that did not load or a\n"
          "failed check; 2 on a usage error.\n",
          f);
}

void usage_extract(FILE *f)
{
    fputs("Usage: clc-pack extract PACK (--entry N | --kernel NAME [-D NAME=VALUE]...\n"
          "                         [--wg WxH]) [--source] [--kind native|ptx|cubin] -o FILE\n"
          "\n"
          "Writes one entry's binary (or, with --source, its program source) to FILE\n"
          "('-' for stdout), after checking its CRC-32.\n"
          "  --entry N        the entry with index N (as in list)\n"
          "  --kernel NAME    the entry of this kernel, narrowed by -D and --wg: each -D\n"
          "                   must match one of its defines; it must be the only match\n"
          "  --kind KIND      only entries of this kind\n"
          "  --source         the source instead of the binary\n"
          "  -o FILE          where to write (written atomically)\n"
          "Exit status: 0, 1 when the pack or entry is bad or FILE cannot be written,\n"
          "2 on a usage error (including no or several matching entries).\n",
          f);
}
