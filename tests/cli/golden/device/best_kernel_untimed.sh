# best --kernel of a program of one's own without timings: none is the fastest.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack best p.clcpack --kernel poly_numcoeffs -D NUMCOEFFS=8 --no-load
