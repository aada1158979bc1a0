# retarget with no pack.
clc-pack retarget
