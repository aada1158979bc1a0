/*
 * offline_targets_id.h — what names an offline toolchain's build for the
 * variant cache (docs/CACHE.md, "What it covers"): the tools' identity and
 * the chain's target list, the lines an offline job's key adds to the
 * device key's (rcache_key.h). Nothing here prints.
 */
#ifndef CLC_OFFLINE_TARGETS_ID_H
#define CLC_OFFLINE_TARGETS_ID_H

#include <stddef.h>

#include "offline_targets.h"

/* The identity of chain's tools, '\n'-separated lines: the version text
 * the parent asked for (config version[]), then each tool's resolved path,
 * size and modification time in nanoseconds (ocloc; AMD's clang and every
 * file of its device-library folder; SPIR-V's clang and llvm-spirv), and
 * the Intel -exclude_ir setting. A tool that cannot be looked at gives no
 * identity: 0, or -1 (then the job is not cached). */
int offline_targets_identity(const offline_targets_config *c, offline_targets_chain chain, char *out,
                             size_t cap);

/* The chain's targets as "name@arch,..." in their order. 0, or -1 when
 * they do not fit in cap. */
int offline_targets_list(const offline_targets_config *c, offline_targets_chain chain, char *out,
                         size_t cap);

#endif /* CLC_OFFLINE_TARGETS_ID_H */
