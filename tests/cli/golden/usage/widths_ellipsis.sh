# 3,5,...,30: the end of a stepped list is not on its step.
clc-pack --widths 3,5,...,30
