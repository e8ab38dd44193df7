"""pycaffe's net_spec (caffe.NetSpec, caffe.layers, caffe.params): nets written as Python calls
give the NetParameter pycaffe gives, which dtrain reads and trains."""

import os
import shutil
import subprocess
import tempfile
import unittest

from google.protobuf import text_format

import caffe
from caffe import layers as L, params as P
from caffe.proto import caffe_pb2
from dtrain_testing import DTRAIN, write_patch_lmdb

# LeNet as pycaffe's examples/01-learning-lenet writes it, and the net it gives, written out.
EXPECTED = """
layer { name: "data" type: "Data" top: "data" top: "label"
  transform_param { scale: 0.00390625 }
  data_param { source: "%(lmdb)s" batch_size: 8 backend: LMDB } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1"
  param { lr_mult: 1 } param { lr_mult: 2 }
  convolution_param { num_output: 4 kernel_size: 5 weight_filler { type: "xavier" } } }
layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1"
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "relu1" type: "ReLU" bottom: "pool1" top: "pool1" }
layer { name: "ip1" type: "InnerProduct" bottom: "pool1" top: "ip1"
  inner_product_param { num_output: 10 weight_filler { type: "xavier" } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip1" bottom: "label" top: "loss" }
"""


def lenet(lmdb):
    n = caffe.NetSpec()
    n.data, n.label = L.Data(batch_size=8, backend=P.Data.LMDB, source=lmdb,
                             transform_param=dict(scale=1. / 256), ntop=2)
    n.conv1 = L.Convolution(n.data, kernel_size=5, num_output=4, weight_filler=dict(type="xavier"),
                            param=[dict(lr_mult=1), dict(lr_mult=2)])
    n.pool1 = L.Pooling(n.conv1, kernel_size=2, stride=2, pool=P.Pooling.MAX)
    n.relu1 = L.ReLU(n.pool1, in_place=True)
    n.ip1 = L.InnerProduct(n.relu1, num_output=10, weight_filler=dict(type="xavier"))
    n.loss = L.SoftmaxWithLoss(n.ip1, n.label)
    return n.to_proto()


class NetSpecTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="dtrain_net_spec_")
        self.addCleanup(shutil.rmtree, self.dir)

    def test_lenet_gives_pycaffes_net(self):
        expected = text_format.Merge(EXPECTED % {"lmdb": "mnist_lmdb"}, caffe_pb2.NetParameter())
        self.assertEqual(lenet("mnist_lmdb"), expected)

    def test_unnamed_tops_get_type_and_counter_and_to_proto_of_a_top(self):
        data = L.Input(shape=dict(dim=[1, 3, 8, 8]))
        conv = L.Convolution(data, num_output=2, kernel_size=3)
        net = L.ReLU(L.Convolution(conv, num_output=2, kernel_size=1), in_place=True).to_proto()
        self.assertEqual([layer.name for layer in net.layer],
                         ["Input1", "Convolution1", "Convolution2", "ReLU1"])
        self.assertEqual(list(net.layer[3].top), ["Convolution2"])
        self.assertEqual(list(net.layer[0].input_param.shape[0].dim), [1, 3, 8, 8])
        self.assertEqual(caffe.to_proto(conv).layer[-1].name, "Convolution1")

    def test_layer_fields_and_phases(self):
        n = caffe.NetSpec()
        n.x = L.DummyData(shape=dict(dim=[2, 3]), include=dict(phase=caffe.TEST))
        n.y = L.Dropout(n.x, dropout_ratio=0.3, loss_weight=2, propagate_down=[False])
        layer = n.to_proto().layer[1]
        self.assertAlmostEqual(layer.dropout_param.dropout_ratio, 0.3, places=6)
        self.assertEqual(list(layer.loss_weight), [2])
        self.assertEqual(n.to_proto().layer[0].include[0].phase, caffe.TEST)

    def test_mistakes_are_named(self):
        with self.assertRaisesRegex(AttributeError, "ConvolutionParameter has no field 'kernal'"):
            L.Convolution(L.Input(), kernal=3).to_proto()
        with self.assertRaisesRegex(TypeError, "bottom 0 of ReLU is a str"):
            L.ReLU("data")
        with self.assertRaisesRegex(AttributeError, "caffe_pb2 has no message NothingParameter"):
            P.Nothing.MAX

    def test_the_written_net_trains(self):
        lmdb = os.path.join(self.dir, "lmdb")
        write_patch_lmdb(lmdb, 16, seed=3)  # 1 x 12 x 12 images of 4 classes
        net_path = os.path.join(self.dir, "net.prototxt")
        with open(net_path, "w") as f:
            f.write(str(lenet(lmdb)))
        solver = os.path.join(self.dir, "solver.prototxt")
        with open(solver, "w") as f:
            f.write('net: "%s"\nbase_lr: 0.01\nlr_policy: "fixed"\nmax_iter: 4\n' % net_path)
        run = subprocess.run([DTRAIN, "train", "--solver=" + solver], capture_output=True,
                             text=True)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)


if __name__ == "__main__":
    unittest.main()
