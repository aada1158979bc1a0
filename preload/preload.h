/*
 * preload.h — what the parts of libclcpack-preload.so share (docs/RECORD.md).
 *
 *   driver.c   the next implementation of each OpenCL function (DRV)
 *   layer.c    the OpenCL layer entry points (OPENCL_LAYERS)
 *   table.c    the table of programs the application made from source: the
 *              only lock, never held across a call out of table.c
 *   record.c   writing captures (a build, a link) and process files
 *   serve.c    building and linking from the pack
 *   miss_reason.c  why the pack has no entry for a build or link
 *   api.c      the interposed calls, exported and as the layer's table
 *
 * The rule that keeps an application from hanging in the interposer: no
 * lock is held while the driver, another interposer or the application
 * (a callback) runs. table.c holds the one mutex and calls nothing outside
 * itself while holding it; everything else runs unlocked, so a driver that
 * calls back into a wrapped function (a destructor or release callback
 * inside clReleaseProgram, a build callback, a tracer interposed beside
 * this one) finds the table free.
 */
#ifndef CLCPACK_PRELOAD_H
#define CLCPACK_PRELOAD_H

#include <stddef.h>
#include <stdint.h>

#include <CL/cl_icd.h>

#include "capture_format.h"
#include "clcpack.h"
#include "rec_key.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_DEVICES 64
#define WHY_MAX 1536
#define CAPTURE_NAME_MAX 64

/* ---------------------------------------------------------------------- */
/* Configuration (read once, at the first call)                            */

typedef struct interposer_config {
    int log;                /* CLCPACK_LOG */
    const char *record_dir; /* CLCPACK_RECORD */
    const char *pack_path;  /* CLCPACK_PACK (unset while recording) */
    const char *status_dir; /* CLCPACK_STATUS: where <pid>.proc goes */
} interposer_config;

extern interposer_config interposer_cfg;

/* Reads the environment and finds the real functions; idempotent, thread-safe. */
void interposer_init(void);
/* interposer_init, then 1 when recording or serving. */
int interposer_active(void);
/* One more OpenCL call reached the interposer (for the process file), and
 * how many did. */
