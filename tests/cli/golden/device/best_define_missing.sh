# best --kernel with a define value the pack lacks: the value it has.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack best p.clcpack --kernel poly_numcoeffs -D NUMCOEFFS=9 --no-load
