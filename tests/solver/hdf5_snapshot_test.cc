// snapshot_format: HDF5 writes Caffe's .caffemodel.h5 / .solverstate.h5 layout (read back here
// with h5py), and a run resumed from them ends with the very weights of an uninterrupted one.
#include "solver/hdf5_snapshot.h"

#include <gtest/gtest.h>

#include <string>

#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::RunDtrain;
using testing::TempDir;
using testing::WriteTextFile;

// A layer name with a '/' in it, as GoogLeNet's, nests HDF5 groups.
const char kNet[] =
    "layer { name: 'data' type: 'DummyData' top: 'data' top: 'label'\n"
    "  dummy_data_param { shape { dim: 6 dim: 5 } shape { dim: 6 }\n"
    "    data_filler { type: 'gaussian' std: 1 } data_filler { type: 'uniform' min: 0 max: 2.99 }\n"
    "  } }\n"
    "layer { name: 'fc1/proj' type: 'InnerProduct' bottom: 'data' top: 'h'\n"
    "  inner_product_param { num_output: 4 weight_filler { type: 'xavier' } } }\n"
    "layer { name: 'relu' type: 'ReLU' bottom: 'h' top: 'h' }\n"
    "layer { name: 'fc2' type: 'InnerProduct' bottom: 'h' top: 'out'\n"
    "  inner_product_param { num_output: 3 weight_filler { type: 'xavier' } } }\n"
    "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'out' bottom: 'label' top: 'loss' }\n";

std::string Solver(const TempDir& dir, const std::string& prefix) {
  return "net: '" + dir.Path("net.prototxt") +
         "' base_lr: 0.1 momentum: 0.9 lr_policy: 'fixed' "
         "max_iter: 20 snapshot: 10 snapshot_format: HDF5 display: 0 random_seed: 7 "
         "snapshot_prefix: '" +
         dir.Path(prefix) + "'\n";
}

void ExpectSameWeights(const std::string& a, const std::string& b) {
  auto first = ReadWeightsHdf5(a), second = ReadWeightsHdf5(b);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_TRUE(second.ok()) << second.status().message();
  ASSERT_EQ(first->layer_size(), second->layer_size());
  int blobs = 0;
  for (int l = 0; l < first->layer_size(); ++l) {
    ASSERT_EQ(first->layer(l).name(), second->layer(l).name());
    ASSERT_EQ(first->layer(l).blobs_size(), second->layer(l).blobs_size());
    for (int i = 0; i < first->layer(l).blobs_size(); ++i, ++blobs) {
      EXPECT_EQ(first->layer(l).blobs(i).SerializeAsString(),
                second->layer(l).blobs(i).SerializeAsString())
          << first->layer(l).name() << " blob " << i;
    }
  }
  EXPECT_EQ(blobs, 4);  // fc1/proj and fc2, weights and bias
}

TEST(Hdf5Snapshot, ResumingFromHdf5SnapshotsIsExact) {
  TempDir dir;
  WriteTextFile(dir.Path("net.prototxt"), kNet);
  WriteTextFile(dir.Path("whole.prototxt"), Solver(dir, "whole"));
  WriteTextFile(dir.Path("resumed.prototxt"), Solver(dir, "resumed"));
  auto r = RunDtrain("train --solver=" + dir.Path("whole.prototxt"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Snapshotting to HDF5 file " + dir.Path("whole_iter_10.caffemodel.h5")),
            std::string::npos)
      << r.output;
  // The first 10 iterations again under another prefix, then a resume from their snapshot.
  r = RunDtrain("train --iterations=10 --solver=" + dir.Path("resumed.prototxt"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = RunDtrain("train --solver=" + dir.Path("resumed.prototxt") +
                " --snapshot=" + dir.Path("resumed_iter_10.solverstate.h5"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ExpectSameWeights(dir.Path("whole_iter_20.caffemodel.h5"),
                    dir.Path("resumed_iter_20.caffemodel.h5"));
}

TEST(Hdf5Snapshot, FilesHaveCaffesLayoutForH5py) {
  TempDir dir;
  WriteTextFile(dir.Path("net.prototxt"), kNet);
  WriteTextFile(dir.Path("solver.prototxt"), Solver(dir, "snap"));
  auto r = RunDtrain("train --iterations=10 --solver=" + dir.Path("solver.prototxt"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  WriteTextFile(dir.Path("check.py"),
                "import h5py, numpy as np\n"
                "with h5py.File('" +
                    dir.Path("snap_iter_10.caffemodel.h5") +
                    "', 'r') as f:\n"
                    "  assert f['data/fc1/proj/0'].shape == (4, 5), f['data/fc1/proj/0'].shape\n"
                    "  assert f['data/fc1/proj/1'].shape == (4,)\n"
                    "  assert f['data/fc2/0'].shape == (3, 4)\n"
                    "  assert 'relu' in f['data'] and len(f['data/relu']) == 0\n"
                    "with h5py.File('" +
                    dir.Path("snap_iter_10.solverstate.h5") +
                    "', 'r') as f:\n"
                    "  assert list(f['iter'][:]) == [10], f['iter'][:]\n"
                    "  assert f['learned_net'][()].decode() == '" +
                    dir.Path("snap_iter_10.caffemodel.h5") +
                    "'\n"
                    "  assert list(f['current_step'][:]) == [0]\n"
                    "  assert sorted(f['history'].keys()) == ['0', '1', '2', '3']\n"
                    "  assert f['history/0'].shape == (4, 5)\n");
  auto check = testing::RunShell("/usr/bin/python3 " + dir.Path("check.py") + " 2>&1");
  EXPECT_EQ(check.exit_code, 0) << check.output;
  // dtrain test takes HDF5 weights as Caffe does, by the file name.
  r = RunDtrain("test --iterations=1 --model=" + dir.Path("net.prototxt") +
                " --weights=" + dir.Path("snap_iter_10.caffemodel.h5"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Copied weights from " + dir.Path("snap_iter_10.caffemodel.h5") +
                          ": 2 layer(s) with parameters"),
            std::string::npos)
      << r.output;
}

TEST(Hdf5Snapshot, DamagedFilesAreNamed) {
  TempDir dir;
  WriteTextFile(dir.Path("bad.caffemodel.h5"), "not hdf5 at all");
  EXPECT_EQ(ReadWeightsHdf5(dir.Path("bad.caffemodel.h5")).status().message(),
            dir.Path("bad.caffemodel.h5") + ": not an HDF5 file");
  EXPECT_EQ(ReadSolverStateHdf5(dir.Path("none.solverstate.h5")).status().message(),
            dir.Path("none.solverstate.h5") + ": no such file");
  // An HDF5 file without Caffe's groups.
  auto made = testing::RunShell("/usr/bin/python3 -c \"import h5py; h5py.File('" +
                                dir.Path("other.h5") + "', 'w')['x'] = [1]\" 2>&1");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  EXPECT_EQ(ReadWeightsHdf5(dir.Path("other.h5")).status().message(),
            dir.Path("other.h5") + ": no group 'data' (not a Caffe HDF5 weights file)");
  EXPECT_EQ(ReadSolverStateHdf5(dir.Path("other.h5")).status().message(),
            dir.Path("other.h5") + ": no dataset 'iter'");
}

}  // namespace
}  // namespace dtrain