void interposer_count_call(void);
unsigned long interposer_calls(void);
/* One line on stderr when CLCPACK_LOG is set ("clcpack: ..."). */
void interposer_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Sets the reason a program passes through (cut to cap, never overflows). */
void interposer_why(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
double interposer_now_ms(void);

/* ---------------------------------------------------------------------- */
/* The next implementation of each function (driver.c)                     */

/* The functions found with dlsym(RTLD_NEXT) (NULL when no loader is in the
 * global scope): what an exported wrapper forwards to. */
extern cl_icd_dispatch interposer_real;
/* 1 once an ICD loader has loaded this library as a layer. */
int interposer_layer_active(void);
/* Records the layer's target table (the loader's, or the next layer's):
 * from then on DRV calls go there. Copies the first n entries. */
void interposer_layer_set_target(const cl_icd_dispatch *target, size_t n);
/* The table DRV takes functions from: the layer's target once there is
 * one, else interposer_real. */
const cl_icd_dispatch *interposer_next(void);

/* Sets the wrapped entries among the first n of a layer's table (api.c). */
void interposer_fill_layer_table(cl_icd_dispatch *t, size_t n);

/* The ICD dispatch table every OpenCL object starts with. */
#define INTERPOSER_DISPATCH(obj) (*(cl_icd_dispatch *const *)(const void *)(obj))
/* The next implementation of function n for object obj: below the layer,
 * else what dlsym found, else through obj's own dispatch table (as a loader
 * does). obj must not be NULL when neither is there. */
#define DRV(n, obj) (interposer_next()->n ? interposer_next()->n : INTERPOSER_DISPATCH(obj)->n)
/* Whether an exported wrapper of n leaves the work to the layer: a layer
 * is active and the call goes on through the loader (which calls the
 * layer). Without a loader in the global scope the exported wrapper
 * calls the driver directly, so it does the work itself. */
#define PL_LAYER_OWNS(n) (interposer_real.n != NULL && interposer_layer_active())

/* ---------------------------------------------------------------------- */
/* Programs (table.c)                                                      */

typedef struct prog {
    /* Set when added, then constant. */
    cl_program app;            /* the application's handle */
    char *source;              /* exact, as clCreateProgramWithSource was given it */
    size_t size;
    /* Changed under the table's lock only. */
    cl_program served;         /* made from the pack's binary, or NULL */
    cl_uint app_refs;          /* the application's references (create, retain) */
    unsigned pins;             /* threads using this entry outside the lock */
    int unlinked;              /* no longer in the table: freed at the last unpin */
    /* Separate compilation: set by a successful (or deferred) clCompileProgram. */
    int compiled;
    char *compile_norm;        /* its options, normalized */
    char compile_key[CAPTURE_KEY_MAX];
    size_t n_headers;
    char **header_names;
    char **header_srcs;
    size_t *header_sizes;
    /* Replay: a compile the pack makes unnecessary, not run yet; run by
     * interposer_materialize when anything needs the compiled program. */
    int deferred;
    char *deferred_options;    /* exact */
    cl_uint n_deferred_devs;
    cl_device_id *deferred_devs;
    cl_program *deferred_headers; /* retained */
    struct prog *next;
} prog;

/* Adds r (app_refs 1) for the handle r->app, dropping an entry left over
 * for the same handle; takes r. */
void program_table_add(prog *r);
/* Drops the entry of a handle the driver just returned for a program this
 * table does not follow (the old one was destroyed without our seeing). */
void program_table_forget(cl_program p);
/* The entry of p, pinned (its fields stay valid), or NULL. */
prog *program_table_pin(cl_program p);
/* Ends a pin; frees an unlinked entry at its last pin. NULL is a no-op. */
void program_table_unpin(prog *r);
/* The program that answers for p: its served program, or p. */
cl_program program_table_answering(cl_program p);
/* The application's handle for a served program q, or q. */
cl_program program_table_app_handle(cl_program q);
/* Whether any program is served, or has a deferred compile (hints, read
 * without the lock). */
int program_table_any_served(void);
int program_table_any_deferred(void);
/* Marks r deferred (1) or not (0), keeping the count program_table_any_deferred reads;
 * under the lock (from a program_table_update function). */
void program_table_set_deferred_locked(prog *r, int deferred);
/* Counts an application reference to p (clRetainProgram). */
void program_table_retain(cl_program p);
/* One application reference to p goes: when it was the last, the entry
 * leaves the table and comes back pinned (the caller unpins it after the
 * driver's release); else NULL. */
prog *program_table_release(cl_program p);
/* Sets r's served program: 0, or -1 when it already had one. */
int program_table_set_served(prog *r, cl_program q);
/* Under the lock: fn(r, arg). fn must not call anything outside table.c's
 * caller (no driver, no callback): it only changes r's fields. */
void program_table_update(prog *r, void (*fn)(prog *r, void *arg), void *arg);
void prog_free(prog *r);
/* Frees r's separate-compilation fields (under the lock or unshared). */
void prog_free_compiled(prog *r);

/* ---------------------------------------------------------------------- */
/* Record (record.c)                                                       */

/* Writes one capture file per device of devs[0..n) for program p, just
 * built (or linked) from source (a link: its description) with options
 * under key, with the binary the driver gives now (docs/RECORD.md, "What
 * is recorded"); a build's source is stored as rk_canonical_size leaves it.
 * The driver is called, no lock is held. */
void record_capture(cl_program p, capture_kind kind, cl_uint n, const cl_device_id *devs,
                 const char *source, size_t size, const char *options, const char *key);
/* Leaves "<pid>-<n>.binary" in the capture folder. */
void record_note_binary(void);

/* ---------------------------------------------------------------------- */
/* Replay (serve.c)                                                        */

/* Makes and builds the served program for app's build: 0 with *out, or -1
 * with why. */
int serve_build(cl_program app, cl_uint nd, const cl_device_id *list, const char *options,
                const char *src, size_t size, const char *key, cl_program *out, char *why,
                size_t cap);
/* Whether the pack holds a link with an input of this compile key, for a
 * device like each of devs[0..n). */
int serve_knows_compile(const char *compile_key, cl_uint n, const cl_device_id *devs);
/* The linked program for a link of this description and key, from the
 * pack's binary: the program, or NULL with why. */
cl_program serve_link(cl_context ctx, cl_uint nd, const cl_device_id *list, const char *options,
                      const unsigned char *desc, size_t desc_size, const char *key, char *why,
                      size_t cap);

/* ---------------------------------------------------------------------- */
/* Why a build or link is not served (miss_reason.c)                       */

/* The reason, into why[0..cap), that pack (named pack_name) holds no entry
 * of this build's key: the recorded build nearest to it (source text[0..size)
 * as rk_canonical_size leaves it, normalized options norm) and what differs
 * from it, e.g. "PACK has no entry for this build; the nearest is entry 3
 * (kernels a, b): the source differs from the recorded one in line 12".
 * Reads every recorded source of the pack; calls no driver. */
void miss_reason_build(const clcpack *pack, const char *pack_name, const char *text, size_t size,
                       const char *norm, char *why, size_t cap);
/* The same for a link of description desc[0..size) and normalized link
 * options norm: the recorded link sharing most inputs, and the first input
 * that differs, or the options. */
void miss_reason_link(const clcpack *pack, const char *pack_name, const unsigned char *desc,
                      size_t size, const char *norm, char *why, size_t cap);

/* The devices of program p (list when given): 0, or -1. */
int interposer_program_devices(cl_program p, cl_uint nd, const cl_device_id *list, cl_device_id *out,
                       cl_uint *n);

#endif /* CLCPACK_PRELOAD_H */
