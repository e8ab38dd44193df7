// snapshot_keep: only the newest K snapshots of the run's own history stay; snapshots of other
// runs, other files, other prefixes and writes in progress are never touched.
#include "solver/snapshot_retention.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/proto_io.h"
#include "solver/solver.h"
#include "solver/solver_param_checks.h"
#include "testing/files.h"
#include "testing/tiny_solver.h"

namespace dtrain {
namespace {

using testing::TempDir;

void Touch(const std::string& path) { std::ofstream(path) << "x"; }
bool Exists(const std::string& path) { return std::filesystem::exists(path); }

TEST(SnapshotRetention, RemovesOnlyTheRunsOwnSnapshotsButTheNewest) {
  TempDir dir;
  // Snapshots of earlier runs, and files that are no snapshot.
  for (const char* name : {"run_iter_5.caffemodel", "run_iter_5.solverstate",
                           "run_iter_1000.caffemodel", "run_iter_1000.solverstate",
                           "run_iter_3.caffemodel.tmp-999999", "run_iter_2.solverstate.bak",
                           "run_iter_.caffemodel", "other_iter_1.caffemodel", "run_log.txt"}) {
    Touch(dir.Path(name));
  }
  SnapshotRetention retention(dir.Path("run"), 2);
  std::vector<std::string> removed;
  for (int iter : {10, 20, 30}) {
    Touch(dir.Path("run_iter_" + std::to_string(iter) + ".caffemodel"));
    Touch(dir.Path("run_iter_" + std::to_string(iter) + ".solverstate"));
    removed = retention.Written(iter);
    if (iter < 30) {
      EXPECT_TRUE(removed.empty()) << iter;
    }
  }
  // This run's iteration 10 goes, the state before its weights; nothing else does.
  EXPECT_EQ(removed, (std::vector<std::string>{dir.Path("run_iter_10.solverstate"),
                                               dir.Path("run_iter_10.caffemodel")}));
  EXPECT_EQ(retention.history(), (std::vector<long long>{20, 30}));
  for (const char* kept :
       {"run_iter_5.caffemodel", "run_iter_5.solverstate", "run_iter_1000.caffemodel",
        "run_iter_1000.solverstate", "run_iter_20.caffemodel", "run_iter_30.solverstate",
        "run_iter_3.caffemodel.tmp-999999", "run_iter_2.solverstate.bak", "run_iter_.caffemodel",
        "other_iter_1.caffemodel", "run_log.txt"}) {
    EXPECT_TRUE(Exists(dir.Path(kept))) << kept;
  }
  // Written again at the same iteration: still one entry, the newest.
  EXPECT_TRUE(retention.Written(30).empty());
  EXPECT_EQ(retention.history(), (std::vector<long long>{20, 30}));
  SnapshotRetention keep_all(dir.Path("run"), 0);
  for (int iter : {31, 32, 33}) EXPECT_TRUE(keep_all.Written(iter).empty());
}

TEST(SnapshotRetention, AResumedRunsEarlierSnapshotsJoinItsHistoryNewerOnesDoNot) {
  TempDir dir;
  for (const char* name :
       {"run_iter_5.caffemodel", "run_iter_5.solverstate", "run_iter_7.caffemodel.h5",
        "run_iter_40.caffemodel", "run_iter_40.solverstate", "run_iter_100.caffemodel",
        "run_iter_100.solverstate"}) {
    Touch(dir.Path(name));
  }
  SnapshotRetention other_prefix(dir.Path("run"), 1);
  other_prefix.ResumedFrom(dir.Path("elsewhere_iter_40.solverstate"));
  EXPECT_TRUE(other_prefix.history().empty());
  SnapshotRetention retention(dir.Path("run"), 2);
  retention.ResumedFrom(dir.Path("run_iter_40.solverstate"));
  EXPECT_EQ(retention.history(), (std::vector<long long>{5, 7, 40}));
  Touch(dir.Path("run_iter_44.caffemodel"));
  Touch(dir.Path("run_iter_44.solverstate"));
  const std::vector<std::string> removed = retention.Written(44);
  EXPECT_EQ(removed, (std::vector<std::string>{dir.Path("run_iter_5.solverstate"),
                                               dir.Path("run_iter_5.caffemodel"),
                                               dir.Path("run_iter_7.caffemodel.h5")}));
  for (const char* kept : {"run_iter_40.caffemodel", "run_iter_44.solverstate",
                           "run_iter_100.caffemodel", "run_iter_100.solverstate"}) {
    EXPECT_TRUE(Exists(dir.Path(kept))) << kept;
  }
}

TEST(SnapshotRetention, TrainingKeepsTheNewestSnapshotsAndResumesFromThem) {
  TempDir dir;
  const SolverParameter param = testing::TinySolver(
      "max_iter: 20 snapshot: 4 snapshot_keep: 2 snapshot_prefix: '" + dir.Path("keep") + "'");
  auto solver = CreateSolver(param);
  ASSERT_TRUE(solver.ok()) << solver.status().message();
  const Status trained = (*solver)->Step(18);
  ASSERT_TRUE(trained.ok()) << trained.message();
  // Snapshots at 4, 8, 12 and 16: the newest two stay.
  for (int iter : {4, 8}) {
    EXPECT_FALSE(Exists(dir.Path("keep_iter_" + std::to_string(iter) + ".caffemodel"))) << iter;
    EXPECT_FALSE(Exists(dir.Path("keep_iter_" + std::to_string(iter) + ".solverstate"))) << iter;
  }
  for (int iter : {12, 16}) {
    EXPECT_TRUE(Exists(dir.Path("keep_iter_" + std::to_string(iter) + ".caffemodel"))) << iter;
    EXPECT_TRUE(Exists(dir.Path("keep_iter_" + std::to_string(iter) + ".solverstate"))) << iter;
  }
  ASSERT_TRUE(Exists(dir.Path("keep_iter_16.solverstate")));
  auto resumed = CreateSolver(param);
  ASSERT_TRUE(resumed.ok());
  const Status restored = (*resumed)->Restore(dir.Path("keep_iter_16.solverstate"));
  ASSERT_TRUE(restored.ok()) << restored.message();
  EXPECT_EQ((*resumed)->iter(), 16);
}

TEST(SnapshotRetention, ANegativeCountIsRefused) {
  SolverParameter param;
  param.set_net("n.prototxt");
  param.set_lr_policy("fixed");
  param.set_snapshot_keep(-1);
  const Status status = ValidateSolverParameter(param);
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            "snapshot_keep must not be negative (0 keeps every snapshot), got -1");
}

}  // namespace
}  // namespace dtrain
