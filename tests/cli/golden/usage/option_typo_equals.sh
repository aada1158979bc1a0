# --widht=5: the option is named without its value.
clc-pack --widht=5
