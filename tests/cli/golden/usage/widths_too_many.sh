# --widths 1-65: a list holds at most 64 values (docs/CLI.md, "Value lists").
clc-pack --kernels "$KERNELS" --widths 1-65
