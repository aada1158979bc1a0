# A manifest that is a folder.
mkdir -p dir_manifest/manifest.txt
clc-pack --kernels dir_manifest
