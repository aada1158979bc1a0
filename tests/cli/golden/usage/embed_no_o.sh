# embed without -o.
clc-pack embed x.clcpack
