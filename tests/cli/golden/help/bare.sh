# A bare clc-pack where there is no kernels folder: the short usage (how to pack one's own FILE.cl) on stderr, exit 2.
clc-pack
