/* ocloc_run.c — running Intel's ocloc (ocloc_run.h). */
#include "ocloc_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounded_fmt.h"
#include "offline_opts.h"

#define OCLOC_BIN_MAX (256u << 20)

int ocloc_find(char out[TOOL_PATH_MAX], char *msg, size_t cap)
{
    /* Debian installs it in /usr/bin, which PATH holds. */
    if (tool_find("ocloc", NULL, out) == 0)
        return 0;
    bfmt(msg, cap, "--intel-gpu: no ocloc on PATH: install the Debian package " OCLOC_PACKAGE
                   " (make deps)");
    return -1;
}

/* Runs `ocloc ARGS...` in a fresh folder; *dir keeps its name for the
 * files it wrote (the caller removes it). */
static int run_in_dir(char *const argv[], char dir[TOOL_PATH_MAX], char *msg, size_t cap)
{
    if (tool_temp_dir("ocloc", dir, msg, cap) != 0)
        return -1;
    char log[TOOL_PATH_MAX];
    bfmt(log, sizeof log, "%s/ocloc.log", dir);
    return tool_run(argv, dir, log, msg, cap);
}

int ocloc_version(const char *ocloc, char *buf, size_t buf_cap, char *msg, size_t cap)
{
    char *argv[] = {(char *)ocloc, (char *)"query", (char *)"OCL_DRIVER_VERSION", NULL};
    char dir[TOOL_PATH_MAX], path[TOOL_PATH_MAX];
    int rc = run_in_dir(argv, dir, msg, cap);
    unsigned char *text = NULL;
    size_t n = 0;
    bfmt(path, sizeof path, "%s/OCL_DRIVER_VERSION", dir);
    if (rc == 0 && tool_read_file(path, 4096, &text, &n) != 0) {
        bfmt(msg, cap, "%s query OCL_DRIVER_VERSION wrote no version", ocloc);
        rc = -1;
    }
    if (rc == 0) {
        size_t k = 0;
        while (k < n && k + 1 < buf_cap && text[k] > ' ' && text[k] < 127)
            buf[k] = (char)text[k], k++;
        buf[k] = '\0';
        if (!k) {
            bfmt(msg, cap, "%s query OCL_DRIVER_VERSION wrote no version", ocloc);
            rc = -1;
        }
    }
    free(text);
    tool_remove_dir(dir);
    return rc;
}

int ocloc_ids(const char *ocloc, const char *item, uint32_t ids[OCLOC_MAX_IDS], size_t *n,
              char *msg, size_t cap)
{
    *n = 0;
    char *argv[] = {(char *)ocloc, (char *)"ids", (char *)item, NULL};
    char dir[TOOL_PATH_MAX], log[TOOL_PATH_MAX];
    int rc = run_in_dir(argv, dir, msg, cap);
    bfmt(log, sizeof log, "%s/ocloc.log", dir);
    unsigned char *text = NULL;
    size_t len = 0;
    if (rc == 0 && tool_read_file(log, 1u << 20, &text, &len) == 0) {
        /* "Matched ids:" then one M.m.r a line. */
        char *t = malloc(len + 1);
        if (t) {
            memcpy(t, text, len);
            t[len] = '\0';
            for (char *line = strtok(t, "\n"); line && *n < OCLOC_MAX_IDS;
                 line = strtok(NULL, "\n")) {
                unsigned a, b, c;
                char end;
                if (sscanf(line, "%u.%u.%u%c", &a, &b, &c, &end) == 3 && a < 1024 && b < 1024 &&
                    c < 4096)
                    ids[(*n)++] = a << 22 | b << 12 | c;
            }
            free(t);
        }
    }
    free(text);
    tool_remove_dir(dir);
    if (rc == 0 && *n == 0) {
        bfmt(msg, cap, "ocloc knows no target '%s'", item);
        rc = -1;
    } else if (rc != 0) {
        char why[TOOL_MSG_MAX];
        bfmt(why, sizeof why, "%s", msg);
        bfmt(msg, cap, "ocloc knows no target '%s' (%s)", item, why);
    }
    return rc;
}

int ocloc_names(const char *ocloc, char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    char *argv[] = {(char *)ocloc, (char *)"compile", (char *)"--help", NULL};
    char dir[TOOL_PATH_MAX], log[TOOL_PATH_MAX], msg[TOOL_MSG_MAX];
    run_in_dir(argv, dir, msg, sizeof msg); /* --help may exit non-zero */
    bfmt(log, sizeof log, "%s/ocloc.log", dir);
    char text[8192];
    tool_read_messages(log, text, sizeof text);
    tool_remove_dir(dir);
    /* "<device_type> can be: bdw, skl, ..., xe-hpg, version  or hexadecimal" */
    char *p = strstr(text, "can be:");
    if (!p)
        return -1;
    p += 7;
    char *end = strstr(p, " or hexadecimal");
    if (end)
        *end = '\0';
    for (char *tok = strtok(p, ", "); tok; tok = strtok(NULL, ", ")) {
        if (strcmp(tok, "version") == 0)
            continue;
        char **grown = realloc(*names, (*n + 1) * sizeof *grown);
        if (!grown)
            return -1;
        *names = grown;
        if (!((*names)[*n] = strdup(tok)))
            return -1;
        (*n)++;
    }
    return *n ? 0 : -1;
}

int ocloc_compile(const char *ocloc, const char *source, size_t size, const char *options,
                  const char *device, int exclude_ir, unsigned char **bin, size_t *bin_size,
                  char *msg, size_t cap)
{
    *bin = NULL;
    *bin_size = 0;
    offline_opts_args check;
    if (offline_opts_split(options, &check, msg, cap) != 0)
        return -1;
    offline_opts_free(&check);
    char dir[TOOL_PATH_MAX], src[TOOL_PATH_MAX], out[TOOL_PATH_MAX], log[TOOL_PATH_MAX];
    if (tool_temp_dir("ocloc", dir, msg, cap) != 0)
        return -1;
    bfmt(src, sizeof src, "%s/program.cl", dir);
    bfmt(out, sizeof out, "%s/program", dir);
    bfmt(log, sizeof log, "%s/ocloc.log", dir);
    int rc = -1;
    if (tool_write_file(src, source, size) != 0) {
        bfmt(msg, cap, "cannot write %s", src);
    } else {
        char *argv[] = {(char *)ocloc,     (char *)"compile", (char *)"-file",
                        src,               (char *)"-device", (char *)device,
                        (char *)"-out_dir", dir,              (char *)"-output",
                        (char *)"program", (char *)"-output_no_suffix",
                        (char *)"-options", (char *)(options ? options : ""),
                        exclude_ir ? (char *)"-exclude_ir" : NULL, NULL};
        if (tool_run(argv, dir, log, msg, cap) == 0) {
            if (tool_read_file(out, OCLOC_BIN_MAX, bin, bin_size) == 0 && *bin_size)
                rc = 0;
            else
                bfmt(msg, cap, "%s -device %s wrote no binary", ocloc, device);
        }
    }
    tool_remove_dir(dir);
    return rc;
}
