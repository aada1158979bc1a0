# clc-pack cache --help: the command's usage and every option, on stdout.
clc-pack cache --help
