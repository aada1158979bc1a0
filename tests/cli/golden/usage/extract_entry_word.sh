# extract --entry x: not an entry number.
clc-pack extract x.clcpack --entry x -o x.bin
