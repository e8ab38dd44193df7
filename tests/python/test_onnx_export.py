"""`dtrain export onnx`, checked by ONNX Runtime (the oracle, from PyPI in .venv-oracles): the
exported graph's outputs equal dtrain's forward pass within 1e-5 (and the logits before the
softmax within 1e-4 of their largest value), on the shipped models' deploy
nets, BVLC's CaffeNet and GoogLeNet deploy nets (when BVLC Caffe's model files sit beside the checkout), the benchmark's
ResNet-50 and MobileNet v2 in Caffe's format, and a net holding every mapped layer type in the
configurations where Caffe and ONNX differ most (Pooling's ceil rounding with padding, AVE's
divisor, in-place chains); and layers with no ONNX form are refused by name, leaving the output
file as it was.

Weights are random: He-scaled for convolutions and inner products, BatchNorm's statistics
measured on the input (so activations stay near unit scale through 50 layers and the softmax is
not saturated), the scale factor blob not 1 (so its division is checked)."""

import os
import re
import subprocess
import unittest

import numpy as np

import dtrain
from dtrain_testing import DTRAIN, ScratchCase

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.normpath(os.path.join(HERE, "..", ".."))
ORACLE = os.path.join(SOURCE, ".venv-oracles", "bin", "python")
RUNNER = os.path.join(SOURCE, "tests", "tools", "onnx_runtime_run.py")
BVLC_MODELS = os.path.normpath(os.path.join(SOURCE, "..", "shared", "data", "caffe", "models"))
TOLERANCE = 1e-5  # absolute, on outputs within [-1, 1] (probabilities); else relative
# The logits of a deploy net without its softmax, relative to the largest: float32 sums in other
# orders through 50 layers drift by ~1e-5 of the activations' scale (ResNet-50: 2e-5).
LOGITS_TOLERANCE = 1e-4


def randomize(net, inputs, rng):
    """Draws every layer's parameters; BatchNorm statistics from the activations of `inputs`."""
    layers = net.layers
    for index, layer in enumerate(layers):
        blobs = layer.blobs
        if not blobs:
            continue
        if layer.type == "BatchNorm":
            if index > 0:
                net.forward(end=layers[index - 1].name, **inputs)
            x = net.blobs[net.bottom_names[layer.name][0]].data
            axes = (0,) + tuple(range(2, x.ndim))
            factor = 2.5
            blobs[0].data[...] = x.mean(axis=axes) * factor
            blobs[1].data[...] = (x.var(axis=axes) + 0.01) * factor
            blobs[2].data[...] = factor
            continue
        weights = blobs[0].data
        if layer.type in ("Convolution", "Deconvolution", "InnerProduct"):
            fan_in = weights.size // weights.shape[0]
            weights[...] = rng.standard_normal(weights.shape) * np.sqrt(2.0 / fan_in)
        elif layer.type in ("Scale", "PReLU"):
            weights[...] = rng.uniform(0.5, 1.5, weights.shape)
        else:
            weights[...] = rng.standard_normal(weights.shape) * 0.5
        for blob in blobs[1:]:
            blob.data[...] = rng.standard_normal(blob.shape) * 0.1


class ExportCase(ScratchCase):

    def export(self, model, weights=None, output=None, *flags, expect_ok=True):
        args = [DTRAIN, "export", "onnx", "--model=" + model,
                "--output=" + (output or self.path("model.onnx"))] + list(flags)
        if weights:
            args.append("--weights=" + weights)
        result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if expect_ok and result.returncode != 0:
            self.fail("dtrain export onnx exited with %d:\n%s" % (result.returncode, result.stdout))
        return result


