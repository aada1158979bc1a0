# list of an empty file.
: >empty.clcpack
clc-pack list empty.clcpack
