/*
 * build_job.h — one variant as the build engine sees it: a program text, its
 * exact build options, its defines and work-group size, the kernels it must
 * hold, and how it is checked. Whatever produced it (a manifest, the direct
 * command line, a recording) is gone by then: the engine builds any OpenCL
 * program the same way (docs/ARCHITECTURE.md).
 *
 * Jobs travel to worker processes (worker_proto.h); everything a worker
 * needs is in the job, so a worker reads no source file and no manifest
 * (except the seeds' module, for the reference checks it runs).
 */
#ifndef CLC_BUILD_JOB_H
#define CLC_BUILD_JOB_H

#include <stddef.h>
#include <stdint.h>

typedef struct build_job_define {
    char *name;    /* "TS", or a function-like head "MOD2(x,y)" */
    char *value;   /* "" for a define without a value (-DNAME) */
} build_job_define;

typedef struct build_job {
    char *entry_name;     /* the pack entry's name: the program's name for a
                             program entry, else the one kernel's name */
    int program_entry;    /* 1: the entry stores the kernel names the binary
                             holds, and a key may name any of them */
    char *family;         /* the entry's family text ("" for none) */
    uint32_t entry_flags; /* CLCPACK_ENTRY_* */
    char *source_name;    /* the source table's name for the text */
    char *source;         /* the whole program text, NUL-terminated */
    size_t source_size;   /* without the NUL */
    char *options;        /* exact build options */
    size_t n_defines;
    build_job_define *defines;   /* sorted by name (strcmp), names distinct */
    uint32_t wg[3];       /* the variant's local size; {0,0,0}: none */
    size_t n_kernels;
    char **kernels;       /* kernels the built program must hold */
    char *check;          /* "" or a seed kernel whose reference checks it */
    /* The user's own commands run on the built binary (check_cmd.h): its
     * test and its timing, "" or NULL for none. They are the job's, as a
     * program of the direct mode or a manifest program block may have
     * its own. */
    char *check_cmd;
    char *tune_cmd;
} build_job;

/* What a pack build builds: the jobs, in the order the pack's summary and
 * messages list them, and notes for the user (e.g. values a kernel
 * skipped), one "note: ...\n" line each. */
typedef struct build_job_list {
    size_t n, cap;
    build_job *jobs;      /* malloc'd */
    char *notes;          /* malloc'd, or NULL */
    /* Every file the jobs were made from (the manifest, each source and
     * every file it includes), once each, in the order first read: what a
     * dependency file lists (clc-pack --depfile). */
    char **read;
    size_t n_read, cap_read;
    int read_failed;      /* out of memory adding one: the list is short */
} build_job_list;

/* Whether the job has a check command, a tune command. */
int build_job_has_check_cmd(const build_job *j);
int build_job_has_tune_cmd(const build_job *j);

/* Appends a zeroed job; NULL when out of memory. */
build_job *build_job_list_add(build_job_list *l);
void build_job_list_free(build_job_list *l);

/* Adds path to l->read unless it is there already. */
void build_job_list_add_read(build_job_list *l, const char *path);

/* Frees everything the job owns and zeroes it. */
void build_job_free(build_job *j);

/* Sets j->defines from n (name, value) pairs (copied, sorted by name).
 * 0, or -1 when out of memory or a name comes twice. */
int build_job_set_defines(build_job *j, const char *const *names, const char *const *values, size_t n);

/* The value of a define, or NULL. */
const char *build_job_define_value(const build_job *j, const char *name);

/* "sgemm TS=32 WPT=8 wg=32x4": the entry name, the defines and the
 * work-group, for messages. */
void build_job_label(const build_job *j, char *buf, size_t cap);

/* "TS=32,WPT=8,USE_X": the defines as --check-cmd's {defines} spells them. */
void build_job_defines_text(const build_job *j, char *buf, size_t cap);

/* "16x16", "64", "1x16x2", or "" for none. */
void build_job_wg_text(const uint32_t wg[3], char *buf, size_t cap);

#endif /* CLC_BUILD_JOB_H */
