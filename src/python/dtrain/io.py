"""dtrain.io: Caffe's files and records as NumPy arrays, and images prepared for a net.

read_blobproto / write_blobproto: mean files (.binaryproto); datum_to_array / array_to_datum:
Datum records (encoded JPEG/PNG ones decoded); decode_image: JPEG/PNG bytes; lmdb_records / write_lmdb: an LMDB's (key, value) pairs;
load_image, resize_image and Transformer: images in pycaffe's conventions (H x W x C, RGB,
floats in [0, 1]) turned into a net's input (C x H x W, BGR, scaled, mean subtracted).
"""

import numpy as np

from ._dtrain import _io

read_blobproto = _io.read_blobproto
write_blobproto = _io.write_blobproto
datum_to_array = _io.datum_to_array
array_to_datum = _io.array_to_datum
lmdb_records = _io.lmdb_records
decode_image = _io.decode_image
write_lmdb = _io.write_lmdb


def load_mean(path):
    """A mean file as a C x H x W array (the leading num axis of 1 dropped)."""
    mean = read_blobproto(path)
    return mean[0] if mean.ndim == 4 and mean.shape[0] == 1 else mean


def load_image(path, color=True):
    """An image file (JPEG or PNG) as an H x W x 3 (or x 1) float32 array in [0, 1], RGB."""
    with open(path, "rb") as f:
        data = f.read()
    chw = _io.decode_image(data, color)
    if color:
        chw = chw[::-1]  # the decoder gives Caffe's BGR
    return np.ascontiguousarray(chw.transpose(1, 2, 0), dtype=np.float32) / 255.0


def resize_image(image, size):
    """An H x W x C array resized to size = (height, width), bilinear (pixel centres aligned)."""
    image = np.asarray(image, dtype=np.float32)
    if image.ndim != 3:
        raise ValueError("resize_image needs an H x W x C array, not %d-d" % image.ndim)
    height, width = int(size[0]), int(size[1])
    if height <= 0 or width <= 0:
        raise ValueError("resize_image: size must be positive, not %s" % (size,))

    def axis(n_in, n_out):
        x = (np.arange(n_out, dtype=np.float64) + 0.5) * n_in / n_out - 0.5
        x = np.clip(x, 0, n_in - 1)
        low = np.floor(x).astype(np.int64)
        high = np.minimum(low + 1, n_in - 1)
        return low, high, (x - low).astype(np.float32)

    y0, y1, wy = axis(image.shape[0], height)
    x0, x1, wx = axis(image.shape[1], width)
    rows = image[y0] * (1 - wy)[:, None, None] + image[y1] * wy[:, None, None]
    return rows[:, x0] * (1 - wx)[None, :, None] + rows[:, x1] * wx[None, :, None]


class Transformer:
    """Turns H x W x C images into a net input blob's C x H x W layout, as pycaffe's does:
    transpose, channel swap, raw scale, mean subtraction, input scale, in that order."""

    def __init__(self, inputs):
        self.inputs = dict(inputs)  # blob name -> shape (N, C, H, W)
        self.transpose, self.channel_swap, self.raw_scale = {}, {}, {}
        self.mean, self.input_scale = {}, {}

    def _check(self, name):
        if name not in self.inputs:
            raise KeyError("%s is not one of the transformer's inputs %s"
                           % (name, sorted(self.inputs)))

    def set_transpose(self, name, order):
        self._check(name)
        if len(order) != len(self.inputs[name]) - 1:
            raise ValueError("transpose order %s does not match the input's %d axes"
                             % (order, len(self.inputs[name]) - 1))
        self.transpose[name] = order

    def set_channel_swap(self, name, order):
        self._check(name)
        if len(order) != self.inputs[name][1]:
            raise ValueError("channel swap %s needs %d channels" % (order, self.inputs[name][1]))
        self.channel_swap[name] = order

    def set_raw_scale(self, name, scale):
        self._check(name)
        self.raw_scale[name] = scale

    def set_input_scale(self, name, scale):
        self._check(name)
        self.input_scale[name] = scale

    def set_mean(self, name, mean):
        """mean: one value per channel (shape (C,)) or a C x H x W array."""
        self._check(name)
        mean = np.asarray(mean, dtype=np.float32)
        shape = tuple(self.inputs[name][1:])
        if mean.ndim == 1:
            if mean.shape[0] != shape[0]:
                raise ValueError("mean has %d channels, the input %d" % (mean.shape[0], shape[0]))
            mean = mean[:, None, None]
        elif mean.shape != shape:
            raise ValueError("mean is %s, the input %s" % (mean.shape, shape))
        self.mean[name] = mean

    def preprocess(self, name, image):
        """An H x W x C image (already at the input's size) as the input's C x H x W array."""
        self._check(name)
        x = np.asarray(image, dtype=np.float32)
        if name in self.transpose:
            x = x.transpose(self.transpose[name])
        if name in self.channel_swap:
            x = x[list(self.channel_swap[name])]
        if name in self.raw_scale:
            x = x * self.raw_scale[name]
        if name in self.mean:
            x = x - self.mean[name]
        if name in self.input_scale:
            x = x * self.input_scale[name]
        if x.shape != tuple(self.inputs[name][1:]):
            raise ValueError("the image became %s, the input is %s: resize it first "
                             "(resize_image)" % (x.shape, tuple(self.inputs[name][1:])))
        return np.ascontiguousarray(x, dtype=np.float32)

    def deprocess(self, name, x):
        """preprocess undone: a C x H x W input array as an H x W x C image."""
        self._check(name)
        x = np.array(x, dtype=np.float32)
        if name in self.input_scale:
            x = x / self.input_scale[name]
        if name in self.mean:
            x = x + self.mean[name]
        if name in self.raw_scale:
            x = x / self.raw_scale[name]
        if name in self.channel_swap:
            x = x[np.argsort(self.channel_swap[name])]
        if name in self.transpose:
            x = x.transpose(np.argsort(self.transpose[name]))
        return x
