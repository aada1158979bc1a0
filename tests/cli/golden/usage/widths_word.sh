# --widths x: not a number.
clc-pack --widths x
