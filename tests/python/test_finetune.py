"""Solvers from Python: fine-tuning and training equal `dtrain train`'s, bit for bit."""

import unittest

import numpy as np

import dtrain
from dtrain_testing import PatchNetCase, run_dtrain


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


class SolverFromPython(PatchNetCase):

    def test_fine_tuning_a_few_steps_equals_the_command(self):
        run_dtrain("train", "--solver=" + self.solver("pretrain.prototxt", "pre"))
        pretrained = self.path("pre_iter_30.caffemodel")

        run_dtrain("train", "--solver=" + self.solver("cli.prototxt", "cli", max_iter=10),
                   "--weights=" + pretrained)
        solver = dtrain.SGDSolver(self.solver("py.prototxt", "py", max_iter=10))
        self.assertIsInstance(solver.net, dtrain.Net)
        self.assertIsInstance(solver.test_nets[0], dtrain.Net)
        solver.net.copy_from(pretrained)
        before = solver.net.params["ip2"][0].data.copy()
        solver.step(4)
        self.assertEqual(solver.iter, 4)
        solver.step(6)
        self.assertEqual(solver.iter, 10)
        self.assertFalse(np.array_equal(before, solver.net.params["ip2"][0].data))
        solver.snapshot()

        self.assertEqual(read_bytes(self.path("py_iter_10.caffemodel")),
                         read_bytes(self.path("cli_iter_10.caffemodel")))
        cli = dtrain.Net(self.deploy, weights=self.path("cli_iter_10.caffemodel"))
        for layer, blobs in cli.params.items():
            for mine, theirs in zip(solver.net.params[layer], blobs):
                np.testing.assert_array_equal(mine.data, theirs.data)

    def test_solve_equals_the_command_and_test_nets_share_the_weights(self):
        run_dtrain("train", "--solver=" + self.solver("cli.prototxt", "cli"))
        solver = dtrain.get_solver(self.solver("py.prototxt", "py"))
        self.assertEqual(solver.type, "SGD")
        solver.solve()
        self.assertEqual(solver.iter, 30)
        self.assertEqual(read_bytes(self.path("py_iter_30.caffemodel")),
                         read_bytes(self.path("cli_iter_30.caffemodel")))
        self.assertEqual(len(solver.test_nets), 1)
        test_net = solver.test_nets[0]
        self.assertEqual(test_net.phase, dtrain.TEST)
        np.testing.assert_array_equal(test_net.params["conv1"][0].data,
                                      solver.net.params["conv1"][0].data)
        (scores,) = solver.test()
        self.assertEqual(sorted(name for name, _ in scores), ["accuracy", "loss"])

    def test_the_solver_files_weights_field_starts_the_solver_as_the_command(self):
        run_dtrain("train", "--solver=" + self.solver("pretrain.prototxt", "pre"))
        pretrained = self.path("pre_iter_30.caffemodel")
        weights_line = 'weights: "%s"\n' % pretrained

        def with_weights(name, prefix):
            path = self.solver(name, prefix, max_iter=10)
            with open(path, "a") as f:
                f.write(weights_line)
            return path

        run_dtrain("train", "--solver=" + with_weights("cli.prototxt", "cli"))
        solver = dtrain.SGDSolver(with_weights("py.prototxt", "py"))
        np.testing.assert_array_equal(
            solver.net.params["ip2"][0].data,
            dtrain.Net(self.deploy, weights=pretrained).params["ip2"][0].data)
        solver.solve()
        self.assertEqual(read_bytes(self.path("py_iter_10.caffemodel")),
                         read_bytes(self.path("cli_iter_10.caffemodel")))
        # Without the field the same 10 iterations start from the fillers: other weights.
        run_dtrain("train", "--solver=" + self.solver("plain.prototxt", "plain", max_iter=10))
        self.assertNotEqual(read_bytes(self.path("plain_iter_10.caffemodel")),
                            read_bytes(self.path("cli_iter_10.caffemodel")))

    def test_a_missing_weights_file_of_the_solver_is_an_error_naming_it(self):
        path = self.solver("missing.prototxt", "missing", max_iter=10)
        with open(path, "a") as f:
            f.write('weights: "%s"\n' % self.path("no_such.caffemodel"))
        with self.assertRaisesRegex(dtrain.Error, "no_such.caffemodel"):
            dtrain.SGDSolver(path)

    def test_resume_from_a_snapshot(self):
        run_dtrain("train", "--solver=" + self.solver("cli.prototxt", "cli"))
        solver = dtrain.SGDSolver(self.solver("py.prototxt", "py", max_iter=40))
        solver.solve(resume=self.path("cli_iter_30.solverstate"))
        self.assertEqual(solver.iter, 40)

    def test_a_missing_solver_file_is_an_error_naming_it(self):
        with self.assertRaisesRegex(dtrain.Error, "no_such_solver.prototxt"):
            dtrain.SGDSolver(self.path("no_such_solver.prototxt"))

    def test_the_update_rule_of_the_class(self):
        solver = dtrain.AdamSolver(self.solver("py.prototxt", "py"))
        self.assertEqual(solver.type, "Adam")


if __name__ == "__main__":
    unittest.main()
