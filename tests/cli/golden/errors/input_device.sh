# A device given as a pack is refused at once.
timeout 20 clc-pack list /dev/zero
