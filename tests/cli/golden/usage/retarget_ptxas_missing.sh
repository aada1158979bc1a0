# retarget --ptxas naming a file that is not there.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack retarget p.clcpack --ptxas /nonexistent/ptxas -o x.clcpack
