// LARS and LAMB (trust_ratio_form LAYERWISE) in data-parallel training on a LoopbackGroup: the
// trust ratios are taken from the exchanged gradients of whole blobs, so every rank applies the
// same update (their weights stay bit-identical) and 2 ranks of batch 16 train the model of one
// process of batch 32.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "distributed/loopback_communicator.h"
#include "distributed/trainer.h"
#include "solver/solver.h"
#include "solver/upgrade_solver.h"
#include "testing/data_parallel_job.h"
#include "testing/files.h"
#include "testing/trainable_data.h"

namespace dtrain {
namespace {

// Trains job `name` on every rank of `group`; returns each rank's final weights.
std::vector<std::vector<float>> TrainRanks(const testing::TempDir& dir, const std::string& name,
                                           LoopbackGroup& group) {
  std::vector<std::vector<float>> weights(group.size());
  std::vector<Status> statuses(group.size());
  std::vector<std::thread> threads;
  for (int r = 0; r < group.size(); ++r) {
    threads.emplace_back([&, r] {
      std::unique_ptr<Communicator> communicator = group.Rank(r);
      statuses[r] = [&]() -> Status {
        DT_ASSIGN_OR_RETURN(SolverParameter param,
                            ReadSolverParameter(dir.Path(name + "_solver.prototxt")));
        DT_ASSIGN_OR_RETURN(std::unique_ptr<Solver> solver, CreateSolver(param));
        TrainerOptions options;
        options.who = "rank " + std::to_string(r);
        options.collective_timeout = std::chrono::seconds(120);
        Trainer trainer(*solver, *communicator, options);
        DT_RETURN_IF_ERROR(trainer.Solve());
        for (const Tensor* p : solver->net().learnable_params()) {
          weights[r].insert(weights[r].end(), p->data(), p->data() + p->count());
        }
        return Status::Ok();
      }();
    });
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < group.size(); ++r) {
    EXPECT_TRUE(statuses[r].ok()) << name << " rank " << r << ": " << statuses[r].message();
  }
  return weights;
}

double RelativeDifference(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0, largest = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    worst = std::max(worst, std::abs(double{a[i]} - b[i]));
    largest = std::max(largest, std::abs(double{b[i]}));
  }
  return worst / largest;
}

class TrustRatioRanks : public ::testing::TestWithParam<std::string> {};

TEST_P(TrustRatioRanks, TwoRanksTrainTheModelOfOneProcessAndStayIdentical) {
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 128, 1, 12, 10);
  const std::string rule = "trust_ratio_form: LAYERWISE " + GetParam();
  testing::WriteJob(dir, "one", 32, 10, "", rule);
  testing::WriteJob(dir, "two", 16, 10, "", rule);
  for (const std::string name : {"one", "two"}) {
    testing::EditSolver(dir, name, "base_lr: 0.05", "base_lr: 0.02");
  }
  LoopbackGroup one(1), two(2);
  const auto whole = TrainRanks(dir, "one", one);
  const auto ranks = TrainRanks(dir, "two", two);
  ASSERT_FALSE(ranks[0].empty());
  ASSERT_EQ(ranks[0].size(), ranks[1].size());
  size_t differing = 0;
  for (size_t i = 0; i < ranks[0].size(); ++i) differing += ranks[0][i] != ranks[1][i];
  EXPECT_EQ(differing, 0u) << "of " << ranks[0].size() << " weights differ between the ranks";
  const double difference = RelativeDifference(ranks[0], whole[0]);
  EXPECT_LE(difference, 1e-5);
  std::cout << GetParam() << ": 2 ranks vs one process, relative weight difference after 10 "
            << "iterations " << difference << "\n";
}

INSTANTIATE_TEST_SUITE_P(Rules, TrustRatioRanks,
                         ::testing::Values("local_lr_auto: true local_gw_ratio: 0.02",
                                           "type: 'LAMB' momentum2: 0.999 delta: 1e-6"),
                         [](const auto& info) { return info.index == 0 ? "Lars" : "Lamb"; });

}  // namespace
}  // namespace dtrain
