/*
 * ptxas_run.h — finding NVIDIA's ptxas and running it on one PTX text to get
 * a cubin, without a shell: the PTX goes to a private mkdtemp folder, ptxas
 * runs through fork/execv with an argv array, its output is read back and
 * the folder removed. Nothing here prints.
 */
#ifndef CLC_PTXAS_RUN_H
#define CLC_PTXAS_RUN_H

#include <stddef.h>

#define PTXAS_PATH_MAX 4096
#define PTXAS_ARGV_MAX 8

/* Where ptxas is: explicit (the --ptxas PATH; must be an executable file),
 * else the first ptxas on $PATH, else /usr/local/cuda/bin/ptxas. Returns 0
 * with the path in out; -1 when none is found (out then says what was
 * looked at, or why the explicit path is unusable). */
int ptxas_find(const char *explicit_path, char out[PTXAS_PATH_MAX]);

/* Fills argv (PTXAS_ARGV_MAX slots, NULL-terminated) with
 * { ptxas, "-arch=<arch_name>", "-o", out_path, in_path, NULL }.
 * arch_buf (at least 32 bytes) holds the -arch= text argv points at.
 * Returns the argument count, or -1 when arch_name is not sm_<alnum>. */
int ptxas_build_argv(const char *ptxas, const char *arch_name, const char *out_path,
                     const char *in_path, char *arch_buf, size_t arch_cap,
                     char *argv[PTXAS_ARGV_MAX]);

/* Runs ptxas on the PTX text (no trailing NUL needed) for arch_name
 * ("sm_90"). On success returns 0 and *cubin (malloc'd, caller frees) holds
 * an ELF file of *cubin_size bytes. On failure returns -1 and msg says why,
 * with ptxas's own output (cut to fit). Thread-compatible; forks. */
int ptxas_compile(const char *ptxas, const void *ptx, size_t ptx_size, const char *arch_name,
                  unsigned char **cubin, size_t *cubin_size, char *msg, size_t msg_cap);

/* Whether ptxas accepts the PTX text for arch_name: 0, or -1 with msg as
 * for ptxas_compile. It assembles without optimizing (-O0: 0.59 s against
 * 1.06 s for a 200 KB PTX of 1,922 dependent multiply-adds, measured on the
 * development machine) and drops the cubin: which .version and
 * .target a text may carry is settled by parsing, not by the optimizer. */
int ptxas_accepts(const char *ptxas, const void *ptx, size_t ptx_size, const char *arch_name,
                  char *msg, size_t msg_cap);

/* ptxas's identity, the last line of `ptxas --version` ("Cuda compilation
 * tools, release 12.8, V12.8.93"), into out: the remote cache's key names
 * the assembler that made a cubin (rcache_key.h). 0, or -1. Forks. */
int ptxas_version(const char *ptxas, char *out, size_t cap);

#endif /* CLC_PTXAS_RUN_H */
