# warm with two packs.
clc-pack warm a.clcpack b.clcpack
