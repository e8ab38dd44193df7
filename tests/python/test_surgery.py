"""Net surgery as pycaffe's example does it: a classifier's inner products turned into
convolutions, their weights copied over through the arrays, so that the net slides over a
larger image; the arrays view the nets' tensors (no copies)."""

import unittest

import numpy as np

import dtrain
from dtrain_testing import PatchNetCase, run_dtrain

FULLY_CONVOLUTIONAL = """name: "patches_full_conv"
layer { name: "data" type: "Input" top: "data"
  input_param { shape { dim: 1 dim: 1 dim: 16 dim: 16 } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
  convolution_param { num_output: 8 kernel_size: 3 } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1"
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "ip1-conv" type: "Convolution" bottom: "pool1" top: "ip1-conv"
  convolution_param { num_output: 16 kernel_size: 5 } }
layer { name: "relu2" type: "ReLU" bottom: "ip1-conv" top: "ip1-conv" }
layer { name: "ip2-conv" type: "Convolution" bottom: "ip1-conv" top: "ip2-conv"
  convolution_param { num_output: 4 kernel_size: 1 } }
"""


class NetSurgery(PatchNetCase):

    def test_inner_products_cast_into_convolutions(self):
        run_dtrain("train", "--solver=" + self.solver("solver.prototxt", "snap"))
        net = dtrain.Net(self.deploy, weights=self.path("snap_iter_30.caffemodel"))
        full = dtrain.Net(self.write("full_conv.prototxt", FULLY_CONVOLUTIONAL))
        self.assertEqual(full.params["ip1-conv"][0].shape, (16, 8, 5, 5))
        self.assertEqual(net.params["ip1"][0].shape, (16, 200))

        for fc, conv in (("ip1", "ip1-conv"), ("ip2", "ip2-conv")):
            full.params[conv][0].data.flat = net.params[fc][0].data.flat
            full.params[conv][1].data[...] = net.params[fc][1].data
        full.params["conv1"][0].data[...] = net.params["conv1"][0].data
        full.params["conv1"][1].data[...] = net.params["conv1"][1].data

        rng = np.random.RandomState(3)
        image = rng.uniform(0, 1, size=(1, 1, 16, 16)).astype(np.float32)
        scores = full.forward(data=image)["ip2-conv"]
        self.assertEqual(scores.shape, (1, 4, 3, 3))  # 16 -> 14 -> 7 -> 3
        crops = np.zeros((20, 1, 12, 12), np.float32)
        places = [(0, 0), (0, 2), (2, 2), (1, 0)]  # output positions; 2 input pixels per step
        for k, (row, col) in enumerate(places):
            crops[k] = image[0, :, 2 * row:2 * row + 12, 2 * col:2 * col + 12]
        net.forward(data=crops)
        classifier = net.blobs["ip2"].data
        for k, (row, col) in enumerate(places):
            np.testing.assert_allclose(scores[0, :, row, col], classifier[k], rtol=1e-5, atol=1e-5)

        # Saved and read back, the surgery's weights are the same values.
        full.save(self.path("full_conv.caffemodel"))
        again = dtrain.Net(self.path("full_conv.prototxt"), self.path("full_conv.caffemodel"),
                           dtrain.TEST)
        for layer, blobs in full.params.items():
            for mine, theirs in zip(blobs, again.params[layer]):
                np.testing.assert_array_equal(mine.data, theirs.data)
        np.testing.assert_array_equal(again.forward(data=image)["ip2-conv"], scores)

    def test_arrays_view_the_tensors(self):
        net = dtrain.Net(self.deploy)
        weights = net.params["conv1"][0].data
        self.assertTrue(np.shares_memory(weights, net.params["conv1"][0].data))
        self.assertEqual(weights.dtype, np.float32)
        weights[...] = 0
        net.params["conv1"][1].data[...] = [0.5] * 8  # conv1 is then 0.5 everywhere
        out = net.forward(data=np.ones((20, 1, 12, 12), np.float32), blobs=["pool1"])
        np.testing.assert_array_equal(out["pool1"], np.full((20, 8, 5, 5), 0.5, np.float32))
        # An array keeps its net alive.
        data = net.blobs["pool1"].data
        del net, out
        self.assertEqual(float(data.sum()), 0.5 * data.size)


if __name__ == "__main__":
    unittest.main()


BLOCKED = """name: "wide"
layer { name: "data" type: "Input" top: "data"
  input_param { shape { dim: 2 dim: 16 dim: 8 dim: 8 } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
  convolution_param { num_output: 32 kernel_size: 3 pad: 1 weight_filler { type: "xavier" } } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "conv2" type: "Convolution" bottom: "conv1" top: "conv2"
  convolution_param { num_output: 32 kernel_size: 3 pad: 1 weight_filler { type: "xavier" } } }
"""


def convolve(x, weights, bias):
    """Caffe's convolution, 3 x 3, pad 1, stride 1, in NumPy (float64)."""
    n, c, h, w = x.shape
    padded = np.zeros((n, c, h + 2, w + 2))
    padded[:, :, 1:-1, 1:-1] = x
    out = np.zeros((n, weights.shape[0], h, w))
    for dy in range(3):
        for dx in range(3):
            out += np.einsum("nchw,oc->nohw", padded[:, :, dy:dy + h, dx:dx + w],
                             weights[:, :, dy, dx])
    return out + bias[None, :, None, None]


class ArraysWithBlockedLayouts(PatchNetCase):
    """Channels that fill oneDNN's 16-wide blocks: the kernels keep these activations in their
    own layouts between layers, and the arrays must still be the values."""

    def test_reads_and_writes_between_forwards(self):
        net = dtrain.Net(self.write("wide.prototxt", BLOCKED))
        rng = np.random.RandomState(9)
        held = net.blobs["data"].data  # taken before any forward, written after one
        for _ in range(3):
            x = rng.normal(size=(2, 16, 8, 8)).astype(np.float32)
            held[...] = x
            net.forward()
            w1, b1 = (p.data.astype(np.float64) for p in net.params["conv1"])
            w2, b2 = (p.data.astype(np.float64) for p in net.params["conv2"])
            conv1 = np.maximum(convolve(x.astype(np.float64), w1, b1), 0)
            np.testing.assert_allclose(net.blobs["conv1"].data, conv1, rtol=1e-4, atol=1e-4)
            np.testing.assert_allclose(net.blobs["conv2"].data, convolve(conv1, w2, b2),
                                       rtol=1e-4, atol=1e-4)
            # New weights through the arrays count at the next forward.
            net.params["conv2"][0].data[...] *= -0.5
            net.params["conv2"][1].data[...] = rng.normal(size=32)
