"""What the Python tests share: a scratch directory, the dtrain command, a learnable LMDB and
a small classifier in three files (train_val, deploy, solver)."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import dtrain

DTRAIN = os.environ.get("DTRAIN_BINARY", "dtrain")
CLASSES = 4
SIZE = 12  # images are 1 x SIZE x SIZE

TRAIN_VAL = """name: "patches"
layer { name: "data" type: "Data" top: "data" top: "label" include { phase: TRAIN }
  transform_param { scale: 0.00390625 }
  data_param { source: "%(train)s" batch_size: 20 backend: LMDB } }
layer { name: "data" type: "Data" top: "data" top: "label" include { phase: TEST }
  transform_param { scale: 0.00390625 }
  data_param { source: "%(test)s" batch_size: 20 backend: LMDB } }
%(body)s
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip2" bottom: "label" top: "loss" }
layer { name: "accuracy" type: "Accuracy" bottom: "ip2" bottom: "label" top: "accuracy"
  include { phase: TEST } }
"""

DEPLOY = """name: "patches"
layer { name: "data" type: "Input" top: "data"
  input_param { shape { dim: 20 dim: 1 dim: %(size)d dim: %(size)d } } }
%(body)s
layer { name: "prob" type: "Softmax" bottom: "ip2" top: "prob" }
"""

BODY = """layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
  param { lr_mult: 1 } param { lr_mult: 2 }
  convolution_param { num_output: 8 kernel_size: 3 weight_filler { type: "xavier" } } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1"
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "ip1" type: "InnerProduct" bottom: "pool1" top: "ip1"
  inner_product_param { num_output: 16 weight_filler { type: "xavier" } } }
layer { name: "relu2" type: "ReLU" bottom: "ip1" top: "ip1" }
layer { name: "ip2" type: "InnerProduct" bottom: "ip1" top: "ip2"
  inner_product_param { num_output: %(classes)d weight_filler { type: "xavier" } } }
"""

SOLVER = """net: "%(net)s"
test_iter: 5
test_interval: %(max_iter)d
base_lr: 0.05
momentum: 0.9
weight_decay: 0.0005
lr_policy: "step"
gamma: 0.5
stepsize: 20
display: 10
max_iter: %(max_iter)d
snapshot_after_train: true
snapshot_prefix: "%(prefix)s"
random_seed: 7
"""


def patch_images(count, seed):
    """count images whose label (i % CLASSES) is a bright patch at its own place, over noise."""
    rng = np.random.RandomState(seed)
    images = rng.randint(0, 60, size=(count, 1, SIZE, SIZE)).astype(np.uint8)
    labels = np.arange(count) % CLASSES
    for i, label in enumerate(labels):
        row, col = divmod(int(label), 2)
        images[i, 0, 2 + 5 * row:5 + 5 * row, 2 + 5 * col:5 + 5 * col] = 250
    return images, labels


def write_patch_lmdb(path, count, seed):
    images, labels = patch_images(count, seed)
    records = [(b"%08d" % i, dtrain.io.array_to_datum(images[i], int(labels[i])))
               for i in range(count)]
    dtrain.io.write_lmdb(path, records)
    return images, labels


def run_dtrain(*args):
    """Runs the dtrain command; returns its output (stdout and stderr), failing on an error."""
    result = subprocess.run([DTRAIN] + list(args), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        raise AssertionError("dtrain %s exited with %d:\n%s"
                             % (" ".join(args), result.returncode, result.stdout))
    return result.stdout


def run_isolated(script, *args):
    """Runs a Python script (argv[1:] = args) in a child interpreter that imports the same dtrain,
    so that a crash fails the calling test instead of killing the test runner. Returns the child's
    standard output; an exit by a signal or with a status other than 0 is an AssertionError with
    the child's output (faulthandler's traceback included)."""
    result = subprocess.run([sys.executable, "-X", "faulthandler", "-c", script] + list(args),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="backslashreplace")
    if result.returncode != 0:
        how = ("was killed by signal %d" % -result.returncode if result.returncode < 0
               else "exited with %d" % result.returncode)
        raise AssertionError("the child interpreter %s:\n%s%s"
                             % (how, result.stdout, result.stderr))
    return result.stdout


def logged_value(output, name):
    """The last 'NAME = VALUE' of a dtrain log."""
    found = re.findall(r"\] %s = ([-0-9.e+]+)" % re.escape(name), output)
    if not found:
        raise AssertionError("no '%s = ' line in:\n%s" % (name, output))
    return float(found[-1])


class ScratchCase(unittest.TestCase):
    """A scratch directory, removed after the test."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="dtrain_python_")
        self.addCleanup(shutil.rmtree, self.dir)

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, text):
        with open(self.path(name), "w") as f:
            f.write(text)
        return self.path(name)


class PatchNetCase(ScratchCase):
    """A scratch directory with train/test LMDBs of patch images and the classifier's files."""

    max_iter = 30

    def setUp(self):
        super().setUp()
        self.train_lmdb = self.path("train_lmdb")
        self.test_lmdb = self.path("test_lmdb")
        write_patch_lmdb(self.train_lmdb, 200, seed=1)
        self.test_images, self.test_labels = write_patch_lmdb(self.test_lmdb, 100, seed=2)
        fields = {"train": self.train_lmdb, "test": self.test_lmdb, "size": SIZE,
                  "body": BODY % {"classes": CLASSES}}
        self.train_val = self.write("train_val.prototxt", TRAIN_VAL % fields)
        self.deploy = self.write("deploy.prototxt", DEPLOY % fields)

    def solver(self, name, prefix, max_iter=None):
        return self.write(name, SOLVER % {"net": self.train_val, "prefix": self.path(prefix),
                                          "max_iter": max_iter or self.max_iter})
