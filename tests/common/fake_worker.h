/*
 * fake_worker.h — the two halves of a build worker (clc/engine/worker_proto.h)
 * for tests that are their own fake workers (test_spare_slots,
 * test_worker_exits): read a job's id, answer it with a result.
 */
#ifndef TEST_FAKE_WORKER_H
#define TEST_FAKE_WORKER_H

#include <stdint.h>

/* The next job's id from fd 0: 1, or 0 at the end of the jobs. */
int fake_worker_next(uint32_t *job);

/* Answers job with an OK result whose message is message (may be NULL) on
 * WORKER_PROTO_RESULT_FD: 0, or -1. */
int fake_worker_answer(uint32_t job, const char *message);

#endif /* TEST_FAKE_WORKER_H */
