# --kernels naming a folder that is not there: its manifest cannot be opened.
clc-pack --kernels none --widths 3
