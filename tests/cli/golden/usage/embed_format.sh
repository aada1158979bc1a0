# embed --format x: the formats there are.
clc-pack embed x.clcpack -o y.S --format x
