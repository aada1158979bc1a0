# -D NUMCOEFFS on the kernels folder: NAME=LIST is needed.
clc-pack -D NUMCOEFFS
