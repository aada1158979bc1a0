# clc-pack help CMD prints clc-pack CMD --help; help alone the main usage.
clc-pack help merge
clc-pack help >help.txt && head -n 1 help.txt
