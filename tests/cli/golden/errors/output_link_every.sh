# Every command with an output refuses a symbolic link alike: merge -o, embed -o, embed --header (and then writes nothing).
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
ln -s nowhere link.bin
clc-pack merge p.clcpack -o link.bin
echo "exit $?"
clc-pack embed p.clcpack -o link.bin
echo "exit $?"
clc-pack embed p.clcpack -o pack.c --header link.bin
echo "exit $?"
ls
