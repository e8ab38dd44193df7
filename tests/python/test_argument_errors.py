"""What a wrong argument or a file of bytes gets from the public API: the documented exception
with a message that names the argument (a phase is a ValueError, a value of the wrong type a
TypeError), and messages that keep the bytes of a user's file (a prototxt, a file name) that are
not UTF-8, escaped as \\xNN, where they used to come out empty."""

import os
import pathlib
import unittest

import numpy as np

import dtrain
from dtrain_testing import PatchNetCase


class ArgumentErrors(PatchNetCase):

    def test_a_phase_that_is_no_phase_is_a_value_error_naming_it(self):
        for args, kwargs in [((7,), {}), ((), {"phase": 7}), ((True,), {}), ((), {"phase": 2.5}),
                             ((self.path("w.caffemodel"), 7), {})]:
            with self.assertRaisesRegex(ValueError, r"^phase must be .*TRAIN.*, not (7|True|2\.5)$",
                                        msg=(args, kwargs)):
                dtrain.Net(self.deploy, *args, **kwargs)
        with self.assertRaisesRegex(TypeError, "given twice"):
            dtrain.Net(self.deploy, 0, 1)

    def test_arguments_of_the_wrong_type_are_type_errors_naming_them(self):
        cases = [
            (lambda: dtrain.Net(5), r"^Net: model must be a path \(str, bytes or os.PathLike\), "
                                    r"not int$"),
            (lambda: dtrain.Net(self.deploy, weights=5), r"^Net: weights must be a path .*not int$"),
            (lambda: dtrain.Net(self.deploy, weights=[self.deploy, 2.0]),
             r"^Net: weights .*not float$"),
            (lambda: dtrain.Net(self.deploy, level="1"), r"^Net: level must be an integer"),
            (lambda: dtrain.Net(self.deploy, stages=5), r"^Net: stages must be a list"),
            (lambda: dtrain.SGDSolver(5), r"^SGDSolver: path must be a path"),
            (lambda: dtrain.get_solver(None), r"^get_solver: path must be a path"),
            (lambda: dtrain.io.read_blobproto(1.5), r"^read_blobproto: path must be a path"),
            (lambda: dtrain.io.write_lmdb(self.path("new_lmdb"), [1]),
             r"^write_lmdb: each record must be a \(key, value\) pair of bytes, not int$"),
        ]
        net = dtrain.Net(self.deploy)
        cases += [
            (lambda: net.save(5), r"^save: path must be a path"),
            (lambda: net.export_onnx(None), r"^export_onnx: path must be a path"),
            (lambda: net.copy_from(5), r"^copy_from: weights must be a path"),
            (lambda: net.share_with("net"), r"^share_with: other must be a dtrain.Net, not str$"),
            (lambda: net.blobs["data"].reshape(2.5, 1, 12, 12),
             r"^Blob.reshape: dimensions must be integers, not float \(2.5\)$"),
            (lambda: net.blobs["data"].reshape("20"), r"^Blob.reshape: dimensions must be "),
            (lambda: net.forward(start=1), r"^start and end are layer names, not int"),
            (lambda: net.forward(blobs=[3]), r"^forward: blobs must be a blob name or a list"),
            (lambda: net.backward(diffs=5), r"^backward: diffs must be a blob name or a list"),
        ]
        for call, message in cases:
            with self.assertRaisesRegex(TypeError, message):
                call()
        with self.assertRaisesRegex(ValueError, r"dimension -1 is not in \[0, 2\^31 - 1\]"):
            net.blobs["data"].reshape(-1)
        with self.assertRaisesRegex(ValueError, "NUL"):
            dtrain.Net(self.deploy + "\0")

    def test_paths_may_be_path_objects_and_bytes(self):
        weights = pathlib.Path(self.path("w.caffemodel"))
        net = dtrain.Net(pathlib.Path(self.deploy))
        net.params["ip2"][1].data[...] = 0.25
        net.save(weights)
        for copy in (dtrain.Net(os.fsencode(self.deploy), weights=[weights]),
                     dtrain.Net(self.deploy, os.fsencode(str(weights)), "TEST")):
            np.testing.assert_array_equal(copy.params["ip2"][1].data, 0.25)
        other = dtrain.Net(self.deploy)
        other.copy_from([weights, str(weights)])
        np.testing.assert_array_equal(other.params["ip2"][1].data, 0.25)
        net.blobs["data"].reshape((2, 1, 12, 12))  # one tuple, as NumPy's reshape takes
        self.assertEqual(net.blobs["data"].shape, (2, 1, 12, 12))
        net.blobs["data"].reshape(np.int64(3), 1, 12, 12)  # NumPy's integers are integers
        net.reshape()
        self.assertEqual(net.forward(blobs="ip1")["ip1"].shape, (3, 16))

    def test_a_file_name_that_is_not_utf8_survives_in_the_message(self):
        name = os.fsencode(self.dir) + b"/caf\xe9_missing.prototxt"
        for path in (name, os.fsdecode(name)):  # bytes, and str with surrogate escapes
            with self.assertRaisesRegex(dtrain.Error, r"caf\\xe9_missing\.prototxt"):
                dtrain.Net(path)

    def test_random_bytes_as_a_prototxt_give_a_message(self):
        rng = np.random.RandomState(43)
        path = self.path("random.prototxt")
        with open(path, "wb") as f:
            f.write(b"name: \"\xff\xfe\" \x80" + rng.randint(0, 256, size=200).astype(np.uint8)
                    .tobytes())
        with self.assertRaises(dtrain.Error) as raised:
            dtrain.Net(path)
        message = str(raised.exception)
        self.assertIn("random.prototxt:1:", message)
        self.assertIn(r"got: \x80", message)  # the byte 0x80 of the file, escaped
        self.assertNotIn("\ufffd", message)
        message.encode("utf-8")  # a str of valid characters (no lone surrogates)


if __name__ == "__main__":
    unittest.main()
