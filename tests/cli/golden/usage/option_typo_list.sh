# list --jsn: a subcommand's option is suggested from its own table.
clc-pack list --jsn x.clcpack
