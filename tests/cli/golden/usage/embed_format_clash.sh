# embed --format contradicting -o's name, either way; nothing written.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack embed p.clcpack --format asm -o clash.c
echo "exit $?"
clc-pack embed p.clcpack --format c -o clash.S
echo "exit $?"
ls
