#include "testing/data_parallel_job.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>

#include "core/proto_io.h"
#include "proto/net.pb.h"
#include "testing/run_command.h"

namespace dtrain::testing {

void WriteJob(const TempDir& dir, const std::string& name, int batch, int iterations,
              const std::string& source, const std::string& solver_extra, bool batch_norm) {
  const std::string lmdb = source.empty() ? dir.Path("lmdb") : source;
  const std::string input = batch_norm ? "normalized" : "data";
  WriteTextFile(
      dir.Path(name + "_net.prototxt"),
      R"(name: "dp"
layer { name: "data" type: "Data" top: "data" top: "label" include { phase: TRAIN }
  transform_param { scale: 0.00390625 crop_size: 11 mirror: true }
  data_param { source: ")" +
          lmdb + R"(" batch_size: )" + std::to_string(batch) + R"( } }
layer { name: "data" type: "Data" top: "data" top: "label" include { phase: TEST }
  transform_param { scale: 0.00390625 crop_size: 11 }
  data_param { source: ")" +
          lmdb + R"(" batch_size: 8 } }
)" +
          (batch_norm ? R"(layer { name: "bn" type: "BatchNorm" bottom: "data" top: "normalized"
  batch_norm_param { use_weight_bias: false } }
)"
                      : "") +
          R"(layer { name: "conv1" type: "Convolution" bottom: ")" + input + R"(" top: "conv1"
  convolution_param { num_output: 8 kernel_size: 5 weight_filler { type: "xavier" } } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "pool1"
  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "ip1" type: "InnerProduct" bottom: "pool1" top: "ip1"
  inner_product_param { num_output: 10 weight_filler { type: "xavier" } } }
layer { name: "accuracy" type: "Accuracy" bottom: "ip1" bottom: "label" top: "accuracy"
  include { phase: TEST } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip1" bottom: "label" top: "loss" }
)");
  WriteTextFile(dir.Path(name + "_solver.prototxt"),
                "net: '" + dir.Path(name + "_net.prototxt") +
                    "'\nbase_lr: 0.05 momentum: 0.9 weight_decay: 0.0005 lr_policy: 'fixed'\n"
                    "display: 10 max_iter: " +
                    std::to_string(iterations) + " random_seed: 7 snapshot: 0 snapshot_prefix: '" +
                    dir.Path(name) + "'\n" + solver_extra + "\n");
}

void EditSolver(const TempDir& dir, const std::string& name, const std::string& from,
                const std::string& to) {
  const std::string path = dir.Path(name + "_solver.prototxt");
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_NE(text.find(from), std::string::npos) << from;
  text.replace(text.find(from), from.size(), to);
  WriteTextFile(path, text);
}

namespace {

std::vector<BlobProto> BatchNormBlobs(const std::string& caffemodel) {
  NetParameter p;
  EXPECT_TRUE(ReadBinaryProto(caffemodel, &p).ok()) << caffemodel;
  for (const LayerParameter& l : p.layer()) {
    if (l.name() == "bn") return std::vector<BlobProto>(l.blobs().begin(), l.blobs().end());
  }
  return {};
}

}  // namespace

void ExpectBatchNormStatisticsAveraged(const TempDir& dir, int iteration, const std::string& a,
                                       const std::string& b, const std::string& averaged) {
  const std::string suffix = "_iter_" + std::to_string(iteration) + ".caffemodel";
  const auto first = BatchNormBlobs(dir.Path(a + suffix));
  const auto second = BatchNormBlobs(dir.Path(b + suffix));
  const auto both = BatchNormBlobs(dir.Path(averaged + suffix));
  ASSERT_EQ(both.size(), 3u);
  ASSERT_EQ(first.size(), 3u);
  ASSERT_EQ(second.size(), 3u);
  for (int k = 0; k < 2; ++k) {  // mean, variance
    ASSERT_EQ(both[k].data_size(), first[k].data_size());
    for (int i = 0; i < both[k].data_size(); ++i) {
      const double expected = (first[k].data(i) + second[k].data(i)) / 2;
      EXPECT_NEAR(both[k].data(i), expected, 1e-5 * std::abs(expected) + 1e-7) << "blob " << k;
    }
    EXPECT_NE(first[k].data(0), second[k].data(0));  // the two files do differ
  }
}

}  // namespace dtrain::testing
