#!/usr/bin/env python3
"""Starting weights for detection files written to fine-tune an ImageNet model.

Faster R-CNN's and R-FCN's training files give their trunk no weight_filler (Caffe's default is
the constant 0) because they are meant to start from ImageNet weights (`--weights`). Without
such a model at hand, this writes a .caffemodel in its place, from the TEST net (whose layer
names the training file shares):

- convolution and inner-product weights the net's fillers left all zero are drawn at random and
  scaled, layer by layer in the net's order, so that the layer's output over one real image
  (--image, mean-subtracted as py-faster-rcnn feeds it) has standard deviation 1: LSUV
  initialisation (Mishkin and Matas, 2015), which keeps a deep trunk's activations, and the heads'
  first losses, in range as trained features would;
- BatchNorm layers get the statistics of the identity (mean 0, variance 1, factor 1) and Scale
  layers scale 1 and bias 0;
- other parameters (the heads' own fillers) are written as the net made them.

The trunk is random, not trained: losses fall from training the heads (and the trunk where its
lr_mult is not 0), not from ImageNet features.

Usage: PYTHONPATH=build/python init_weights.py TEST_NET.prototxt OUT.caffemodel --image IMG
           [--mean B G R] [--seed K]
"""
import argparse

import numpy as np

import dtrain
import dtrain.io

TRUNK_TYPES = ("Convolution", "InnerProduct")


def image_batch(path, mean):
    """(1, 3, H, W) float32: BGR in [0, 255] minus the mean, as py-faster-rcnn's blobs."""
    rgb = dtrain.io.load_image(path)  # H x W x 3, RGB in [0, 1]
    bgr = rgb[:, :, ::-1] * 255.0 - np.asarray(mean, np.float32)
    return bgr.transpose(2, 0, 1)[np.newaxis].astype(np.float32)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("net")
    parser.add_argument("out")
    parser.add_argument("--image", required=True)
    parser.add_argument("--mean", type=float, nargs=3, default=[102.9801, 115.9465, 122.7717])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    net = dtrain.Net(args.net, phase=dtrain.TEST)
    batch = image_batch(args.image, args.mean)
    net.blobs["data"].reshape(*batch.shape)
    if "im_info" in net.blobs:
        net.blobs["im_info"].reshape(1, 3)
    net.reshape()
    types = dict(zip(net._layer_names, net._layer_types))
    scaled = []
    for name, blobs in net.params.items():
        kind = types[name]
        if kind == "BatchNorm":
            blobs[0].data[...] = 0
            blobs[1].data[...] = 1
            blobs[2].data[...] = 1
        elif kind == "Scale" and not blobs[0].data.any():
            blobs[0].data[...] = 1
        elif kind in TRUNK_TYPES and not blobs[0].data.any():
            weights = blobs[0].data
            weights[...] = rng.normal(0, np.sqrt(2.0 / weights[0].size), weights.shape)
            scaled.append(name)
    for name in scaled:  # in the net's order: each scaled after those before it
        net.blobs["data"].data[...] = batch
        if "im_info" in net.blobs:
            net.blobs["im_info"].data[...] = [batch.shape[2], batch.shape[3], 1]
        top = net.top_names[name][0]
        std = float(net.forward(end=name)[top].std())
        if std > 0:
            net.params[name][0].data[...] /= std
    net.save(args.out)
    print(f"{args.out}: {len(scaled)} trunk layers drawn and scaled to unit output")


if __name__ == "__main__":
    main()
