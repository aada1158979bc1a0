/*
 * nv_fixture.h — NVIDIA packs for the tests, made without a GPU with the
 * public writer API: an H200's fingerprint and PTX entries read from
 * the .ptx files of tests/data/nvidia/ (its README.md).
 */
#ifndef CLC_TEST_NV_FIXTURE_H
#define CLC_TEST_NV_FIXTURE_H

#include <stddef.h>

#include "clcpack.h"

/* The fingerprint NVIDIA's OpenCL driver gives an H200 (compute capability 9.0). */
void nvfx_h200(clcpack_device_info *d);

/* One PTX entry: its key, and the .ptx file (in the data folder) holding
 * its PTX; source NULL or a file of kernels/ stored as its source. */
typedef struct nvfx_entry {
    const char *kernel, *family, *ptx_file, *source;
    const char *define_names[4], *define_values[4];
    size_t define_count;
    unsigned wg[3];
    unsigned long long tune_ns;     /* not 0: a tuning record with this median */
} nvfx_entry;

/* The development fixture's entries (4 kernels, tests/data/nvidia/README.md). */
extern const nvfx_entry nvfx_fixture[];
extern const size_t nvfx_fixture_count;

/* Writes a pack of device dev (NULL: the H200) with the entries' PTX (kind PTX, arch from
 * their .target) to out, reading .ptx files from data_dir and sources from
 * kernels_dir. 0, or -1 with err (256 bytes) saying why. */
int nvfx_write_pack(const clcpack_device_info *dev, const char *data_dir,
                    const char *kernels_dir, const nvfx_entry *e, size_t n, const char *out,
                    char *err);

#endif
