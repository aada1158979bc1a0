# extract --nope.
clc-pack extract x.clcpack --nope -o x.bin
