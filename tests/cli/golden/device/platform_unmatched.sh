# --platform matching no platform: the platforms there are.
clc-pack --kernels "$KERNELS" --platform no-such-platform -o x.clcpack
