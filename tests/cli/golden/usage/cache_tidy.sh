# cache tidy: the word is named.
clc-pack cache tidy
