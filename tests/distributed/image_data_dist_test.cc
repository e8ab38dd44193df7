// ImageData layers in data-parallel jobs: sharded training equal to one process, per-rank list
// files (%#) and --global-batch.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "data/image_test_util.h"
#include "distributed/rank_job.h"
#include "testing/mpi_jobs.h"
#include "testing/run_command.h"
#include "testing/weights_difference.h"

namespace dtrain {
namespace {

using testing::RunShell;
using testing::WriteTextFile;

// 24 PNGs of 3 x 8 x 8 under dir/img/: class i % 2, a bright or dark gradient; list dir/train.txt.
void WriteImages(const testing::TempDir& dir) {
  std::filesystem::create_directories(dir.Path("img"));
  std::string list;
  for (int i = 0; i < 24; ++i) {
    std::vector<uint8_t> bgr = testing::GradientBgr(8, 8, i);
    if (i % 2) {
      for (uint8_t& v : bgr) v = static_cast<uint8_t>(v / 3);
    }
    const std::string name = "im " + std::to_string(i) + ".png";
    testing::WriteBytes(dir.Path("img/" + name), testing::BgrPng(bgr, 8, 8));
    list += name + " " + std::to_string(i % 2) + "\n";
  }
  WriteTextFile(dir.Path("train.txt"), list);
}

// A one-layer classifier on ImageData (shuffled, random crops and mirrors, 2 decode threads).
void WriteJob(const testing::TempDir& dir, const std::string& name, int batch) {
  WriteTextFile(dir.Path(name + "_net.prototxt"), R"(
layer { name: "data" type: "ImageData" top: "data" top: "label"
  transform_param { scale: 0.00390625 crop_size: 6 mirror: true mean_value: 100 }
  image_data_param { source: ")" + dir.Path("train.txt") +
                                                      R"(" root_folder: ")" + dir.Path("img/") +
                                                      R"(" batch_size: )" + std::to_string(batch) +
                                                      R"(
                     shuffle: true decode_threads: 2 } }
layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
  inner_product_param { num_output: 2 weight_filler { type: "xavier" } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" }
)");
  WriteTextFile(dir.Path(name + "_solver.prototxt"),
                "net: '" + dir.Path(name + "_net.prototxt") +
                    "'\nbase_lr: 0.1 momentum: 0.9 lr_policy: 'fixed' display: 0 max_iter: 10 "
                    "random_seed: 7 snapshot: 0 snapshot_prefix: '" +
                    dir.Path(name) + "'\n");
}

// Two ranks of batch 4 read the two halves of each batch of 8 that one process reads, with the
// same crops and mirrors: they train the same model.
TEST(ImageDataParallel, TwoRanksTrainAsOneProcessWithTheWholeBatch) {
  if (const std::string why = testing::WhyNoMpiJobs(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir dir;
  WriteImages(dir);
  WriteJob(dir, "one", 8);
  WriteJob(dir, "two", 4);
  const std::string train = std::string(DTRAIN_BINARY) + " train --threads=1 --solver=";
  auto one = RunShell(train + dir.Path("one_solver.prototxt") + " 2>&1");
  ASSERT_EQ(one.exit_code, 0) << one.output;
  auto two = RunShell(
      "mpirun --allow-run-as-root --oversubscribe --timeout 100 -np 2 --mca "
      "mpi_yield_when_idle 1 -x OMP_NUM_THREADS=1 " +
      train + dir.Path("two_solver.prototxt") + " 2>&1");
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_LE(testing::RelativeWeightDifference(dir.Path("two_iter_10.caffemodel"),
                                              dir.Path("one_iter_10.caffemodel")),
            1e-5);
}

// An ImageData layer's list file takes %# and %* like a Data layer's LMDB; a layer whose source
// expanded reads all of its own file (it is named in per_rank_layers), the others are sharded.
TEST(RankPaths, ImageDataListsExpandPerRank) {
  SolverParameter solver;
  LayerParameter* images = solver.mutable_net_param()->add_layer();
  images->set_name("images");
  images->set_type("ImageData");
  images->mutable_image_data_param()->set_source("lists/train_%#_of_%*.txt");
  LayerParameter* common = solver.mutable_net_param()->add_layer();
  common->set_name("common");
  common->set_type("ImageData");
  common->mutable_image_data_param()->set_source("lists/val.txt");
  std::set<std::string> per_rank;
  Status s = ExpandRankPatterns(&solver, 1, 4, &per_rank);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(solver.net_param().layer(0).image_data_param().source(), "lists/train_1_of_4.txt");
  EXPECT_EQ(solver.net_param().layer(1).image_data_param().source(), "lists/val.txt");
  EXPECT_EQ(per_rank, std::set<std::string>{"images"});
}

TEST(GlobalBatch, DividesImageDataBatches) {
  SolverParameter solver;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"(
    net_param {
      layer { name: "images" type: "ImageData" top: "d" include { phase: TRAIN }
              image_data_param { source: "train.txt" batch_size: 64 } }
      layer { name: "val" type: "ImageData" top: "d" include { phase: TEST }
              image_data_param { source: "val.txt" batch_size: 50 } }
    })",
                                                            &solver));
  auto changed = SplitGlobalBatch(&solver, 4);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_EQ(changed.value(), std::vector<std::string>{"images: 64 -> 16"});
  EXPECT_EQ(solver.net_param().layer(0).image_data_param().batch_size(), 16u);
  EXPECT_EQ(solver.net_param().layer(1).image_data_param().batch_size(), 50u);
}

}  // namespace
}  // namespace dtrain
