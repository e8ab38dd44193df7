// The latest complete snapshot: damaged, mismatched, half-written and foreign files are passed
// over, each with its reason, and the newest pair that a resume can use is chosen.
#include "solver/latest_snapshot.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/proto_io.h"
#include "solver/solver.h"
#include "testing/files.h"
#include "testing/tiny_solver.h"

namespace dtrain {
namespace {

using testing::TempDir;

// Trains a small net for 12 iterations with snapshots at 4, 8 and 12 under dir/run.
void WriteThreeSnapshots(const TempDir& dir) {
  const SolverParameter param =
      testing::TinySolver("max_iter: 12 snapshot: 4 snapshot_prefix: '" + dir.Path("run") + "'");
  auto solver = CreateSolver(param);
  ASSERT_TRUE(solver.ok()) << solver.status().message();
  const Status trained = (*solver)->Step(12);
  ASSERT_TRUE(trained.ok()) << trained.message();
}

void Truncate(const std::string& path, size_t bytes) { std::filesystem::resize_file(path, bytes); }

TEST(LatestSnapshot, TheNewestCompletePairIsChosen) {
  TempDir dir;
  WriteThreeSnapshots(dir);
  const SnapshotChoice choice = FindLatestCompleteSnapshot(dir.Path("run"));
  EXPECT_EQ(choice.solverstate, dir.Path("run_iter_12.solverstate"));
  EXPECT_EQ(choice.iteration, 12);
  EXPECT_TRUE(choice.passed_over.empty());
}

TEST(LatestSnapshot, DamagedAndMismatchedSnapshotsArePassedOverWithTheirReasons) {
  TempDir dir;
  WriteThreeSnapshots(dir);
  // 12: its state cut short; 8: its weights replaced by 4's; 16: weights without a state (a
  // kill between the two writes); 20: a copy of 4's state under another iteration's name; a
  // write in progress and another prefix are not snapshots of `run` at all.
  Truncate(dir.Path("run_iter_12.solverstate"), 10);
  std::filesystem::copy_file(dir.Path("run_iter_4.caffemodel"), dir.Path("run_iter_8.caffemodel"),
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(dir.Path("run_iter_12.caffemodel"),
                             dir.Path("run_iter_16.caffemodel"));
  std::filesystem::copy_file(dir.Path("run_iter_4.solverstate"),
                             dir.Path("run_iter_20.solverstate"));
  std::ofstream(dir.Path("run_iter_24.solverstate.tmp-12345")) << "partial";
  std::filesystem::copy_file(dir.Path("run_iter_12.caffemodel"),
                             dir.Path("other_iter_28.caffemodel"));

  const SnapshotChoice choice = FindLatestCompleteSnapshot(dir.Path("run"));
  EXPECT_EQ(choice.solverstate, dir.Path("run_iter_4.solverstate"));
  EXPECT_EQ(choice.iteration, 4);
  ASSERT_EQ(choice.passed_over.size(), 4u);
  EXPECT_EQ(choice.passed_over[0],
            dir.Path("run_iter_20.solverstate") + ": holds iteration 4, not the 20 of its name");
  EXPECT_EQ(choice.passed_over[1],
            dir.Path("run_iter_16.caffemodel") + ": no solver state beside it");
  EXPECT_EQ(choice.passed_over[2].rfind(dir.Path("run_iter_12.solverstate") + ": ", 0), 0u)
      << choice.passed_over[2];
  EXPECT_EQ(choice.passed_over[3], dir.Path("run_iter_8.solverstate") + ": its weights " +
                                       dir.Path("run_iter_8.caffemodel") +
                                       " are not the ones written with it");
}

TEST(LatestSnapshot, MissingWeightsAndNoSnapshotsAtAll) {
  TempDir dir;
  EXPECT_EQ(FindLatestCompleteSnapshot(dir.Path("run")).solverstate, "");
  EXPECT_EQ(FindLatestCompleteSnapshot(dir.Path("no_such_dir/run")).solverstate, "");
  WriteThreeSnapshots(dir);
  for (int iter : {4, 8, 12})
    std::filesystem::remove(dir.Path("run_iter_" + std::to_string(iter) + ".caffemodel"));
  const SnapshotChoice choice = FindLatestCompleteSnapshot(dir.Path("run"));
  EXPECT_EQ(choice.solverstate, "");
  EXPECT_EQ(choice.iteration, -1);
  ASSERT_EQ(choice.passed_over.size(), 3u);
  EXPECT_NE(choice.passed_over[0].find(": its weights: "), std::string::npos)
      << choice.passed_over[0];
}

}  // namespace
}  // namespace dtrain
