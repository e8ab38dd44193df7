#!/usr/bin/env python3
"""A small MobileNet-SSD for the synthetic shapes (make_shapes.py), in the SSD fork's style.

Writes OUT/train.prototxt, OUT/test.prototxt and OUT/solver.prototxt: a MobileNet v1 body at
half width (depthwise 3x3 + pointwise 1x1, each with BatchNorm, Scale and ReLU), SSD heads on the
10x10, 5x5 and 3x3 feature maps of a SIZE x SIZE input (default 160), PriorBox, MultiBoxLoss
(the fork's defaults: SMOOTH_L1, SOFTMAX, PER_PREDICTION matching at 0.5, MAX_NEGATIVE mining 3:1,
CENTER_SIZE codes), and for the test net DetectionOutput and DetectionEvaluate, so that the
solver's test phase reports mAP (eval_type "detection", ap_version "11point"). The train data
layer augments as the fork's SSD300 recipe does (its seven batch samplers, photometric
distortion, mirror, emit_constraint CENTER), resizing every sample to SIZE x SIZE.

Usage: make_ssd_net.py OUT --data DIR [--size S] [--batch B] [--iters N] [--lr L]
  DIR holds train_lmdb, test_lmdb (dtrain convert annoset) and test.txt (to count the test images).
"""
import argparse
import os

NUM_CLASSES = 5  # background + the four shapes


class Net:
    def __init__(self):
        self.lines = []

    def layer(self, text):
        self.lines.append("layer {\n" + "\n".join("  " + l for l in text.strip().split("\n")) + "\n}")

    def conv_bn(self, name, bottom, out, kernel, stride, group=1):
        pad = kernel // 2
        group_line = f"\n    group: {group}" if group > 1 else ""
        self.layer(f"""
name: "{name}" type: "Convolution" bottom: "{bottom}" top: "{name}"
param {{ lr_mult: 1 decay_mult: 1 }}
convolution_param {{
  num_output: {out} kernel_size: {kernel} stride: {stride} pad: {pad} bias_term: false{group_line}
  weight_filler {{ type: "msra" }}
}}""")
        self.layer(f'name: "{name}/bn" type: "BatchNorm" bottom: "{name}" top: "{name}"')
        self.layer(f"""
name: "{name}/scale" type: "Scale" bottom: "{name}" top: "{name}"
scale_param {{ bias_term: true }}""")
        self.layer(f'name: "{name}/relu" type: "ReLU" bottom: "{name}" top: "{name}"')
        return name

    def text(self):
        return "\n".join(self.lines) + "\n"


def data_layer(net, phase, source, batch, size):
    if phase == "TRAIN":
        samplers = ['batch_sampler { sampler { } max_trials: 1 max_sample: 1 }']
        for overlap in (0.1, 0.3, 0.5, 0.7, 0.9):
            samplers.append(
                "batch_sampler { sampler { min_scale: 0.3 max_scale: 1.0 min_aspect_ratio: 0.5 "
                f"max_aspect_ratio: 2.0 }} sample_constraint {{ min_jaccard_overlap: {overlap} }} "
                "max_trials: 50 max_sample: 1 }")
        samplers.append(
            "batch_sampler { sampler { min_scale: 0.3 max_scale: 1.0 min_aspect_ratio: 0.5 "
            "max_aspect_ratio: 2.0 } sample_constraint { max_jaccard_overlap: 1.0 } "
            "max_trials: 50 max_sample: 1 }")
        augment = """
  mirror: true
  distort_param {
    brightness_prob: 0.5 brightness_delta: 32
    contrast_prob: 0.5 contrast_lower: 0.5 contrast_upper: 1.5
    hue_prob: 0.5 hue_delta: 18
    saturation_prob: 0.5 saturation_lower: 0.5 saturation_upper: 1.5
    random_order_prob: 0.0
  }
  emit_constraint { emit_type: CENTER }"""
        interp = "interp_mode: LINEAR interp_mode: AREA interp_mode: NEAREST interp_mode: CUBIC interp_mode: LANCZOS4"
    else:
        samplers, augment, interp = [], "", "interp_mode: LINEAR"
    sampler_text = ("\nannotated_data_param {\n  " + "\n  ".join(samplers) + "\n}") if samplers else ""
    net.layer(f"""
name: "data" type: "AnnotatedData" top: "data" top: "label"
include {{ phase: {phase} }}
transform_param {{
  scale: 0.007843
  mean_value: 127.5 mean_value: 127.5 mean_value: 127.5
  resize_param {{ prob: 1 resize_mode: WARP height: {size} width: {size} {interp} }}{augment}
}}
data_param {{ source: "{source}" batch_size: {batch} backend: LMDB }}{sampler_text}""")


