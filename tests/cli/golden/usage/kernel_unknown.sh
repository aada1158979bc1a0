# --kernel nosuch: no such kernel, and none near it.
clc-pack --kernels "$KERNELS" --kernel nosuch
