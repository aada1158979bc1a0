# merge without -o.
clc-pack merge a.clcpack b.clcpack
