# -MF as the last word.
clc-pack -MF
