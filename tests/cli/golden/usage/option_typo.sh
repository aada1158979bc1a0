# --widht: the nearest option is suggested.
clc-pack --widht 5
