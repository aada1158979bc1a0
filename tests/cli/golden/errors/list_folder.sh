# list and verify of a folder named like a pack.
mkdir a_folder.clcpack
clc-pack list a_folder.clcpack
clc-pack verify a_folder.clcpack