def body(net):
    x = net.conv_bn("conv0", "data", 16, 3, 2)  # /2
    plan = [(32, 1), (64, 2), (64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (256, 2)]
    channels, features = 16, {}
    for i, (out, stride) in enumerate(plan, start=1):
        x = net.conv_bn(f"conv{i}/dw", x, channels, 3, stride, group=channels)
        x = net.conv_bn(f"conv{i}", x, out, 1, 1)
        channels = out
        features[i] = x
    x = net.conv_bn("conv9_1", x, 128, 1, 1)
    x = net.conv_bn("conv9_2", x, 256, 3, 2)
    # 160 px: conv7 is 10x10, conv8 5x5, conv9_2 3x3.
    return [features[7], features[8], x]


def heads(net, maps, size):
    settings = [(maps[0], 24, 40), (maps[1], 40, 80), (maps[2], 80, 150)]  # min, max (pixels)
    scale = size / 160.0
    locs, confs, priors = [], [], []
    for bottom, min_size, max_size in settings:
        priors_per_cell = 4  # 1, the sqrt(min * max) box, 2 and 1/2
        for kind, outputs in (("loc", 4), ("conf", NUM_CLASSES)):
            name = f"{bottom}_mbox_{kind}"
            net.layer(f"""
name: "{name}" type: "Convolution" bottom: "{bottom}" top: "{name}"
param {{ lr_mult: 1 decay_mult: 1 }} param {{ lr_mult: 2 decay_mult: 0 }}
convolution_param {{
  num_output: {priors_per_cell * outputs} kernel_size: 3 pad: 1
  weight_filler {{ type: "xavier" }} bias_filler {{ type: "constant" value: 0 }}
}}""")
            net.layer(f"""
name: "{name}_perm" type: "Permute" bottom: "{name}" top: "{name}_perm"
permute_param {{ order: 0 order: 2 order: 3 order: 1 }}""")
            net.layer(f"""
name: "{name}_flat" type: "Flatten" bottom: "{name}_perm" top: "{name}_flat"
flatten_param {{ axis: 1 }}""")
            (locs if kind == "loc" else confs).append(f"{name}_flat")
        name = f"{bottom}_mbox_priorbox"
        net.layer(f"""
name: "{name}" type: "PriorBox" bottom: "{bottom}" bottom: "data" top: "{name}"
prior_box_param {{
  min_size: {min_size * scale:g} max_size: {max_size * scale:g} aspect_ratio: 2 flip: true clip: false
  variance: 0.1 variance: 0.1 variance: 0.2 variance: 0.2 offset: 0.5
}}""")
        priors.append(name)
    for top, bottoms, axis in (("mbox_loc", locs, 1), ("mbox_conf", confs, 1),
                               ("mbox_priorbox", priors, 2)):
        bottom_text = " ".join(f'bottom: "{b}"' for b in bottoms)
        net.layer(f"""
name: "{top}" type: "Concat" {bottom_text} top: "{top}"
concat_param {{ axis: {axis} }}""")


def multibox_loss(net):
    net.layer(f"""
name: "mbox_loss" type: "MultiBoxLoss"
bottom: "mbox_loc" bottom: "mbox_conf" bottom: "mbox_priorbox" bottom: "label"
top: "mbox_loss"
include {{ phase: TRAIN }}
propagate_down: true propagate_down: true propagate_down: false propagate_down: false
loss_param {{ normalization: VALID }}
multibox_loss_param {{
  loc_loss_type: SMOOTH_L1 conf_loss_type: SOFTMAX loc_weight: 1.0
  num_classes: {NUM_CLASSES} share_location: true match_type: PER_PREDICTION
  overlap_threshold: 0.5 use_prior_for_matching: true background_label_id: 0
  use_difficult_gt: true neg_pos_ratio: 3.0 neg_overlap: 0.5 code_type: CENTER_SIZE
  ignore_cross_boundary_bbox: false mining_type: MAX_NEGATIVE
}}""")


def detection_test(net):
    net.layer(f"""
name: "mbox_conf_reshape" type: "Reshape" bottom: "mbox_conf" top: "mbox_conf_reshape"
include {{ phase: TEST }}
reshape_param {{ shape {{ dim: 0 dim: -1 dim: {NUM_CLASSES} }} }}""")
    net.layer("""
name: "mbox_conf_softmax" type: "Softmax" bottom: "mbox_conf_reshape" top: "mbox_conf_softmax"
include { phase: TEST }
softmax_param { axis: 2 }""")
    net.layer("""
name: "mbox_conf_flatten" type: "Flatten" bottom: "mbox_conf_softmax" top: "mbox_conf_flatten"
include { phase: TEST }
flatten_param { axis: 1 }""")
    net.layer(f"""
name: "detection_out" type: "DetectionOutput"
bottom: "mbox_loc" bottom: "mbox_conf_flatten" bottom: "mbox_priorbox" top: "detection_out"
include {{ phase: TEST }}
detection_output_param {{
  num_classes: {NUM_CLASSES} share_location: true background_label_id: 0
  nms_param {{ nms_threshold: 0.45 top_k: 100 }} code_type: CENTER_SIZE keep_top_k: 50
  confidence_threshold: 0.01
}}""")
    net.layer(f"""
name: "detection_eval" type: "DetectionEvaluate" bottom: "detection_out" bottom: "label"
top: "detection_eval"
include {{ phase: TEST }}
detection_evaluate_param {{ num_classes: {NUM_CLASSES} background_label_id: 0 overlap_threshold: 0.5 evaluate_difficult_gt: false }}""")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--data", required=True)
    parser.add_argument("--size", type=int, default=160)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--test-batch", type=int, default=10)
    parser.add_argument("--iters", type=int, default=4000)
    parser.add_argument("--lr", type=float, default=0.02)
    args = parser.parse_args()
    if args.size % 32 != 0:
        parser.error("--size must be a multiple of 32 (the body halves it five times)")
    os.makedirs(args.out, exist_ok=True)
    data = os.path.abspath(args.data)
    with open(os.path.join(data, "test.txt")) as f:
        test_images = sum(1 for line in f if line.strip())

    net = Net()
    data_layer(net, "TRAIN", os.path.join(data, "train_lmdb"), args.batch, args.size)
    data_layer(net, "TEST", os.path.join(data, "test_lmdb"), args.test_batch, args.size)
    heads(net, body(net), args.size)
    multibox_loss(net)
    detection_test(net)
    with open(os.path.join(args.out, "train_test.prototxt"), "w") as f:
        f.write('name: "MobileNetSSD_shapes"\n' + net.text())

    test_iter = (test_images + args.test_batch - 1) // args.test_batch
    with open(os.path.join(args.out, "solver.prototxt"), "w") as f:
        f.write(f"""net: "{os.path.join(os.path.abspath(args.out), 'train_test.prototxt')}"
test_iter: {test_iter}
test_interval: {max(1, args.iters // 8)}
test_initialization: false
base_lr: {args.lr}
lr_policy: "multistep"
stepvalue: {int(args.iters * 0.7)}
stepvalue: {int(args.iters * 0.9)}
gamma: 0.1
momentum: 0.9
weight_decay: 0.0005
display: 50
max_iter: {args.iters}
snapshot: {args.iters}
snapshot_prefix: "{os.path.join(os.path.abspath(args.out), 'ssd_shapes')}"
type: "SGD"
eval_type: "detection"
ap_version: "11point"
random_seed: 1
""")
    print(f"wrote {args.out}/train_test.prototxt and solver.prototxt ({test_images} test images)")


if __name__ == "__main__":
    main()
