/* rec_key.c — the record/replay content key (rec_key.h). */
#include "rec_key.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clcpack_write.h" /* CLCPACK_SHA256_SIZE */
#include "sha256.h"        /* clcpk_digest_sha256 (loader/common/) */
#include "strbuf.h"

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

int rk_next_word(const char *s, size_t *pos, size_t *start, size_t *end)
{
    size_t i = *pos;
    while (s[i] && is_space(s[i]))
        i++;
    if (!s[i])
        return 0;
    *start = i;
    int quoted = 0;
    while (s[i] && (quoted || !is_space(s[i]))) {
        if (s[i] == '"')
            quoted = !quoted;
        i++;
    }
    *end = i;
    *pos = i;
    return 1;
}

/* A word without its double quotes, malloc'd. */
static char *unquote(const char *s, size_t n)
{
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '"')
            out[k++] = s[i];
    out[k] = '\0';
    return out;
}

/* The declaration PyOpenCL's cache.py appends on a cache miss ("defeat
 * implementation caches"), the same text in 2022.3 and 2026.1: an unused
 * program-scope constant with a random name. The binary built from another
 * name holds the same kernels; only that constant's name differs. */
#define PYOPENCL_HEAD "\n\n__constant int "
#define PYOPENCL_NAME "pyopencl_defeat_cache_"
#define PYOPENCL_HEX 32
#define PYOPENCL_TAIL " = 0;"

static int is_lower_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* Whether the n bytes at name occur anywhere in text[0..size). */
static int occurs(const char *text, size_t size, const char *name, size_t n)
{
    for (size_t i = 0; i + n <= size; i++)
        if (text[i] == name[0] && memcmp(text + i, name, n) == 0)
            return 1;
    return 0;
}

size_t rk_canonical_size(const char *src, size_t size)
{
    const size_t head = sizeof PYOPENCL_HEAD - 1, name = sizeof PYOPENCL_NAME - 1,
                 tail = sizeof PYOPENCL_TAIL - 1, whole = head + name + PYOPENCL_HEX + tail;
    if (!src || size < whole)
        return size;
    const char *d = src + size - whole;
    if (memcmp(d, PYOPENCL_HEAD, head) != 0 || memcmp(d + head, PYOPENCL_NAME, name) != 0 ||
        memcmp(d + whole - tail, PYOPENCL_TAIL, tail) != 0)
        return size;
    for (size_t i = 0; i < PYOPENCL_HEX; i++)
        if (!is_lower_hex(d[head + name + i]))
            return size;
    /* A name the program itself uses (a macro, a reference) could make the
     * line matter: then it is the program's text like any other. */
    if (occurs(src, size - whole, d + head, name + PYOPENCL_HEX))
        return size;
    return size - whole;
}

void rk_free_dirs(char **dirs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(dirs[i]);
    free(dirs);
}

int rk_normalize(const char *options, char **norm, char ***dirs, size_t *n_dirs)
{
    const char *s = options ? options : "";
    size_t len = strlen(s);
    char *out = malloc(len + 1);
    char **d = calloc(len / 2 + 1, sizeof *d);
    size_t nd = 0, k = 0, pos = 0, a, b;
    if (!out || !d)
        goto oom;
    while (rk_next_word(s, &pos, &a, &b)) {
        const char *dir = NULL;
        size_t dir_len = 0;
        if (b - a == 2 && strncmp(s + a, "-I", 2) == 0) {
            size_t a2, b2;
            if (rk_next_word(s, &pos, &a2, &b2)) {
                dir = s + a2;
                dir_len = b2 - a2;
            } else {
                dir = "";
            }
        } else if (b - a > 2 && strncmp(s + a, "-I", 2) == 0) {
            dir = s + a + 2;
            dir_len = b - a - 2;
        }
        if (dir) {
            if (!(d[nd] = unquote(dir, dir_len)))
                goto oom;
            nd++;
            continue;
        }
        if (k)
            out[k++] = ' ';
        memcpy(out + k, s + a, b - a);
        k += b - a;
    }
    out[k] = '\0';
    *norm = out;
    *dirs = d;
    *n_dirs = nd;
    return 0;
oom:
    free(out);
    if (d)
        rk_free_dirs(d, nd);
    return -1;
}

typedef struct header {
    char *name;           /* as written in the #include line */
    char *text;
    size_t size;
} header;

typedef struct scan {
    char **dirs;
    size_t n_dirs;
    header h[RK_MAX_HEADERS];
    size_t n;
    int oom;
} scan;

static char *read_small_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
        (uint64_t)st.st_size > RK_MAX_HEADER_BYTES)
        goto out;
    buf = malloc((size_t)st.st_size + 1);
    if (!buf)
        goto out;
    *size = fread(buf, 1, (size_t)st.st_size, f);
    buf[*size] = '\0';
out:
    fclose(f);
    return buf;
}

static void add_includes(scan *s, const char *text, size_t size, int depth);

