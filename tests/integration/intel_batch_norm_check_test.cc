// `dtrain check` of Intel Caffe's benchmark/googlenet_v3 (DummyData only: 94 BatchNorm layers, no
// Scale, bn_stats_batch_size 32): by Intel Caffe's rule each BatchNorm learns gamma and beta of
// its own, 2 x its channels, 34,432 learnable parameters in all, which the same file on engine
// CAFFE (BVLC's BatchNorm, what dtrain counted before) does not have. Skipped where Intel's model
// files are not unpacked (INTEL_CAFFE_MODELS, default /tmp/intel/caffe/models).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

std::string GoogLeNetV3() {
  const char* root = std::getenv("INTEL_CAFFE_MODELS");
  return std::string(root ? root : "/tmp/intel/caffe/models") +
         "/intel_optimized_models/benchmark/googlenet_v3/train_val_dummydata.prototxt";
}

// The learnable parameters of the TRAIN net's "total" row and BatchNorm rows of `dtrain check`.
struct Counts {
  long total = -1, batch_norm = 0;
  int batch_norm_layers = 0;
};

Counts Check(const std::string& path) {
  const auto r = testing::RunDtrain("check --model=" + path);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // The TRAIN net's table, the first one.
  const std::string train = r.output.substr(0, r.output.find("\ntotal") + 1);
  Counts counts;
  std::smatch m;
  const std::regex total(R"(\ntotal\s+(\d+)\s+\d+)");
  if (std::regex_search(r.output, m, total)) counts.total = std::stol(m[1]);
  const std::regex row(R"(\n\S+\s+BatchNorm\s+[\d ]+\(\d+\)\s+(\d+)\s+\d+\s)");
  for (auto it = std::sregex_iterator(train.begin(), train.end(), row);
       it != std::sregex_iterator(); ++it) {
    counts.batch_norm += std::stol((*it)[1]);
    ++counts.batch_norm_layers;
  }
  return counts;
}

TEST(IntelBatchNormCheck, GoogLeNetV3LearnsAScaleAndShiftInEveryBatchNorm) {
  const std::string path = GoogLeNetV3();
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is not there";
  const Counts intel = Check(path);
  testing::TempDir dir;
  std::ifstream in(path);
  std::stringstream text;
  text << "engine: 'CAFFE'\n" << in.rdbuf();
  testing::WriteTextFile(dir.Path("caffe_engine.prototxt"), text.str());
  const Counts caffe = Check(dir.Path("caffe_engine.prototxt"));
  EXPECT_EQ(intel.batch_norm_layers, 94);
  EXPECT_EQ(intel.batch_norm, 34432);
  EXPECT_EQ(caffe.batch_norm, 0);
  EXPECT_EQ(intel.total - caffe.total, 34432);
}

}  // namespace
}  // namespace dtrain
