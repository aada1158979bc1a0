# clc-pack --help: the usage of packing and of every command, on stdout.
clc-pack --help
