// Hostile input: nonsense resumed or accepted through HDF5 snapshots, HDF5
// data and `dtrain upgrade`. Each is refused (exit 1, under a time limit) naming the file (and
// the dataset, layer or field), and a refused run leaves the files on disk as they were.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/proto_io.h"
#include "hostile/hostile.h"
#include "proto/net.pb.h"
#include "testing/files.h"

namespace dtrain {
namespace {

using testing::FilesUnder;
using testing::kTinyNet;
using testing::RunDtrainWithin;
using testing::TempDir;
using testing::TinyRun;
using testing::WriteTextFile;

// Runs a Python snippet with Debian's interpreter (python3-h5py), h5py and numpy imported.
void Python(const std::string& code) {
  TempDir dir;
  WriteTextFile(dir.Path("script.py"), "import h5py, numpy as np\n" + code);
  const auto r = testing::RunShell("/usr/bin/python3 " + dir.Path("script.py") + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output << "\n" << code;
}

// A run that snapshots in HDF5 at iterations 2 and 4.
struct Hdf5Run : TinyRun {
  explicit Hdf5Run(const std::string& base_lr = "0.1")
      : TinyRun("snapshot_format: HDF5\n", kTinyNet, base_lr) {}
  std::string State(int iter) const {
    return Snap("tiny_iter_" + std::to_string(iter) + ".solverstate.h5");
  }
  std::string Model(int iter) const {
    return Snap("tiny_iter_" + std::to_string(iter) + ".caffemodel.h5");
  }
};

// Removes dtrain's attributes from an .h5 file, leaving it as Caffe writes it.
std::string StripAttributes(const std::string& path) {
  return "with h5py.File('" + path +
         "', 'r+') as f:\n"
         "  for a in list(f.attrs): del f.attrs[a]\n";
}

TEST(NonsenseHdf5, DamagedHdf5SnapshotContentsAreFoundByTheChecksum) {
  Hdf5Run run;
  ASSERT_EQ(run.Train().exit_code, 0);
  // A weight changed slightly (still finite and small: only the checksum can tell).
  Python("with h5py.File('" + run.Model(2) +
         "', 'r+') as f:\n"
         "  w = f['data/fc/0']; v = w[...]; v[0, 0] *= 1.01; w[...] = v\n");
  const auto before = FilesUnder(run.dir.Path("snap"));
  EXPECT_REFUSED_WITH(run.Train("--snapshot=" + run.State(2)),
                      run.Model(2) +
                          ": its contents do not match the checksum written with them: the file "
                          "was damaged after it was written");
  // The state's own history.
  Python("with h5py.File('" + run.State(4) +
         "', 'r+') as f:\n"
         "  h = f['history/0']; v = h[...]; v[0, 0] += 1; h[...] = v\n");
  EXPECT_REFUSED_WITH(run.Train("--snapshot=" + run.State(4)),
                      run.State(4) + ": its contents do not match the checksum written with them");
  auto after = FilesUnder(run.dir.Path("snap"));
  after.erase("tiny_iter_4.solverstate.h5");  // the edit above
  auto expected = before;
  expected.erase("tiny_iter_4.solverstate.h5");
  EXPECT_EQ(after, expected) << "a refused resume wrote nothing";
}

TEST(NonsenseHdf5, AnHdf5PairOfDifferentRunsIsRefused) {
  Hdf5Run run, other("0.2");  // the same net, trained to other weights
  ASSERT_EQ(run.Train().exit_code, 0);
  ASSERT_EQ(other.Train().exit_code, 0);
  std::filesystem::copy_file(other.Model(2), run.Model(2),
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_REFUSED_WITH(
      run.Train("--snapshot=" + run.State(2)),
      run.State(2) + " was written with another '" + run.Model(2) + "' than the one there now");
}

// The case: random bytes where the weights were. In dtrain's files the checksum finds
// them; in Caffe's (no checksum) the values do, naming the dataset; never "diverged".
TEST(NonsenseHdf5, RandomBytesForWeightsAreNamedNotBlamedOnTheLearningRate) {
  Hdf5Run run;
  ASSERT_EQ(run.Train().exit_code, 0);
  const std::string random_bytes =
      "with h5py.File('" + run.Model(2) +
      "', 'r+') as f:\n"
      "  w = f['data/fc/0']\n"
      "  w[...] = np.frombuffer(np.random.RandomState(3).bytes(w.size * 4), "
      "dtype=np.float32).reshape(w.shape)\n";
  Python(random_bytes);
  auto r = run.Train("--snapshot=" + run.State(2));
  EXPECT_REFUSED_WITH(r, run.Model(2) + ": its contents do not match the checksum");
  EXPECT_EQ(r.output.find("diverged"), std::string::npos) << r.output;
  // As Caffe writes them: no checksum on either file.
  Python(StripAttributes(run.Model(2)) + StripAttributes(run.State(2)));
  r = run.Train("--snapshot=" + run.State(2));
  EXPECT_REFUSED_WITH(r, run.Model(2) + ": dataset 'data/fc/0' holds ");
  EXPECT_NE(r.output.find("; weights that training writes are finite and within 1e+18 (a damaged "
                          "file?)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("diverged"), std::string::npos) << r.output;
  // The same file as --weights.
  EXPECT_REFUSED_WITH(run.Train("--weights=" + run.Model(2)),
                      run.Model(2) + ": dataset 'data/fc/0' holds ");
  // Weights of the wrong size are named by layer and file.
  Python("with h5py.File('" + run.Model(4) +
         "', 'r+') as f:\n"
         "  del f['data/fc/0']; f['data/fc/0'] = np.zeros((3, 7), np.float32)\n" +
         StripAttributes(run.Model(4)));
  r = run.Train("--weights=" + run.Model(4));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(run.Model(4)), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("'fc'"), std::string::npos) << r.output;
}

TEST(NonsenseHdf5, Hdf5SolverStateFieldsAreReadExactlyAndChecked) {
  Hdf5Run run;
  ASSERT_EQ(run.Train().exit_code, 0);
  const std::string state = run.State(2);
  // Through float, 3000000000 used to become an iteration of INT_MIN (undefined behaviour).
  Python("with h5py.File('" + state +
         "', 'r+') as f:\n"
         "  del f['iter']; f['iter'] = np.array([3000000000], np.int64)\n" +
         StripAttributes(state));
  EXPECT_REFUSED_WITH(run.Train("--snapshot=" + state),
                      state +
                          ": dataset 'iter': 3000000000 is beyond what the field holds (a 32-bit "
                          "int)");
  Python("with h5py.File('" + state +
         "', 'r+') as f:\n"
         "  del f['iter']; f['iter'] = np.array([2.5])\n");
  EXPECT_REFUSED_WITH(run.Train("--snapshot=" + state),
                      state + ": dataset 'iter': holds no integer (Caffe writes an int here)");
  Python("with h5py.File('" + state +
         "', 'r+') as f:\n"
         "  del f['iter']; f['iter'] = np.array([2], np.int32)\n"
         "  del f['current_step']; f['current_step'] = np.array([7], np.int32)\n");
  EXPECT_REFUSED_WITH(run.Train("--snapshot=" + state),
                      state + ": current_step is 7; this solver has 2 stepvalue entries");
  Python("with h5py.File('" + state +
         "', 'r+') as f:\n"
         "  del f['current_step']; f['current_step'] = np.array([1], np.int32)\n"
         "  h = f['history/0']; v = h[...]; v[0, 0] = np.inf; h[...] = v\n");
  EXPECT_REFUSED_WITH(run.Train("--snapshot=" + state),
                      state +
                          ": dataset 'history/0' holds inf (value 0 of 18); a solver's history "
                          "is finite (a damaged file?)");
}

// A V1 net whose second layer's type is `type` on the wire (999 and -1 have no name).
NetParameter V1NetWithType(int64_t type) {
  NetParameter net;
  V1LayerParameter* data = net.add_layers();
  data->set_name("data");
  data->set_type(V1LayerParameter::DUMMY_DATA);
  data->add_top("x");
  V1LayerParameter* fc = net.add_layers();
  fc->set_name("fc");
  fc->add_bottom("x");
  fc->add_top("y");
  fc->mutable_unknown_fields()->AddVarint(5, static_cast<uint64_t>(type));  // 5: type
  return net;
}

TEST(NonsenseHdf5, UpgradeRefusesLayersThatWouldHaveNoTypeAndWritesNothing) {
  TempDir dir;
  const std::string in = dir.Path("v1.caffemodel"), out = dir.Path("out.caffemodel");
  WriteTextFile(out, "left as it was");
  for (int64_t type : {int64_t{999}, int64_t{-1}}) {
    ASSERT_TRUE(WriteBinaryProtoAtomically(in, V1NetWithType(type)).ok());
    EXPECT_REFUSED_WITH(RunDtrainWithin(60, "upgrade net --binary " + in + " " + out),
                        in + ": V1 layer #1 'fc': type is " + std::to_string(type) +
                            ", which names no LayerType value (a damaged file, or a Caffe "
                            "fork's?)");
  }
  // A V1 layer with no type, or NONE, in a binary file and in text.
  NetParameter none = V1NetWithType(0);
  none.mutable_layers(1)->mutable_unknown_fields()->Clear();
  ASSERT_TRUE(WriteBinaryProtoAtomically(in, none).ok());
  EXPECT_REFUSED_WITH(RunDtrainWithin(60, "upgrade net --binary " + in + " " + out),
                      in + ": V1 layer #1: layer 'fc' has no type, so it upgrades to no layer at "
                           "all; give it one of the V1 types");
  const std::string text = dir.Path("v1.prototxt"), text_out = dir.Path("out.prototxt");
  WriteTextFile(text_out, "left as it was");
  WriteTextFile(text,
                "layers { name: 'data' type: DUMMY_DATA top: 'x' }\n"
                "layers { name: 'fc' type: NONE bottom: 'x' top: 'y' }\n");
  const std::string none_message =
      text + ": V1 layer #1: layer 'fc' has type NONE (0), so it upgrades to no layer at all";
  EXPECT_REFUSED_WITH(RunDtrainWithin(60, "upgrade net " + text + " " + text_out), none_message);
  EXPECT_REFUSED_WITH(RunDtrainWithin(60, "check --model=" + text), none_message);
  TinyRun train("", "layers { name: 'fc' type: NONE }\n");
  EXPECT_REFUSED_WITH(train.Train(), train.dir.Path("net.prototxt") +
                                         ": V1 layer #0: layer 'fc' has type NONE (0)");
  // In text, an unnamed number is refused by the parser, naming the line and the value.
  WriteTextFile(text, "layers { name: 'fc' type: 999 }\n");
  const auto r = RunDtrainWithin(60, "upgrade net " + text + " " + text_out);
  EXPECT_REFUSED_WITH(r, text + ":1:");
  EXPECT_NE(r.output.find("999"), std::string::npos) << r.output;
  // A current-syntax layer without a type is not written out either.
  WriteTextFile(text, "layer { name: 'fc' }\n");
  EXPECT_REFUSED_WITH(RunDtrainWithin(60, "upgrade net " + text + " " + text_out),
                      text + ": layer #0 'fc' has no type; nothing written to " + text_out);
  EXPECT_EQ(FilesUnder(dir.Path("")).at("out.caffemodel"), "left as it was");
  EXPECT_EQ(FilesUnder(dir.Path("")).at("out.prototxt"), "left as it was");
}

// A binary V1 enum value with no name anywhere in a layer (here V0's pooling method) would read
// as the default, a silently different net.
TEST(NonsenseHdf5, UpgradeRefusesUnnamedEnumValuesInsideLayers) {
  TempDir dir;
  NetParameter net;
  V1LayerParameter* pool = net.add_layers();
  pool->set_name("pool1");
  pool->set_type(V1LayerParameter::POOLING);
  pool->mutable_pooling_param()->mutable_unknown_fields()->AddVarint(1, 7);  // 1: pool
  const std::string in = dir.Path("v1.caffemodel");
  ASSERT_TRUE(WriteBinaryProtoAtomically(in, net).ok());
  EXPECT_REFUSED_WITH(RunDtrainWithin(60, "upgrade net --binary " + in + " " + dir.Path("out")),
                      in + ": V1 layer #0 'pool1': pooling_param.pool is 7, which names no "
                           "PoolMethod value");
  EXPECT_FALSE(std::filesystem::exists(dir.Path("out")));
}

// HDF5Data files whose datasets claim absurd shapes: refused at setup naming the file, the
// dataset and the shape, before anything is allocated (was "out of memory in setup").
std::string Hdf5DataNet(const std::string& list) {
  return "layer { name: 'data' type: 'HDF5Data' top: 'data' top: 'label'\n"
         "  hdf5_data_param { source: '" +
         list +
         "' batch_size: 2 } }\n"
         "layer { name: 'fc' type: 'InnerProduct' bottom: 'data' top: 'y'\n"
         "  inner_product_param { num_output: 3 } }\n"
         "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'y' bottom: 'label' top: 'loss' }\n";
}

TEST(NonsenseHdf5, HDF5DataWithAbsurdShapesIsRefusedNamingTheFileAndShape) {
  TempDir dir;
  const std::string h5 = dir.Path("d.h5");
  WriteTextFile(dir.Path("list.txt"), h5 + "\n");
  auto train = [&](const std::string& make_file) {
    Python("with h5py.File('" + h5 + "', 'w') as f:\n" + make_file);
    TinyRun run("", Hdf5DataNet(dir.Path("list.txt")));
    return run.Train();
  };
  const std::string where = "layer 'data' (HDF5Data): " + h5 + ": dataset 'data': ";
  // The file: 2^31 - 1 rows, none of them written (chunks never stored).
  auto r = train(
      "  f.create_dataset('data', (2**31 - 1, 1), 'f4', chunks=(65536, 1))\n"
      "  f.create_dataset('label', (2**31 - 1,), 'f4', chunks=(65536,))\n");
  EXPECT_REFUSED_WITH(r, where);
  EXPECT_NE(r.output.find("2147483647 x 1 (2147483647 values, 8.0 GiB)"), std::string::npos)
      << r.output;
  // More values than any machine holds: the machine's memory is named.
  r = train(
      "  f.create_dataset('data', (2**31 - 1, 2**31 - 1), 'f4', chunks=(1, 65536))\n"
      "  f['label'] = np.zeros(4, np.float32)\n");
  EXPECT_REFUSED_WITH(r, where +
                             "a tensor of shape 2147483647 x 2147483647 (4611686014132420609 "
                             "values, 16.0 EiB) is larger than this machine's memory (");
  // 1000 rows claimed, 100 written (chunks of 100 rows).
  r = train(
      "  d = f.create_dataset('data', (1000, 4), 'f4', chunks=(100, 4))\n"
      "  d[0:100] = np.ones((100, 4))\n"
      "  f['label'] = np.zeros(1000, np.float32)\n");
  EXPECT_REFUSED_WITH(r, where +
                             "shape 1000 x 4 (4000 values, 15.6 KiB) but the file stores 1 of "
                             "its 10 chunks (a damaged or cut-short file, or a dataset that was "
                             "never written)");
  // A contiguous dataset never written: no bytes stored.
  r = train(
      "  f.create_dataset('data', (1000, 4), 'f4')\n"
      "  f['label'] = np.zeros(1000, np.float32)\n");
  EXPECT_REFUSED_WITH(r, where +
                             "shape 1000 x 4 (4000 values, 15.6 KiB) but the file stores 0 B "
                             "of them");
  // Rows of no value.
  r = train(
      "  f['data'] = np.zeros((4, 0), np.float32)\n"
      "  f['label'] = np.zeros(4, np.float32)\n");
  EXPECT_REFUSED_WITH(r, "layer 'data' (HDF5Data): " + h5 +
                             ": dataset 'data' has shape 4 x 0: its rows hold no value (a "
                             "dimension of 0)");
  // Data and label that disagree on the rows.
  r = train(
      "  f['data'] = np.zeros((4, 3), np.float32)\n"
      "  f['label'] = np.zeros((5, 1), np.float32)\n");
  EXPECT_REFUSED_WITH(
      r, "layer 'data' (HDF5Data): " + h5 + ": dataset 'label' has 5 rows but 'data' has 4");
}

}  // namespace
}  // namespace dtrain
