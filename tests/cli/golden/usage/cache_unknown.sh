# cache frob: the subcommands there are.
clc-pack cache frob
