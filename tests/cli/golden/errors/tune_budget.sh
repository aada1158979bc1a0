# tune --budget 5x: what --budget takes.
clc-pack tune "$DATA/tune/wrong_fastest.json" --budget 5x
