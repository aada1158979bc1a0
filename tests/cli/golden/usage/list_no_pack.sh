# list with no pack.
clc-pack list
