#!/usr/bin/env python3
"""crc32_constants.py — prints the folding constants of loader/read/crc32_x86.c.

The CRC is zlib's: P(x) = x^32 + x^26 + x^23 + x^22 + x^16 + x^12 + x^11
+ x^10 + x^8 + x^7 + x^5 + x^4 + x^2 + x + 1, bits taken least significant
first (0xEDB88320 is P's low 32 coefficients written bit-reversed).

In that bit order a 64-bit lane v stands for sum(v_k * x^(63-k)), and
PCLMULQDQ of two lanes, read back as a 128-bit value in the same order, is
their product times x. A lane holding a 32-bit constant c bit-reversed in
its low half stands for c * x^32. So multiplying a lane by that constant
gives the lane times c * x^33, and to move a lane forward by x^e the
constant is c = x^(e-33) mod P. This script prints, for each fold distance
D in bits, the pair (x^(D+64-33) mod P, x^(D-33) mod P): the first for the
lane of higher degree (the low 64 bits of a register), the second for the
other. Standard library only; run it and paste the output when the fold
distances change.
"""

P = 0x104C11DB7  # P(x) with bit i the coefficient of x^i


def x_pow_mod(e):
    """x^e mod P, bit i the coefficient of x^i."""
    r = 1
    for _ in range(e):
        r <<= 1
        if r & (1 << 32):
            r ^= P
    return r


def reflect32(v):
    return int(format(v, "032b")[::-1], 2)


def constant(e):
    return reflect32(x_pow_mod(e - 33))


def main():
    for name, d in (("FOLD_2048", 2048), ("FOLD_512", 512), ("FOLD_128", 128)):
        hi, lo = constant(d + 64), constant(d)
        print(f"/* {name}: x^({d}+64-33) mod P, x^({d}-33) mod P */")
        print(f"0x{hi:08x}, 0x{lo:08x}")


if __name__ == "__main__":
    main()
