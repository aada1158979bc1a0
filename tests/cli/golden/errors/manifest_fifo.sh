# A FIFO as a kernels folder's manifest.txt is refused at once.
mkdir fifo_kernels
mkfifo fifo_kernels/manifest.txt
timeout 20 clc-pack --kernels fifo_kernels --widths 3 -o fifo.clcpack
