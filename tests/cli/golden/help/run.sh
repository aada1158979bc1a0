# clc-pack run --help: the command's usage and every option, on stdout.
clc-pack run --help
