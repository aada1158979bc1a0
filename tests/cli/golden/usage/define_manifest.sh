# -D FOO=1 on the kernels folder: a define no kernel of the manifest has.
clc-pack --kernels "$KERNELS" -D FOO=1
