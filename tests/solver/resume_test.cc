// Snapshot and resume: training K iterations, snapshotting, and resuming for K more gives the
// same weights, bit for bit, as 2K iterations straight through (random crops, mirrors, dropout
// masks and the data position all continue where they stopped).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/proto_io.h"
#include "solver/solver.h"
#include "testing/files.h"
#include "testing/trainable_data.h"

namespace dtrain {
namespace {

std::string NetText(const std::string& lmdb) {
  return R"(
    layer { name: "data" type: "Data" top: "data" top: "label"
            transform_param { mirror: true crop_size: 6 scale: 0.0039 }
            data_param { source: ")" +
         lmdb + R"(" batch_size: 8 } }
    layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"
            convolution_param { num_output: 4 kernel_size: 3 weight_filler { type: "xavier" } } }
    layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }
    layer { name: "drop" type: "Dropout" bottom: "conv" top: "conv" dropout_param { dropout_ratio: 0.3 } }
    layer { name: "ip" type: "InnerProduct" bottom: "conv" top: "ip"
            inner_product_param { num_output: 4 weight_filler { type: "xavier" } } }
    layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" })";
}

std::unique_ptr<Solver> MakeSolver(const std::string& lmdb, const std::string& prefix,
                                   const std::string& type) {
  SolverParameter param;
  EXPECT_TRUE(ParseTextProto("base_lr: 0.05 momentum: 0.9 weight_decay: 0.001 lr_policy: 'step' "
                             "gamma: 0.5 stepsize: 7 max_iter: 100 display: 0 random_seed: 42 "
                             "type: '" +
                                 type + "' snapshot_prefix: '" + prefix + "'",
                             "solver", &param)
                  .ok());
  EXPECT_TRUE(ParseTextProto(NetText(lmdb), "net", param.mutable_net_param()).ok());
  auto solver = CreateSolver(param);
  EXPECT_TRUE(solver.ok()) << solver.status().message();
  return solver.ok() ? std::move(solver).value() : nullptr;
}

std::vector<float> Weights(Solver& solver) {
  std::vector<float> all;
  for (Tensor* p : solver.net().learnable_params())
    all.insert(all.end(), p->data(), p->data() + p->count());
  return all;
}

class ResumeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ResumeTest, ResumedRunIsBitIdentical) {
  testing::TempDir dir;
  const std::string lmdb = dir.Path("train_lmdb");
  testing::WriteTrainableLmdb(lmdb, 60, 1, 8, 4);  // 60 records: batches wrap mid-epoch

  auto straight = MakeSolver(lmdb, dir.Path("a"), GetParam());
  ASSERT_TRUE(straight->Step(25).ok());

  auto first = MakeSolver(lmdb, dir.Path("b"), GetParam());
  ASSERT_TRUE(first->Step(12).ok());
  ASSERT_TRUE(first->Snapshot().ok());
  first.reset();
  ASSERT_TRUE(std::filesystem::exists(dir.Path("b_iter_12.caffemodel")));
  auto resumed = MakeSolver(lmdb, dir.Path("b"), GetParam());
  Status restored = resumed->Restore(dir.Path("b_iter_12.solverstate"));
  ASSERT_TRUE(restored.ok()) << restored.message();
  EXPECT_EQ(resumed->iter(), 12);
  ASSERT_TRUE(resumed->Step(13).ok());

  const std::vector<float> a = Weights(*straight), b = Weights(*resumed);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << "weight " << i;
}

INSTANTIATE_TEST_SUITE_P(Solvers, ResumeTest, ::testing::Values("SGD", "Adam", "AdaDelta", "LAMB"));

TEST(Snapshot, CorruptStateIsAClearErrorAndFailedWriteLeavesNoFile) {
  testing::TempDir dir;
  const std::string lmdb = dir.Path("train_lmdb");
  testing::WriteTrainableLmdb(lmdb, 20, 1, 8, 4);
  auto solver = MakeSolver(lmdb, dir.Path("s"), "SGD");
  ASSERT_TRUE(solver->Step(2).ok());
  ASSERT_TRUE(solver->Snapshot().ok());
  // Truncate the solver state in the middle of a field.
  const std::string state = dir.Path("s_iter_2.solverstate");
  const auto size = std::filesystem::file_size(state);
  std::filesystem::resize_file(state, size / 2 + 1);
  auto other = MakeSolver(lmdb, dir.Path("s"), "SGD");
  Status s = other->Restore(state);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(state), std::string::npos) << s.message();

  // A snapshot into a directory that does not exist fails and writes nothing.
  auto bad = MakeSolver(lmdb, dir.Path("missing/dir/s"), "SGD");
  ASSERT_TRUE(bad->Step(1).ok());
  EXPECT_FALSE(bad->Snapshot().ok());
  EXPECT_FALSE(std::filesystem::exists(dir.Path("missing")));
}

}  // namespace
}  // namespace dtrain
