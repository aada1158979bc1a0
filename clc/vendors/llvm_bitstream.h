/*
 * llvm_bitstream.h — LLVM's bitstream container read into a flat list of
 * events (block entered, block ended, record with its values), the
 * abbreviations that encoded them applied and dropped: what a bitcode file
 * says, not how its writer chose to spell it. Used to compare two
 * program.bc files of PoCL binaries by meaning (llvm_bitcode_same.h).
 *
 * The container (https://llvm.org/docs/BitCodeFormat.html): "BC" 0xC0DE,
 * optionally inside the 0x0B17C0DE wrapper; abbreviation ids 0 END_BLOCK,
 * 1 ENTER_SUBBLOCK [blockid vbr8, abbrev width vbr4, align32, word count],
 * 2 DEFINE_ABBREV, 3 UNABBREV_RECORD [code vbr6, count vbr6, ops vbr6...],
 * 4+ the block's abbreviations (the BLOCKINFO block's for its id first,
 * then its own). Blocks end 32-bit aligned, at the length their header
 * gives. Every read is bounded; nothing here prints.
 */
#ifndef CLC_LLVM_BITSTREAM_H
#define CLC_LLVM_BITSTREAM_H

#include <stddef.h>
#include <stdint.h>

enum { LLVM_BITSTREAM_END = 0, LLVM_BITSTREAM_ENTER = 1, LLVM_BITSTREAM_RECORD = 3 };

typedef struct llvm_bitstream_event {
    unsigned char type; /* LLVM_BITSTREAM_ENTER, LLVM_BITSTREAM_END or LLVM_BITSTREAM_RECORD */
    uint32_t block;     /* LLVM_BITSTREAM_ENTER: the block entered; else the one it is in */
    uint32_t code;      /* LLVM_BITSTREAM_RECORD: the record's code */
    size_t ops, n_ops;  /* LLVM_BITSTREAM_RECORD: its values, llvm_bitstream_stream.ops[ops..] */
    size_t blob, blob_len; /* LLVM_BITSTREAM_RECORD: its blob, bytes[blob..] (the file's) */
    uint64_t bit;       /* LLVM_BITSTREAM_ENTER: bit of its ENTER_SUBBLOCK from the magic */
} llvm_bitstream_event;

typedef struct llvm_bitstream_stream {
    const unsigned char *bytes; /* the bitcode, after any wrapper */
    size_t size;
    llvm_bitstream_event *ev;
    size_t n_ev;
    uint64_t *ops;
    size_t n_ops;
} llvm_bitstream_stream;

/* 0 with *s (llvm_bitstream_stream_free it), 1 when buf is not bitcode or is damaged
 * (why says where), -1 when out of memory. */
int llvm_bitstream_parse(const unsigned char *buf, size_t size, llvm_bitstream_stream *s, char *why, size_t why_cap);

void llvm_bitstream_stream_free(llvm_bitstream_stream *s);

#endif /* CLC_LLVM_BITSTREAM_H */
