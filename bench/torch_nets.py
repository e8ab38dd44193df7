"""The benchmark nets of bench/nets/*.prototxt, built in PyTorch with identical layer shapes
(ResNet-50 and MobileNet v2: torchvision's models, which bench/nets/make_nets.py follows).

Each builder returns (model, input shape, loss weights): model(x) returns a list of logits, one per
SoftmaxWithLoss of the prototxt, and the training loss is sum(weight * cross_entropy(logits, label)),
as Caffe sums its weighted loss layers. Caffe's conventions are kept where they change shapes or
work:
  * pooling rounds up (ceil_mode=True); Caffe's AVE pooling divides clipped edge windows by the
    clipped size, as PyTorch does when there is no padding;
  * LRN ACROSS_CHANNELS is nn.LocalResponseNorm (same formula: x / (k + alpha/n * sum x^2)^beta);
    LRN WITHIN_CHANNEL (cifar10_full) is Caffe's: x * (1 + alpha * avgpool_n(x^2))^-beta with
    a zero-padded n x n window;
  * ReLUs in place, dropout as in the prototxt (train mode), InnerProduct flattens from axis 1.
Initialisation is PyTorch's default: only the time of a training step is measured.

`python3 bench/torch_nets.py` prints each net's output shapes and parameter count, to compare
with `build/dtrain check --model=bench/nets/NET.prototxt`.
"""

import torch
from torch import nn
import torch.nn.functional as F


class WithinChannelLRN(nn.Module):
    """Caffe's LRN with norm_region: WITHIN_CHANNEL (k is not used there, as in Caffe)."""

    def __init__(self, size, alpha, beta):
        super().__init__()
        self.size, self.alpha, self.beta = size, alpha, beta

    def forward(self, x):
        pad = (self.size - 1) // 2
        mean_sq = F.avg_pool2d(x * x, self.size, stride=1, padding=pad, count_include_pad=True)
        return x * (1.0 + self.alpha * mean_sq).pow(-self.beta)


def max_pool(kernel, stride, pad=0):
    return nn.MaxPool2d(kernel, stride, pad, ceil_mode=True)


def ave_pool(kernel, stride):
    return nn.AvgPool2d(kernel, stride, ceil_mode=True)


class Sequential1(nn.Sequential):
    """A single-output net: returns [logits]."""

    def forward(self, x):
        return [super().forward(x)]


def lenet():
    """Caffe's examples/mnist LeNet; batch 64, 1x28x28."""
    model = Sequential1(
        nn.Conv2d(1, 20, 5), max_pool(2, 2),
        nn.Conv2d(20, 50, 5), max_pool(2, 2),
        nn.Flatten(), nn.Linear(800, 500), nn.ReLU(inplace=True),
        nn.Linear(500, 10))
    return model, (64, 1, 28, 28), [1.0]


def cifar10_quick():
    """Caffe's examples/cifar10 cifar10_quick; batch 100, 3x32x32."""
    model = Sequential1(
        nn.Conv2d(3, 32, 5, padding=2), max_pool(3, 2), nn.ReLU(inplace=True),
        nn.Conv2d(32, 32, 5, padding=2), nn.ReLU(inplace=True), ave_pool(3, 2),
        nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(inplace=True), ave_pool(3, 2),
        nn.Flatten(), nn.Linear(1024, 64), nn.Linear(64, 10))
    return model, (100, 3, 32, 32), [1.0]


def cifar10_full():
    """Caffe's examples/cifar10 cifar10_full (WITHIN_CHANNEL LRN); batch 100, 3x32x32."""
    model = Sequential1(
        nn.Conv2d(3, 32, 5, padding=2), max_pool(3, 2), nn.ReLU(inplace=True),
        WithinChannelLRN(3, 5e-5, 0.75),
        nn.Conv2d(32, 32, 5, padding=2), nn.ReLU(inplace=True), ave_pool(3, 2),
        WithinChannelLRN(3, 5e-5, 0.75),
        nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(inplace=True), ave_pool(3, 2),
        nn.Flatten(), nn.Linear(1024, 10))
    return model, (100, 3, 32, 32), [1.0]


def conv_relu(c_in, c_out, kernel, stride=1, pad=0):
    return nn.Sequential(nn.Conv2d(c_in, c_out, kernel, stride, pad), nn.ReLU(inplace=True))


