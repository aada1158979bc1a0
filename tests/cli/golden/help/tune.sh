# clc-pack tune --help: the command's usage and every option, on stdout.
clc-pack tune --help
