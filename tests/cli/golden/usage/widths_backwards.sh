# --widths 31-3: a range going down.
clc-pack --widths 31-3
