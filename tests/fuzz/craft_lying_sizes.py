#!/usr/bin/env python3
"""Writes the hand-made regression packs of tests/fuzz/regressions/ that
lie about sizes: from a valid small pack (argument 1) it makes copies whose
index claims 2^32-1 entries, 2^32-1 devices, a 4 GiB entry, a raw size one
byte too big and one too small, and a stored size that runs past the
payload, each with a correct header checksum so the reader must catch the
lie itself. Usage: craft_lying_sizes.py SMALL.clcpack OUTDIR"""
import struct
import sys
import zlib

src, out = sys.argv[1], sys.argv[2]
pack = bytearray(open(src, "rb").read())
header_size = struct.unpack_from("<I", pack, 12)[0]
index_offset, index_size = struct.unpack_from("<QQ", pack, 24)


def fix_checksum(b):
    crc = zlib.crc32(bytes(b[0:44]))
    crc = zlib.crc32(bytes(b[48:header_size]), crc)
    crc = zlib.crc32(bytes(b[index_offset:index_offset + index_size]), crc)
    struct.pack_into("<I", b, 44, crc)


def records():
    """(start, length) of each record of the index, in order."""
    at, end = index_offset, index_offset + index_size
    while at + 4 <= end:
        n = struct.unpack_from("<I", pack, at)[0]
        yield at, n
        at += n


recs = list(records())
counts = recs[0][0]
n_dev, n_src, n_ent = struct.unpack_from("<III", pack, counts + 4)
entry = recs[1 + n_dev + n_src][0]


def entry_field_offset(name):
    """Offset of a fixed field of the first entry record (docs/FORMAT.md)."""
    at = entry + 12
    for _ in range(3):  # kernel, family, options
        at += 4 + struct.unpack_from("<I", pack, at)[0]
    n_def = struct.unpack_from("<I", pack, at)[0]
    at += 4
    for _ in range(2 * n_def):
        at += 4 + struct.unpack_from("<I", pack, at)[0]
    fields = ["wg0", "wg1", "wg2", "kind", "arch", "codec", "base"]
    if name in fields:
        return at + 4 * fields.index(name)
    at += 4 * len(fields)
    return at + {"offset": 0, "stored_size": 8, "raw_size": 16}[name]


def variant(name, edit):
    b = bytearray(pack)
    edit(b)
    fix_checksum(b)
    open(f"{out}/{name}.clcpack", "wb").write(bytes(b))


variant("lie_entry_count_2e32", lambda b: struct.pack_into("<I", b, counts + 12, 0xFFFFFFFF))
variant("lie_device_count_2e32", lambda b: struct.pack_into("<I", b, counts + 4, 0xFFFFFFFF))
raw_at = entry_field_offset("raw_size")
raw = struct.unpack_from("<Q", pack, raw_at)[0]
variant("lie_entry_raw_4gib", lambda b: struct.pack_into("<Q", b, raw_at, 4 << 30))
variant("lie_entry_raw_plus1", lambda b: struct.pack_into("<Q", b, raw_at, raw + 1))
variant("lie_entry_raw_minus1", lambda b: struct.pack_into("<Q", b, raw_at, raw - 1))
stored_at = entry_field_offset("stored_size")
variant("lie_entry_stored_past_payload",
        lambda b: struct.pack_into("<Q", b, stored_at, index_offset))
