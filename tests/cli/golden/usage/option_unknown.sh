# An unknown option far from every name gets no suggestion.
clc-pack --bogus
