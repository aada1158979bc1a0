# -MX: an unknown -M option.
clc-pack -MX
