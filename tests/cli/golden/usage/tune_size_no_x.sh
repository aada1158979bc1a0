# --tune-size 64: a size is WxH.
clc-pack --tune-size 64 --kernel reda_local -o x.clcpack
