# verify --check without --load.
clc-pack verify x.clcpack --check
