#!/usr/bin/python3
"""Writes bench/nets/resnet50.prototxt and bench/nets/mobilenet_v2.prototxt, and their deploy
versions (*_deploy.prototxt: an Input layer of batch 1 and Softmax "prob" in place of DummyData
and SoftmaxWithLoss; the ONNX export tests run them).

Both are training nets in Caffe's own layer types, written the way Caffe model files write these
architectures: Convolution without bias followed by BatchNorm and Scale (bias_term: true) and
ReLU, all in place on the convolution's top; Eltwise SUM for residual additions; depthwise
convolutions as Convolution with group = channels; a DummyData layer instead of a data source
(gaussian images drawn once, label 0) and SoftmaxWithLoss at the end, as the other benchmark nets.

The shapes are torchvision's, so that bench/torch_bench.py times the same work:
  * resnet50: torchvision's resnet50 (the "v1.5" bottleneck, stride 2 in the 3x3 convolution,
    not in the first 1x1 as KaimingHe's original deploy prototxt has it);
  * mobilenet_v2: torchvision's mobilenet_v2 (width 1.0), with ReLU where torchvision has ReLU6
    (Caffe has no ReLU6 layer; Caffe ports of MobileNet v2 use ReLU; the cost is the same).

    /usr/bin/python3 bench/nets/make_nets.py   # rewrites both files
"""

import os
import textwrap


class Net:
    def __init__(self, name, batch, deploy=False):
        self.lines = [f'name: "{name}"']
        self.deploy = deploy
        if deploy:
            self.add(f"""layer {{
  name: "data"
  type: "Input"
  top: "data"
  input_param {{ shape {{ dim: {batch} dim: 3 dim: 224 dim: 224 }} }}
}}""")
            return
        self.add(f"""layer {{
  name: "data"
  type: "DummyData"
  top: "data"
  top: "label"
  dummy_data_param {{
    refill: false
    shape {{ dim: {batch} dim: 3 dim: 224 dim: 224 }}
    shape {{ dim: {batch} }}
    data_filler {{ type: "gaussian" std: 1 }}
    data_filler {{ type: "constant" value: 0 }}
  }}
}}""")

    def add(self, text):
        self.lines.append(text)

    def layer(self, name, kind, bottoms, top, body=""):
        """A layer of type `kind`; `body`: its parameter lines, each indented and ended."""
        lines = [f'  name: "{name}"', f'  type: "{kind}"']
        lines += [f'  bottom: "{b}"' for b in bottoms] + [f'  top: "{top}"']
        self.add("layer {\n" + "\n".join(lines) + "\n" + body + "}")

    def conv(self, name, bottom, num_output, kernel, stride=1, group=1):
        group_line = f"    group: {group}\n" if group > 1 else ""
        self.layer(name, "Convolution", [bottom], name,
                   "  param { lr_mult: 1 decay_mult: 1 }\n"
                   "  convolution_param {\n"
                   f"    num_output: {num_output}\n    kernel_size: {kernel}\n"
                   f"    pad: {kernel // 2}\n    stride: {stride}\n{group_line}"
                   "    bias_term: false\n"
                   '    weight_filler { type: "msra" }\n'
                   "  }\n")
        return name

    def bn_scale(self, blob, relu):
        """BatchNorm + Scale (+ ReLU) in place on `blob`, as Caffe model files write them."""
        self.layer(f"{blob}/bn", "BatchNorm", [blob], blob)
        self.layer(f"{blob}/scale", "Scale", [blob], blob, "  scale_param { bias_term: true }\n")
        if relu:
            self.relu(blob)
        return blob

    def relu(self, blob):
        self.layer(f"{blob}/relu", "ReLU", [blob], blob)

    def conv_bn(self, name, bottom, num_output, kernel, stride=1, group=1, relu=True):
        return self.bn_scale(self.conv(name, bottom, num_output, kernel, stride, group), relu)

    def add_blobs(self, name, a, b, relu):
        self.layer(name, "Eltwise", [a, b], name, "  eltwise_param { operation: SUM }\n")
        if relu:
            self.relu(name)
        return name

    def pool(self, name, bottom, method, kernel, stride, pad=0, global_pooling=False):
        window = ("global_pooling: true" if global_pooling
                  else f"kernel_size: {kernel}\n    stride: {stride}\n    pad: {pad}")
        self.add(f"""layer {{
  name: "{name}"
  type: "Pooling"
  bottom: "{bottom}"
  top: "{name}"
  pooling_param {{
    pool: {method}
    {window}
  }}
}}""")
        return name

    def classifier(self, bottom, dropout=None):
        if dropout is not None:
            self.layer("drop", "Dropout", [bottom], bottom,
                       f"  dropout_param {{ dropout_ratio: {dropout} }}\n")
        last = ("""layer {
  name: "prob"
  type: "Softmax"
  bottom: "fc"
  top: "prob"
}""" if self.deploy else """layer {
  name: "loss"
  type: "SoftmaxWithLoss"
  bottom: "fc"
  bottom: "label"
  top: "loss"
}""")
        self.add(f"""layer {{
  name: "fc"
  type: "InnerProduct"
  bottom: "{bottom}"
  top: "fc"
  param {{ lr_mult: 1 decay_mult: 1 }}
  param {{ lr_mult: 2 decay_mult: 0 }}
  inner_product_param {{
    num_output: 1000
    weight_filler {{ type: "gaussian" std: 0.01 }}
    bias_filler {{ type: "constant" value: 0 }}
  }}
}}
{last}""")

    def text(self, header):
        comment = "".join(f"# {line}\n" for line in textwrap.wrap(header, 96))
        return comment + "\n".join(self.lines) + "\n"


