# warm --nice 20: the range of niceness.
clc-pack warm x.clcpack --nice 20
