# --ptxas naming a file that is not there.
clc-pack --ptxas /nonexistent/ptxas
