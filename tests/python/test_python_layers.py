"""Caffe's Python layers (type: "Python") in the dtrain command, which embeds Python, and in nets
built from Python; and the caffe package's pycaffe names."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
LAYERS = os.path.join(HERE, "pylayers")
sys.path.insert(0, LAYERS)

import caffe  # noqa: E402
import dtrain  # noqa: E402
from dtrain_testing import DTRAIN  # noqa: E402


def python_layer(name, cls, bottoms=(), tops=("out",), param_str="", extra=""):
    return ('layer { name: "%s" type: "Python" %s %s python_param { module: "dtrain_test_layers" '
            'layer: "%s" param_str: "%s" } %s }\n'
            % (name, " ".join('bottom: "%s"' % b for b in bottoms),
               " ".join('top: "%s"' % t for t in tops), cls, param_str, extra))


INPUT = ('layer { name: "x" type: "Input" top: "x" input_param { shape { dim: 2 dim: 3 } } }\n'
         'layer { name: "y" type: "Input" top: "y" input_param { shape { dim: 2 dim: 3 } } }\n')


def text_of_param_net():
    """A TRAIN net whose ParamAndPhase output feeds a loss, so a solver can step it."""
    return (python_layer("p", "ParamAndPhase", param_str="2.5") +
            'layer { name: "loss" type: "EuclideanLoss" bottom: "out" bottom: "out" '
            'top: "loss" }\n')


class Case(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="dtrain_pylayer_")
        self.addCleanup(shutil.rmtree, self.dir)

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def dtrain_command(self, *args):
        """The dtrain command with the test layers and the caffe package on PYTHONPATH, as Caffe's
        users set it; (exit code, output)."""
        path = os.pathsep.join([LAYERS, os.environ.get("PYTHONPATH", "")])
        result = subprocess.run([DTRAIN] + list(args), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, timeout=300,
                                env=dict(os.environ, PYTHONPATH=path))
        return result.returncode, result.stdout


class InTheCommand(Case):
    """dtrain train, check and time with the embedded interpreter."""

    def solver(self, net_text, max_iter=60):
        net = self.write("net.prototxt", net_text)
        return self.write("solver.prototxt",
                          'net: "%s"\nbase_lr: 0.1\nmomentum: 0.9\nlr_policy: "fixed"\n'
                          'display: 10\nmax_iter: %d\nsnapshot_prefix: "%s/s"\n'
                          % (net, max_iter, self.dir))

    def test_python_data_layer_trains(self):
        solver = self.solver(
            python_layer("data", "SeparableData", tops=("x", "label"), param_str="16 7") +
            'layer { name: "ip" type: "InnerProduct" bottom: "x" top: "ip" '
            'inner_product_param { num_output: 2 weight_filler { type: "xavier" } } }\n'
            'layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" '
            'top: "loss" }\n')
        code, out = self.dtrain_command("train", "--solver=" + solver)
        self.assertEqual(code, 0, out)
        losses = [float(v) for v in re.findall(r"Iteration \d+.*?, loss = ([0-9.eE+-]+)", out)]
        self.assertGreaterEqual(len(losses), 5, out)
        self.assertLess(losses[-1], 0.5 * losses[0], out)

    def test_python_loss_layer_trains(self):
        solver = self.solver(
            python_layer("data", "SeparableData", tops=("x", "label"), param_str="16 3") +
            'layer { name: "ip" type: "InnerProduct" bottom: "x" top: "ip" '
            'inner_product_param { num_output: 1 weight_filler { type: "xavier" } } }\n'
            'layer { name: "flat" type: "Reshape" bottom: "ip" top: "pred" '
            'reshape_param { shape { dim: -1 } } }\n' +
            python_layer("loss", "EuclideanLoss", bottoms=("pred", "label"), tops=("loss",),
                         extra="loss_weight: 1"))
        code, out = self.dtrain_command("train", "--solver=" + solver)
        self.assertEqual(code, 0, out)
        losses = [float(v) for v in re.findall(r"Iteration \d+.*?, loss = ([0-9.eE+-]+)", out)]
        self.assertLess(losses[-1], 0.7 * losses[0], out)

    def test_exception_in_forward_names_the_layer_with_the_traceback(self):
        solver = self.solver(INPUT + python_layer("bad", "RaiseInForward", bottoms=("x",)) +
                             'layer { name: "loss" type: "EuclideanLoss" bottom: "out" '
                             'bottom: "y" top: "loss" }\n')
        code, out = self.dtrain_command("train", "--solver=" + solver)
        self.assertEqual(code, 1, out)
        self.assertIn("layer 'bad' (Python): python_param dtrain_test_layers.RaiseInForward: "
                      "forward raised", out)
        self.assertIn("Traceback (most recent call last)", out)
        self.assertIn("in _fail", out)
        self.assertIn("ValueError: boom from forward", out)

    def test_exception_in_backward_ends_the_run(self):
        solver = self.solver(INPUT + python_layer("bad", "RaiseInBackward", bottoms=("x",)) +
                             'layer { name: "loss" type: "EuclideanLoss" bottom: "out" '
                             'bottom: "y" top: "loss" }\n',
                             max_iter=5)
        with open(os.path.join(self.dir, "net.prototxt")) as f:
            self.write("net.prototxt", "force_backward: true\n" + f.read())
        code, out = self.dtrain_command("train", "--solver=" + solver)
        self.assertEqual(code, 1, out)
        self.assertIn("layer 'bad' (Python): python_param dtrain_test_layers.RaiseInBackward: "
                      "backward raised", out)
        self.assertIn("ValueError: boom from backward", out)

    def test_check_names_a_missing_module_and_a_missing_class(self):
        net = self.write("m.prototxt", INPUT + python_layer("p", "X").replace(
            "dtrain_test_layers", "no_such_module"))
        code, out = self.dtrain_command("check", "--model=" + net)
        self.assertEqual(code, 1, out)
        self.assertIn("layer 'p' (Python): python_param no_such_module.X: cannot import module "
                      "'no_such_module' (Python finds it on PYTHONPATH, as Caffe's does)", out)
        self.assertIn("No module named 'no_such_module'", out)
        net = self.write("c.prototxt", INPUT + python_layer("p", "NoSuchClass"))
        code, out = self.dtrain_command("check", "--model=" + net)
        self.assertEqual(code, 1, out)
        self.assertIn("module 'dtrain_test_layers' (%s) has no class 'NoSuchClass'"
                      % os.path.join(LAYERS, "dtrain_test_layers.py"), out)
        net = self.write("b.prototxt", INPUT + python_layer("p", "X").replace(
            "dtrain_test_layers", "broken_module"))
        code, out = self.dtrain_command("check", "--model=" + net)
        self.assertEqual(code, 1, out)
        self.assertIn("RuntimeError: broken_module cannot be imported", out)

    def test_check_and_time_run_a_python_layer(self):
        net = self.write("n.prototxt", INPUT + python_layer("g", "GrowingTop", bottoms=("x",),
                                                            tops=("rows", "calls")))
        code, out = self.dtrain_command("check", "--model=" + net)
        self.assertEqual(code, 0, out)
        code, out = self.dtrain_command("time", "--model=" + net, "--iterations=2")
        self.assertEqual(code, 0, out)

    def test_absurd_top_and_wrong_writes_are_errors(self):
        for cls, expected in (("AbsurdTop", "Blob.reshape"),
                              ("WrongShapeWrite", "could not broadcast"),
                              ("ReplacesData", "AttributeError")):
            net = self.write("n.prototxt", INPUT + python_layer("w", cls, bottoms=("x",)))
            code, out = self.dtrain_command("time", "--model=" + net, "--iterations=1")
            self.assertEqual(code, 1, cls + ":\n" + out)
            self.assertIn("layer 'w' (Python): python_param dtrain_test_layers." + cls, out)
            self.assertIn(expected, out)

    def test_the_dtrain_module_is_refused_inside_the_command(self):
        net = self.write("n.prototxt", INPUT + python_layer("i", "ImportsDtrain", bottoms=("x",)))
        code, out = self.dtrain_command("check", "--model=" + net)
        self.assertEqual(code, 1, out)
        self.assertIn("the dtrain module cannot be imported by a Python layer running inside the "
                      "dtrain command", out)


class InPython(Case):
    """Nets built from Python (dtrain.Net, caffe.Net) run their Python layers in this
    interpreter."""

    def net(self, text, phase=caffe.TEST):
        return caffe.Net(self.write("n.prototxt", text), phase)

    def test_loss_gradient_agrees_with_finite_differences(self):
        net = self.net("force_backward: true\n" + INPUT +
                       python_layer("loss", "EuclideanLoss", bottoms=("x", "y"), tops=("loss",),
                                    extra="loss_weight: 2"), caffe.TRAIN)
        rng = np.random.RandomState(1)
        x, y = rng.randn(2, 3).astype(np.float32), rng.randn(2, 3).astype(np.float32)

        def loss(xv):
            net.blobs["x"].data[...] = xv
            net.blobs["y"].data[...] = y
            net.forward()
            return 2 * float(net.blobs["loss"].data[0])

        loss(x)
        grad = net.backward()["x"].copy()
        step = 1e-2
        for i in np.ndindex(x.shape):
            up, down = x.copy(), x.copy()
            up[i] += step
            down[i] -= step
            numeric = (loss(up) - loss(down)) / (2 * step)
            self.assertAlmostEqual(grad[i], numeric, delta=1e-2 * max(1, abs(numeric)))

    def test_reshape_before_every_forward_changes_the_tops(self):
        net = self.net(INPUT + python_layer("g", "GrowingTop", bottoms=("x",),
                                            tops=("rows", "calls")))
        net.blobs["x"].data[...] = np.arange(6).reshape(2, 3)
        for forward in range(1, 4):
            out = net.forward()
            # Caffe's count: one reshape in setup, one before each forward.
            self.assertEqual(list(out["calls"]), [1, forward + 1, forward])
            self.assertEqual(out["rows"].shape, (forward + 1, 3))
            np.testing.assert_array_equal(out["rows"], [[0, 1, 2]] * (forward + 1))

    def test_param_str_and_phase_are_seen(self):
        text = python_layer("p", "ParamAndPhase", param_str="2.5")
        np.testing.assert_array_equal(self.net(text, caffe.TEST).forward()["out"], [1, 2.5])
        np.testing.assert_array_equal(self.net(text, caffe.TRAIN).forward()["out"], [0, 2.5])

    def test_net_layers_give_the_python_layers_own_objects(self):
        # As pycaffe: a script calls its layer's own methods (py-faster-rcnn's set_roidb).
        net = self.net(INPUT + python_layer("p", "ParamAndPhase", param_str="2.5") +
                       python_layer("s", "Scaled", bottoms=("x",), tops=("sx",), param_str="3"))
        layer = net.layers[2]
        self.assertEqual(type(layer).__name__, "ParamAndPhase")
        self.assertIsInstance(layer, caffe.Layer)
        self.assertIs(net.layer_dict["p"], layer)
        self.assertEqual(layer.type, "Python")
        layer.value = 7
        np.testing.assert_array_equal(net.forward()["out"], [1, 7])
        self.assertEqual(len(net.layer_dict["s"].blobs), 1)
        self.assertEqual((net.layers[0].name, net.layers[0].type), ("x", "Input"))
        solver = caffe.SGDSolver(self.write(
            "s.prototxt", 'net: "%s"\nbase_lr: 0.1\nlr_policy: "fixed"\nmax_iter: 10\n'
            'snapshot_prefix: "%s/s"\n' % (self.write("t.prototxt", text_of_param_net()),
                                           self.dir)))
        solver.net.layers[0].value = -4
        solver.step(1)
        np.testing.assert_array_equal(solver.net.blobs["out"].data, [0, -4])

    def test_learnable_blobs_are_parameters(self):
        net = self.net(INPUT + python_layer("s", "Scaled", bottoms=("x",), param_str="3"))
        self.assertEqual(len(net.params["s"]), 1)
        net.blobs["x"].data[...] = 1
        np.testing.assert_array_equal(net.forward()["out"], np.full((2, 3), 3.0))

    def test_exceptions_are_dtrain_errors_with_the_traceback(self):
        net = self.net(INPUT + python_layer("bad", "RaiseInForward", bottoms=("x",)))
        with self.assertRaises(dtrain.Error) as raised:
            net.forward()
        self.assertIn("layer 'bad' (Python)", str(raised.exception))
        self.assertIn("ValueError: boom from forward", str(raised.exception))
        net = caffe.Net(self.write("b.prototxt", "force_backward: true\n" + INPUT +
                                   python_layer("bad", "RaiseInBackward", bottoms=("x",))),
                        caffe.TRAIN)
        net.forward()
        with self.assertRaises(dtrain.Error) as raised:
            net.backward(out=np.ones((2, 3), np.float32))
        self.assertIn("ValueError: boom from backward", str(raised.exception))

    def test_a_layer_may_build_nets_from_a_script(self):
        net = self.net(INPUT + python_layer("i", "ImportsDtrain", bottoms=("x",)))
        self.assertEqual(float(net.forward()["out"][0]), 1.0)


class ImportCaffe(Case):
    """Scripts written for pycaffe."""

    def test_names(self):
        self.assertIs(caffe.Net, dtrain.Net)
        self.assertIs(caffe.SGDSolver, dtrain.SGDSolver)
        self.assertEqual((caffe.TRAIN, caffe.TEST), (0, 1))
        caffe.set_mode_cpu()
        caffe.set_mode_gpu()
        caffe.set_device(0)
        with self.assertRaisesRegex(AttributeError, "caffe.NCCL is not available in dtrain"):
            caffe.NCCL
        with self.assertRaisesRegex(AttributeError, "no attribute 'nothing'"):
            caffe.nothing
        with self.assertRaises(NotImplementedError):
            caffe.Layer().forward([], [])

    def test_net_forward_and_solver_step(self):
        net_path = self.write("n.prototxt", python_layer(
            "data", "SeparableData", tops=("x", "label"), param_str="8 1") +
            'layer { name: "ip" type: "InnerProduct" bottom: "x" top: "ip" '
            'inner_product_param { num_output: 2 weight_filler { type: "xavier" } } }\n'
            'layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" '
            'top: "loss" }\n')
        net = caffe.Net(net_path, caffe.TEST)
        self.assertEqual(net.forward()["loss"].shape, ())
        solver = caffe.SGDSolver(self.write(
            "s.prototxt", 'net: "%s"\nbase_lr: 0.1\nlr_policy: "fixed"\nmax_iter: 10\n'
            'snapshot_prefix: "%s/s"\n' % (net_path, self.dir)))
        solver.step(3)
        self.assertEqual(solver.iter, 3)

    def test_a_script_may_step_past_max_iter(self):
        # py-faster-rcnn's solver files have no max_iter; its script steps until its own count.
        solver = caffe.SGDSolver(self.write(
            "s.prototxt", 'net: "%s"\nbase_lr: 0.1\nlr_policy: "fixed"\nmax_iter: 2\n'
            'display: 1\nsnapshot_prefix: "%s/s"\n'
            % (self.write("t.prototxt", text_of_param_net()), self.dir)))
        log = os.path.join(self.dir, "log.txt")
        saved = os.dup(2)
        with open(log, "w") as f:
            os.dup2(f.fileno(), 2)
            try:
                solver.step(4)
            finally:
                os.dup2(saved, 2)
                os.close(saved)
        self.assertEqual(solver.iter, 4)
        with open(log) as f:
            lines = [line for line in f if "] Iteration " in line and "iter/s" in line]
        self.assertEqual(len(lines), 4, lines)
        for line in lines[:3]:  # iterations 0 to max_iter
            self.assertIn(" left)", line)
        for line in lines[3:]:  # no time left to estimate, rather than a negative one
            self.assertNotIn(" left", line)

    def test_caffe_pb2_parses_and_round_trips(self):
        from google.protobuf import text_format
        from caffe.proto import caffe_pb2
        text = (INPUT + python_layer("p", "ParamAndPhase", param_str="1") +
                'layer { name: "c" type: "Convolution" bottom: "x" top: "c" '
                'convolution_param { num_output: 4 kernel_size: 3 } }\n')
        net = text_format.Merge(text, caffe_pb2.NetParameter())
        self.assertEqual(net.layer[2].python_param.layer, "ParamAndPhase")
        self.assertEqual(net.layer[3].convolution_param.num_output, 4)
        again = caffe_pb2.NetParameter()
        again.ParseFromString(net.SerializeToString())
        self.assertEqual(again, net)
        self.assertEqual(text_format.Merge(text_format.MessageToString(net),
                                           caffe_pb2.NetParameter()), net)
        solver = caffe_pb2.SolverParameter(base_lr=0.1, solver_mode=caffe_pb2.SolverParameter.CPU)
        self.assertAlmostEqual(solver.base_lr, 0.1)
        self.assertEqual(caffe_pb2.TRAIN, caffe.TRAIN)

    def test_io_names(self):
        arr = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
        np.testing.assert_array_equal(caffe.io.blobproto_to_array(caffe.io.array_to_blobproto(arr)),
                                      arr)
        datum = caffe.io.array_to_datum(np.arange(12, dtype=np.uint8).reshape(3, 2, 2), label=3)
        self.assertEqual(datum.label, 3)
        np.testing.assert_array_equal(caffe.io.datum_to_array(datum),
                                      np.arange(12).reshape(3, 2, 2))
        self.assertEqual(caffe.io.oversample([np.zeros((8, 8, 3))], (4, 4)).shape, (10, 4, 4, 3))


if __name__ == "__main__":
    unittest.main()
