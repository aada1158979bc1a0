/*
 * bin_check.h — what an offline compiler wrote, checked before it is
 * stored (docs/vendors/): the header says the binary is for the target it
 * was asked for, and the kernels it holds are read from it (no driver
 * builds these programs, so CL_PROGRAM_KERNEL_NAMES is not there to ask).
 *
 *  - Intel (ocloc 22.43): NEO's OpenCL ELF, ELF64 of type 0xff04, whose
 *    "Intel(R) OpenCL Device Binary" section starts with the program
 *    header "CTNI": the GPU core family of the target's IP version, 64-bit
 *    pointers, at least one kernel, and the stepping equal to the IP
 *    version's revision; kernel names from the kernel headers of that
 *    patchtokens program, and, when the binary carries its "SPIRV Object"
 *    section (ocloc without -exclude_ir), the same names there. A
 *    zebin (EM_INTELGT, 205, what later ocloc versions write) passes with
 *    its machine checked.
 *  - AMD: an ELF64 code object for EM_AMDGPU (224), OS ABI AMDGPU HSA,
 *    e_flags naming the target's gfx (EF_AMDGPU_MACH) and its xnack and
 *    sramecc settings; kernel names from the NAME.kd symbols.
 *  - SPIR-V: the magic 0x07230203, the version word asked for, the
 *    Physical64 addressing model; kernel names from OpEntryPoint Kernel.
 *
 * Every read is bounded by the buffer's length. Nothing here prints.
 */
#ifndef CLC_BIN_CHECK_H
#define CLC_BIN_CHECK_H

#include <stddef.h>
#include <stdint.h>

#define BIN_CHECK_MSG_MAX 256

typedef struct bin_check_names {
    size_t n;
    char **names;   /* malloc'd, sorted, distinct */
} bin_check_names;

void bin_check_names_free(bin_check_names *k);

/* Each returns 0 and fills *k, or -1 with msg saying what does not fit. */
int bin_check_check_intel(const unsigned char *bin, size_t size, uint32_t ip_version, bin_check_names *k,
                   char msg[BIN_CHECK_MSG_MAX]);
int bin_check_check_amdgcn(const unsigned char *bin, size_t size, uint32_t arch, bin_check_names *k,
                    char msg[BIN_CHECK_MSG_MAX]);
int bin_check_check_spirv(const unsigned char *bin, size_t size, uint32_t version_word, bin_check_names *k,
                   char msg[BIN_CHECK_MSG_MAX]);

/* EF_AMDGPU_MACH of a gfx name's (major, minor, stepping), or 0 when this
 * table does not know it. */
unsigned bin_check_amdgpu_mach(unsigned major, unsigned minor, unsigned stepping);

#endif /* CLC_BIN_CHECK_H */
