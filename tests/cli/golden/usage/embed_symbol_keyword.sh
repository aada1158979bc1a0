# embed --symbol int: a C keyword.
clc-pack embed x.clcpack -o y.c --symbol int
