# cache with no subcommand.
clc-pack cache
