# --compress-cubins with --store-cubins, for retarget, merge and pack alike.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack retarget p.clcpack --compress-cubins --store-cubins -o x.clcpack
echo "exit $?"
clc-pack merge p.clcpack --compress-cubins --store-cubins -o x.clcpack
echo "exit $?"
clc-pack --compress-cubins --store-cubins -o x.clcpack
