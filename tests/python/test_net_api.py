"""dtrain.Net's surface: how it is built, forward and backward (a numeric gradient check
through the input), reshaping, and the errors a user's mistakes get."""

import unittest

import numpy as np

import dtrain
from dtrain_testing import PatchNetCase


class NetSurface(PatchNetCase):

    def test_pycaffe_forms_of_the_constructor(self):
        weights = self.path("w.caffemodel")
        dtrain.Net(self.deploy).save(weights)
        for net in (dtrain.Net(self.deploy, dtrain.TEST), dtrain.Net(self.deploy, weights, "TEST"),
                    dtrain.Net(self.deploy, weights=weights, phase=dtrain.TEST),
                    dtrain.Net(self.deploy, dtrain.TEST, weights=weights)):
            self.assertEqual(net.phase, dtrain.TEST)
            self.assertIsInstance(net, dtrain.Net)
            self.assertEqual(net.inputs, ["data"])
            self.assertEqual(net.outputs, ["prob"])
        self.assertEqual([layer.type for layer in net.layers],
                         ["Input", "Convolution", "ReLU", "Pooling", "InnerProduct", "ReLU",
                          "InnerProduct", "Softmax"])
        self.assertEqual(list(net.params), ["conv1", "ip1", "ip2"])
        self.assertEqual(net.blobs["data"].shape, (20, 1, 12, 12))
        self.assertEqual((net.blobs["data"].num, net.blobs["data"].channels), (20, 1))
        self.assertEqual(net.top_names["conv1"], ["conv1"])
        train = dtrain.Net(self.train_val, phase="TRAIN")
        self.assertEqual(train.phase, dtrain.TRAIN)
        self.assertIn("label", train.blobs)

    def test_forward_between_layers(self):
        net = dtrain.Net(self.deploy)
        x = np.random.RandomState(0).uniform(size=(20, 1, 12, 12)).astype(np.float32)
        whole = net.forward(data=x)["prob"].copy()
        np.testing.assert_allclose(whole.sum(axis=1), np.ones(20), rtol=1e-5)
        part = net.forward(start="conv1", end="relu2")  # relu2 computes ip1 in place
        self.assertEqual(list(part), ["ip1"])
        rest = net.forward(start="ip2")
        np.testing.assert_array_equal(rest["prob"], whole)

    def test_backward_gives_the_numeric_gradient_of_the_input(self):
        text = open(self.deploy).read().replace('name: "patches"', 'name: "patches"\n'
                                                'force_backward: true')
        net = dtrain.Net(self.write("deploy_backward.prototxt", text))
        rng = np.random.RandomState(1)
        x = rng.uniform(size=(20, 1, 12, 12)).astype(np.float64)
        w = rng.uniform(-1, 1, size=(20, 4)).astype(np.float32)

        def objective(values):
            prob = net.forward(data=values.astype(np.float32))["prob"].astype(np.float64)
            return float(np.sum(prob * w))

        objective(x)
        grad = net.backward(prob=w)["data"].copy()
        self.assertEqual(grad.shape, x.shape)
        step = 1e-2
        for index in [(0, 0, 3, 3), (1, 0, 5, 8), (7, 0, 10, 1), (19, 0, 6, 6)]:
            up, down = x.copy(), x.copy()
            up[index] += step
            down[index] -= step
            numeric = (objective(up) - objective(down)) / (2 * step)
            self.assertAlmostEqual(grad[index], numeric, delta=2e-3 * max(1, abs(numeric)))

    def test_reshaping_the_input(self):
        net = dtrain.Net(self.deploy)
        x = np.random.RandomState(2).uniform(size=(20, 1, 12, 12)).astype(np.float32)
        full = net.forward(data=x)["prob"].copy()
        net.blobs["data"].reshape(3, 1, 12, 12)
        net.reshape()
        self.assertEqual(net.blobs["prob"].shape, (3, 4))
        np.testing.assert_allclose(net.forward(data=x[:3])["prob"], full[:3], rtol=1e-6)
        with self.assertRaises(ValueError):
            net.blobs["data"].reshape(3, -1, 12, 12)

    def test_forward_all_pads_the_last_batch(self):
        net = dtrain.Net(self.deploy)
        x = np.random.RandomState(4).uniform(size=(45, 1, 12, 12)).astype(np.float32)
        out = net.forward_all(data=x)["prob"]
        self.assertEqual(out.shape, (45, 4))
        np.testing.assert_allclose(out[:20], net.forward(data=x[:20])["prob"], rtol=1e-6)

    def test_a_range_cannot_cut_a_fused_group(self):
        text = """name: "bn"
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 2 dim: 3 dim: 4 dim: 4 } } }
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"
  convolution_param { num_output: 8 kernel_size: 1 weight_filler { type: "gaussian" std: 0.5 } } }
layer { name: "bn" type: "BatchNorm" bottom: "conv" top: "conv" }
layer { name: "scale" type: "Scale" bottom: "conv" top: "conv" scale_param { bias_term: true } }
layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }
layer { name: "ip" type: "InnerProduct" bottom: "conv" top: "ip" inner_product_param { num_output: 2 } }
"""
        net = dtrain.Net(self.write("bn.prototxt", text))
        with self.assertRaisesRegex(ValueError, "'scale' runs inside 'bn'"):
            net.forward(end="bn")
        with self.assertRaisesRegex(ValueError, "'relu' runs inside 'bn'"):
            net.forward(start="relu")
        x = np.random.RandomState(8).normal(size=(2, 3, 4, 4)).astype(np.float32)
        net.params["scale"][0].data[...] = 2.0  # read by the fused BatchNorm at every forward
        whole = net.forward(data=x)["ip"].copy()
        unfused = dtrain.Net(self.write("bn_unfused.prototxt", 'fuse_layers: false\n' + text))
        for layer, blobs in net.params.items():
            for mine, theirs in zip(blobs, unfused.params[layer]):
                theirs.data[...] = mine.data
        np.testing.assert_allclose(unfused.forward(data=x)["ip"], whole, rtol=1e-5, atol=1e-6)
        self.assertTrue(np.all(unfused.forward(data=x, end="relu")["conv"] >= 0))

    def test_errors_name_what_is_wrong(self):
        with self.assertRaisesRegex(dtrain.Error, "no_such.prototxt"):
            dtrain.Net(self.path("no_such.prototxt"))
        bad = self.write("bad_type.prototxt", open(self.deploy).read().replace(
            'type: "Softmax"', 'type: "NoSuchLayer"'))
        with self.assertRaisesRegex(dtrain.Error, "NoSuchLayer"):
            dtrain.Net(bad)
        with self.assertRaisesRegex(dtrain.Error, r"bad_syntax.prototxt:2"):
            dtrain.Net(self.write("bad_syntax.prototxt", 'name: "x"\nlayer { name: }\n'))
        with self.assertRaises(ValueError):
            dtrain.Net(self.deploy, phase="VALIDATE")
        net = dtrain.Net(self.deploy)
        with self.assertRaisesRegex(ValueError, r"\(20, 1, 12, 12\)"):
            net.forward(data=np.zeros((2, 1, 12, 12)))
        with self.assertRaisesRegex(KeyError, "nope"):
            net.forward(start="nope")
        with self.assertRaisesRegex(KeyError, "nope"):
            net.forward(nope=np.zeros(1))
        # Weights of another shape: the layer and both shapes, and nothing copied.
        other = self.write("wider.prototxt", open(self.deploy).read().replace(
            "num_output: 16", "num_output: 17"))
        dtrain.Net(other).save(self.path("wider.caffemodel"))
        before = net.params["ip1"][0].data.copy()
        with self.assertRaisesRegex(dtrain.Error, "ip1"):
            net.copy_from(self.path("wider.caffemodel"))
        np.testing.assert_array_equal(net.params["ip1"][0].data, before)
        with self.assertRaisesRegex(dtrain.Error, "nothing.caffemodel"):
            net.copy_from(self.path("nothing.caffemodel"))


if __name__ == "__main__":
    unittest.main()
