/*
 * tune_worker.h — the body of a tuner worker process:
 *
 *   clc-pack --tune-worker build|time SPEC SHA256 PLATFORM DEVICE RUNS TOLERANCE WORKDIR
 *
 * A build worker builds configurations from source (clBuildProgram with the
 * spec's CompilerOptions and one -D per parameter) and sends back each
 * program's binary. The timing worker holds one context and queue with
 * profiling on, and the spec's arguments, made and uploaded once; per
 * configuration it makes the program from the binary, checks the kernel's
 * real limits (its CL_KERNEL_WORK_GROUP_SIZE and local memory), launches it
 * once on fresh inputs (outputs poisoned first) and compares the outputs
 * with the reference, then times RUNS launches by event profiling. The
 * first configuration's outputs become the reference when the spec has no
 * ReferenceArguments; they are kept in WORKDIR, so a worker started after
 * a crash carries on with the same reference.
 *
 * Protocol: tune_proto.h. Returns the process's exit status.
 */
#ifndef CLC_TUNE_WORKER_H
#define CLC_TUNE_WORKER_H

int tune_worker_main(int argc, char **argv);

#endif /* CLC_TUNE_WORKER_H */