class Inception(nn.Module):
    """GoogLeNet's inception module: 1x1 | 1x1-3x3 | 1x1-5x5 | maxpool3-1x1, concatenated."""

    def __init__(self, c_in, c1, c3r, c3, c5r, c5, cp):
        super().__init__()
        self.b1 = conv_relu(c_in, c1, 1)
        self.b3 = nn.Sequential(conv_relu(c_in, c3r, 1), conv_relu(c3r, c3, 3, pad=1))
        self.b5 = nn.Sequential(conv_relu(c_in, c5r, 1), conv_relu(c5r, c5, 5, pad=2))
        self.bp = nn.Sequential(max_pool(3, 1, 1), conv_relu(c_in, cp, 1))
        self.c_out = c1 + c3 + c5 + cp

    def forward(self, x):
        return torch.cat([self.b1(x), self.b3(x), self.b5(x), self.bp(x)], 1)


class AuxClassifier(nn.Module):
    """loss1/loss2 of BVLC GoogLeNet: avepool 5/3, 1x1 conv 128, fc 1024, dropout 0.7, fc 1000."""

    def __init__(self, c_in):
        super().__init__()
        self.body = nn.Sequential(
            ave_pool(5, 3), conv_relu(c_in, 128, 1), nn.Flatten(),
            nn.Linear(128 * 4 * 4, 1024), nn.ReLU(inplace=True), nn.Dropout(0.7),
            nn.Linear(1024, 1000))

    def forward(self, x):
        return self.body(x)


class GoogLeNet(nn.Module):
    """BVLC GoogLeNet v1 (models/bvlc_googlenet/train_val.prototxt) with both auxiliary heads."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(
            conv_relu(3, 64, 7, 2, 3), max_pool(3, 2), nn.LocalResponseNorm(5, 1e-4, 0.75, 1.0),
            conv_relu(64, 64, 1), conv_relu(64, 192, 3, pad=1),
            nn.LocalResponseNorm(5, 1e-4, 0.75, 1.0), max_pool(3, 2))
        self.i3a = Inception(192, 64, 96, 128, 16, 32, 32)
        self.i3b = Inception(256, 128, 128, 192, 32, 96, 64)
        self.pool3 = max_pool(3, 2)
        self.i4a = Inception(480, 192, 96, 208, 16, 48, 64)
        self.aux1 = AuxClassifier(512)
        self.i4b = Inception(512, 160, 112, 224, 24, 64, 64)
        self.i4c = Inception(512, 128, 128, 256, 24, 64, 64)
        self.i4d = Inception(512, 112, 144, 288, 32, 64, 64)
        self.aux2 = AuxClassifier(528)
        self.i4e = Inception(528, 256, 160, 320, 32, 128, 128)
        self.pool4 = max_pool(3, 2)
        self.i5a = Inception(832, 256, 160, 320, 32, 128, 128)
        self.i5b = Inception(832, 384, 192, 384, 48, 128, 128)
        self.head = nn.Sequential(ave_pool(7, 1), nn.Dropout(0.4), nn.Flatten(),
                                  nn.Linear(1024, 1000))

    def forward(self, x):
        x = self.pool3(self.i3b(self.i3a(self.stem(x))))
        x = self.i4a(x)
        out1 = self.aux1(x)
        x = self.i4d(self.i4c(self.i4b(x)))
        out2 = self.aux2(x)
        x = self.i5b(self.i5a(self.pool4(self.i4e(x))))
        return [out1, out2, self.head(x)]


def googlenet():
    """Batch 32, 3x224x224; losses weighted 0.3 (loss1), 0.3 (loss2), 1 (loss3) as in BVLC."""
    return GoogLeNet(), (32, 3, 224, 224), [0.3, 0.3, 1.0]


class Listed(nn.Module):
    """A torchvision model as a single-output benchmark net: returns [logits]."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return [self.model(x)]


def resnet50():
    """torchvision's resnet50 (bench/nets/resnet50.prototxt); batch 16, 3x224x224."""
    import torchvision
    return Listed(torchvision.models.resnet50()), (16, 3, 224, 224), [1.0]


def mobilenet_v2():
    """torchvision's mobilenet_v2 (bench/nets/mobilenet_v2.prototxt); batch 32, 3x224x224."""
    import torchvision
    return Listed(torchvision.models.mobilenet_v2()), (32, 3, 224, 224), [1.0]


NETS = {"lenet": lenet, "cifar10_quick": cifar10_quick, "cifar10_full": cifar10_full,
        "googlenet": googlenet, "resnet50": resnet50, "mobilenet_v2": mobilenet_v2}


if __name__ == "__main__":
    torch.set_num_threads(1)
    for name, build in NETS.items():
        model, shape, weights = build()
        with torch.no_grad():
            outs = model(torch.zeros(shape))
        params = sum(p.numel() for p in model.parameters())
        print(f"{name}: input {list(shape)}, outputs {[list(o.shape) for o in outs]}, "
              f"loss weights {weights}, {params} parameters")
