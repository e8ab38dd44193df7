// The restarted job's command line and what launch reads of the job to restart it.
#include "launch/job_restart.h"

#include <gtest/gtest.h>

#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

TEST(JobRestart, ResumesFromTheSnapshotInsteadOfTheJobsOwnStart) {
  const std::vector<std::string> job = {
      "train",      "--solver=s.prototxt", "--weights=w.caffemodel", "--global-batch",
      "--snapshot", "old.solverstate",     "-restart-count=3",       "--metrics=m.jsonl"};
  EXPECT_EQ(RestartedJob(job, "run_iter_50.solverstate", 1, "rank 2 killed"),
            (std::vector<std::string>{"train", "--solver=s.prototxt", "--global-batch",
                                      "--metrics=m.jsonl", "--snapshot=run_iter_50.solverstate",
                                      "--restart-count=1", "--restart-reason=rank 2 killed"}));
  // No snapshot yet: from the start again, with the job's own weights.
  EXPECT_EQ(RestartedJob(job, "", 2, "r"),
            (std::vector<std::string>{"train", "--solver=s.prototxt", "--weights=w.caffemodel",
                                      "--global-batch", "--metrics=m.jsonl", "--restart-count=2",
                                      "--restart-reason=r"}));
}

TEST(JobRestart, TheTargetIsRankZerosSnapshotPrefix) {
  testing::TempDir dir;
  testing::WriteTextFile(dir.Path("net.prototxt"),
                         "layer { name: 'd' type: 'Input' top: 'd' input_param { shape { dim: 1 } "
                         "} }");
  testing::WriteTextFile(dir.Path("solver.prototxt"),
                         "net: '" + dir.Path("net.prototxt") +
                             "' base_lr: 0.1 max_iter: 500 snapshot_prefix: '" + dir.Path("snap/") +
                             "'");
  auto target = ResolveJobTarget({"train", "--solver=" + dir.Path("solver.prototxt")}, 3);
  ASSERT_TRUE(target.ok()) << target.status().message();
  EXPECT_EQ(target->snapshot_prefix, dir.Path("snap/solver"));  // Caffe's rule for a directory
  target = ResolveJobTarget({"train", "--solver", dir.Path("solver.prototxt")}, 3);
  ASSERT_TRUE(target.ok()) << target.status().message();
  EXPECT_EQ(ResolveJobTarget({"time", "--model=m"}, 1).status().message(),
            "--max-restarts restarts training jobs (-- train --solver=S ...), not 'time'");
}

}  // namespace
}  // namespace dtrain
