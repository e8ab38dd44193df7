"""dtrain.Net: pycaffe's Net surface over the C++ net (_dtrain._Net).

The dictionaries (blobs, params, layer_dict, ...) are built on each access from the net's
current tensors, so they are never stale; arrays view the tensors (see Blob).
"""

from collections import OrderedDict
import numbers
import os

import numpy as np

from . import _dtrain

TRAIN = 0  # Caffe's Phase values
TEST = 1


def _phase(value):
    """TRAIN or TEST from a phase or its name; anything else is a ValueError naming the phase."""
    if isinstance(value, str):
        names = {"TRAIN": TRAIN, "TEST": TEST}
        if value.upper() not in names:
            raise ValueError("phase must be TRAIN or TEST, not %r" % value)
        return names[value.upper()]
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and value in (TRAIN,
                                                                                          TEST):
        return int(value)
    raise ValueError("phase must be dtrain.TRAIN (0), dtrain.TEST (1) or their names, not %r"
                     % (value,))


def _meant_as_phase(value):
    """Whether a positional argument after the model is a phase: a phase's name, or any integer
    (weights are paths, never integers, so Net(model, 7) is a wrong phase)."""
    if isinstance(value, str):
        return value.upper() in ("TRAIN", "TEST")
    return isinstance(value, numbers.Integral)


def _path_list(value, what):
    """One path (str, bytes, os.PathLike; a str may hold several, comma-separated, as --weights)
    or a list or tuple of them, as the bytes the C++ side takes: comma-separated, in order."""
    paths = value if isinstance(value, (list, tuple)) else [value]
    out = []
    for path in paths:
        try:
            out.append(os.fsencode(path))
        except TypeError:
            raise TypeError("%s must be a path (str, bytes or os.PathLike) or a list of paths, "
                            "not %s" % (what, type(path).__name__)) from None
    return b",".join(out)


def _names(value, what):
    """Blob names: None (none), one name, or a list or tuple of names."""
    if value is None:
        return []
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise TypeError("%s must be a blob name or a list of blob names, not %r" % (what, value))
    return list(names)


class Layer:
    """One layer of a net: its name, type and parameter blobs."""

    def __init__(self, net, index):
        self.name = net._layer_names[index]
        self.type = net._layer_types[index]
        self.blobs = net._layer_blobs(index)

    def __repr__(self):
        return "<dtrain layer %s (%s)>" % (self.name, self.type)


