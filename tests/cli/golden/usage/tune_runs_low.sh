# --tune-runs below 10.
clc-pack --tune-runs 5 --kernel reda_local -o x.clcpack
