# warm --cache-dir '': an empty folder name.
clc-pack warm x.clcpack --cache-dir ''
