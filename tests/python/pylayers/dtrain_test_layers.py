"""Python layers of dtrain's own, for test_python_layers.py: what Caffe's users write."""

import numpy as np

import caffe


class SeparableData(caffe.Layer):
    """A data layer: param_str "batch seed"; tops x (batch, 4) and labels (batch,) of a linearly
    separable two-class problem, a new batch each forward."""

    def setup(self, bottom, top):
        if len(bottom) != 0 or len(top) != 2:
            raise Exception("SeparableData: no bottoms, two tops")
        batch, seed = self.param_str.split()
        self.batch = int(batch)
        self.rng = np.random.RandomState(int(seed))

    def reshape(self, bottom, top):
        top[0].reshape(self.batch, 4)
        top[1].reshape(self.batch)

    def forward(self, bottom, top):
        x = self.rng.randn(self.batch, 4).astype(np.float32)
        top[0].data[...] = x
        top[1].data[...] = (x @ np.array([1.0, -2.0, 0.5, 1.5]) > 0).astype(np.float32)

    def backward(self, top, propagate_down, bottom):
        pass


class EuclideanLoss(caffe.Layer):
    """pycaffe's example loss: sum((a - b)^2) / num / 2, its gradient scaled by the loss weight."""

    def setup(self, bottom, top):
        if len(bottom) != 2:
            raise Exception("EuclideanLoss needs two bottoms")

    def reshape(self, bottom, top):
        if bottom[0].count != bottom[1].count:
            raise Exception("EuclideanLoss: the bottoms differ in size")
        self.diff = np.zeros_like(bottom[0].data, dtype=np.float32)
        top[0].reshape(1)

    def forward(self, bottom, top):
        self.diff[...] = bottom[0].data - bottom[1].data
        top[0].data[...] = np.sum(self.diff ** 2) / bottom[0].num / 2.0

    def backward(self, top, propagate_down, bottom):
        for i in range(2):
            if propagate_down[i]:
                sign = 1 if i == 0 else -1
                bottom[i].diff[...] = sign * top[0].diff[0] * self.diff / bottom[i].num


class GrowingTop(caffe.Layer):
    """Copies its bottom's first row into a top of (k, 3) with k = 1, 2, 3, ... on successive
    reshapes; counts its calls (setup, reshape, forward) in top 1."""

    def setup(self, bottom, top):
        self.rows = 0
        self.calls = {"setup": 1, "reshape": 0, "forward": 0}

    def reshape(self, bottom, top):
        self.rows += 1
        self.calls["reshape"] += 1
        top[0].reshape(self.rows, 3)
        top[1].reshape(3)

    def forward(self, bottom, top):
        self.calls["forward"] += 1
        top[0].data[...] = bottom[0].data[0, :3]
        top[1].data[...] = [self.calls["setup"], self.calls["reshape"], self.calls["forward"]]

    def backward(self, top, propagate_down, bottom):
        pass


class ParamAndPhase(caffe.Layer):
    """Top (2,): the phase and float(param_str)."""

    def setup(self, bottom, top):
        self.value = float(self.param_str)

    def reshape(self, bottom, top):
        top[0].reshape(2)

    def forward(self, bottom, top):
        top[0].data[...] = [self.phase, self.value]


class Scaled(caffe.Layer):
    """y = w x with one learnable scalar w (self.blobs), initialised to param_str."""

    def setup(self, bottom, top):
        self.blobs.add_blob(1)
        self.blobs[0].data[...] = float(self.param_str)

    def reshape(self, bottom, top):
        top[0].reshape(*bottom[0].shape)

    def forward(self, bottom, top):
        top[0].data[...] = self.blobs[0].data[0] * bottom[0].data

    def backward(self, top, propagate_down, bottom):
        self.blobs[0].diff[...] += np.sum(top[0].diff * bottom[0].data)
        if propagate_down[0]:
            bottom[0].diff[...] = self.blobs[0].data[0] * top[0].diff


def _fail(where):
    raise ValueError("boom from " + where)


class RaiseInForward(caffe.Layer):
    def reshape(self, bottom, top):
        top[0].reshape(*bottom[0].shape)

    def forward(self, bottom, top):
        _fail("forward")


class RaiseInBackward(caffe.Layer):
    def reshape(self, bottom, top):
        top[0].reshape(*bottom[0].shape)

    def forward(self, bottom, top):
        top[0].data[...] = bottom[0].data

    def backward(self, top, propagate_down, bottom):
        _fail("backward")


class AbsurdTop(caffe.Layer):
    """Reshapes its top to more values than any machine holds."""

    def reshape(self, bottom, top):
        top[0].reshape(2000000000, 2000000000)


class WrongShapeWrite(caffe.Layer):
    """Assigns an array of the wrong shape into its top."""

    def reshape(self, bottom, top):
        top[0].reshape(2, 3)

    def forward(self, bottom, top):
        top[0].data[...] = np.ones((4, 5))


class ReplacesData(caffe.Layer):
    """Assigns to .data itself (a read-only attribute) instead of into it."""

    def reshape(self, bottom, top):
        top[0].reshape(2, 3)

    def forward(self, bottom, top):
        top[0].data = np.ones((2, 3), dtype=np.float64)


class ImportsDtrain(caffe.Layer):
    """Builds a net from inside a layer (works from a script, refused inside the command)."""

    def setup(self, bottom, top):
        caffe.Net  # imports the dtrain module

    def reshape(self, bottom, top):
        top[0].reshape(1)

    def forward(self, bottom, top):
        top[0].data[...] = 1
