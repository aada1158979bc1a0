# verify with an extra argument.
clc-pack verify x.clcpack extra
