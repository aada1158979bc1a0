# --widths 3,3: a value twice.
clc-pack --widths 3,3
