#!/usr/bin/env python3
"""A synthetic detection data set: shapes of known classes on textured backgrounds.

Writes IMAGES PNG files with VOC XML annotations, a label map, and the image lists that
`dtrain convert annoset` reads:

    OUT/images/000123.png  OUT/annotations/000123.xml
    OUT/labelmap.prototxt  OUT/train.txt  OUT/test.txt   ("images/X.png annotations/X.xml")

Each image (SIZE x SIZE, default 160) has a background of smooth noise and stripes in random
colours, and 1 to 3 objects: a filled circle, square, triangle or cross of random colour and size
(a fifth to two fifths of the image), placed so that two objects overlap by at most a quarter of
the smaller one's box. Boxes are the exact pixel extents of the drawn shapes, VOC style (1-based,
inclusive). Everything is drawn from one seeded NumPy generator: the same arguments give the same
files. Needs only NumPy.

Usage: make_shapes.py OUT [--images N] [--test-share F] [--size S] [--seed K]
"""
import argparse
import os
import struct
import zlib

import numpy as np

CLASSES = ["circle", "square", "triangle", "cross"]  # labels 1..4; 0 is the background


def write_png(path, rgb):
    """rgb: H x W x 3 uint8."""
    height, width, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[y].tobytes() for y in range(height))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 6))
    png += chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


def background(rng, size):
    """Smooth noise (bilinearly upsampled coarse noise) plus stripes, in two random colours."""
    coarse = rng.random((6, 6))
    axis = np.linspace(0, 5, size)
    i0 = np.floor(axis).astype(int).clip(0, 4)
    t = axis - i0
    rows = coarse[i0] * (1 - t)[:, None] + coarse[i0 + 1] * t[:, None]
    smooth = rows[:, i0] * (1 - t)[None, :] + rows[:, i0 + 1] * t[None, :]
    angle = rng.uniform(0, np.pi)
    period = rng.uniform(6, 20)
    yy, xx = np.mgrid[0:size, 0:size]
    stripes = 0.5 + 0.5 * np.sin((xx * np.cos(angle) + yy * np.sin(angle)) * 2 * np.pi / period)
    mix = 0.6 * smooth + 0.4 * stripes
    a, b = rng.integers(0, 256, 3), rng.integers(0, 256, 3)
    image = a[None, None, :] * (1 - mix[..., None]) + b[None, None, :] * mix[..., None]
    image += rng.normal(0, 8, image.shape)
    return image


def shape_mask(kind, size, cx, cy, r):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    dx, dy = xx - cx, yy - cy
    if kind == "circle":
        return dx * dx + dy * dy <= r * r
    if kind == "square":
        return (np.abs(dx) <= r) & (np.abs(dy) <= r)
    if kind == "triangle":  # apex up, base at cy + r
        return (dy >= -r) & (dy <= r) & (np.abs(dx) <= (dy + r) / 2)
    arm = r / 3  # cross
    return ((np.abs(dx) <= r) & (np.abs(dy) <= arm)) | ((np.abs(dy) <= r) & (np.abs(dx) <= arm))


def overlap_share(a, b):
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]) + 1)
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]) + 1)
    area = min((a[2] - a[0] + 1) * (a[3] - a[1] + 1), (b[2] - b[0] + 1) * (b[3] - b[1] + 1))
    return ix * iy / area


def make_image(rng, size):
    image = background(rng, size)
    objects = []
    for _ in range(rng.integers(1, 4)):
        for _attempt in range(20):
            kind = CLASSES[rng.integers(0, len(CLASSES))]
            r = rng.uniform(size / 10, size / 5)
            cx, cy = rng.uniform(r, size - 1 - r), rng.uniform(r, size - 1 - r)
            mask = shape_mask(kind, size, cx, cy, r)
            ys, xs = np.nonzero(mask)
            if len(xs) == 0:
                continue
            box = (xs.min() + 1, ys.min() + 1, xs.max() + 1, ys.max() + 1)  # VOC: 1-based
            if all(overlap_share(box, o[1]) <= 0.25 for o in objects):
                colour = rng.integers(0, 256, 3)
                # Keep the shape visible: push its colour away from the background's mean there.
                if np.abs(colour - image[mask].mean(axis=0)).sum() < 120:
                    colour = 255 - colour
                image[mask] = colour
                objects.append((kind, box))
                break
    return np.clip(image, 0, 255).astype(np.uint8), objects


def write_xml(path, name, size, objects):
    lines = ["<annotation>", f"  <filename>{name}.png</filename>",
             f"  <size><width>{size}</width><height>{size}</height><depth>3</depth></size>"]
    for kind, (x0, y0, x1, y1) in objects:
        lines += ["  <object>", f"    <name>{kind}</name>", "    <difficult>0</difficult>",
                  f"    <bndbox><xmin>{x0}</xmin><ymin>{y0}</ymin><xmax>{x1}</xmax>"
                  f"<ymax>{y1}</ymax></bndbox>", "  </object>"]
    lines.append("</annotation>")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def write_label_map(path):
    items = [("none_of_the_above", 0, "background")]
    items += [(name, i + 1, name) for i, name in enumerate(CLASSES)]
    with open(path, "w") as f:
        for name, label, display in items:
            f.write(f'item {{\n  name: "{name}"\n  label: {label}\n  display_name: "{display}"\n}}\n')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--images", type=int, default=3000)
    parser.add_argument("--test-share", type=float, default=0.1)
    parser.add_argument("--size", type=int, default=160)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.images < 2 or not 0 < args.test_share < 1 or args.size < 32:
        parser.error("need --images >= 2, 0 < --test-share < 1 and --size >= 32")
    rng = np.random.default_rng(args.seed)
    for sub in ("images", "annotations"):
        os.makedirs(os.path.join(args.out, sub), exist_ok=True)
    write_label_map(os.path.join(args.out, "labelmap.prototxt"))
    test_count = max(1, int(round(args.images * args.test_share)))
    lists = {"train": [], "test": []}
    for i in range(args.images):
        name = f"{i:06d}"
        image, objects = make_image(rng, args.size)
        write_png(os.path.join(args.out, "images", name + ".png"), image)
        write_xml(os.path.join(args.out, "annotations", name + ".xml"), name, args.size, objects)
        split = "test" if i >= args.images - test_count else "train"
        lists[split].append(f"images/{name}.png annotations/{name}.xml")
    for split, entries in lists.items():
        with open(os.path.join(args.out, split + ".txt"), "w") as f:
            f.write("\n".join(entries) + "\n")
    print(f"{args.images} images ({len(lists['train'])} train, {len(lists['test'])} test) "
          f"in {args.out}")


if __name__ == "__main__":
    main()
