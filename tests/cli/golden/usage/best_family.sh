# best --family of no bundled family: the families there are, and --kernel for a program of one's own.
clc-pack best x.clcpack --family convolve --width 5
