/*
 * build_worker.h — what a build worker process does with its jobs (the
 * process and its options: clc/main/worker_main.c, `clc-pack --worker`,
 * started by worker_pool.c, never by hand). Device slot i is the i-th
 * device it was given; each job is built with build_variant_build on its slot's
 * device, or by an offline toolchain for slots from WORKER_PROTO_OFFLINE_SLOT on,
 * looked up in and stored to the variant cache on disk (lcache.h) and the
 * remote cache when it has them, and
 * answered on WORKER_PROTO_RESULT_FD (worker_proto.h).
 *
 * Building in separate processes is what makes -j work: drivers (PoCL,
 * NVIDIA) serialize clBuildProgram inside one process, and a driver crash
 * on one variant costs that variant, not the whole run.
 *
 * The engine does not enumerate devices nor know which checks a job's
 * `check` names: the process's entry hands it a device lookup and a check
 * hook (check_hook.h), or none.
 */
#ifndef CLC_BUILD_WORKER_H
#define CLC_BUILD_WORKER_H

#include <limits.h>

#include "build_variant.h"
#include "check_hook.h"
#include "nv_forms.h"
#include "offline_targets.h"
#include "rcache.h"
#include "spare_slots.h"

#define BUILD_WORKER_MAX_SLOTS 64
#define BUILD_WORKER_ERR_MAX 2048

/* Finds the device at (platform, device) in enumeration order: 0 with *dev
 * and *ordinal (the number the user selects it by), or -1 with err. */
typedef int (*build_worker_find_device)(void *self, unsigned platform, unsigned device, cl_device_id *dev,
                              unsigned *ordinal, char err[BUILD_WORKER_ERR_MAX]);

typedef struct build_worker {
    /* Set by the entry before build_worker_serve. */
    char ptxas[PATH_MAX];    /* absolute: the worker changes folder before it runs ptxas */
    nv_forms_archs nv_archs;      /* the cubins made from PTX */
    offline_targets_config offline;       /* the offline toolchains' targets */
    const char *pocl_wg;     /* POCL_BINARY_SPECIALIZE_WG for the process, or NULL */
    build_variant_options opts;
    size_t n_slots;
    unsigned plat[BUILD_WORKER_MAX_SLOTS], dev[BUILD_WORKER_MAX_SLOTS];
    rcache_config remote_config; /* url NULL: no remote cache */
    const char *local_dir;   /* the variant cache's folder (lcache.h), or NULL */
    int load_local_hits;     /* a local hit is loaded back on the device too
                                (lcache_env_load_hits; set by build_worker_init) */
    const char *work_root;   /* a private folder is made in it, or NULL */
    const check_hook *hook;  /* the checks a job's `check` names, or NULL */
    build_worker_find_device find_device;
    void *find_self;
    /* A setup failure every job is answered with ("" when none). */
    char setup_error[BUILD_WORKER_ERR_MAX + 64];

    /* The worker's own. */
    char work_dir[PATH_MAX]; /* private: PoCL's cache, the check command's files */
    char temp_dir[PATH_MAX]; /* work_dir when it is a temporary folder, else "" */
    char user_dir[PATH_MAX]; /* the folder the worker started in: clc-pack's */
    check_cmd_place user_place;     /* the user's commands run there, with the
                                values of PoCL's variables it started with */
    spare_slots spare;
    int opened[BUILD_WORKER_MAX_SLOTS];
    build_variant_target targets[BUILD_WORKER_MAX_SLOTS];
    rcache *remote;
    int curl_started;
    clcpack_device_info dev_info[BUILD_WORKER_MAX_SLOTS]; /* each slot's fingerprint, for the key */
    int have_info[BUILD_WORKER_MAX_SLOTS];
    char ptxas_id[256];      /* ptxas's identity, once asked */
    int ptxas_id_asked;
} build_worker;

/* Defaults: no slot, no hook, build_variant_default_options, the spare-slot pipe the
 * parent gave. */
void build_worker_init(build_worker *w);

/* Opens the remote cache of remote_config, before any OpenCL driver starts
 * its threads (libcurl's set-up). A failure only means building without
 * it. */
void build_worker_open_remote(build_worker *w);

/* Makes the worker's folder its current folder and sets PoCL's variables
 * for it: clc-pack's own cache folder ($XDG_CACHE_HOME/clc-pack, else
 * ~/.cache/clc-pack), a private folder in work_root when given, or a
 * temporary folder removed at the end. Before the first OpenCL call (PoCL
 * reads them once). The folder it left and the values those variables had
 * are kept for the user's commands (opts.user_place). 0, or -1 with err. */
int build_worker_enter_work_dir(build_worker *w, char *err, size_t cap);

/* Answers jobs until fd 0 ends (worker_proto_serve), then closes the devices, the
 * remote cache and a temporary folder. Returns the exit status. */
int build_worker_serve(build_worker *w);

#endif /* CLC_BUILD_WORKER_H */
