# embed --loader-codecs with a codec there is none of.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack embed p.clcpack -o app.c --loader-codecs zlib,lz4