def resnet50(batch=16, deploy=False):
    net = Net("ResNet-50_bench", batch, deploy)
    x = net.conv_bn("conv1", "data", 64, 7, stride=2)
    x = net.pool("pool1", x, "MAX", 3, 2)  # Caffe rounds up: 112 -> 56, as torchvision's pad 1
    in_channels = 64
    for stage, (blocks, width) in enumerate([(3, 64), (4, 128), (6, 256), (3, 512)], start=2):
        for block in range(blocks):
            name = f"res{stage}{chr(ord('a') + block)}"
            stride = 2 if block == 0 and stage > 2 else 1
            out_channels = 4 * width
            shortcut = x
            if block == 0:
                shortcut = net.conv_bn(f"{name}_branch1", x, out_channels, 1, stride, relu=False)
            y = net.conv_bn(f"{name}_branch2a", x, width, 1)
            y = net.conv_bn(f"{name}_branch2b", y, width, 3, stride)
            y = net.conv_bn(f"{name}_branch2c", y, out_channels, 1, relu=False)
            x = net.add_blobs(name, shortcut, y, relu=True)
            in_channels = out_channels
    x = net.pool("pool5", x, "AVE", 0, 0, global_pooling=True)
    net.classifier(x)
    assert in_channels == 2048
    return net


def mobilenet_v2(batch=32, deploy=False):
    net = Net("MobileNet-v2_bench", batch, deploy)
    x = net.conv_bn("conv1", "data", 32, 3, stride=2)
    channels = 32
    # torchvision's inverted residual settings: expansion t, output channels c, repeats n, stride s
    settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                (6, 160, 3, 2), (6, 320, 1, 1)]
    index = 0
    for t, c, n, s in settings:
        for repeat in range(n):
            index += 1
            name = f"block{index}"
            stride = s if repeat == 0 else 1
            hidden = channels * t
            y = x
            if t != 1:
                y = net.conv_bn(f"{name}/expand", y, hidden, 1)
            y = net.conv_bn(f"{name}/dwise", y, hidden, 3, stride, group=hidden)
            y = net.conv_bn(f"{name}/linear", y, c, 1, relu=False)
            if stride == 1 and channels == c:
                y = net.add_blobs(f"{name}/add", x, y, relu=False)
            x, channels = y, c
    x = net.conv_bn("conv_last", x, 1280, 1)
    x = net.pool("pool", x, "AVE", 0, 0, global_pooling=True)
    net.classifier(x, dropout=0.2)
    return net


HEADER = ("Benchmark net: {what}, written by bench/nets/make_nets.py (do not edit by hand: change"
          " the script and run it). Caffe's layer types only: Convolution (no bias) + BatchNorm +"
          " Scale + ReLU in place, Eltwise SUM, {extra}DummyData (gaussian images drawn once,"
          " label 0) and SoftmaxWithLoss. Batch {batch}, 3x224x224. The shapes are torchvision's"
          " {torch} (bench/torch_nets.py).")

DEPLOY_HEADER = ("Deploy version of bench/nets/{file}.prototxt ({what}), written by"
                 " bench/nets/make_nets.py (do not edit by hand): an Input layer of batch 1 and"
                 " Softmax \"prob\" in place of DummyData and SoftmaxWithLoss.")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    nets = [("resnet50", resnet50(), "ResNet-50 (the v1.5 bottleneck: stride 2 in the 3x3)", "",
             16, "resnet50"),
            ("mobilenet_v2", mobilenet_v2(), "MobileNet v2 (width 1.0; ReLU for ReLU6)",
             "depthwise Convolution (group = channels), Dropout, ", 32, "mobilenet_v2")]
    for file, net, what, extra, batch, torch_name in nets:
        header = HEADER.format(what=what, extra=extra, batch=batch, torch=torch_name)
        with open(os.path.join(here, f"{file}.prototxt"), "w") as f:
            f.write(net.text(header))
        deploy = {"resnet50": resnet50, "mobilenet_v2": mobilenet_v2}[file](1, deploy=True)
        with open(os.path.join(here, f"{file}_deploy.prototxt"), "w") as f:
            f.write(deploy.text(DEPLOY_HEADER.format(what=what, file=file)))


if __name__ == "__main__":
    main()
