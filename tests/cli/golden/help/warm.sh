# clc-pack warm --help: the command's usage and every option, on stdout.
clc-pack warm --help
