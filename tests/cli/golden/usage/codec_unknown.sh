# --codec lz4 for merge, gzip for retarget and record, brotli for pack: the codecs there are; nothing written.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack merge p.clcpack --codec lz4 -o x.clcpack
echo "exit $?"
clc-pack retarget --codec gzip --help
echo "exit $?"
clc-pack record --codec gzip --help
echo "exit $?"
clc-pack --codec brotli --kernel Convolve -o y.clcpack
echo "exit $?"
ls
