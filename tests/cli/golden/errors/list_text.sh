# list of a text file.
echo "not a pack" >text.clcpack
clc-pack list text.clcpack
