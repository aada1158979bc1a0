# -q stray: a file argument is a source to pack, and a missing one is named.
clc-pack -q stray
