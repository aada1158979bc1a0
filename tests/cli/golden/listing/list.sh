# list of the PTX-only pack (tests/data/nvidia/README.md): its device, sources and entries.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
clc-pack list p.clcpack
