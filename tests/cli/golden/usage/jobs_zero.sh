# -j 0: the range of jobs.
clc-pack -j 0
