// snapshot_keep: only the newest K snapshots of a prefix stay; other files, other prefixes and
// writes in progress are never touched.
#include "solver/snapshot_retention.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/proto_io.h"
#include "data/data_test_util.h"
#include "solver/solver.h"
#include "solver/solver_param_checks.h"
#include "testing/tiny_solver.h"

namespace dtrain {
namespace {

using testing::TempDir;

void Touch(const std::string& path) { std::ofstream(path) << "x"; }
bool Exists(const std::string& path) { return std::filesystem::exists(path); }

TEST(SnapshotRetention, RemovesAllButTheNewestIterationsOfThePrefix) {
  TempDir dir;
  for (const char* name :
       {"run_iter_5.caffemodel", "run_iter_5.solverstate", "run_iter_40.caffemodel",
        "run_iter_40.solverstate", "run_iter_100.caffemodel.h5", "run_iter_100.solverstate.h5",
        "run_iter_7.caffemodel",  // a pair whose state is gone still counts as iteration 7
        "run_iter_3.caffemodel.tmp-999999", "run_iter_2.solverstate.bak", "run_iter_.caffemodel",
        "other_iter_1.caffemodel", "run_log.txt"}) {
    Touch(dir.Path(name));
  }
  const std::vector<std::string> removed = RemoveOldSnapshots(dir.Path("run"), 2);
  EXPECT_EQ(removed.size(), 3u);
  // Iterations 40 and 100 stay; 5 and 7 go, the state of each before its weights.
  EXPECT_FALSE(Exists(dir.Path("run_iter_5.caffemodel")));
  EXPECT_FALSE(Exists(dir.Path("run_iter_5.solverstate")));
  EXPECT_FALSE(Exists(dir.Path("run_iter_7.caffemodel")));
  ASSERT_GE(removed.size(), 2u);
  EXPECT_EQ(removed[0], dir.Path("run_iter_5.solverstate"));
  EXPECT_EQ(removed[1], dir.Path("run_iter_5.caffemodel"));
  for (const char* kept : {"run_iter_40.caffemodel", "run_iter_40.solverstate",
                           "run_iter_100.caffemodel.h5", "run_iter_100.solverstate.h5",
                           "run_iter_3.caffemodel.tmp-999999", "run_iter_2.solverstate.bak",
                           "run_iter_.caffemodel", "other_iter_1.caffemodel", "run_log.txt"}) {
    EXPECT_TRUE(Exists(dir.Path(kept))) << kept;
  }
  EXPECT_TRUE(RemoveOldSnapshots(dir.Path("run"), 2).empty());
  EXPECT_TRUE(RemoveOldSnapshots(dir.Path("run"), 0).empty());  // 0 keeps all
  EXPECT_TRUE(Exists(dir.Path("run_iter_40.caffemodel")));
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
