# A FIFO given as a pack to every command that reads one is refused at once (each under a timeout: a hang is exit 124), never waited on.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
mkfifo in.fifo
for sub in list verify tune-report warm; do timeout 20 clc-pack $sub in.fifo; echo "exit $?"; done
timeout 20 clc-pack extract in.fifo --entry 0 -o x.bin
echo "exit $?"
timeout 20 clc-pack merge p.clcpack in.fifo -o merged.clcpack
echo "exit $?"
timeout 20 clc-pack embed in.fifo -o x.c
echo "exit $?"
ls
