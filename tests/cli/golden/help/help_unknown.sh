# help of an unknown command.
clc-pack help frobnicate
