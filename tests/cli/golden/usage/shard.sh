# --shard K/N that is not a part of a plan: each quoted; nothing built or written.
for bad in 0/4 5/4 1/0 4 x/y 1/4/2 1/10001; do clc-pack --kernels "$KERNELS" --kernel Convolve_Def --widths 3 --shard "$bad" -o x.clcpack; echo "exit $?"; done
ls
