# -h/--help stops the parse: what follows it is not read.
clc-pack --help --no-such-option | head -n 1
clc-pack -h -D | head -n 1
clc-pack list -h --bogus | head -n 1
