# -o into a folder that does not exist.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack extract p.clcpack --entry 0 -o nodir/x
