# clc-pack list --help: the command's usage and every option, on stdout.
clc-pack list --help
