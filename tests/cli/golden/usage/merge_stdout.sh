# merge -o - and embed --header -: no stdout for these.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack merge p.clcpack -o -
echo "exit $?"
clc-pack embed p.clcpack -o pack.c --header -
