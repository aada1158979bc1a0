# warm --bogus.
clc-pack warm x.clcpack --bogus
