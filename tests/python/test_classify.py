"""A classification script in pycaffe's style, against `dtrain test` on the same weights."""

import unittest

import numpy as np

import dtrain
from dtrain_testing import PatchNetCase, logged_value, run_dtrain


class ClassificationScript(PatchNetCase):

    def test_deploy_net_classifies_as_dtrain_test_scores(self):
        run_dtrain("train", "--solver=" + self.solver("solver.prototxt", "snap"))
        weights = self.path("snap_iter_30.caffemodel")
        log = run_dtrain("test", "--model=" + self.train_val, "--weights=" + weights,
                         "--iterations=5")

        # The script: a deploy net, images from the LMDB through a Transformer, argmax.
        net = dtrain.Net(self.deploy, weights, dtrain.TEST)
        transformer = dtrain.io.Transformer({"data": net.blobs["data"].shape})
        transformer.set_transpose("data", (2, 0, 1))
        transformer.set_input_scale("data", 0.00390625)
        records = dtrain.io.lmdb_records(self.test_lmdb)
        self.assertEqual(len(records), 100)
        predicted, losses, labels = [], [], []
        for first in range(0, 100, 20):
            batch = []
            for _, value in records[first:first + 20]:
                chw, label = dtrain.io.datum_to_array(value)
                batch.append(transformer.preprocess("data", chw.transpose(1, 2, 0)))
                labels.append(label)
            prob = net.forward(data=np.stack(batch))["prob"]
            self.assertEqual(prob.shape, (20, 4))
            predicted.extend(prob.argmax(axis=1))
            losses.extend(-np.log(np.maximum(prob[np.arange(20), labels[first:]], 1.1754944e-38)))
        accuracy = float(np.mean(np.array(predicted) == np.array(labels)))

        self.assertEqual(labels, list(self.test_labels))
        self.assertAlmostEqual(accuracy, logged_value(log, "accuracy"), places=6)
        self.assertGreater(accuracy, 0.5)  # the patches are learnable; 4 classes
        self.assertAlmostEqual(float(np.mean(losses)), logged_value(log, "loss"), delta=1e-5)


if __name__ == "__main__":
    unittest.main()
