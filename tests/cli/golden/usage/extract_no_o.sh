# extract without -o.
clc-pack extract x.clcpack --entry 0