class OnnxCase(ExportCase):

    def setUp(self):
        if not os.path.exists(ORACLE):
            self.skipTest("no test oracles: run scripts/install-test-oracles.sh")
        super().setUp()

    def run_onnx(self, model, inputs):
        np.savez(self.path("inputs.npz"), **inputs)
        result = subprocess.run([ORACLE, RUNNER, model, self.path("inputs.npz"),
                                 self.path("outputs.npz")],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            self.fail("ONNX Runtime failed on %s:\n%s" % (model, result.stdout))
        return dict(np.load(self.path("outputs.npz")))

    def check_agreement(self, deploy, inputs=None, seed=3, *flags, tolerance=TOLERANCE,
                        batch=None):
        """Random weights into `deploy`, export, run both; returns {output: max abs difference}.
        With `batch`, the model is exported with --dynamic-batch and both run at that batch."""
        rng = np.random.default_rng(seed)
        net = dtrain.Net(deploy, phase=dtrain.TEST)
        if batch is not None:
            for name in net.inputs:
                net.blobs[name].reshape(batch, *net.blobs[name].shape[1:])
            net.reshape()
            flags = flags + ("--dynamic-batch",)
        if inputs is None:
            inputs = {name: rng.standard_normal(net.blobs[name].shape).astype(np.float32)
                      for name in net.inputs}
        randomize(net, inputs, rng)
        weights = self.path("random.caffemodel")
        net.save(weights)
        expected = {name: value.copy() for name, value in net.forward(**inputs).items()}
        self.export(deploy, weights, self.path("model.onnx"), *flags)
        got = self.run_onnx(self.path("model.onnx"), inputs)
        self.assertEqual(sorted(got), sorted(expected))
        differences = {}
        for name, value in expected.items():
            self.assertEqual(got[name].shape, value.shape, name)
            self.assertTrue(np.all(np.isfinite(value)), name)
            scale = max(1.0, float(np.abs(value).max()))  # relative beyond unit scale
            differences[name] = float(np.abs(got[name] - value).max())
            self.assertLessEqual(differences[name], tolerance * scale,
                                 "%s: output %s differs from dtrain's" % (deploy, name))
        print("%s: max abs difference %s (largest value %s)" % (
            os.path.relpath(deploy, os.path.dirname(os.path.dirname(deploy))), differences,
            {name: float(np.abs(value).max()) for name, value in expected.items()}))
        return differences

    def check_with_and_without_softmax(self, deploy):
        """The deploy net as it is, and without its final Softmax "prob" (so that the logits,
        whose errors the softmax would shrink, are compared too)."""
        self.check_agreement(deploy)
        with open(deploy) as f:
            text = f.read()
        logits, removed = re.subn(r'layer\s*\{\s*name:\s*"prob"[^{}]*\}', "", text)
        self.assertEqual(removed, 1, deploy)
        self.check_agreement(self.write(os.path.basename(deploy) + ".logits", logits),
                             tolerance=LOGITS_TOLERANCE)


# Every mapped layer type, where Caffe and ONNX differ most: odd sizes, Pooling rounded up with
# padding (and down), AVE's divisor at the edges, in-place chains, BatchNorm alone and with a
# Scale folded in (in place and not), scale and bias from a second bottom, ArgMax with and
# without an axis, a Silence, Splits inserted by the net, two inputs (one scaled in place), two
# convolutions sharing their parameters.
EVERY_LAYER = """name: "every_layer"
layer { name: "data" type: "Input" top: "data" top: "ids"
  input_param { shape { dim: 2 dim: 4 dim: 11 dim: 13 } shape { dim: 2 dim: 5 } } }
layer { name: "data_scale" type: "Power" bottom: "data" top: "data" power_param { scale: 0.8 } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
  convolution_param { num_output: 8 kernel_h: 3 kernel_w: 2 pad_h: 1 stride: 2 } }
layer { name: "prelu1" type: "PReLU" bottom: "conv1" top: "conv1" }
layer { name: "pool_max" type: "Pooling" bottom: "conv1" top: "pool_max"
  pooling_param { pool: MAX kernel_size: 3 stride: 2 pad: 1 } }
layer { name: "pool_ave" type: "Pooling" bottom: "conv1" top: "pool_ave"
  pooling_param { pool: AVE kernel_size: 3 stride: 2 pad: 1 } }
layer { name: "pool_floor" type: "Pooling" bottom: "conv1" top: "pool_floor"
  pooling_param { pool: MAX kernel_size: 3 stride: 2 round_mode: FLOOR } }
layer { name: "pool_edges" type: "Pooling" bottom: "data" top: "pool_edges"
  pooling_param { pool: AVE kernel_size: 2 stride: 2 } }
layer { name: "pool_global" type: "Pooling" bottom: "conv1" top: "pool_global"
  pooling_param { pool: AVE global_pooling: true } }
layer { name: "sum" type: "Eltwise" bottom: "pool_max" bottom: "pool_ave" top: "sum"
  eltwise_param { operation: SUM coeff: 0.5 coeff: -1.5 } }
layer { name: "prod" type: "Eltwise" bottom: "pool_max" bottom: "pool_ave" bottom: "sum"
  top: "prod" eltwise_param { operation: PROD } }
layer { name: "max" type: "Eltwise" bottom: "pool_max" bottom: "sum" top: "max"
  eltwise_param { operation: MAX } }
layer { name: "concat" type: "Concat" bottom: "sum" bottom: "prod" bottom: "max" top: "concat" }
layer { name: "bn" type: "BatchNorm" bottom: "concat" top: "concat" }
layer { name: "leaky" type: "ReLU" bottom: "concat" top: "concat" relu_param { negative_slope: 0.1 } }
layer { name: "slice" type: "Slice" bottom: "concat" top: "s0" top: "s1" top: "s2"
  slice_param { axis: 1 slice_point: 5 slice_point: 13 } }
layer { name: "sigmoid" type: "Sigmoid" bottom: "s0" top: "sig" }
layer { name: "tanh" type: "TanH" bottom: "s1" top: "th" }
layer { name: "elu" type: "ELU" bottom: "s2" top: "elu" elu_param { alpha: 0.7 } }
layer { name: "abs" type: "AbsVal" bottom: "s2" top: "abs" }
layer { name: "bnll" type: "BNLL" bottom: "abs" top: "bnll" }
layer { name: "silence" type: "Silence" bottom: "bnll" }
layer { name: "power" type: "Power" bottom: "s1" top: "power"
  power_param { power: 2 scale: 0.5 shift: 1 } }
layer { name: "exp" type: "Exp" bottom: "s0" top: "exp" exp_param { base: 2 scale: 0.3 shift: 0.1 } }
layer { name: "exp_e" type: "Exp" bottom: "s0" top: "exp_e" }
layer { name: "log" type: "Log" bottom: "sig" top: "log" log_param { base: 10 scale: 0.5 shift: 3 } }
layer { name: "threshold" type: "Threshold" bottom: "th" top: "threshold"
  threshold_param { threshold: 0.1 } }
layer { name: "clip" type: "Clip" bottom: "elu" top: "clip" clip_param { min: -0.3 max: 0.4 } }
layer { name: "swish" type: "Swish" bottom: "s2" top: "swish" swish_param { beta: 1.5 } }
layer { name: "flat" type: "Flatten" bottom: "pool_global" top: "flat" }
layer { name: "scale_by_blob" type: "Scale" bottom: "th" bottom: "flat" top: "scale_by_blob"
  scale_param { axis: 0 bias_term: true } }
layer { name: "bias_by_blob" type: "Bias" bottom: "th" bottom: "flat" top: "bias_by_blob"
  bias_param { axis: 0 } }
layer { name: "scale" type: "Scale" bottom: "elu" top: "scaled" scale_param { bias_term: true } }
layer { name: "bias" type: "Bias" bottom: "scaled" top: "biased" }
layer { name: "mvn" type: "MVN" bottom: "biased" top: "mvn" }
layer { name: "mvn_across" type: "MVN" bottom: "scaled" top: "mvn_across"
  mvn_param { across_channels: true normalize_variance: false } }
layer { name: "lrn" type: "LRN" bottom: "s1" top: "lrn"
  lrn_param { local_size: 3 alpha: 0.1 beta: 0.75 k: 2 } }
layer { name: "lrn_within" type: "LRN" bottom: "s1" top: "lrn_within"
  lrn_param { local_size: 3 alpha: 0.2 beta: 0.6 norm_region: WITHIN_CHANNEL } }
layer { name: "deconv" type: "Deconvolution" bottom: "lrn" top: "deconv"
  convolution_param { num_output: 4 kernel_size: 3 stride: 2 pad: 1 group: 2 } }
layer { name: "conv_dilated" type: "Convolution" bottom: "deconv" top: "conv_dilated"
  convolution_param { num_output: 6 kernel_size: 3 dilation: 2 group: 2 } }
layer { name: "crop" type: "Crop" bottom: "deconv" bottom: "conv_dilated" top: "crop"
  crop_param { axis: 2 offset: 1 offset: 2 } }
layer { name: "tile" type: "Tile" bottom: "crop" top: "tile" tile_param { axis: 1 tiles: 2 } }
layer { name: "shuffle" type: "ShuffleChannel" bottom: "tile" top: "shuffle"
  shuffle_channel_param { group: 2 } }
layer { name: "reshape" type: "Reshape" bottom: "shuffle" top: "reshape"
  reshape_param { shape { dim: 0 dim: -1 dim: 3 } } }
layer { name: "ip_axis2" type: "InnerProduct" bottom: "reshape" top: "ip_axis2"
  inner_product_param { num_output: 5 axis: 2 } }
layer { name: "ip_transposed" type: "InnerProduct" bottom: "flat" top: "ip_transposed"
  inner_product_param { num_output: 6 transpose: true } }
layer { name: "ip_4d" type: "InnerProduct" bottom: "conv_dilated" top: "ip_4d"
  inner_product_param { num_output: 7 bias_term: false } }
layer { name: "softmax" type: "Softmax" bottom: "ip_axis2" top: "softmax" softmax_param { axis: 2 } }
layer { name: "argmax" type: "ArgMax" bottom: "softmax" top: "argmax" argmax_param { axis: 1 } }
layer { name: "argmax_top3" type: "ArgMax" bottom: "ip_transposed" top: "argmax_top3"
  argmax_param { top_k: 3 out_max_val: true } }
layer { name: "argmax_values" type: "ArgMax" bottom: "ip_axis2" top: "argmax_values"
  argmax_param { axis: 2 top_k: 2 out_max_val: true } }
layer { name: "argmax_flat" type: "ArgMax" bottom: "pool_floor" top: "argmax_flat" }
layer { name: "sum_rows" type: "Reduction" bottom: "max" top: "sum_rows"
  reduction_param { axis: 1 coeff: 0.5 } }
layer { name: "asum" type: "Reduction" bottom: "max" top: "asum"
  reduction_param { operation: ASUM axis: 2 } }
layer { name: "sumsq" type: "Reduction" bottom: "max" top: "sumsq"
  reduction_param { operation: SUMSQ axis: -1 } }
layer { name: "mean" type: "Reduction" bottom: "max" top: "mean"
  reduction_param { operation: MEAN } }
layer { name: "embed" type: "Embed" bottom: "ids" top: "embed"
  embed_param { input_dim: 7 num_output: 3 } }
layer { name: "conv2" type: "Convolution" bottom: "pool_edges" top: "conv2"
  convolution_param { num_output: 6 kernel_size: 1 bias_term: false } }
layer { name: "conv2/bn" type: "BatchNorm" bottom: "conv2" top: "conv2" }
layer { name: "conv2/scale" type: "Scale" bottom: "conv2" top: "conv2" scale_param { bias_term: true } }
layer { name: "conv2/relu" type: "ReLU" bottom: "conv2" top: "conv2" }
layer { name: "drop" type: "Dropout" bottom: "conv2" top: "conv2" }
layer { name: "bn3" type: "BatchNorm" bottom: "conv2" top: "bn3" }
layer { name: "scale3" type: "Scale" bottom: "bn3" top: "scale3" }
layer { name: "learned" type: "Parameter" top: "learned"
  parameter_param { shape { dim: 6 dim: 6 dim: 7 } } }
layer { name: "plus_learned" type: "Bias" bottom: "conv2" bottom: "learned" top: "plus_learned" }
layer { name: "twin_a" type: "Convolution" bottom: "pool_edges" top: "twin_a"
  param { name: "twin_weights" } param { name: "twin_bias" }
  convolution_param { num_output: 3 kernel_size: 2 } }
layer { name: "twin_b" type: "Convolution" bottom: "data" top: "twin_b"
  param { name: "twin_weights" } param { name: "twin_bias" }
  convolution_param { num_output: 3 kernel_size: 2 } }
"""


class EveryLayerAgrees(OnnxCase):

    def test_every_mapped_layer_type(self):
        rng = np.random.default_rng(5)
        inputs = {"data": rng.standard_normal((2, 4, 11, 13)).astype(np.float32),
                  "ids": rng.integers(0, 7, (2, 5)).astype(np.float32)}
        model = self.write("every_layer.prototxt", EVERY_LAYER)
        differences = self.check_agreement(model, inputs)
        self.assertIn("scale3", differences)
        self.assertIn("embed", differences)
        self.assertNotIn("bnll", differences)  # silenced
        self.assertIn("twin_b", differences)
        self.assertIn("plus_learned", differences)
        for opset in ("14", "17"):
            with self.subTest(opset=opset):
                self.check_agreement(model, inputs, 5, "--opset=" + opset)


# An SSD head up to what DetectionOutput takes (DetectionOutput itself has no exporter):
# per-channel and shared Normalize, the Permute + Flatten of the box branches, the priors (a
# constant), and SENet's Axpy.
SSD_HEAD = """
name: "ssd_head"
input: "data" input_shape { dim: 2 dim: 4 dim: 6 dim: 5 }
input: "gate" input_shape { dim: 2 dim: 4 }
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"
  convolution_param { num_output: 8 kernel_size: 3 pad: 1 } }
layer { name: "norm" type: "Normalize" bottom: "conv" top: "norm"
  norm_param { across_spatial: false channel_shared: false
               scale_filler { type: "constant" value: 20 } } }
layer { name: "norm_all" type: "Normalize" bottom: "data" top: "norm_all"
  norm_param { across_spatial: true eps: 0.001 } }
layer { name: "loc" type: "Convolution" bottom: "norm" top: "loc"
  convolution_param { num_output: 12 kernel_size: 3 pad: 1 } }
layer { name: "loc_perm" type: "Permute" bottom: "loc" top: "loc_perm"
  permute_param { order: 0 order: 2 order: 3 order: 1 } }
layer { name: "loc_flat" type: "Flatten" bottom: "loc_perm" top: "loc_flat"
  flatten_param { axis: 1 } }
layer { name: "partial" type: "Permute" bottom: "conv" top: "partial"
  permute_param { order: 0 order: 3 } }
layer { name: "axpy" type: "Axpy" bottom: "gate" bottom: "norm_all" bottom: "data" top: "axpy" }
layer { name: "priors" type: "PriorBox" bottom: "conv" bottom: "data" top: "priors"
  prior_box_param { min_size: 2 max_size: 4 aspect_ratio: 2 flip: true clip: true
                    variance: 0.1 variance: 0.1 variance: 0.2 variance: 0.2 } }
"""


class SsdHeadAgrees(OnnxCase):

    def test_normalize_permute_priors_and_axpy(self):
        model = self.write("ssd_head.prototxt", SSD_HEAD)
        differences = self.check_agreement(model)
        self.assertEqual(sorted(differences), ["axpy", "loc_flat", "partial", "priors"])
        self.assertEqual(differences["priors"], 0.0)
        self.check_agreement(model, None, 4, batch=3)


# YOLO v2's passthrough: Reorg with darknet's index arithmetic (a Reshape, SpaceToDepth, Reshape)
# and reversed (DepthToSpace); both are permutations, so ONNX Runtime gives exactly dtrain's (the
# convolution beside them gives the export weights to carry).
PASSTHROUGH = """
name: "passthrough"
input: "data" input_shape { dim: 2 dim: 8 dim: 6 dim: 4 }
layer { name: "reorg" type: "Reorg" bottom: "data" top: "reorg" reorg_param { stride: 2 } }
layer { name: "back" type: "Reorg" bottom: "data" top: "back"
  reorg_param { stride: 2 reverse: true } }
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"
  convolution_param { num_output: 2 kernel_size: 1 } }
"""


class PassthroughAgrees(OnnxCase):

    def test_reorg_both_ways(self):
        model = self.write("passthrough.prototxt", PASSTHROUGH)
        differences = self.check_agreement(model)
        self.assertEqual((differences["reorg"], differences["back"]), (0.0, 0.0))
        self.check_agreement(model, None, 4, batch=3)


# Convolutions over three and one spatial axes (VNet's volumes, sequences): per-axis windows,
# groups, dilation, and a Deconvolution back up.
VOLUMES = """
name: "volumes"
input: "data" input_shape { dim: 2 dim: 4 dim: 6 dim: 7 dim: 5 }
input: "seq" input_shape { dim: 2 dim: 3 dim: 17 }
layer { name: "conv3d" type: "Convolution" bottom: "data" top: "conv3d"
  convolution_param { num_output: 6 group: 2 kernel_size: 3 kernel_size: 2 kernel_size: 1
    stride: 2 stride: 1 stride: 1 pad: 1 pad: 0 pad: 1 dilation: 1 dilation: 2 dilation: 1 } }
layer { name: "down" type: "Convolution" bottom: "conv3d" top: "down"
  convolution_param { num_output: 8 kernel_size: 2 stride: 2 } }
layer { name: "up" type: "Deconvolution" bottom: "down" top: "up"
  convolution_param { num_output: 4 kernel_size: 2 stride: 2 pad: 0 } }
layer { name: "conv1d" type: "Convolution" bottom: "seq" top: "conv1d"
  convolution_param { num_output: 4 kernel_size: 3 stride: 2 pad: 1 dilation: 2 } }
layer { name: "up1d" type: "Deconvolution" bottom: "conv1d" top: "up1d"
  convolution_param { num_output: 2 kernel_size: 4 stride: 2 pad: 1 } }
"""


class VolumesAgree(OnnxCase):

    def test_convolutions_over_three_and_one_spatial_axes(self):
        model = self.write("volumes.prototxt", VOLUMES)
        differences = self.check_agreement(model)
        self.assertEqual(sorted(differences), ["up", "up1d"])


class PythonExportAgrees(OnnxCase):
    """net.export_onnx from the Python module writes the net's current parameters."""

    def test_a_net_edited_in_python_exports_as_it_computes(self):
        deploy = os.path.join(SOURCE, "models", "cifar10_quick", "deploy.prototxt")
        rng = np.random.default_rng(8)
        net = dtrain.Net(deploy, phase=dtrain.TEST)
        inputs = {"data": rng.standard_normal(net.blobs["data"].shape).astype(np.float32)}
        randomize(net, inputs, rng)
        net.params["conv1"][0].data[...] *= -1  # surgery after the random draw
        expected = net.forward(**inputs)["prob"].copy()
        net.export_onnx(self.path("edited.onnx"), opset=17)
        got = self.run_onnx(self.path("edited.onnx"), inputs)["prob"]
        self.assertLessEqual(float(np.abs(got - expected).max()), TOLERANCE)

    def test_a_train_phase_net_is_refused(self):
        net = dtrain.Net(os.path.join(SOURCE, "models", "cifar10_quick", "deploy.prototxt"),
                         phase=dtrain.TRAIN)
        with self.assertRaisesRegex(dtrain.Error, "built for the TRAIN phase; ONNX export takes "
                                                  "a TEST-phase net"):
            net.export_onnx(self.path("train.onnx"))
        self.assertFalse(os.path.exists(self.path("train.onnx")))


class DynamicBatchAgrees(OnnxCase):
    """--dynamic-batch: the exported model runs at another batch than the deploy file's."""

    def test_models_at_other_batches(self):
        for deploy, batch in ((os.path.join(SOURCE, "models", "lenet_fashion", "deploy.prototxt"), 3),
                              (os.path.join(SOURCE, "bench", "nets", "resnet50_deploy.prototxt"), 2)):
            with self.subTest(deploy=deploy):
                self.check_agreement(deploy, batch=batch)

    def test_every_layer_type_at_another_batch(self):
        # Along the batch: a mean over every axis, a bias learned per example.
        text = EVERY_LAYER.replace("reduction_param { operation: MEAN }",
                                   "reduction_param { operation: MEAN axis: 1 }")
        text = text.replace("scale_param { axis: 0 bias_term: true }", "scale_param { axis: 0 }")
        rng = np.random.default_rng(6)
        inputs = {"data": rng.standard_normal((3, 4, 11, 13)).astype(np.float32),
                  "ids": rng.integers(0, 7, (3, 5)).astype(np.float32)}
        self.check_agreement(self.write("every_layer.prototxt", text), inputs, batch=3)


class ModelsAgree(OnnxCase):

    def test_shipped_models(self):
        for model in ("lenet_fashion", "cifar10_quick", "cifar10_full", "googlenet"):
            with self.subTest(model=model):
                self.check_with_and_without_softmax(
                    os.path.join(SOURCE, "models", model, "deploy.prototxt"))

    def test_resnet50_and_mobilenet_v2_in_caffe_format(self):
        for net in ("resnet50", "mobilenet_v2"):
            with self.subTest(net=net):
                self.check_with_and_without_softmax(
                    os.path.join(SOURCE, "bench", "nets", net + "_deploy.prototxt"))

    def test_bvlc_deploy_nets(self):
        if not os.path.isdir(BVLC_MODELS):
            self.skipTest("no ../shared/data/caffe (BVLC Caffe's model files)")
        for model in ("bvlc_reference_caffenet", "bvlc_googlenet"):
            with self.subTest(model=model):
                self.check_with_and_without_softmax(os.path.join(BVLC_MODELS, model, "deploy.prototxt"))


SMALL = """name: "small"
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 2 dim: 6 dim: 6 } } }
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"
  convolution_param { num_output: 3 kernel_size: 3 } }
%s
"""


class Refusals(ExportCase):
    """What has no exact ONNX form is an error naming the layer; the output is left as it was."""

    def refused(self, extra, *flags):
        model = self.write("net.prototxt", SMALL % extra)
        output = self.write("model.onnx", "the previous file")
        result = self.export(model, None, output, *flags, expect_ok=False)
        self.assertNotEqual(result.returncode, 0, result.stdout)
        with open(output) as f:
            self.assertEqual(f.read(), "the previous file")
        return result.stdout

    def test_layers_without_an_onnx_form_are_named(self):
        cases = {
            'layer { name: "labels" type: "Input" top: "label" input_param { shape { dim: 1 dim: 4 dim: 4 } } }'
            'layer { name: "loss" type: "SoftmaxWithLoss" bottom: "conv" bottom: "label" '
            'top: "loss" }':
                "layer 'loss' (SoftmaxWithLoss) is a loss or accuracy layer; export a deploy net "
                "without them",
            'layer { name: "noise" type: "DummyData" top: "noise" '
            'dummy_data_param { shape { dim: 1 } } }':
                "layer 'noise' (DummyData) reads a data source; export a deploy net, whose "
                "inputs are Input layers",
            'layer { name: "pool" type: "Pooling" bottom: "conv" top: "pool" '
            'pooling_param { pool: STOCHASTIC kernel_size: 2 } }':
                "layer 'pool' (Pooling): STOCHASTIC pooling's test-time weighted average; it has "
                "no exact ONNX equivalent",
            'layer { name: "pool" type: "Pooling" bottom: "conv" top: "pool" top: "mask" '
            'pooling_param { pool: MAX kernel_size: 2 } }':
                "layer 'pool' (Pooling): its second top, the argmax mask",
            'layer { name: "spp" type: "SPP" bottom: "conv" top: "spp" '
            'spp_param { pyramid_height: 2 } }':
                "layer 'spp' (SPP) has no exact ONNX equivalent in dtrain export; the layer "
                "types exported are Input, AbsVal,",
            'layer { name: "bn" type: "BatchNorm" bottom: "conv" top: "conv" '
            'batch_norm_param { use_global_stats: false } }':
                "layer 'bn' (BatchNorm): use_global_stats: false normalises by each batch's own "
                "statistics",
            'layer { name: "pool" type: "Pooling" bottom: "conv" top: "pool" '
            'pooling_param { pool: MAX kernel_size: 1 stride: 2 } }':
                "layer 'pool' (Pooling): its last window (stride 2 > kernel 1) lies wholly past "
                "the input",
        }
        for extra, message in cases.items():
            with self.subTest(message=message):
                self.assertIn(message, self.refused(extra))

    def test_a_dynamic_batch_refuses_layers_working_along_it(self):
        for extra in ('layer { name: "join" type: "Concat" bottom: "conv" bottom: "conv" '
                      'top: "join" concat_param { axis: 0 } }',
                      'layer { name: "join" type: "Reduction" bottom: "conv" top: "join" }'):
            with self.subTest(extra=extra):
                self.assertIn("layer 'join' (%s): works along axis 0, the batch, which "
                              "--dynamic-batch leaves open" % ("Concat" if "Concat" in extra
                                                               else "Reduction"),
                              self.refused(extra, "--dynamic-batch"))

    def test_opsets_outside_the_checked_range_are_refused(self):
        for opset in ("12", "18"):
            with self.subTest(opset=opset):
                self.assertIn("--opset %s is not supported: 13 to 17" % opset,
                              self.refused("", "--opset=" + opset))

    def test_damaged_weights_name_the_file_and_leave_the_output(self):
        model = self.write("net.prototxt", SMALL % "")
        good = self.path("good.caffemodel")
        dtrain.Net(model).save(good)
        with open(good, "rb") as f:
            data = f.read()
        damaged = self.path("damaged.caffemodel")
        with open(damaged, "wb") as f:
            f.write(data[:len(data) // 2])
        output = self.write("model.onnx", "the previous file")
        result = self.export(model, damaged, output, expect_ok=False)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("damaged.caffemodel: truncated or corrupt", result.stdout)
        with open(output) as f:
            self.assertEqual(f.read(), "the previous file")

    def test_missing_files_name_the_flag_or_path(self):
        self.assertIn("--model=deploy.prototxt is required",
                      self.export("", expect_ok=False).stdout)
        self.assertIn("no_such.prototxt", self.export(self.path("no_such.prototxt"),
                                                      expect_ok=False).stdout)


if __name__ == "__main__":
    unittest.main()
