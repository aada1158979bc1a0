# A FIFO given as a pack is refused at once, never waited on.
mkfifo f.clcpack
clc-pack list f.clcpack
