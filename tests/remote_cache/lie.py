#!/usr/bin/env python3
"""Makes the remote cache under WWW lie about one variant, as a writer
that means harm or a broken one would: the record that action result AC
names is rewritten with its forms replaced by other bytes of the same
length (garble), cut to half their length (cut: a truncated PoCL binary
makes PoCL 3.1 crash), or with bytes inside the LLVM bitcode of a PoCL
binary changed, its layout intact (bitcode), its size and CRC-32 made
right, stored under its new SHA-256, and AC pointed at it
(docs/REMOTE_CACHE.md, "The record", "The action result"). Every check
that needs no device passes; only loading it can tell.
With --local, ENTRY is an entry of the variant cache on disk (docs/CACHE.md,
"On disk"), rewritten in place with its head's SHA-256 made right.
Usage: lie.py WWW AC_FILE garble|cut|bitcode
       lie.py --local ENTRY garble|cut|bitcode"""
import hashlib
import os
import struct
import sys
import zlib

www, ac_path, how = sys.argv[1], sys.argv[2], sys.argv[3]
local = www == "--local"
if local:
    entry = open(ac_path, "rb").read()
    assert entry[:8] == b"CLCPKLC1"
    rec = bytearray(entry[40:])
else:
    ac = open(ac_path, "rb").read()
    digest = ac[ac.index(b"\x0a\x40") + 2:][:64].decode()
    rec = bytearray(open(os.path.join(www, "cas", digest), "rb").read())
assert rec[:8] == b"CLCPKREC"
at = 24
n, = struct.unpack_from("<I", rec, at); at += 4 + n          # key text
n, = struct.unpack_from("<I", rec, at); at += 4 + n          # signature
count, = struct.unpack_from("<I", rec, at); at += 4
for _ in range(count):
    n, = struct.unpack_from("<I", rec, at); at += 4 + n      # kernel names
n, = struct.unpack_from("<I", rec, at); at += 4 + n          # note
forms, = struct.unpack_from("<I", rec, at); at += 4
for _ in range(forms):
    at += 8
    size, = struct.unpack_from("<Q", rec, at)
    if how == "cut":
        keep = size // 2
        struct.pack_into("<Q", rec, at, keep)
        del rec[at + 8 + keep:at + 8 + size]
        size = keep
    at += 8
    if how == "garble":
        for i in range(size):
            rec[at + i] = (rec[at + i] * 7 + 13 + i) & 0xFF
    if how == "bitcode":
        bc = rec.find(b"BC\xc0\xde", at, at + size)
        assert bc >= 0, "no LLVM bitcode in the form"
        for i in range(bc + 64, min(bc + 2064, at + size)):
            rec[i] ^= 0x5A
    at += size
struct.pack_into("<Q", rec, 16, len(rec))
struct.pack_into("<I", rec, len(rec) - 4, zlib.crc32(bytes(rec[:-4])))
if local:
    open(ac_path, "wb").write(b"CLCPKLC1" + hashlib.sha256(rec).digest() + rec)
    sys.exit(0)
new = hashlib.sha256(rec).hexdigest()
open(os.path.join(www, "cas", new), "wb").write(rec)


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def field(num, data):
    return varint(num << 3 | 2) + varint(len(data)) + data


dig = field(1, new.encode()) + varint(2 << 3) + varint(len(rec))
open(ac_path, "wb").write(field(2, field(1, b"clc-pack.record") + field(2, dig)))
