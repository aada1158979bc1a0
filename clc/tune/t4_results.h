/*
 * t4_results.h — a tuning run's results as T4 (the TuningSchema results
 * format: Kernel Tuner's schema/T4/1.0.0/results-schema.json), and read
 * back to resume a run (docs/TUNING.md, "Results").
 *
 * Every configuration tried is one result: its configuration (each
 * parameter with its JSON type), its times in seconds (compilation_time,
 * runtimes, framework, search_algorithm, validation), its invalidity
 * (correct, compile, constraints, runtime, correctness, timeout), its
 * correctness (1 or 0) and, when correct, the measurement "time" in
 * milliseconds (the median). A top-level "clc_pack" object (the schema
 * allows more members) names the spec's SHA-256 and the device, so that a
 * later run resumes only from results of the same spec on the same device.
 *
 * The file is written to a temporary file, synced and renamed: an earlier
 * results file is never left half-written.
 */
#ifndef CLC_T4_RESULTS_H
#define CLC_T4_RESULTS_H

#include <jansson.h>

#include "t1_spec.h"
#include "tune_session.h"
#include "tune_space.h"

#define T4_ERR_MAX 1024

typedef struct t4_run_info {
    const char *device;    /* the device's name */
    const char *strategy;
    double wall_s;
} t4_run_info;

/* Writes rs to path. 0, or -1 with err. */
int t4_results_write(const char *path, const tune_space *sp, const tune_results *rs,
                     const t4_run_info *info, char err[T4_ERR_MAX]);

/* root (taken, then freed; NULL: out of memory) written to path as
 * indented JSON, through a temporary file, synced and renamed. 0, or -1
 * with err. */
int t4_json_write(const char *path, json_t *root, char err[T4_ERR_MAX]);

/* Reads the results at path back into rs when they are of this spec (its
 * SHA-256) and device: 1 when read, 0 when there is no such file or it is
 * of another spec or device (*why says which), -1 with err when it is not
 * a results file clc-pack wrote. device NULL: any spec and device whose
 * configurations are this space's (a simulation's source); results of
 * configurations the space lacks are left out. */
int t4_results_read(const char *path, const tune_space *sp, const char *device, tune_results *rs,
                    const char **why, char err[T4_ERR_MAX]);

#endif /* CLC_T4_RESULTS_H */
