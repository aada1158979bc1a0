/*
 * llvm_bitcode_same.h — whether two LLVM bitcode files say the same module
 * but for the metadata kinds their writers' contexts had registered.
 *
 * LLVM writes into every module's METADATA_KIND block (block id 22, records
 * KIND (code 6) [id, name...]) every kind its context knows. PoCL compiles
 * all of a process's programs in one context, so a program built after
 * another carries the kinds the earlier one registered
 * (reqd_work_group_size, pocl_generated, ...): the same program, recorded
 * from two command lines of one application, gives program.bc files that
 * differ in bytes but not in meaning (llvm-dis prints the same module).
 *
 * Same means: the same blocks and the same records with the same values
 * (abbreviations are how a writer spells them, not what they say), except
 *  - the METADATA_KIND blocks: one's kinds are a subset of the other's,
 *    each [id, name] the same. A kind only one file has is used by no
 *    record, since every other record is the same and a record naming a
 *    kind its file lacks would not load;
 *  - the word offsets the other block's length moved: the module's
 *    VSTOFFSET (module block 8, code 13) and the symbol table's FNENTRY
 *    (block 14, code 3, operand 1) must point, each in its file, at the
 *    corresponding block (the same ordinal among the blocks entered).
 * Anything else that differs (or a file that is not bitcode, or damaged)
 * is "not the same": sound, not complete. Pure function, no printing.
 */
#ifndef CLC_LLVM_BITCODE_SAME_H
#define CLC_LLVM_BITCODE_SAME_H

#include <stddef.h>

/* 1 when the same as above, 0 when not (why says the first difference),
 * -1 when out of memory. */
int llvm_bitcode_same_same_but_kinds(const unsigned char *a, size_t a_size, const unsigned char *b,
                       size_t b_size, char *why, size_t why_cap);

#endif /* CLC_LLVM_BITCODE_SAME_H */
