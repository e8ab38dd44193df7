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

from . import _dtrain
from ._dtrain import (Blob, Error, Solver, get_solver, SGDSolver, NesterovSolver, AdaGradSolver,
                      RMSPropSolver, AdaDeltaSolver, AdamSolver, set_threads)
from .net import Net, TRAIN, TEST
from . import io

__all__ = ["Net", "TRAIN", "TEST", "Blob", "Error", "Solver", "get_solver", "SGDSolver",
           "NesterovSolver", "AdaGradSolver", "RMSPropSolver", "AdaDeltaSolver", "AdamSolver",
           "set_threads", "io"]
