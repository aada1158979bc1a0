# --widths as the last word: it needs a value.
clc-pack --widths
