/*
 * worker_main.h — the build worker process: `clc-pack --worker [--kernels
 * DIR] --device P:D [--device P:D ...] [--ptxas PATH --nv-arch LIST]
 * [--no-check] [--no-warmup] [--pocl-wg SPEC] [--pocl-small-grids] [--check-cmd CMD
 * --check-timeout S] [--tune WxH --tune-runs N --tune-widths LIST]
 * [--ot-intel T --ot-amd T --ot-spirv T] [--remote-cache URL
 * --remote-cache-timeout S [--remote-cache-readonly]] [--work-root DIR]`,
 * started by worker_pool.c (cmd_pack.c writes the command line), never by
 * hand. P:D are a device's platform and device indices in enumeration
 * order; --kernels names the kernels folder whose manifest the seeds'
 * checks read (none: jobs run no seed check).
 *
 * The composition of a worker: the devices (clc/run/device_select.h), the
 * manifest and the seeds' check hook, handed to the build worker
 * (clc/worker/build_worker.h), which does the work.
 */
#ifndef CLC_WORKER_MAIN_H
#define CLC_WORKER_MAIN_H

/* argv[1] is "--worker". Returns the exit status. */
int worker_main(int argc, char **argv);

/* argv[1] is "--pocl-wg-fill": `clc-pack --pocl-wg-fill --device P:D --spec
 * SPEC --dir DIR`, the helper a build worker runs on PoCL before it takes a
 * variant's binary (clc/engine/pocl_wg.h): POCL_BINARY_SPECIALIZE_WG=SPEC,
 * then the program of DIR's files built on device P:D. Exit status 0, or 1
 * with a message on stderr; 2 on a bad command line. */
int worker_main_pocl_fill(int argc, char **argv);

/* argv[1] is "--load-worker": the load worker's options (load_worker.h
 * gives its command line), its device, the manifest and the seeds' hook for
 * --check, then clc/worker/load_worker.c's loop. Returns the exit status. */
int worker_main_load(int argc, char **argv);

#endif /* CLC_WORKER_MAIN_H */
