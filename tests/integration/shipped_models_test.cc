// The shipped example models and BVLC's own LeNet files, end to end through the dtrain command:
// convert, compute-mean, check, time, train (short runs; the README's main command trains fully).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "core/rng.h"
#include "testing/caffe_nets.h"
#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

namespace fs = std::filesystem;
using testing::RunDtrain;

const std::string kRepo = DTRAIN_SOURCE_DIR;
const std::string kFashion = "/usr/share/datasets/fashion-mnist";

// CIFAR-10 binary batches with `per_file` records each: a label byte then 3x32x32 pixels, the
// label drawn as a bright row band so the nets can learn it.
void WriteCifarBatches(const std::string& dir, int per_file) {
  fs::create_directories(dir);
  Rng rng(7);
  for (const char* name : {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin",
                           "data_batch_4.bin", "data_batch_5.bin", "test_batch.bin"}) {
    std::vector<uint8_t> bytes;
    for (int i = 0; i < per_file; ++i) {
      const int label = static_cast<int>(rng.UniformInt(10));
      bytes.push_back(static_cast<uint8_t>(label));
      for (int c = 0; c < 3; ++c) {
        for (int y = 0; y < 32; ++y) {
          for (int x = 0; x < 32; ++x) {
            bytes.push_back(y / 3 == label ? 250 : static_cast<uint8_t>(rng.UniformInt(100)));
          }
        }
      }
    }
    testing::WriteFile(dir + "/" + name, bytes);
  }
}

// The last "Test net output #N: accuracy = X" value in a log.
double LastAccuracy(const std::string& log) {
  static const std::regex re(R"(Test net output #\d+: accuracy = ([0-9.eE+-]+))");
  double value = -1;
  for (std::sregex_iterator it(log.begin(), log.end(), re), end; it != end; ++it) {
    value = std::stod((*it)[1]);
  }
  return value;
}

TEST(ShippedModels, Cifar10QuickAndFullConvertCheckTimeAndTrain) {
  testing::TempDir dir;
  const std::string work = dir.Path("");
  fs::create_symlink(kRepo + "/models", dir.Path("models"));
  WriteCifarBatches(dir.Path("raw"), 50);

  auto r = RunDtrain("convert cifar10 raw data/cifar10", work);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = RunDtrain("compute-mean data/cifar10/cifar10_train_lmdb data/cifar10/mean.binaryproto", work);
  ASSERT_EQ(r.exit_code, 0) << r.output;

  r = RunDtrain("check --solver=models/cifar10_full/cifar10_full_solver.prototxt", work);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("conv1"), std::string::npos);
  EXPECT_NE(r.output.find("100 32 32 32 (3276800)"), std::string::npos) << r.output;

  for (const char* model : {"models/cifar10_quick/cifar10_quick_train_test.prototxt",
                            "models/cifar10_full/cifar10_full_train_test.prototxt"}) {
    r = RunDtrain(std::string("time --model=") + model + " --iterations=1", work);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(conv1\s+forward: +[0-9.]+ ms)")))
        << r.output;
    EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(conv1\s+backward: +[0-9.]+ ms)")));
    EXPECT_NE(r.output.find("images/s"), std::string::npos);
  }

  r = RunDtrain(
      "train --solver=models/cifar10_quick/cifar10_quick_solver.prototxt "
      "--iterations=30 --metrics=metrics.jsonl",
      work);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir.Path("data/cifar10/cifar10_quick_iter_30.caffemodel")));
  EXPECT_TRUE(fs::exists(dir.Path("data/cifar10/cifar10_quick_iter_30.solverstate")));
  std::ifstream metrics(dir.Path("metrics.jsonl"));
  std::string first;
  std::getline(metrics, first);
  EXPECT_NE(first.find("\"event\":\"test\""), std::string::npos) << first;

  // The trained weights score through `dtrain test`.
  r = RunDtrain(
      "test --model=models/cifar10_quick/cifar10_quick_train_test.prototxt "
      "--weights=data/cifar10/cifar10_quick_iter_30.caffemodel --iterations=2",
      work);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex(R"(\] accuracy = [0-9.]+)"))) << r.output;
}

// BVLC's lenet_solver.prototxt and lenet_train_test.prototxt, unchanged, run from a folder laid
// out like Caffe's, on Fashion-MNIST (Debian's dataset-fashion-mnist) for a short schedule.
TEST(ShippedModels, CaffesOwnLenetFilesTrainUnchanged) {
  if (const std::string missing = testing::CaffeModelsMissing(); !missing.empty()) {
    GTEST_SKIP() << missing;
  }
  const std::string caffe = testing::CaffeModelsDir() + "/examples/mnist";
  if (!fs::exists(kFashion)) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  testing::TempDir dir;
  const std::string work = dir.Path("");
  fs::create_directories(dir.Path("examples/mnist"));
  for (const char* f : {"lenet_solver.prototxt", "lenet_train_test.prototxt"}) {
    fs::copy_file(caffe + "/" + f, dir.Path(std::string("examples/mnist/") + f));
  }
  auto r = RunDtrain("convert mnist " + kFashion + "/train-images-idx3-ubyte.gz " + kFashion +
                         "/train-labels-idx1-ubyte.gz examples/mnist/mnist_train_lmdb",
                     work);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = RunDtrain("convert mnist " + kFashion + "/t10k-images-idx3-ubyte.gz " + kFashion +
                    "/t10k-labels-idx1-ubyte.gz examples/mnist/mnist_test_lmdb",
                work);
  ASSERT_EQ(r.exit_code, 0) << r.output;

  // Caffe's schedule, cut to 1000 iterations (the full 10000 are in the closing notes).
  r = RunDtrain("train -solver examples/mnist/lenet_solver.prototxt -iterations 1000", work);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("solver_mode: GPU requested; dtrain trains on the CPU."),
            std::string::npos);
  EXPECT_TRUE(fs::exists(dir.Path("examples/mnist/lenet_iter_1000.caffemodel")));
  EXPECT_GE(LastAccuracy(r.output), 0.80) << r.output.substr(r.output.size() - 2000);
}

}  // namespace
}  // namespace dtrain
