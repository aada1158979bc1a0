/*
 * worker_main.h — the build worker: `clc-pack --worker --kernels DIR
 * --device P:D [--device P:D ...] [--ptxas PATH] [--no-check] [--no-warmup]
 * [--pocl-wg SPEC]` (SPEC: POCL_BINARY_SPECIALIZE_WG for the process,
 * bv_pocl_wg_spec), started by
 * worker_pool.c, never by hand. Device slot i is the i-th --device, given as
 * (platform index, device index) in enumeration order. Reads jobs on fd 0,
 * builds each with bv_build, answers on fd 3 (worker_proto.h).
 *
 * Building in separate processes is what makes -j work: drivers (PoCL,
 * NVIDIA) serialize clBuildProgram inside one process, and a driver crash
 * on one variant costs that variant, not the whole run.
 */
#ifndef CLC_WORKER_MAIN_H
#define CLC_WORKER_MAIN_H

#define WORKER_RESULT_FD 3
/* Job slots from here on are the offline toolchains (offline_targets.h's
 * ot_chain added to it), not devices. */
#define WORKER_OFFLINE_SLOT 0x4000u

/* argv[0] is the program, argv[1] "--worker". Returns the exit status. */
int worker_main(int argc, char **argv);

#endif /* CLC_WORKER_MAIN_H */
