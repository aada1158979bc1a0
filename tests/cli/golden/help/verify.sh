# clc-pack verify --help: the command's usage and every option, on stdout.
clc-pack verify --help
