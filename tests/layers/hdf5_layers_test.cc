// HDF5Data and HDF5Output on files written and read by h5py (python3-h5py), as Caffe's users
// make and inspect them: row order across files, wrap-around, shuffling, sharding, exact resume,
// the files' errors, and what HDF5Output leaves on disk.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "layers/sharded_source.h"
#include "proto/net.pb.h"
#include "testing/files.h"
#include "testing/layer_test_util.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::MakeLayer;
using testing::TempDir;

// Runs a Python snippet with Debian's interpreter (where python3-h5py lives), h5py and numpy
// imported as h5py and np.
void Python(const std::string& code) {
  const std::string script = "import h5py, numpy as np\n" + code;
  TempDir dir;
  testing::WriteTextFile(dir.Path("script.py"), script);
  auto r = testing::RunShell("/usr/bin/python3 " + dir.Path("script.py") + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output << "\n" << script;
}

// a.h5: data rows [0 1] [2 3] [4 5] (float64), label 0 1 2 (int32); b.h5: data [6 7] [8 9],
// label 3 4. Returns the list file naming both.
std::string WriteTwoFiles(const TempDir& dir) {
  Python("with h5py.File('" + dir.Path("a.h5") +
         "', 'w') as f:\n"
         "  f['data'] = np.arange(6, dtype=np.float64).reshape(3, 2)\n"
         "  f['label'] = np.arange(3, dtype=np.int32)\n"
         "with h5py.File('" +
         dir.Path("b.h5") +
         "', 'w') as f:\n"
         "  f['data'] = np.arange(6, 10, dtype=np.float32).reshape(2, 2)\n"
         "  f['label'] = np.arange(3, 5, dtype=np.int32)\n");
  testing::WriteTextFile(dir.Path("list.txt"), dir.Path("a.h5") + "\n" + dir.Path("b.h5") + "\n");
  return dir.Path("list.txt");
}

std::string DataLayer(const std::string& list, int batch, const std::string& extra = "") {
  return "name: 'h5' type: 'HDF5Data' top: 'data' top: 'label' hdf5_data_param { source: '" + list +
         "' batch_size: " + std::to_string(batch) + " " + extra + " }";
}

// The labels of `batches` forwards.
std::vector<float> Labels(Layer& layer, Tensor& data, Tensor& label, int batches) {
  std::vector<float> labels;
  for (int i = 0; i < batches; ++i) {
    EXPECT_TRUE(layer.Forward({}, {&data, &label}, nullptr).ok());
    for (float v : testing::Values(label)) labels.push_back(v);
  }
  return labels;
}

TEST(HDF5DataLayerTest, RowsInOrderAcrossFilesThenAround) {
  TempDir dir;
  auto layer = MakeLayer(DataLayer(WriteTwoFiles(dir), 4));
  Tensor data, label;
  ASSERT_TRUE(layer->Setup({}, {&data, &label}).ok());
  EXPECT_EQ(data.shape(), (std::vector<int>{4, 2}));
  EXPECT_EQ(label.shape(), (std::vector<int>{4}));
  ASSERT_TRUE(layer->Forward({}, {&data, &label}, nullptr).ok());
  EXPECT_EQ(testing::Values(data), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(testing::Values(label), (std::vector<float>{0, 1, 2, 3}));
  ASSERT_TRUE(layer->Forward({}, {&data, &label}, nullptr).ok());
  EXPECT_EQ(testing::Values(data), (std::vector<float>{8, 9, 0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(testing::Values(label), (std::vector<float>{4, 0, 1, 2}));
}

TEST(HDF5DataLayerTest, ShuffleVisitsEveryRowOncePerPassAndFollowsTheSeed) {
  TempDir dir;
  const std::string list = WriteTwoFiles(dir);
  Tensor data, label;
  std::vector<std::vector<float>> passes;
  for (uint64_t seed : {1u, 1u, 2u}) {
    auto layer = MakeLayer(DataLayer(list, 5, "shuffle: true"), TRAIN, seed);
    ASSERT_TRUE(layer->Setup({}, {&data, &label}).ok());
    std::vector<float> labels = Labels(*layer, data, label, 4);
    for (int pass = 0; pass < 4; ++pass) {
      std::vector<float> one(labels.begin() + 5 * pass, labels.begin() + 5 * pass + 5);
      std::sort(one.begin(), one.end());
      EXPECT_EQ(one, (std::vector<float>{0, 1, 2, 3, 4})) << "pass " << pass;
    }
    passes.push_back(labels);
  }
  EXPECT_EQ(passes[0], passes[1]);  // same seed, same order
  EXPECT_NE(passes[0], passes[2]);
  EXPECT_NE(passes[0],
            (std::vector<float>{0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4}));
}

TEST(HDF5DataLayerTest, ShardsInterleaveToTheSingleReadersBatches) {
  TempDir dir;
  const std::string list = WriteTwoFiles(dir);
  Tensor data, label;
  auto whole = MakeLayer(DataLayer(list, 4, "shuffle: true"));
  ASSERT_TRUE(whole->Setup({}, {&data, &label}).ok());
  const std::vector<float> expected = Labels(*whole, data, label, 3);
  std::vector<std::vector<float>> shard_labels;
  for (int shard = 0; shard < 2; ++shard) {
    auto layer = MakeLayer(DataLayer(list, 2, "shuffle: true"));
    ASSERT_TRUE(layer->Setup({}, {&data, &label}).ok());
    dynamic_cast<ShardedSource&>(*layer).SetShard(shard, 2);
    shard_labels.push_back(Labels(*layer, data, label, 3));
  }
  std::vector<float> interleaved;
  for (size_t i = 0; i < shard_labels[0].size(); ++i) {
    interleaved.push_back(shard_labels[0][i]);
    interleaved.push_back(shard_labels[1][i]);
  }
  EXPECT_EQ(interleaved, expected);
}

TEST(HDF5DataLayerTest, RestoredStateContinuesTheSequence) {
  TempDir dir;
  const std::string list = WriteTwoFiles(dir);
  Tensor data, label;
  auto first = MakeLayer(DataLayer(list, 3, "shuffle: true"));
  ASSERT_TRUE(first->Setup({}, {&data, &label}).ok());
  Labels(*first, data, label, 3);
  const std::string state = first->SaveState();
  EXPECT_EQ(state, "9");
  const std::vector<float> expected = Labels(*first, data, label, 4);
  auto resumed = MakeLayer(DataLayer(list, 3, "shuffle: true"));
  ASSERT_TRUE(resumed->Setup({}, {&data, &label}).ok());
  ASSERT_TRUE(resumed->RestoreState(state).ok());
  EXPECT_EQ(Labels(*resumed, data, label, 4), expected);
  EXPECT_EQ(resumed->RestoreState("nine").message(), "corrupt data position for layer 'h5'");
}

// Setup's error for a layer over `list`.
std::string SetupError(const std::string& layer_text) {
  auto layer = MakeLayer(layer_text);
  Tensor data, label;
  return layer->Setup({}, {&data, &label}).message();
}

TEST(HDF5DataLayerTest, BadSourcesNameTheFileAndDataset) {
  TempDir dir;
  const std::string list = WriteTwoFiles(dir);
  const std::string prefix = "layer 'h5' (HDF5Data): ";
  EXPECT_EQ(SetupError(DataLayer(dir.Path("none.txt"), 2)),
            prefix + "cannot open the HDF5 file list '" + dir.Path("none.txt") + "'");
  testing::WriteTextFile(dir.Path("empty.txt"), "\n \n");
  EXPECT_EQ(SetupError(DataLayer(dir.Path("empty.txt"), 2)),
            prefix + "the HDF5 file list '" + dir.Path("empty.txt") + "' names no file");
  EXPECT_EQ(SetupError(DataLayer(list, 0)), prefix + "hdf5_data_param.batch_size must be positive");
  EXPECT_EQ(SetupError("name: 'h5' type: 'HDF5Data' top: 'data' top: 'label' "
                       "transform_param { scale: 2 } hdf5_data_param { source: '" +
                       list + "' batch_size: 2 }"),
            prefix + "HDF5Data does not transform data; remove transform_param");
  EXPECT_EQ(SetupError("name: 'h5' type: 'HDF5Data' top: 'data' top: 'boxes' "
                       "hdf5_data_param { source: '" +
                       list + "' batch_size: 2 }"),
            prefix + dir.Path("a.h5") + ": no dataset 'boxes'");
  testing::WriteTextFile(dir.Path("missing.txt"), dir.Path("missing.h5"));
  EXPECT_EQ(SetupError(DataLayer(dir.Path("missing.txt"), 2)),
            prefix + dir.Path("missing.h5") + ": no such file");
  testing::WriteTextFile(dir.Path("text.h5"), "not hdf5");
  testing::WriteTextFile(dir.Path("text.txt"), dir.Path("text.h5"));
  EXPECT_EQ(SetupError(DataLayer(dir.Path("text.txt"), 2)),
            prefix + dir.Path("text.h5") + ": cannot open as an HDF5 file");
  Python("with h5py.File('" + dir.Path("s.h5") +
         "', 'w') as f:\n"
         "  f['data'] = np.array([b'ab', b'cd'])\n"
         "  f['label'] = np.arange(2)\n");
  testing::WriteTextFile(dir.Path("s.txt"), dir.Path("s.h5"));
  EXPECT_EQ(SetupError(DataLayer(dir.Path("s.txt"), 2)),
            prefix + dir.Path("s.h5") +
                ": dataset 'data': holds neither integers nor "
                "floating-point values");
}

TEST(HDF5DataLayerTest, FilesThatDisagreeAreErrorsAtTheBatchThatReachesThem) {
  TempDir dir;
  Python("with h5py.File('" + dir.Path("a.h5") +
         "', 'w') as f:\n"
         "  f['data'] = np.zeros((2, 3))\n"
         "  f['label'] = np.zeros(2)\n"
         "with h5py.File('" +
         dir.Path("b.h5") +
         "', 'w') as f:\n"
         "  f['data'] = np.zeros((2, 4))\n"
         "  f['label'] = np.zeros(2)\n"
         "with h5py.File('" +
         dir.Path("c.h5") +
         "', 'w') as f:\n"
         "  f['data'] = np.zeros((2, 3))\n"
         "  f['label'] = np.zeros(3)\n");
  testing::WriteTextFile(dir.Path("ab.txt"), dir.Path("a.h5") + " " + dir.Path("b.h5"));
  testing::WriteTextFile(dir.Path("c.txt"), dir.Path("c.h5"));
  auto layer = MakeLayer(DataLayer(dir.Path("ab.txt"), 2));
  Tensor data, label;
  ASSERT_TRUE(layer->Setup({}, {&data, &label}).ok());
  EXPECT_EQ(layer->Forward({}, {&data, &label}, nullptr).message(),
            "layer 'h5' (HDF5Data): " + dir.Path("b.h5") + ": dataset 'data' has rows of 4 but " +
                dir.Path("a.h5") + " has rows of 3");
  EXPECT_EQ(SetupError(DataLayer(dir.Path("c.txt"), 2)),
            "layer 'h5' (HDF5Data): " + dir.Path("c.h5") +
                ": dataset 'label' has 3 rows but 'data' has 2");
}

TEST(HDF5OutputLayerTest, AppendsEveryBatchReadableByH5py) {
  TempDir dir;
  const std::string file = dir.Path("out.h5");
  auto layer = MakeLayer(
      "name: 'out' type: 'HDF5Output' bottom: 'data' bottom: 'label' "
      "hdf5_output_param { file_name: '" +
      file + "' }");
  Tensor data({2, 3}), label({2, 1});
  ASSERT_TRUE(layer->Setup({&data, &label}, {}).ok());
  for (int batch = 0; batch < 2; ++batch) {
    testing::FillValues(&data, {6.f * batch + 0, 6.f * batch + 1, 6.f * batch + 2, 6.f * batch + 3,
                                6.f * batch + 4, 6.f * batch + 5});
    testing::FillValues(&label, {2.f * batch, 2.f * batch + 1});
    ASSERT_TRUE(layer->Forward({&data, &label}, {}, nullptr).ok());
  }
  // Read by another program while the layer is alive: every batch is on disk.
  Python("with h5py.File('" + file +
         "', 'r') as f:\n"
         "  assert sorted(f.keys()) == ['data', 'label'], list(f.keys())\n"
         "  assert f['data'].dtype == np.float32\n"
         "  assert (f['data'][:] == np.arange(12).reshape(4, 3, 1, 1)).all(), f['data'][:]\n"
         "  assert (f['label'][:] == np.arange(4).reshape(4, 1, 1, 1)).all(), f['label'][:]\n");
  Tensor wider({2, 4});
  EXPECT_EQ(layer->Forward({&wider, &label}, {}, nullptr).message(),
            "layer 'out' (HDF5Output): the data bottom's shape changed to 2 4 (8); the rows of the "
            "file's 'data' dataset keep the shape of the first batch");
}

// Caffe's datasets are (N, C, H, W): a 5-axis bottom is refused (Caffe's legacy accessors abort).
TEST(HDF5OutputLayerTest, MoreThanFourAxesAreRefused) {
  TempDir dir;
  auto layer = MakeLayer(
      "name: 'out' type: 'HDF5Output' bottom: 'data' bottom: 'label' "
      "hdf5_output_param { file_name: '" +
      dir.Path("out.h5") + "' }");
  Tensor data({2, 1, 1, 1, 3}), label({2});
  EXPECT_EQ(layer->Setup({&data, &label}, {}).message(),
            "layer 'out' (HDF5Output): the data bottom has shape 2 1 1 1 3 (6): Caffe's HDF5Output "
            "writes (N, C, H, W) datasets, 4 axes at most");
}

TEST(HDF5OutputLayerTest, AFileThatCannotBeCreatedIsAnError) {
  TempDir dir;
  auto layer = MakeLayer(
      "name: 'out' type: 'HDF5Output' bottom: 'data' bottom: 'label' "
      "hdf5_output_param { file_name: '" +
      dir.Path("no/such/dir/out.h5") + "' }");
  Tensor data({2, 3}), label({2});
  EXPECT_EQ(layer->Setup({&data, &label}, {}).message(),
            "layer 'out' (HDF5Output): " + dir.Path("no/such/dir/out.h5") +
                ": cannot create an HDF5 file");
}

}  // namespace
}  // namespace dtrain
