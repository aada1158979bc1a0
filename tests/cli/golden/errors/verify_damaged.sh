# verify of a pack with one byte of an entry's stored bytes flipped: the entry is named, the bad parts counted.
cp "$DATA/nvidia/ptx_only.clcpack" p.clcpack
python3 -c 'import struct,sys; b=bytearray(open(sys.argv[1],"rb").read()); i=struct.unpack_from("<Q",b,24)[0]; b[i-(i-64)//8]^=0x40; open(sys.argv[1],"wb").write(b)' p.clcpack
clc-pack verify p.clcpack
