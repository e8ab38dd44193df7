#!/usr/bin/env python3
"""The shapes data set (make_shapes.py) laid out as PASCAL VOC 2007, for tools written for VOC.

py-faster-rcnn's `pascal_voc` reader, and the 21-class Faster R-CNN and R-FCN files written for
it, expect VOCdevkit2007/VOC2007 with JPEG images and VOC's twenty class names. This writes

    DEVKIT/VOC2007/JPEGImages/000123.jpg     (the PNG re-encoded, quality 95)
    DEVKIT/VOC2007/Annotations/000123.xml    (the same boxes, VOC class names, filename .jpg)
    DEVKIT/VOC2007/ImageSets/Main/trainval.txt, test.txt   (the shapes' train and test splits)

with the four shapes under four VOC names (VOC_NAMES below): a file trained on it predicts only
those four of its twenty classes, the rest never appear. Needs Pillow (py-faster-rcnn needs it
too).

Usage: voc_layout.py SHAPES_DIR DEVKIT
"""
import argparse
import os
import re
import sys

VOC_NAMES = {"circle": "bottle", "square": "tvmonitor", "triangle": "boat", "cross": "aeroplane"}


def convert_annotation(text, name):
    """The shapes' XML with VOC class names and the .jpg file name."""
    def rename(match):
        shape = match.group(1)
        if shape not in VOC_NAMES:
            sys.exit(f"voc_layout: {name}.xml: unknown class '{shape}'")
        return f"<name>{VOC_NAMES[shape]}</name>"

    text = re.sub(r"<name>([^<]*)</name>", rename, text)
    return text.replace(f"<filename>{name}.png</filename>", f"<filename>{name}.jpg</filename>")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("shapes")
    parser.add_argument("devkit")
    args = parser.parse_args()
    try:
        from PIL import Image
    except ImportError:
        sys.exit("voc_layout: needs Pillow (Debian: python3-pil)")
    voc = os.path.join(args.devkit, "VOC2007")
    for sub in ("JPEGImages", "Annotations", os.path.join("ImageSets", "Main")):
        os.makedirs(os.path.join(voc, sub), exist_ok=True)
    for split, voc_split in (("train", "trainval"), ("test", "test")):
        names = []
        with open(os.path.join(args.shapes, split + ".txt")) as f:
            for line in f:
                if not line.strip():
                    continue
                image_path, xml_path = line.split()
                name = os.path.splitext(os.path.basename(image_path))[0]
                Image.open(os.path.join(args.shapes, image_path)).convert("RGB").save(
                    os.path.join(voc, "JPEGImages", name + ".jpg"), quality=95)
                with open(os.path.join(args.shapes, xml_path)) as x:
                    xml = convert_annotation(x.read(), name)
                with open(os.path.join(voc, "Annotations", name + ".xml"), "w") as x:
                    x.write(xml)
                names.append(name)
        with open(os.path.join(voc, "ImageSets", "Main", voc_split + ".txt"), "w") as f:
            f.write("\n".join(names) + "\n")
        print(f"{voc_split}: {len(names)} images")


if __name__ == "__main__":
    main()
