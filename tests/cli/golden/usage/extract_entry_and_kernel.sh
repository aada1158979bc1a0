# extract --entry and --kernel together.
clc-pack extract x.clcpack --entry 0 --kernel k -o y
