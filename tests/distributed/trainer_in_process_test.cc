// The behaviours the mpirun tests check (tests/distributed/data_parallel_test.cc), in one process:
// each rank is a thread running the whole training run (run/training_run.h) or a Trainer on a
// LoopbackGroup's communicator. A failing rank, a stall report, BatchNorm statistics over ranks
// and an exact resume, in builds with and without MPI and without mpirun.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/proto_io.h"
#include "distributed/loopback_communicator.h"
#include "distributed/trainer.h"
#include "run/training_run.h"
#include "solver/solver.h"
#include "solver/upgrade_solver.h"
#include "testing/data_parallel_job.h"
#include "testing/files.h"
#include "testing/trainable_data.h"
#include "testing/weights_difference.h"

namespace dtrain {
namespace {

using testing::EditSolver;
using testing::RelativeWeightDifference;
using testing::WriteJob;

// Runs `options` on every rank of `group`, each a thread; a rank that fails leaves the group, as
// an MPI rank's abort ends the job. Returns each rank's status.
std::vector<Status> RunOnLoopback(LoopbackGroup& group, TrainingRunOptions options) {
  options.handle_signals = false;  // the test process keeps its own
  options.collective_timeout = std::chrono::seconds(120);
  std::vector<Status> statuses(group.size());
  std::vector<std::thread> threads;
  for (int r = 0; r < group.size(); ++r) {
    threads.emplace_back([&, r] {
      std::unique_ptr<Communicator> communicator = group.Rank(r);
      const std::string who = "rank " + std::to_string(r) + " of " + std::to_string(group.size());
      statuses[r] = RunTraining(options, *communicator, who);
      if (!statuses[r].ok()) group.Leave(r, statuses[r]);
    });
  }
  for (std::thread& t : threads) t.join();
  return statuses;
}

TrainingRunOptions Job(const testing::TempDir& dir, const std::string& name) {
  TrainingRunOptions options;
  options.job.solver_path = dir.Path(name + "_solver.prototxt");
  return options;
}

void ExpectAllOk(const std::vector<Status>& statuses) {
  for (size_t r = 0; r < statuses.size(); ++r) {
    EXPECT_TRUE(statuses[r].ok()) << "rank " << r << ": " << statuses[r].message();
  }
}

// A rank whose own LMDB is missing fails, naming it; the other rank, waiting for it in a
// collective, fails too, naming that rank and its error, instead of waiting forever.
TEST(TrainerInProcess, AFailingRankEndsTheOthersNamingItsError) {
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb_0"), 32, 1, 12, 10);
  WriteJob(dir, "job", 8, 1000, dir.Path("lmdb_%#"));
  LoopbackGroup group(2);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Status> statuses = RunOnLoopback(group, Job(dir, "job"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
  ASSERT_FALSE(statuses[1].ok());
  EXPECT_NE(statuses[1].message().find("lmdb_1"), std::string::npos) << statuses[1].message();
  ASSERT_FALSE(statuses[0].ok());
  EXPECT_NE(statuses[0].message().find("rank 1 left the job"), std::string::npos)
      << statuses[0].message();
  EXPECT_NE(statuses[0].message().find("lmdb_1"), std::string::npos) << statuses[0].message();
}

// A rank that stops calling collectives (here: it sleeps between two iterations) is reported
// by the other's watchdog once the collective timeout passes, naming the operation and the rank
// that has not reached it; training then goes on when it comes back.
TEST(TrainerInProcess, AStalledRankIsReportedNamingTheMissingRank) {
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 64, 1, 12, 10);
  WriteJob(dir, "job", 16, 6);
  LoopbackGroup group(2);
  std::mutex mutex;
  std::vector<std::string> reports;
  std::vector<Status> statuses(2);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      std::unique_ptr<Communicator> communicator = group.Rank(r);
      statuses[r] = [&]() -> Status {
        DT_ASSIGN_OR_RETURN(SolverParameter param,
                            ReadSolverParameter(dir.Path("job_solver.prototxt")));
        DT_ASSIGN_OR_RETURN(std::unique_ptr<Solver> solver, CreateSolver(param));
        TrainerOptions options;
        options.who = "rank " + std::to_string(r) + " of 2";
        options.collective_timeout = std::chrono::milliseconds(1000);
        options.on_stall = [&](const std::string& report) {
          std::lock_guard<std::mutex> lock(mutex);
          reports.push_back(report);
        };
        Trainer trainer(*solver, *communicator, options);
        int polls = 0;
        trainer.SetActionSource([r, &polls] {
          if (r == 1 && ++polls == 3) std::this_thread::sleep_for(std::chrono::milliseconds(3000));
          return SolverAction::kNone;
        });
        return trainer.Solve();
      }();
    });
  }
  for (std::thread& t : threads) t.join();
  ExpectAllOk(statuses);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_NE(reports[0].find("rank 0 of 2"), std::string::npos) << reports[0];
  EXPECT_NE(reports[0].find("has made no progress for"), std::string::npos) << reports[0];
  EXPECT_NE(reports[0].find("rank 1 (loopback): has not reached this collective"),
            std::string::npos)
      << reports[0];
}

// BatchNorm's running statistics are averaged over the ranks before a snapshot: right after the
// data they depend on the data alone, so 2 ranks each reading their own LMDB hold the mean of
// what one process reading each file holds.
TEST(TrainerInProcess, BatchNormStatisticsAreAveragedOverRanks) {
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb_0"), 32, 1, 12, 10, /*seed=*/1);
  testing::WriteTrainableLmdb(dir.Path("lmdb_1"), 32, 1, 12, 10, /*seed=*/2);
  WriteJob(dir, "zero", 8, 6, dir.Path("lmdb_0"), "", /*batch_norm=*/true);
  WriteJob(dir, "one", 8, 6, dir.Path("lmdb_1"), "", true);
  WriteJob(dir, "both", 8, 6, dir.Path("lmdb_%#"), "", true);
  LoopbackGroup zero(1), one(1), both(2);
  ExpectAllOk(RunOnLoopback(zero, Job(dir, "zero")));
  ExpectAllOk(RunOnLoopback(one, Job(dir, "one")));
  ExpectAllOk(RunOnLoopback(both, Job(dir, "both")));
  testing::ExpectBatchNormStatisticsAveraged(dir, 6, "zero", "one", "both");
}

// Rank 0 reads the snapshot and sends weights, update history and data position to every rank:
// the resumed 2-rank run ends bit-identical to the uninterrupted one.
TEST(TrainerInProcess, ResumingEndsBitIdenticalToTheUninterruptedRun) {
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 72, 1, 12, 10);  // epochs end mid-batch
  WriteJob(dir, "whole", 16, 20);
  WriteJob(dir, "part", 16, 20);
  EditSolver(dir, "part", "snapshot: 0", "snapshot: 10");
  LoopbackGroup whole(2), first(2), resumed(2);
  ExpectAllOk(RunOnLoopback(whole, Job(dir, "whole")));
  TrainingRunOptions part = Job(dir, "part");
  part.job.iterations = 10;
  ExpectAllOk(RunOnLoopback(first, part));
  part.job.iterations = -1;
  part.snapshot = dir.Path("part_iter_10.solverstate");
  ExpectAllOk(RunOnLoopback(resumed, part));
  EXPECT_EQ(RelativeWeightDifference(dir.Path("part_iter_20.caffemodel"),
                                     dir.Path("whole_iter_20.caffemodel")),
            0.0);
}

}  // namespace
}  // namespace dtrain
