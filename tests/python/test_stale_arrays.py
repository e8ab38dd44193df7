"""Arrays the module handed out (blobs' and parameters' data and diff) that the net has since
moved away from: after a reshape that grew a tensor, a backward that grew a diff, share_with, a
parameter's reshape, the net's deletion. Each case runs in a child interpreter, so a crash fails
the test; before the arrays held their buffers (core/tensor.h, "Held buffers"), the first four
wrote into memory glibc had already unmapped (SIGSEGV). A stale array must keep the values it
last saw, and writing into it must change nothing else."""

import unittest

from dtrain_testing import PatchNetCase, ScratchCase, run_isolated

# Buffers of 256 KiB: glibc maps each with mmap and unmaps it when freed, so that an access
# through an array left over a freed buffer faults at once instead of corrupting the heap.
BIG = """name: "big"
force_backward: true
layer { name: "data" type: "Input" top: "data"
  input_param { shape { dim: 1 dim: 1 dim: 256 dim: 256 } } }
layer { name: "double" type: "Power" bottom: "data" top: "out" power_param { scale: 2 } }
layer { name: "x" type: "Input" top: "x" input_param { shape { dim: 1 dim: 1024 } } }
layer { name: "ip" type: "InnerProduct" bottom: "x" top: "y"
  inner_product_param { num_output: 64 weight_filler { type: "gaussian" std: 0.1 } } }
"""

PRELUDE = """
import gc, sys
import numpy as np
import dtrain
net = dtrain.Net(sys.argv[1])
def same(array, value):
    return bool(np.all(array == value))
"""


class StaleArrays(ScratchCase):

    def run_case(self, body):
        """Runs PRELUDE + body on the BIG net; returns the lines it printed."""
        model = self.write("big.prototxt", BIG)
        return run_isolated(PRELUDE + body, model).split()

    def test_data_array_after_the_blob_grew(self):
        out = self.run_case("""
a = net.blobs["data"].data
a[...] = 5
net.blobs["data"].reshape(4, 1, 256, 256)
net.reshape()
net.forward(data=np.full((4, 1, 256, 256), 7, np.float32))
print(same(a, 5))                                   # the values it last saw
a[...] = 1                                          # harmless: the net never sees it
print(same(a, 1), same(net.blobs["data"].data, 7), same(net.forward()["out"], 14))
""")
        self.assertEqual(out, ["True", "True", "True", "True"])

    def test_diff_array_after_backward_grew_the_diff(self):
        out = self.run_case("""
d = net.blobs["data"].diff
d[...] = 3
net.blobs["data"].reshape(4, 1, 256, 256)
net.reshape()
net.forward(data=np.ones((4, 1, 256, 256), np.float32))
grad = net.backward(out=np.ones((4, 1, 256, 256), np.float32))["data"]
print(same(d, 3), same(grad, 2))
d[...] = 9
print(same(net.blobs["data"].diff, 2))
""")
        self.assertEqual(out, ["True", "True", "True"])

    def test_parameter_array_after_share_with(self):
        out = self.run_case("""
w = net.params["ip"][0].data
mine = w.copy()
other = dtrain.Net(sys.argv[1])
other.params["ip"][0].data[...] = 0.5
net.share_with(other)                              # the net drops its own weights
del other
gc.collect()
print(np.array_equal(w, mine))
w[...] = 8
print(same(net.params["ip"][0].data, 0.5))
print(same(net.forward(x=np.ones((1, 1024), np.float32))["y"], 512))
""")
        self.assertEqual(out, ["True", "True", "True"])

    def test_parameter_diff_after_the_parameter_grew(self):
        out = self.run_case("""
weights = net.params["ip"][0]
d = weights.diff
d[...] = 4
weights.reshape(128, 1024)
print(weights.shape, weights.diff.shape)
print(same(d, 4))
d[...] = 6
print(same(weights.diff[:64], 4))
""")
        self.assertEqual(out, ["(128,", "1024)", "(128,", "1024)", "True", "True"])

    def test_arrays_and_blobs_after_the_net_is_deleted(self):
        out = self.run_case("""
a = net.blobs["data"].data
blob = net.blobs["out"]
d = net.params["ip"][0].diff
del net
gc.collect()
a[...] = 1
d[...] = 2
blob.data[...] = 3
blob.reshape(2, 1, 256, 256)
blob.data[...] = 4
print(same(a, 1), same(d, 2), same(blob.data, 4))
""")
        self.assertEqual(out, ["True", "True", "True"])


class StaleSolverArrays(PatchNetCase):

    def test_arrays_after_steps_and_the_solver_deleted(self):
        solver = self.solver("solver.prototxt", "snap", max_iter=4)
        out = run_isolated("""
import gc, sys
import numpy as np
import dtrain
solver = dtrain.SGDSolver(sys.argv[1])
w = solver.net.params["conv1"][0].data
g = solver.net.params["conv1"][0].diff
data = solver.net.blobs["data"].data
test = solver.test_nets[0].blobs["ip2"].data
solver.step(2)
print(np.array_equal(w, solver.net.params["conv1"][0].data))  # still the weights
del solver
gc.collect()
for array in (w, g, data, test):
    array[...] = 1
print(bool(np.all(w == 1)))
""", solver)
        self.assertEqual(out.split(), ["True", "True"])


if __name__ == "__main__":
    unittest.main()
