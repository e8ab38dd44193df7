// Data-parallel training in one process: each rank is a thread with its own solver and Trainer,
// on a LoopbackGroup's communicator, as each MPI rank of `dtrain train` has its own. The same
// assertions as the mpirun tests (tests/distributed/data_parallel_test.cc), without mpirun, in
// builds with and without MPI.
#include "distributed/trainer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "distributed/loopback_communicator.h"
#include "solver/solver.h"
#include "solver/upgrade_solver.h"
#include "testing/data_parallel_job.h"
#include "testing/files.h"
#include "testing/trainable_data.h"
#include "testing/weights_difference.h"

namespace dtrain {
namespace {

using testing::RelativeWeightDifference;
using testing::WriteJob;

// What one rank saw.
struct RankResult {
  Status status;
  int64_t exchanges = 0;         // gradient exchanges completed
  int64_t parameter_floats = 0;  // in the train net's learnable tensors
};

// Trains the job `name` of `dir` on `ranks` threads of `group` (which must have that many
// ranks); rank 0 writes the snapshots.
std::vector<RankResult> TrainOnLoopback(const testing::TempDir& dir, const std::string& name,
                                        LoopbackGroup& group) {
  std::vector<RankResult> results(group.size());
  std::vector<std::thread> threads;
  for (int r = 0; r < group.size(); ++r) {
    threads.emplace_back([&, r] {
      std::unique_ptr<Communicator> communicator = group.Rank(r);
      RankResult& result = results[r];
      result.status = [&]() -> Status {
        DT_ASSIGN_OR_RETURN(SolverParameter param,
                            ReadSolverParameter(dir.Path(name + "_solver.prototxt")));
        DT_ASSIGN_OR_RETURN(std::unique_ptr<Solver> solver, CreateSolver(param));
        TrainerOptions options;
        options.who = "rank " + std::to_string(r) + " of " + std::to_string(group.size());
        options.collective_timeout = std::chrono::seconds(120);
        Trainer trainer(*solver, *communicator, options);
        DT_RETURN_IF_ERROR(trainer.Solve());
        result.exchanges = trainer.exchange().exchanges();
        for (const Tensor* p : solver->net().learnable_params()) {
          result.parameter_floats += p->count();
        }
        return Status::Ok();
      }();
    });
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < group.size(); ++r) {
    EXPECT_TRUE(results[r].status.ok()) << "rank " << r << ": " << results[r].status.message();
  }
  return results;
}

TEST(Trainer, RanksTimesBatchEqualsOneProcessWithTheWholeBatchOnLoopback) {
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 128, 1, 12, 10);  // 128 images, 1x12x12
  WriteJob(dir, "one", 32, 20);
  WriteJob(dir, "two", 16, 20);
  WriteJob(dir, "four", 8, 20);
  LoopbackGroup one(1), two(2), four(4);
  TrainOnLoopback(dir, "one", one);
  TrainOnLoopback(dir, "two", two);
  TrainOnLoopback(dir, "four", four);
  const double two_ranks = RelativeWeightDifference(dir.Path("two_iter_20.caffemodel"),
                                                    dir.Path("one_iter_20.caffemodel"));
  const double four_ranks = RelativeWeightDifference(dir.Path("four_iter_20.caffemodel"),
                                                     dir.Path("one_iter_20.caffemodel"));
  EXPECT_LE(two_ranks, 1e-5);
  EXPECT_LE(four_ranks, 1e-5);
  std::cout << "relative weight difference after 20 iterations: 2 ranks " << two_ranks
            << ", 4 ranks " << four_ranks << "\n";
}

// iter_size 2: the gradients of both passes are summed over the ranks once, after the second.
// The traffic per iteration is that of iter_size 1, and the model is that of one process
// reading the whole global batch (2 ranks x 2 passes x 8 = 32) at once.
TEST(Trainer, IterSizeTwoExchangesGradientsOncePerIteration) {
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 128, 1, 12, 10);
  WriteJob(dir, "whole", 32, 10);
  WriteJob(dir, "passes", 8, 10, "", "iter_size: 2");
  WriteJob(dir, "single_pass", 16, 10);
  LoopbackGroup one(1), two(2), two_single_pass(2);
  TrainOnLoopback(dir, "whole", one);
  const std::vector<RankResult> ranks = TrainOnLoopback(dir, "passes", two);
  TrainOnLoopback(dir, "single_pass", two_single_pass);
  for (const RankResult& rank : ranks) EXPECT_EQ(rank.exchanges, 10);
  // Floats are summed for the gradients and for the action agreed after each iteration.
  EXPECT_EQ(two.floats_summed(), two_single_pass.floats_summed());
  EXPECT_GE(two.floats_summed(), 10 * ranks[0].parameter_floats);
  EXPECT_LT(two.floats_summed(), 2 * 10 * ranks[0].parameter_floats);
  const double difference = RelativeWeightDifference(dir.Path("passes_iter_10.caffemodel"),
                                                     dir.Path("whole_iter_10.caffemodel"));
  EXPECT_LE(difference, 1e-5);
  std::cout << "iter_size 2 on 2 ranks vs one process with the whole batch: relative weight "
               "difference "
            << difference << "; " << two.float_allreduces() << " float allreduces of "
            << two.floats_summed() << " floats in 10 iterations (" << ranks[0].parameter_floats
            << " parameters)\n";
}

}  // namespace
}  // namespace dtrain
