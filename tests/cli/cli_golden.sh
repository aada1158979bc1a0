#!/bin/sh
# The golden-output cases that need no OpenCL device (tests/cli/golden/,
# every group but device/): help texts, usage errors, bad input and the
# listings of a pack kept in tests/data, each compared whole with its
# .out, .err and .exit. `make golden` refreshes them.
exec sh "$(dirname "$0")/golden/run.sh" "${1:-build}" --driver-free
