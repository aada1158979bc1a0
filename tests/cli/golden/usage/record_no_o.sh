# record with no -o names the subcommand.
clc-pack record -- true
