# verify of a pack that is not there.
clc-pack verify missing.clcpack
