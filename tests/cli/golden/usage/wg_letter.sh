# --wg 8y8: not a size.
clc-pack --wg 8y8
