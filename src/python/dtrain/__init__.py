"""dtrain from Python, in pycaffe's spirit.

    import dtrain
    net = dtrain.Net("deploy.prototxt", weights="w.caffemodel", phase=dtrain.TEST)
    net.blobs["data"].data[...] = images          # NumPy views on dtrain's tensors
    out = net.forward()                           # {output blob: array}
    net.params["conv1"][0].data                   # weights, as arrays
    net.save("out.caffemodel")

    solver = dtrain.SGDSolver("solver.prototxt")  # or dtrain.get_solver(path)
    solver.step(10); solver.solve()
    solver.net, solver.test_nets

dtrain.io reads and writes Caffe's mean files and Datum records and prepares images.
"""

import sys as _sys

if "_dtrain_embedded" in _sys.modules:
    # The dtrain command runs Python layers in an interpreter of its own; loading the module there
    # would put a second dtrain (and a second copy of its protobuf schema) into the process.
    raise ImportError("the dtrain module cannot be imported by a Python layer running inside the "
                      "dtrain command: caffe.Layer, caffe.proto and NumPy work there; caffe.Net, "
                      "the solvers and caffe.io are for Python scripts")

from . import _dtrain  # noqa: E402
from ._dtrain import (Blob, Error, Solver, get_solver, SGDSolver, NesterovSolver, AdaGradSolver,
                      RMSPropSolver, AdaDeltaSolver, AdamSolver, set_threads)
from .net import Net, TRAIN, TEST
from . import io

__all__ = ["Net", "TRAIN", "TEST", "Blob", "Error", "Solver", "get_solver", "SGDSolver",
           "NesterovSolver", "AdaGradSolver", "RMSPropSolver", "AdaDeltaSolver", "AdamSolver",
           "set_threads", "io"]
