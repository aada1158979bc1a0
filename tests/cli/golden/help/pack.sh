# clc-pack pack --help is clc-pack --help.
clc-pack pack --help
