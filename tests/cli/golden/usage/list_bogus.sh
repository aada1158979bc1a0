# list --bogus.
clc-pack list x.clcpack --bogus
