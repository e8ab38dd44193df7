"""caffe.Layer: the class a Python layer subclasses (see caffe/__init__.py)."""


class Layer:
    """The base of users' Python layers (type: "Python" in a prototxt).

    dtrain creates the class named by python_param with one argument, the layer's parameters (an
    object with name, type, bottom, top, phase and python_param), sets `param_str` (str),
    `phase` (caffe.TRAIN or caffe.TEST) and `blobs` (learnable parameters: blobs.add_blob(*dims)
    in setup), then calls setup(bottom, top), reshape(bottom, top) before every forward,
    forward(bottom, top) and backward(top, propagate_down, bottom). bottom and top are lists of
    blobs: `.data` and `.diff` are float32 NumPy arrays viewing the tensors (take them again
    after a reshape), with `.shape`, `.count`, `.num`, `.channels`, `.height`, `.width` and
    `.reshape(*dims)`.
    """

    type = "Python"

    def __init__(self, param=None):
        pass

    def setup(self, bottom, top):
        """Reads param_str, checks the bottoms; default: nothing."""

    def reshape(self, bottom, top):
        """Shapes the tops from the bottoms; default: leaves them as they are."""

    def forward(self, bottom, top):
        raise NotImplementedError("%s.forward is not implemented" % type(self).__name__)

    def backward(self, top, propagate_down, bottom):
        raise NotImplementedError("%s.backward is not implemented" % type(self).__name__)
