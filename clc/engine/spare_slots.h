/*
 * spare_slots.h — the cores idle build workers lend to busy ones.
 *
 * At the end of a pack no job is left to hand out, and the workers that
 * have finished sit idle while the last, longest builds run on. Each of
 * those builds on NVIDIA then spends seconds assembling one cubin per
 * architecture, one ptxas after the other. So worker_pool.c puts one byte
 * in a pipe for each worker that goes idle with the queue empty (never
 * under make's jobserver, whose slots are make's to lend), and a worker
 * about to run ptxas takes what bytes are there, without waiting, to run
 * that many more ptxas processes at once; it puts them back when done.
 * A run of fewer jobs than -j N starts a worker per job and puts a byte
 * in the pipe for each of the N slots left over, from the start: a lone
 * build (the pack `clc-pack tune` writes) assembles its cubins at once.
 * While every worker is busy the pipe is empty and each build runs one
 * process at a time, so -j N uses N cores, no more, until the end.
 *
 * A worker finds the pipe as its fds SPARE_RD_FD (non-blocking read end)
 * and SPARE_WR_FD. Bytes lost with a crashed worker only lend less.
 */
#ifndef CLC_SPARE_SLOTS_H
#define CLC_SPARE_SLOTS_H

#define SPARE_RD_FD 4
#define SPARE_WR_FD 5

typedef struct spare_slots {
    int rd, wr; /* -1: none (a worker started some other way, a benchmark) */
} spare_slots;

/* The pipe a worker was started with, when fds SPARE_RD_FD and
 * SPARE_WR_FD are one; marks them close-on-exec (ptxas and the driver's
 * children must not hold them). */
void spare_inherit(spare_slots *s);

/* Takes up to `most` slots without waiting; returns how many (0 without a
 * pipe). */
int spare_take(const spare_slots *s, int most);

/* Gives back n slots taken with spare_take. */
void spare_give(const spare_slots *s, int n);

#endif /* CLC_SPARE_SLOTS_H */
