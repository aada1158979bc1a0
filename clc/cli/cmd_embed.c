/* cmd_embed.c — `clc-pack embed PACK -o FILE [--format asm|c|rc] [--symbol NAME]
 * [--header pack.h] [--loader-codecs LIST]`: a pack linked into the
 * application, opened with clcpack_open_memory, without a file to ship or
 * copy. --format asm writes an assembler file that pulls the pack in with
 * .incbin (the assembler copies the bytes: milliseconds); --format c a C
 * array (any compiler, but a 3 MB pack is an 18 MB C file that takes
 * seconds and hundreds of MB to compile: docs/CLI.md, "embed"); --format
 * rc a Windows resource script (windres, rc.exe: MSVC has no .incbin),
 * opened with clcpack_open_resource. Files are written only when their text
 * changes, so a rebuild recompiles nothing that includes the header. */
#include "commands.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cli_files.h"
#include "cli_opts.h"
#include "cli_report.h"
#include "embed_codecs.h"
#include "input_file.h"
#include "sha256.h"
#include "strbuf.h"
#include "clcpack_write.h"

#define SYMBOL_MAX 128
#define BYTES_PER_LINE 16

enum { FORMAT_ASM, FORMAT_C, FORMAT_RC, FORMAT_UNSET }; /* in the order of --format's choices */

/* Where the assembler form works: GNU as on ELF targets. */
#if defined(__ELF__) && defined(__GNUC__)
#define FORMAT_DEFAULT FORMAT_ASM
#else
#define FORMAT_DEFAULT FORMAT_C
#endif

typedef struct embed_args {
    const char *path, *output, *header, *symbol;
    const char *loader_codecs; /* NULL: any (rc: zlib, make windows' default) */
    unsigned codecs;           /* LOADER_* of loader_codecs */
    int format;
    int verbosity; /* -q */
} embed_args;

/* C11 keywords and the spellings the standard headers reserve in practice:
 * a symbol named after one of them would not compile. */
static const char *const c_keywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
    "typedef", "union", "unsigned", "void", "volatile", "while", "bool", "true", "false",
    "alignas", "alignof", "noreturn", "static_assert", "thread_local", NULL};

