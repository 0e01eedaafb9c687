#!/usr/bin/env python3
"""Draws the extension's icon, images/icon.png (128x128): three steps of a
plan joined into one, and an arrow to what runs next. Standard library only;
run it from anywhere to redraw the icon after a change here."""

import math
import os
import struct
import zlib

SIZE = 128
SAMPLES = 4  # per axis, for anti-aliasing

BACKGROUND = (31, 59, 87)
EDGE = (156, 195, 230)
NODE = (232, 241, 250)
ARROW = (242, 184, 75)

NODES = [(36, 34), (36, 94), (64, 64)]
EDGES = [((36, 34), (64, 64)), ((36, 94), (64, 64)), ((64, 64), (90, 64))]
TRIANGLE = [(84, 48), (108, 64), (84, 80)]


def in_rounded_square(x, y):
    lo, hi, r = 4.0, 124.0, 22.0
    cx = min(max(x, lo + r), hi - r)
    cy = min(max(y, lo + r), hi - r)
    return lo <= x <= hi and lo <= y <= hi and (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def near_segment(x, y, a, b, width):
    (ax, ay), (bx, by) = a, b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(x - (ax + t * dx), y - (ay + t * dy)) <= width / 2


def in_triangle(x, y, tri):
    def side(p, q):
        return (q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0])

    s = [side(tri[i], tri[(i + 1) % 3]) for i in range(3)]
    return all(v >= 0 for v in s) or all(v <= 0 for v in s)


def colour_at(x, y):
    """The colour and opacity of one sample."""
    if not in_rounded_square(x, y):
        return (0, 0, 0, 0)
    if in_triangle(x, y, TRIANGLE):
        return ARROW + (255,)
    if any(math.hypot(x - nx, y - ny) <= 12 for nx, ny in NODES):
        return NODE + (255,)
    if any(near_segment(x, y, a, b, 6) for a, b in EDGES):
        return EDGE + (255,)
    return BACKGROUND + (255,)


def pixel(px, py):
    acc = [0, 0, 0, 0]
    for i in range(SAMPLES):
        for j in range(SAMPLES):
            r, g, b, a = colour_at(px + (i + 0.5) / SAMPLES, py + (j + 0.5) / SAMPLES)
            acc[0] += r * a
            acc[1] += g * a
            acc[2] += b * a
            acc[3] += a
    n = SAMPLES * SAMPLES
    alpha = acc[3] / n
    if alpha == 0:
        return bytes(4)
    return bytes([round(acc[0] / acc[3]), round(acc[1] / acc[3]), round(acc[2] / acc[3]), round(alpha)])


def png(width, height, rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + row for row in rows)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def main():
    rows = [b"".join(pixel(x, y) for x in range(SIZE)) for y in range(SIZE)]
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "icon.png")
    with open(out, "wb") as f:
        f.write(png(SIZE, SIZE, rows))


if __name__ == "__main__":
    main()
