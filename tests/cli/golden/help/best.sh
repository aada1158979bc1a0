# clc-pack best --help: the command's usage and every option, on stdout.
clc-pack best --help
