# An unknown command is named, with the commands there are.
clc-pack frobnicate
