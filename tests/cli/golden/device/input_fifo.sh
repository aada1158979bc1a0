# best of a FIFO returns at once (under a timeout: a hang is exit 124), naming it.
mkfifo in.fifo
timeout 20 clc-pack best in.fifo --family conv-grey --width 3