class _NetSurface:
    """pycaffe's Net methods, mixed into _dtrain._Net (so solvers' nets have them too)."""

    @property
    def blobs(self):
        """OrderedDict: blob name -> Blob, in the order layers create them."""
        return OrderedDict((name, self._blob(name)) for name in self._blob_names)

    @property
    def params(self):
        """OrderedDict: layer name -> list of its parameter Blobs (layers with parameters)."""
        out = OrderedDict()
        for i, name in enumerate(self._layer_names):
            blobs = self._layer_blobs(i)
            if blobs:
                out[name] = blobs
        return out

    @property
    def layers(self):
        """The layers; a Python layer is the user's own object, as in pycaffe (so a script calls
        its methods: py-faster-rcnn's `net.layers[0].set_roidb(roidb)`)."""
        return [self._layer(i) for i in range(len(self._layer_names))]

    def _layer(self, i):
        python = self._python_layer(i)
        return Layer(self, i) if python is None else python

    @property
    def layer_dict(self):
        return OrderedDict((name, self._layer(i)) for i, name in enumerate(self._layer_names))

    @property
    def top_names(self):
        return OrderedDict((n, self._top_names(i)) for i, n in enumerate(self._layer_names))

    @property
    def bottom_names(self):
        return OrderedDict((n, self._bottom_names(i)) for i, n in enumerate(self._layer_names))

    @property
    def inputs(self):
        """The tops of the net's Input layers (deploy nets' `input:` fields become those)."""
        names = []
        for i, kind in enumerate(self._layer_types):
            if kind == "Input":
                names.extend(self._top_names(i))
        return names

    def _layer_index(self, name, default):
        if name is None:
            return default
        if not isinstance(name, str):
            raise TypeError("start and end are layer names, not %s (%r)" % (type(name).__name__,
                                                                           name))
        try:
            return self._layer_names.index(name)
        except ValueError:
            raise KeyError("the net has no layer '%s'" % name) from None

    def _set(self, values, field):
        blobs = self.blobs
        for name, value in values.items():
            if name not in blobs:
                raise KeyError("the net has no blob '%s'" % name)
            target = getattr(blobs[name], field)
            value = np.asarray(value, dtype=np.float32)
            if value.shape != target.shape:
                raise ValueError("blob '%s' is %s, the array given for it %s (reshape the blob, "
                                 "then net.reshape(), to change it)"
                                 % (name, target.shape, value.shape))
            target[...] = value

    def forward(self, blobs=None, start=None, end=None, **inputs):
        """Sets the given input blobs, runs layers start..end (names; default all) and returns
        {name: array} of the net's outputs (or of the blobs named in `blobs` too)."""
        self._set(inputs, "data")
        first = self._layer_index(start, 0)
        last = self._layer_index(end, len(self._layer_names) - 1)
        self._forward(first, last)
        names = list(self.outputs) if end is None else self._top_names(last)
        names += [b for b in _names(blobs, "forward: blobs") if b not in names]
        return {name: self._blob(name).data for name in names}

    def backward(self, diffs=None, start=None, end=None, **top_diffs):
        """Sets the given top diffs, runs backward from layer start down to end (names; default
        all, loss weights primed) and returns {name: diff array} of the net's inputs (or of the
        blobs named in `diffs` too)."""
        self._set(top_diffs, "diff")
        first = self._layer_index(start, len(self._layer_names) - 1)
        last = self._layer_index(end, 0)
        self._backward(first, last, not top_diffs and start is None)
        names = list(self.inputs) if end is None else self._bottom_names(last)
        names += [d for d in _names(diffs, "backward: diffs") if d not in names]
        return {name: self._blob(name).diff for name in names}

    def copy_from(self, weights):
        """Copies parameters from .caffemodel files (a path or a list of them, later over
        earlier), layer by layer by name."""
        self._copy_from(_path_list(weights, "copy_from: weights"))

    def forward_all(self, blobs=None, **inputs):
        """Runs the net over inputs of any length, a batch at a time (the last one padded), and
        returns {name: array of all results} for the outputs and `blobs`."""
        if not inputs:
            raise ValueError("forward_all needs the input arrays, as name=array")
        lengths = {len(v) for v in inputs.values()}
        if len(lengths) != 1:
            raise ValueError("forward_all: the inputs have different lengths %s" % sorted(lengths))
        total = lengths.pop()
        batch = self.blobs[next(iter(inputs))].shape[0]
        results = {}
        for begin in range(0, total, batch):
            chunk = {}
            for name, value in inputs.items():
                part = np.asarray(value[begin:begin + batch], dtype=np.float32)
                if len(part) < batch:
                    pad = np.zeros((batch - len(part),) + part.shape[1:], dtype=np.float32)
                    part = np.concatenate([part, pad])
                chunk[name] = part
            out = self.forward(blobs=blobs, **chunk)
            for name, value in out.items():
                results.setdefault(name, []).append(value.copy())
        return {name: np.concatenate(parts)[:total] for name, parts in results.items()}

    def __repr__(self):
        return "<dtrain net '%s' (%s), %d layers>" % (
            self.name, "TRAIN" if self.phase == TRAIN else "TEST", len(self._layer_names))


for _name, _member in vars(_NetSurface).items():
    if not _name.startswith("__") or _name == "__repr__":
        setattr(_dtrain._Net, _name, _member)


class _NetType(type):
    """Makes isinstance(x, dtrain.Net) hold for every net, those a solver built included (all
    are _dtrain._Net objects)."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, _dtrain._Net)


class Net(metaclass=_NetType):
    """A net from a prototxt for one phase (default TEST), with weights from .caffemodel files
    (a path, or a list of them applied in order).

    pycaffe's forms all work: Net(model, phase), Net(model, weights, phase),
    Net(model, phase, weights=w) and Net(model, weights=w, phase=p).
    """

    def __new__(cls, model, *args, weights=None, phase=None, level=0, stages=()):
        if len(args) > 2:
            raise TypeError("Net(model, [weights], [phase]): %d positional arguments after the "
                            "model" % len(args))
        for value in args:
            if _meant_as_phase(value) and phase is None:
                phase = value
            elif weights is None and not _meant_as_phase(value):
                weights = value
            else:
                raise TypeError("Net: weights or phase given twice: %r" % (value,))
        phase = TEST if phase is None else _phase(phase)
        weights = b"" if weights is None else _path_list(weights, "Net: weights")
        if not isinstance(level, numbers.Integral) or isinstance(level, bool):
            raise TypeError("Net: level must be an integer, not %s" % type(level).__name__)
        if not -2**31 <= level < 2**31:
            raise ValueError("Net: level %d is not a 32-bit integer" % level)
        stages = [stages] if isinstance(stages, str) else stages
        if not isinstance(stages, (list, tuple)) or not all(isinstance(s, str) for s in stages):
            raise TypeError("Net: stages must be a list of stage names (str), not %r" % (stages,))
        return _dtrain._Net(model, phase, weights, int(level), list(stages))
