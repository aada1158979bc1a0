# embed --symbol 9a: not a C identifier.
clc-pack embed x.clcpack -o y.c --symbol 9a
