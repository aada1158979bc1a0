# extract --kind elf: the kinds there are.
clc-pack extract x.clcpack --entry 0 --kind elf -o y
