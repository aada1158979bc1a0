# clc-pack embed --help: the command's usage and every option, on stdout.
clc-pack embed --help
