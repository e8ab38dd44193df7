"""pycaffe's names over dtrain, so that scripts and Python layers written for Caffe run.

    import caffe
    caffe.set_mode_cpu()
    net = caffe.Net("deploy.prototxt", "w.caffemodel", caffe.TEST)   # a dtrain.Net
    solver = caffe.SGDSolver("solver.prototxt"); solver.step(10)

    class MyLayer(caffe.Layer):                                       # type: "Python" layers
        def setup(self, bottom, top): ...

caffe.Net, the solvers and caffe.io come from the dtrain package, imported when first used, so
a Python layer running inside the dtrain command (which cannot load a second dtrain) can import
caffe for caffe.Layer and caffe.proto. Anything of pycaffe's that dtrain does not offer raises
AttributeError saying so and why.
"""

import importlib as _importlib
import sys as _sys

from ._layer import Layer

TRAIN = 0  # Caffe's Phase values
TEST = 1

__version__ = "1.0.0"  # pycaffe's; the dtrain package has its own

# From the dtrain package, under the same names.
_FROM_DTRAIN = ("Net", "Solver", "SGDSolver", "NesterovSolver", "AdaGradSolver", "RMSPropSolver",
                "AdaDeltaSolver", "AdamSolver", "get_solver", "Blob")
# Submodules of this package, imported on first use.
_SUBMODULES = ("io", "proto", "net_spec")
# pycaffe's names that dtrain does not offer, and why.
_MULTI_GPU = ("pycaffe's multi-GPU training; dtrain trains data-parallel across processes "
              "(dtrain train under mpirun, dtrain launch)")
_UNAVAILABLE = {
    "NCCL": _MULTI_GPU, "set_solver_count": _MULTI_GPU, "set_solver_rank": _MULTI_GPU,
    "solver_count": _MULTI_GPU, "solver_rank": _MULTI_GPU, "set_multiprocess": _MULTI_GPU,
    "has_nccl": _MULTI_GPU, "Timer": "Caffe's GPU timer; use time.perf_counter or dtrain time",
    "Classifier": "pycaffe's convenience class is not provided: use caffe.Net with "
                  "caffe.io.Transformer (docs/python.md)",
    "Detector": "pycaffe's convenience class is not provided: use caffe.Net with "
                "caffe.io.Transformer (docs/python.md)",
    "draw": "caffe.draw (pydot drawings of nets) is not provided",
    "init_log": "dtrain logs as its command does", "log": "dtrain logs as its command does",
    "get_solver_from_string": "solvers are read from files: write the text to a file first",
    "layer_type_list": "the layer types are those of docs/layers.md (dtrain check names them)",
}
# pycaffe's net_spec names (net_spec.py), imported on first use (they need caffe_pb2).
_FROM_NET_SPEC = ("layers", "params", "NetSpec", "to_proto")


def _dtrain():
    return _importlib.import_module("dtrain")


def __getattr__(name):
    if name in _FROM_DTRAIN:
        value = getattr(_dtrain(), name)
    elif name in _FROM_NET_SPEC:
        value = getattr(_importlib.import_module(".net_spec", __name__), name)
    elif name in _SUBMODULES:
        value = _importlib.import_module("." + name, __name__)
    elif name in _UNAVAILABLE:
        raise AttributeError("caffe.%s is not available in dtrain: %s" % (name, _UNAVAILABLE[name]))
    else:
        raise AttributeError("module 'caffe' (dtrain's pycaffe names) has no attribute %r" % name)
    globals()[name] = value
    return value


def _note(what):
    print("caffe.%s: dtrain runs on the CPU; continuing there" % what, file=_sys.stderr)


def set_mode_cpu():
    """Caffe's CPU mode: what dtrain always runs in."""


def set_mode_gpu():
    """Accepted, with a note: dtrain trains on the CPU (as with solver_mode: GPU)."""
    _note("set_mode_gpu")


def set_device(device_id):
    """Accepted, with a note: dtrain trains on the CPU."""
    if not isinstance(device_id, int):
        raise TypeError("set_device: device_id must be an int, not %s" % type(device_id).__name__)
    _note("set_device(%d)" % device_id)


_random_seed = None


def set_random_seed(seed):
    """Accepted and kept (caffe._random_seed). dtrain seeds the nets it builds for Python with 1701,
    as dtrain test does, and a solver with its file's random_seed: set that field for a seeded
    training run."""
    global _random_seed
    if not isinstance(seed, int):
        raise TypeError("set_random_seed: seed must be an int, not %s" % type(seed).__name__)
    _random_seed = seed
    print("caffe.set_random_seed: dtrain seeds nets with 1701 and solvers with the solver file's "
          "random_seed; set random_seed there", file=_sys.stderr)
