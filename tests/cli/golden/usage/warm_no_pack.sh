# warm with no pack.
clc-pack warm
