# list of a pack that is not there.
clc-pack list missing.clcpack
