# -o into a missing folder is refused before anything is built.
clc-pack --kernels "$KERNELS" -o no/such/dir/x.clcpack -q
