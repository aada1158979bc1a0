# embed -o FILE.rc of a zstd pack: the Windows library reads zlib only; the fix named, nothing written.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack merge -q p.clcpack --codec zstd -o zstd.clcpack
clc-pack embed zstd.clcpack -o app.rc
echo "exit $?"
ls