static void find_header(scan *s, const char *name, int depth)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->h[i].name, name) == 0)
            return;
    if (s->n == RK_MAX_HEADERS || depth > 16)
        return;
    for (size_t i = 0; i < s->n_dirs; i++) {
        size_t n = strlen(s->dirs[i]) + strlen(name) + 2;
        char *path = malloc(n);
        if (!path) {
            s->oom = 1;
            return;
        }
        snprintf(path, n, "%s/%s", s->dirs[i], name);
        size_t size = 0;
        char *text = read_small_file(path, &size);
        free(path);
        if (!text)
            continue;
        char *copy = strdup(name);
        if (!copy) {
            free(text);
            s->oom = 1;
            return;
        }
        header *h = &s->h[s->n++];
        h->name = copy;
        h->text = text;
        h->size = size;
        add_includes(s, text, size, depth + 1);
        return;
    }
}

/* Each line "#include <name>" or "#include "name"" (spaces allowed around
 * the '#'); names of up to 1023 bytes. */
static void add_includes(scan *s, const char *text, size_t size, int depth)
{
    size_t i = 0;
    while (i < size && !s->oom) {
        size_t j = i;
        while (j < size && (text[j] == ' ' || text[j] == '\t'))
            j++;
        if (j < size && text[j] == '#') {
            j++;
            while (j < size && (text[j] == ' ' || text[j] == '\t'))
                j++;
            if (size - j > 7 && memcmp(text + j, "include", 7) == 0) {
                j += 7;
                while (j < size && (text[j] == ' ' || text[j] == '\t'))
                    j++;
                if (j < size && (text[j] == '"' || text[j] == '<')) {
                    char close = text[j] == '"' ? '"' : '>';
                    size_t a = ++j;
                    while (j < size && text[j] != close && text[j] != '\n')
                        j++;
                    if (j < size && text[j] == close && j - a > 0 && j - a < 1024) {
                        char name[1024];
                        memcpy(name, text + a, j - a);
                        name[j - a] = '\0';
                        find_header(s, name, depth);
                    }
                }
            }
        }
        while (i < size && text[i] != '\n')
            i++;
        i++;
    }
}

/* The bytes a key hashes, gathered first: the library's SHA-256
 * (clcpk_digest_sha256) takes them in one piece. */
typedef strbuf key_bytes;

static void put(key_bytes *k, const void *p, size_t n) { sb_put(k, p, n); }

static void put_count(key_bytes *k, uint64_t n)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(n >> (8 * i));
    put(k, b, sizeof b);
}

/* A length-prefixed string of bytes. */
static void put_blob(key_bytes *k, const void *p, size_t n)
{
    put_count(k, (uint64_t)n);
    put(k, p, n);
}

/* "<prefix><64 hex digits>" of the SHA-256 of k's bytes, which it frees.
 * 0, or -1 when gathering them ran out of memory. */
static int hex_key(key_bytes *k, const char *prefix, char out[RK_KEY_MAX])
{
    int rc = k->failed ? -1 : 0;
    if (rc == 0) {
        uint8_t d[CLCPACK_SHA256_SIZE];
        clcpk_digest_sha256(k->data, k->len, d);
        size_t n = strlen(prefix);
        memcpy(out, prefix, n);
        for (size_t i = 0; i < sizeof d; i++)
            snprintf(out + n + 2 * i, 3, "%02x", d[i]);
    }
    sb_free(k);
    memset(k, 0, sizeof *k);
    return rc;
}

int rk_key(const char *source, size_t size, const char *options, char out[RK_KEY_MAX])
{
    size = rk_canonical_size(source, size);
    char *norm = NULL;
    scan *s = calloc(1, sizeof *s);
    if (!s || rk_normalize(options, &norm, &s->dirs, &s->n_dirs) != 0) {
        free(s);
        return -1;
    }
    if (s->n_dirs)
        add_includes(s, source, size, 0);
    int rc = s->oom ? -1 : 0;
    if (rc == 0) {
        key_bytes k;
        sb_init(&k);
        static const char tag[] = "clcpack record key 1";
        put(&k, tag, sizeof tag);
        put_blob(&k, source, size);
        put_blob(&k, norm, strlen(norm));
        for (size_t i = 0; i < s->n; i++) {
            put_blob(&k, s->h[i].name, strlen(s->h[i].name));
            put_blob(&k, s->h[i].text, s->h[i].size);
        }
        rc = hex_key(&k, RK_PREFIX, out);
    }
    for (size_t i = 0; i < s->n; i++) {
        free(s->h[i].name);
        free(s->h[i].text);
    }
    rk_free_dirs(s->dirs, s->n_dirs);
    free(s);
    free(norm);
    return rc;
}

int rk_compile_key(const char *build_key, size_t n_headers, char *const *names,
                   char *const *sources, const size_t *sizes, char out[RK_KEY_MAX])
{
    key_bytes k;
    sb_init(&k);
    static const char tag[] = "clcpack record compile key 1";
    put(&k, tag, sizeof tag);
    put_blob(&k, build_key, strlen(build_key));
    put_count(&k, n_headers);
    for (size_t i = 0; i < n_headers; i++) {
        put_blob(&k, names[i], strlen(names[i]));
        put_blob(&k, sources[i], sizes[i]);
    }
    return hex_key(&k, RK_COMPILE_PREFIX, out);
}

int rk_link_key(const char *norm_options, const void *desc, size_t size, char out[RK_KEY_MAX])
{
    key_bytes k;
    sb_init(&k);
    static const char tag[] = "clcpack record link key 1";
    put(&k, tag, sizeof tag);
    put_blob(&k, norm_options, strlen(norm_options));
    put_blob(&k, desc, size);
    return hex_key(&k, RK_LINK_PREFIX, out);
}
