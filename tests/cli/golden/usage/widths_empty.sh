# --widths '': an empty list.
clc-pack --widths ''
