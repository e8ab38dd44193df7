// snapshot_interval_s: a snapshot every T seconds of wall time, on rank 0's clock, beside the
// other requests (signals) and Caffe's iteration snapshots.
#include "solver/timed_snapshots.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "core/proto_io.h"
#include "solver/solver_param_checks.h"
#include "testing/files.h"
#include "testing/tiny_solver.h"

namespace dtrain {
namespace {

using std::chrono::seconds;
using std::chrono::steady_clock;

TEST(TimedSnapshots, AskForASnapshotEachTimeTheIntervalHasPassed) {
  steady_clock::time_point fake;
  auto now = [&fake] { return fake; };
  auto poll = WithTimedSnapshots(nullptr, 10, /*clock_owner=*/true, now);
  std::vector<SolverAction> got;
  for (int i = 0; i < 7; ++i) {
    fake += seconds(4);  // an iteration of 4 s
    got.push_back(poll());
  }
  // At 4, 8, 12, 16, 20, 24, 28 s: due at 12, then 10 s after it, at 24.
  const std::vector<SolverAction> expected = {
      SolverAction::kNone, SolverAction::kNone,     SolverAction::kSnapshot, SolverAction::kNone,
      SolverAction::kNone, SolverAction::kSnapshot, SolverAction::kNone};
  EXPECT_EQ(got, expected);
}

TEST(TimedSnapshots, OtherRequestsPassThroughAndOnlyTheClockOwnerAsks) {
  steady_clock::time_point fake;
  auto now = [&fake] { return fake; };
  SolverAction signalled = SolverAction::kStop;
  auto poll = WithTimedSnapshots([&] { return signalled; }, 1, true, now);
  fake += seconds(5);
  EXPECT_EQ(poll(), SolverAction::kStop);  // a stop snapshots anyway; the timer keeps waiting
  signalled = SolverAction::kNone;
  EXPECT_EQ(poll(), SolverAction::kSnapshot);
  EXPECT_EQ(poll(), SolverAction::kNone);

  auto other_rank = WithTimedSnapshots(nullptr, 1, /*clock_owner=*/false, now);
  EXPECT_FALSE(other_rank);  // no source of its own: the solver polls nothing
  auto unset = WithTimedSnapshots([] { return SolverAction::kNone; }, 0, true, now);
  fake += seconds(100);
  EXPECT_EQ(unset(), SolverAction::kNone);
}

TEST(TimedSnapshots, TrainingSnapshotsOnTheClockBesidesIterations) {
  testing::TempDir dir;
  const SolverParameter param = testing::TinySolver(
      "max_iter: 10 snapshot: 5 snapshot_after_train: false snapshot_interval_s: 20 "
      "snapshot_prefix: '" +
      dir.Path("timed") + "'");
  auto solver = CreateSolver(param);
  ASSERT_TRUE(solver.ok()) << solver.status().message();
  steady_clock::time_point fake;
  (*solver)->SetActionSource(WithTimedSnapshots(nullptr, param.snapshot_interval_s(), true,
                                                [&fake] { return fake += seconds(7); }));
  ASSERT_TRUE((*solver)->Solve().ok());
  // Iterations of 7 s (the clock advances 7 s at each reading, the first at the start): timed at
  // 3, 6 and 9 (21 s after the start or the last timed one), by iterations at 5 and 10.
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir.Path("")))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  std::vector<std::string> expected;
  for (const char* iter : {"10", "3", "5", "6", "9"}) {
    expected.push_back(std::string("timed_iter_") + iter + ".caffemodel");
    expected.push_back(std::string("timed_iter_") + iter + ".solverstate");
  }
  EXPECT_EQ(names, expected);
}

TEST(TimedSnapshots, ANegativeOrInfiniteIntervalIsRefused) {
  SolverParameter param;
  param.set_net("n.prototxt");
  param.set_lr_policy("fixed");
  param.set_snapshot_interval_s(-5);
  EXPECT_EQ(ValidateSolverParameter(param).message(),
            "snapshot_interval_s must be a finite number of seconds >= 0 (0: no timed "
            "snapshots), got -5");
  param.set_snapshot_interval_s(std::numeric_limits<float>::infinity());
  EXPECT_FALSE(ValidateSolverParameter(param).ok());
  param.set_snapshot_interval_s(std::nanf(""));
  EXPECT_FALSE(ValidateSolverParameter(param).ok());
}

}  // namespace
}  // namespace dtrain
