# best --width without --family.
clc-pack best u.clcpack --width 7
