# clc-pack extract --help: the command's usage and every option, on stdout.
clc-pack extract --help
