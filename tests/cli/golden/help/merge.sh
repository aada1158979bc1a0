# clc-pack merge --help: the command's usage and every option, on stdout.
clc-pack merge --help
