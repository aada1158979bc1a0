# --list-devices takes no value.
clc-pack --list-devices=yes
