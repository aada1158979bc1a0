# A variant that does not compile: its defines, options and build log, the summary naming it, nothing written (--kernel and -j 1 keep the order fixed).
cp -r "$KERNELS" kb
{ printf '#if FILTER_WIDTH == 5\nthis is not OpenCL C at all;\n#endif\n'; cat "$KERNELS/amd_convolve.cl"; } >kb/amd_convolve.cl
clc-pack --kernels kb --kernel Convolve_Def --widths 3,5 --wg 8x8 -j 1 -o out.clcpack
