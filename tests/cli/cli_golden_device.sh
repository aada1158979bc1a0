#!/bin/sh
# The golden-output cases that open an OpenCL device (tests/cli/golden/device/:
# device selection, a failed build's report), the device names filtered;
# each is skipped where there is no device.
exec sh "$(dirname "$0")/golden/run.sh" "${1:-build}" --device
