# clc-pack retarget --help: the command's usage and every option, on stdout.
clc-pack retarget --help
