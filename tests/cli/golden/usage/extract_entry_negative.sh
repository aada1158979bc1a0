# extract --entry -1.
clc-pack extract x.clcpack --entry -1 -o x.bin
