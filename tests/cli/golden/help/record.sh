# clc-pack record --help: the command's usage and every option, on stdout.
clc-pack record --help