/* NULL when s is an identifier an application may define; else why not. */
static const char *symbol_problem(const char *s)
{
    size_t n = strlen(s);
    if (n == 0)
        return "it is empty";
    if (n > SYMBOL_MAX)
        return "it is longer than 128 characters";
    if (!(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return "a C identifier starts with a letter or '_'";
    for (size_t i = 1; i < n; i++) {
        char c = s[i];
        if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9')))
            return "a C identifier holds only letters, digits and '_'";
    }
    if (s[0] == '_' && (s[1] == '_' || (s[1] >= 'A' && s[1] <= 'Z')))
        return "identifiers starting with '__' or '_' and a capital are reserved";
    for (size_t i = 0; c_keywords[i]; i++)
        if (strcmp(s, c_keywords[i]) == 0)
            return "it is a C keyword";
    return NULL;
}

static const cli_opt embed_opts[] = {
    OPT_STR("output", 'o', embed_args, output, "FILE",
            "the output, FILE.S for asm, FILE.c for c, FILE.rc for rc\n"
            "(written atomically; '-' for stdout); without --format,\n"
            "FILE.c gives c, FILE.rc rc and FILE.s or FILE.S asm; a\n"
            "--format they contradict is an error"),
    OPT_CHOICE("format", 0, embed_args, format, "asm,c,rc", "asm|c|rc",
               "asm: an assembler file that pulls in the pack with\n"
               ".incbin by its absolute path (GNU as, ELF; the default\n"
               "there); c: a C array, for any C compiler (slow to\n"
               "compile when large).\n"
               "Both give 'const unsigned char NAME[]' aligned to 64 bytes,\n"
               "'const size_t NAME_size' and 'const unsigned char\n"
               "NAME_sha256[32]' (for clcpack_open_file_pinned).\n"
               "rc: a Windows resource script (windres, rc.exe) of an\n"
               "RCDATA resource NAME, for clcpack_open_resource; its\n"
               "header defines NAME_resource, NAME_size, NAME_sha256."),
    OPT_STR("symbol", 0, embed_args, symbol, "NAME",
            "the array's name, a C identifier (default: embedded_pack)"),
    OPT_STR("header", 0, embed_args, header, "FILE.h", "also write a header declaring all three"),
    OPT_STR("loader-codecs", 0, embed_args, loader_codecs, "LIST",
            "the codecs the library that opens the pack reads\n"
            "(zlib, zstd; default: both, zlib with --format rc); a\n"
            "pack needing another is refused (exit 1)"),
    OPT_QUIET(embed_args, verbosity, "no summary line"),
    OPT_HELP,
};

const cli_optspec embed_optspec = {"embed", embed_opts, sizeof embed_opts / sizeof embed_opts[0], 0, 19};

/* The format a file name asks for: FORMAT_C for .c, FORMAT_ASM for .s and
 * .S, FORMAT_UNSET for any other name (and "-"). */
static int format_of_name(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return FORMAT_UNSET;
    if (strcmp(dot, ".c") == 0)
        return FORMAT_C;
    if (strcmp(dot, ".s") == 0 || strcmp(dot, ".S") == 0)
        return FORMAT_ASM;
    if (strcmp(dot, ".rc") == 0)
        return FORMAT_RC;
    return FORMAT_UNSET;
}

/* --format when given, else what -o's extension says, else the platform's
 * default: `-o pack.c` must not get assembler text that the C compiler
 * then rejects. A --format the extension contradicts is refused (exit 2),
 * since the compiler would pick the language from the name. */
static int settle_format(embed_args *x)
{
    static const char *const names[] = {"asm", "c", "rc"};
    /* With their article: "an assembler file", not "a assembler file". */
    static const char *const kinds[] = {"an assembler", "a C", "a resource script"};
    static const char *const exts[] = {".S", ".c", ".rc"};
    int by_name = format_of_name(x->output);
    if (x->format == FORMAT_UNSET) {
        x->format = by_name == FORMAT_UNSET ? FORMAT_DEFAULT : by_name;
        return 0;
    }
    if (by_name != FORMAT_UNSET && by_name != x->format)
        return cli_usage_error("embed",
                               "embed: --format %s contradicts -o '%s' (%s file); name it "
                               "FILE%s or use --format %s",
                               names[x->format], x->output, kinds[by_name], exts[x->format],
                               names[by_name]);
    return 0;
}

/* The options (cli_opts.h) and what they must hold. 0 to go on, else the
 * exit status. */
static int parse_args(int argc, char **argv, embed_args *x)
{
    memset(x, 0, sizeof *x);
    x->symbol = "embedded_pack";
    x->format = FORMAT_UNSET;
    x->verbosity = cli_verbosity;
    int first;
    int rc = cli_opts_run(&embed_optspec, usage_embed, argc, argv, x, &first);
    if (rc != CLI_OPTS_GO)
        return rc == EXIT_OK_STATUS ? -2 : rc;
    cli_verbosity = x->verbosity;
    if (first != argc - 1)
        return cli_usage_error("embed", "embed: expected one pack file, got %d arguments",
                               argc - first);
    x->path = argv[first];
    if (!x->output || !*x->output)
        return cli_usage_error("embed", "embed: -o FILE is required (FILE.S or FILE.c; '-' for stdout)");
    if (x->header && !*x->header)
        return cli_usage_error("embed", "embed: --header needs a file name");
    int rc_format = settle_format(x);
    if (rc_format != 0)
        return rc_format;
    const char *why = symbol_problem(x->symbol);
    if (why)
        return cli_usage_error("embed", "embed: --symbol '%s' is not a usable C name: %s",
                               x->symbol, why);
    /* rc means a Windows loader, and `make windows` builds one without
     * zstd unless told where a zstd is. */
    char cwhy[128];
    const char *codecs = x->loader_codecs ? x->loader_codecs
                                          : x->format == FORMAT_RC ? "zlib" : "zlib,zstd";
    if (embed_loader_codecs(codecs, &x->codecs, cwhy, sizeof cwhy) != 0)
        return cli_usage_error("embed", "embed: --loader-codecs %s: %s", codecs, cwhy);
    return 0;
}

/* Reads the whole pack (input_file.h: a regular file only); NULL with a
 * message on failure. */
static unsigned char *read_whole(const char *path, size_t *size)
{
    char *data, why[1024];
    if (in_read_all(path, SIZE_MAX / 2, &data, size, why, sizeof why) != 0) {
        cli_error("%s", why);
        return NULL;
    }
    return (unsigned char *)data;
}

/* The declarations, shared by the .c file (so that it compiles warning-free
 * on its own) and the optional header. */
static void put_declarations(strbuf *b, const char *sym)
{
    char line[512];
    snprintf(line, sizeof line,
             "extern const unsigned char %s[];\n"
             "extern const size_t %s_size;\n"
             "/* The pack's SHA-256, for clcpack_open_file_pinned when the same pack\n"
             " * is shipped as a file. */\n"
             "extern const unsigned char %s_sha256[32];\n",
             sym, sym, sym);
    sb_put(b, line, strlen(line));
}

static void put_text(strbuf *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

/* The file's name without its folders, for the generated comment: the text
 * must not depend on where the build ran. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The pack's SHA-256 as 32 "0xNN" bytes, 16 a line, each line between
 * line_start and line_end: the C array's rows, or the assembler's .byte
 * lines (the header declares NAME_sha256 for both formats). */
static void put_digest(strbuf *b, const unsigned char *data, size_t size, const char *line_start,
                       const char *line_end)
{
    static const char hex[] = "0123456789abcdef";
    uint8_t digest[CLCPACK_SHA256_SIZE];
    clcpk_digest_sha256(data, size, digest);
    for (size_t k = 0; k < sizeof digest; k++) {
        char byte[8];
        put_text(b, k % 16 ? ", " : line_start);
        snprintf(byte, sizeof byte, "0x%c%c", hex[digest[k] >> 4], hex[digest[k] & 15]);
        put_text(b, byte);
        if (k % 16 == 15)
            put_text(b, line_end);
    }
}

static void make_source(strbuf *b, const embed_args *x, const unsigned char *data, size_t size)
{
    char line[1024];
    snprintf(line, sizeof line,
             "/* Generated by clc-pack embed from %s (%zu bytes). Do not edit.\n"
             " * Open it with clcpack_open_memory(%s, %s_size, ...). */\n",
             base_name(x->path), size, x->symbol, x->symbol);
    put_text(b, line);
    put_text(b, "#include <stddef.h>\n\n");
    put_declarations(b, x->symbol);
    /* 64-byte alignment puts the pack's stored entries (cubins) at aligned
     * addresses, so the loader hands them to the driver in place instead of
     * copying them; it is not needed for reading (the reader reads bytes
     * explicitly), so older compilers without an alignment spelling still
     * get a working array. */
    put_text(b, "\n#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L\n"
                "#define CLCPACK_EMBED_ALIGN _Alignas(64)\n"
                "#elif defined(__GNUC__)\n"
                "#define CLCPACK_EMBED_ALIGN __attribute__((aligned(64)))\n"
                "#else\n"
                "#define CLCPACK_EMBED_ALIGN\n"
                "#endif\n\n");
    snprintf(line, sizeof line, "CLCPACK_EMBED_ALIGN const unsigned char %s[%zu] = {\n",
             x->symbol, size);
    put_text(b, line);
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < size; i += BYTES_PER_LINE) {
        char row[BYTES_PER_LINE * 6 + 4];
        size_t k = 0;
        row[k++] = ' ';
        for (size_t j = i; j < size && j < i + BYTES_PER_LINE; j++) {
            row[k++] = ' ';
            row[k++] = '0';
            row[k++] = 'x';
            row[k++] = hex[data[j] >> 4];
            row[k++] = hex[data[j] & 15];
            row[k++] = ',';
        }
        row[k++] = '\n';
        sb_put(b, row, k);
    }
    snprintf(line, sizeof line, "};\nconst size_t %s_size = %zu;\n", x->symbol, size);
    put_text(b, line);
    snprintf(line, sizeof line, "const unsigned char %s_sha256[32] = {", x->symbol);
    put_text(b, line);
    put_digest(b, data, size, "\n    ", ",");
    put_text(b, "};\n");
}

/* The pack's absolute path into abs (PATH_MAX), for a file that names it
 * (what: which file, for the message); -1 with a message when it cannot. */
static int absolute_path(const char *path, char *abs, const char *what)
{
    if (!realpath(path, abs)) {
        cli_error("%s: cannot resolve its path: %s", path, strerror(errno));
        return -1;
    }
    if (strpbrk(abs, "\n\r")) {
        cli_error("%s: a path with a line break cannot be named in %s", abs, what);
        return -1;
    }
    return 0;
}

static unsigned long pack_crc(const unsigned char *data, size_t size)
{
    unsigned long crc = crc32(0L, Z_NULL, 0);
    for (size_t off = 0; off < size;) {
        uInt n = size - off > (1u << 30) ? (1u << 30) : (uInt)(size - off);
        crc = crc32(crc, data + off, n);
        off += n;
    }
    return crc;
}

/* The assembler form: the bytes come from the pack file itself (.incbin,
 * by absolute path: the assembler runs wherever the build system wants).
 * The CRC in the comment makes the text change whenever the pack does, so
 * a build system that watches only this file still re-assembles it. */
static int make_asm(strbuf *b, const embed_args *x, const unsigned char *data, size_t size)
{
    char abs[PATH_MAX];
    if (absolute_path(x->path, abs, "an assembler file") != 0)
        return -1;
    unsigned long crc = pack_crc(data, size);
    char line[1024];
    snprintf(line, sizeof line,
             "/* Generated by clc-pack embed from %s (%zu bytes, CRC-32 %08lx). Do not edit.\n"
             " * Open it with clcpack_open_memory(%s, %s_size, ...). */\n",
             base_name(x->path), size, crc, x->symbol, x->symbol);
    put_text(b, line);
    /* 64-byte alignment: see make_source. */
    snprintf(line, sizeof line,
             "\t.section .rodata\n"
             "\t.balign 64\n"
             "\t.globl %s\n"
             "\t.type %s, %%object\n"
             "%s:\n"
             "\t.incbin \"",
             x->symbol, x->symbol, x->symbol);
    put_text(b, line);
    for (const char *c = abs; *c; c++) {
        if (*c == '"' || *c == '\\')
            sb_put(b, "\\", 1);
        sb_put(b, c, 1);
    }
    snprintf(line, sizeof line,
             "\"\n"
             "\t.size %s, %zu\n"
             "\t.balign 8\n"
             "\t.globl %s_size\n"
             "\t.type %s_size, %%object\n"
             "%s_size:\n"
             "#if defined(__LP64__) || defined(_LP64)\n"
             "\t.quad %zu\n"
             "\t.size %s_size, 8\n"
             "#else\n"
             "\t.long %zu\n"
             "\t.size %s_size, 4\n"
             "#endif\n"
             "\t.globl %s_sha256\n"
             "\t.type %s_sha256, %%object\n"
             "%s_sha256:\n",
             x->symbol, size, x->symbol, x->symbol, x->symbol, size, x->symbol, size, x->symbol,
             x->symbol, x->symbol, x->symbol);
    put_text(b, line);
    put_digest(b, data, size, "\t.byte ", "\n");
    snprintf(line, sizeof line,
             "\t.size %s_sha256, 32\n"
             "\t.section .note.GNU-stack,\"\",%%progbits\n",
             x->symbol);
    put_text(b, line);
    return 0;
}

/* The resource script: one RCDATA resource, named like the symbol, whose
 * bytes the resource compiler reads from the pack by its absolute path
 * (as .incbin does; size and CRC in the comment for the same reason). The
 * name is a string resource name: FindResourceW compares it without case. */
static int make_rc(strbuf *b, const embed_args *x, const unsigned char *data, size_t size)
{
    char abs[PATH_MAX];
    if (absolute_path(x->path, abs, "a resource script") != 0)
        return -1;
    if (strchr(abs, '"')) {
        cli_error("%s: a path with '\"' cannot be named in a resource script", abs);
        return -1;
    }
    char line[1024];
    snprintf(line, sizeof line,
             "/* Generated by clc-pack embed from %s (%zu bytes, CRC-32 %08lx). Do not edit.\n"
             " * Open it with clcpack_open_resource(NULL, \"%s\", ...). */\n"
             "%s RCDATA \"",
             base_name(x->path), size, pack_crc(data, size), x->symbol, x->symbol);
    put_text(b, line);
    for (const char *c = abs; *c; c++) {
        if (*c == '\\')
            sb_put(b, "\\", 1);
        sb_put(b, c, 1);
    }
    put_text(b, "\"\n");
    return 0;
}

/* The header of the rc form: nothing to link but the resource, so it
 * defines (static, no symbol clash between modules) what the other forms
 * declare, under the same names, and the resource's name. */
static void make_rc_header(strbuf *b, const embed_args *x, const unsigned char *data, size_t size)
{
    char line[1024];
    snprintf(line, sizeof line,
             "/* The RCDATA resource holding the pack: clcpack_open_resource(NULL,\n"
             " * %s_resource, ...) opens it in place. */\n"
             "static const char %s_resource[] = \"%s\";\n"
             "static const size_t %s_size = %zu;\n"
             "/* The pack's SHA-256, for clcpack_open_file_pinned when the same pack\n"
             " * is shipped as a file. */\n"
             "static const unsigned char %s_sha256[32] = {",
             x->symbol, x->symbol, x->symbol, x->symbol, size, x->symbol);
    put_text(b, line);
    put_digest(b, data, size, "\n    ", ",");
    put_text(b, "};\n");
}

static void make_header(strbuf *b, const embed_args *x, const unsigned char *data, size_t size)
{
    char guard[SYMBOL_MAX + 32];
    snprintf(guard, sizeof guard, "CLCPACK_EMBED_%s_H", x->symbol);
    for (char *c = guard; *c; c++)
        if (*c >= 'a' && *c <= 'z')
            *c = (char)(*c - 'a' + 'A');
    char line[1024];
    snprintf(line, sizeof line,
             "/* Generated by clc-pack embed from %s. Do not edit. */\n"
             "#ifndef %s\n#define %s\n\n#include <stddef.h>\n\n"
             "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
             base_name(x->path), guard, guard);
    put_text(b, line);
    if (x->format == FORMAT_RC)
        make_rc_header(b, x, data, size);
    else
        put_declarations(b, x->symbol);
    snprintf(line, sizeof line, "\n#ifdef __cplusplus\n}\n#endif\n#endif /* %s */\n", guard);
    put_text(b, line);
}

/* 1 when path holds exactly these bytes. */
static int same_content(const char *path, const strbuf *b)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    unsigned char chunk[65536];
    size_t off = 0, n;
    int same = 1;
    while (same && (n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (off + n > b->len || memcmp(chunk, b->data + off, n) != 0)
            same = 0;
        off += n;
    }
    same = same && !ferror(f) && off == b->len;
    fclose(f);
    return same;
}

/* Writes atomically, and not at all when the file already holds the same
 * text (its time stamp then stays, and nothing that depends on it rebuilds). */
static int write_buf(const char *path, const strbuf *b)
{
    if (b->failed) {
        cli_error("%s: out of memory", path);
        return -1;
    }
    if (strcmp(path, "-") != 0 && same_content(path, b))
        return 0;
    return cli_write_output(path, b->data, b->len);
}

int cmd_embed(int argc, char **argv)
{
    embed_args x;
    int prc = parse_args(argc, argv, &x);
    if (prc == -2)
        return EXIT_OK_STATUS;
    if (prc != 0)
        return prc;
    int orc = cli_check_output("embed", "-o", x.output, 1);
    if (orc == 0 && x.header)
        orc = cli_check_output("embed", "--header", x.header, 0);
    if (orc != 0)
        return orc;

    size_t size = 0;
    unsigned char *data = read_whole(x.path, &size);
    if (!data)
        return EXIT_FAILURE_STATUS;
    /* Refuse to embed what the application could not open: the same checks
     * it will run (header, index checksum, every offset). */
    clcpack *p = NULL;
    clcpack_error e;
    if (clcpack_open_memory(data, size, &p, &e) != CLCPACK_OK) {
        cli_error("%s: not a usable pack: %s", x.path, e.message);
        free(data);
        return EXIT_FAILURE_STATUS;
    }
    size_t entries = clcpack_entry_count(p);
    int codecs_ok = embed_check_codecs(p, x.path, x.codecs, !x.loader_codecs);
    clcpack_close(p);
    if (codecs_ok != 0) {
        free(data);
        return EXIT_FAILURE_STATUS;
    }

    int status = EXIT_FAILURE_STATUS;
    strbuf src, hdr;
    sb_init(&src);
    sb_init(&hdr);
    if (x.format == FORMAT_ASM || x.format == FORMAT_RC) {
        if ((x.format == FORMAT_ASM ? make_asm : make_rc)(&src, &x, data, size) != 0)
            goto out;
    } else {
        make_source(&src, &x, data, size);
    }
    if (write_buf(x.output, &src) != 0)
        goto out;
    if (x.header) {
        make_header(&hdr, &x, data, size);
        if (write_buf(x.header, &hdr) != 0)
            goto out;
    }
    const char *where = strcmp(x.output, "-") == 0 ? "stdout" : x.output;
    if (cli_verbosity >= 0)
        fprintf(stderr, "clc-pack: embedded %s (%zu bytes, %zu entr%s) as %s in %s (%s)%s%s\n",
                x.path, size, entries, entries == 1 ? "y" : "ies", x.symbol, where,
                x.format == FORMAT_ASM ? ".incbin" : x.format == FORMAT_RC ? "RCDATA resource" : "C array", x.header ? " and " : "",
                x.header ? x.header : "");
    status = EXIT_OK_STATUS;
out:
    sb_free(&hdr);
    sb_free(&src);
    free(data);
    return status;
}
