# run with no pack names the subcommand.
clc-pack run
