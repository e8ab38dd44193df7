// Bad input through the real command line: each case exits non-zero with a message that names
// the file, line, layer or shapes at fault, and leaves nothing half-written.
#include <gtest/gtest.h>

#include <filesystem>

#include "testing/files.h"
#include "testing/run_command.h"
#include "testing/trainable_data.h"

namespace dtrain {
namespace {

using testing::RunDtrain;
using testing::WriteTextFile;

TEST(BadInput, MalformedPrototxtNamesFileLineAndColumn) {
  testing::TempDir dir;
  WriteTextFile(dir.Path("net.prototxt"), "name: 'x'\nlayer {\n  name: 'a'\n  typo: 'ReLU'\n}\n");
  auto r = RunDtrain("check --model=" + dir.Path("net.prototxt"));
  EXPECT_FAILS_WITH(r, dir.Path("net.prototxt") + ":4:3: unknown field \"typo\" in LayerParameter");
  EXPECT_FAILS_WITH(r, "typo");
}

TEST(BadInput, UnknownLayerTypeListsSupportedTypes) {
  testing::TempDir dir;
  WriteTextFile(dir.Path("net.prototxt"),
                "input: 'data' input_shape { dim: 1 dim: 2 }\n"
                "layer { name: 'warp1' type: 'Warp' bottom: 'data' top: 'w' }\n");
  auto r = RunDtrain("check -model " + dir.Path("net.prototxt"));
  EXPECT_FAILS_WITH(r, "layer 'warp1': unknown layer type \"Warp\"\nsupported types: ");
  EXPECT_FAILS_WITH(r, "SoftmaxWithLoss");
}

TEST(BadInput, MismatchedShapesNameTheLayerAndBothShapes) {
  testing::TempDir dir;
  WriteTextFile(dir.Path("net.prototxt"),
                "input: 'a' input_shape { dim: 2 dim: 3 }\n"
                "input: 'b' input_shape { dim: 2 dim: 4 }\n"
                "layer { name: 'sum' type: 'Eltwise' bottom: 'a' bottom: 'b' top: 's' }\n");
  auto r = RunDtrain("check --model=" + dir.Path("net.prototxt"));
  EXPECT_FAILS_WITH(r, "layer 'sum' (Eltwise)");
  EXPECT_FAILS_WITH(r, "2 3 (6)");
  EXPECT_FAILS_WITH(r, "2 4 (8)");
}

// A one-layer classifier over the LMDB `source` (relative to dir), and its solver.
void WriteTinyJob(const testing::TempDir& dir, const std::string& source,
                  const std::string& solver_extra) {
  WriteTextFile(dir.Path("net.prototxt"), R"(
    layer { name: "d" type: "Data" top: "data" top: "label" data_param { source: ")" +
                                              source +
                                              R"(" batch_size: 4 } }
    layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip" inner_product_param { num_output: 2 } }
    layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" })");
  WriteTextFile(dir.Path("solver.prototxt"),
                "net: 'net.prototxt' base_lr: 0.1 lr_policy: 'fixed' " + solver_extra);
}

TEST(BadInput, MissingLmdbNamesThePath) {
  testing::TempDir dir;
  WriteTinyJob(dir, "no_such_lmdb", "max_iter: 1");
  auto r = RunDtrain("train --solver=solver.prototxt", dir.Path(""));
  EXPECT_FAILS_WITH(r, "no_such_lmdb");
}

TEST(BadInput, TruncatedLmdbIsAClearError) {
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 400, 1, 28, 2);
  const std::string mdb = dir.Path("lmdb/data.mdb");
  std::filesystem::resize_file(mdb, std::filesystem::file_size(mdb) / 2);
  WriteTinyJob(dir, "lmdb", "max_iter: 1");
  auto r = RunDtrain("train --solver=solver.prototxt", dir.Path(""));
  EXPECT_FAILS_WITH(r, "LMDB 'lmdb' is truncated");
  EXPECT_FAILS_WITH(r, "layer 'd' (Data)");
}

TEST(BadInput, TruncatedIdxAndCifarFilesAreClearErrorsAndWriteNothing) {
  testing::TempDir dir;
  // IDX images header for 2 images of 2x2, but only 5 of the 8 pixel bytes.
  testing::WriteFile(dir.Path("images"),
                     {0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 1, 2, 3, 4, 5});
  testing::WriteFile(dir.Path("labels"), {0, 0, 8, 1, 0, 0, 0, 2, 1, 2});
  auto r = RunDtrain("convert mnist " + dir.Path("images") + " " + dir.Path("labels") + " " +
                     dir.Path("out_lmdb"));
  EXPECT_FAILS_WITH(r, dir.Path("images"));
  EXPECT_FALSE(std::filesystem::exists(dir.Path("out_lmdb")));

  std::filesystem::create_directories(dir.Path("cifar"));
  std::vector<uint8_t> half_record(1 + 1500, 7);
  for (const char* name : {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin",
                           "data_batch_4.bin", "data_batch_5.bin", "test_batch.bin"}) {
    testing::WriteFile(dir.Path(std::string("cifar/") + name), half_record);
  }
  r = RunDtrain("convert cifar10 " + dir.Path("cifar") + " " + dir.Path("cifar_out"));
  EXPECT_FAILS_WITH(r, "data_batch_1.bin");
  EXPECT_FALSE(std::filesystem::exists(dir.Path("cifar_out/cifar10_train_lmdb")));
}

TEST(BadInput, CorruptSnapshotIsRejected) {
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 16, 1, 8, 2);
  WriteTinyJob(dir, "lmdb", "max_iter: 2 snapshot_prefix: 'snap'");
  testing::WriteFile(dir.Path("garbage.solverstate"), {0x0a, 0xff, 0xff, 0xff, 0x7f, 0x01});
  auto r = RunDtrain("train --solver=solver.prototxt --snapshot=garbage.solverstate", dir.Path(""));
  EXPECT_FAILS_WITH(r, "garbage.solverstate");
  EXPECT_FALSE(std::filesystem::exists(dir.Path("snap_iter_2.caffemodel")));
}

TEST(BadInput, UnknownFlagAndMissingSolver) {
  auto r = RunDtrain("train --solvr=x.prototxt");
  EXPECT_FAILS_WITH(r, "unknown flag '--solvr=x.prototxt'");
  EXPECT_FAILS_WITH(r, "--solver");
  r = RunDtrain("train --solver=/nonexistent/solver.prototxt");
  EXPECT_FAILS_WITH(r, "/nonexistent/solver.prototxt");
}

}  // namespace
}  // namespace dtrain
