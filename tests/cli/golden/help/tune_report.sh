# clc-pack tune-report --help: the command's usage and every option, on stdout.
clc-pack tune-report --help
