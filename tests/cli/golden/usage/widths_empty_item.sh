# A list with an empty item names the item before it.
clc-pack --widths 3,,5
