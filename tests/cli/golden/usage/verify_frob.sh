# verify --frob.
clc-pack verify x.clcpack --frob
