#include "launch/per_worker_files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/proto_io.h"
#include "data/image_list.h"
#include "proto/solver.pb.h"
#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

TEST(PerWorkerFilesTest, OneSolverNetAndListShardPerRank) {
  testing::TempDir dir;
  std::string list;
  for (int i = 0; i < 10; ++i)
    list += "class" + std::to_string(i % 2) + "/img" + std::to_string(i) + ".jpg " +
            std::to_string(i % 2) + "\n";
  testing::WriteTextFile(dir.Path("train.txt"), list);
  testing::WriteTextFile(dir.Path("net.prototxt"), R"(
    layer { name: "data" type: "ImageData" top: "data" top: "label" include { phase: TRAIN }
            image_data_param { source: ")" + dir.Path("train.txt") +
                                                       R"(" batch_size: 2 } }
    layer { name: "val" type: "Data" top: "data" top: "label" include { phase: TEST }
            data_param { source: "val_lmdb" batch_size: 2 } })");
  testing::WriteTextFile(dir.Path("solver.prototxt"), "net: '" + dir.Path("net.prototxt") +
                                                          "'\nbase_lr: 0.1\n"
                                                          "snapshot_prefix: '" +
                                                          dir.Path("snap") + "'\n");
  auto pattern = WritePerWorkerFiles(dir.Path("solver.prototxt"), 3, dir.Path("per_worker"), 1);
  ASSERT_TRUE(pattern.ok()) << pattern.status().message();
  EXPECT_EQ(*pattern, dir.Path("per_worker/solver_%#.prototxt"));
  std::vector<std::string> all;
  std::vector<size_t> sizes;
  for (int r = 0; r < 3; ++r) {
    const std::string rank = std::to_string(r);
    SolverParameter solver;
    ASSERT_TRUE(ReadTextProto(dir.Path("per_worker/solver_" + rank + ".prototxt"), &solver).ok());
    EXPECT_EQ(solver.net(), dir.Path("per_worker/net_" + rank + ".prototxt"));
    EXPECT_EQ(solver.snapshot_prefix(), dir.Path("snap"));
    NetParameter net;
    ASSERT_TRUE(ReadTextProto(solver.net(), &net).ok());
    ASSERT_EQ(net.layer_size(), 2);
    EXPECT_EQ(net.layer(0).image_data_param().source(),
              dir.Path("per_worker/data_" + rank + ".txt"));
    EXPECT_EQ(net.layer(1).data_param().source(), "val_lmdb");  // LMDBs are shared out by rank
    auto entries = ReadImageList(net.layer(0).image_data_param().source());
    ASSERT_TRUE(entries.ok());
    sizes.push_back(entries->size());
    for (const auto& e : *entries) all.push_back(e.path);
  }
  EXPECT_EQ(sizes, (std::vector<size_t>{4, 3, 3}));
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::unique(all.begin(), all.end()), all.end()) << "the shards are disjoint";
  EXPECT_EQ(all.size(), 10u);
}

TEST(PerWorkerFilesTest, ErrorsNameTheProblem) {
  testing::TempDir dir;
  EXPECT_EQ(WritePerWorkerFiles(dir.Path("none.prototxt"), 2, dir.Path("w"), 1)
                    .status()
                    .message()
                    .find(dir.Path("none.prototxt")) != std::string::npos,
            true);
  testing::WriteTextFile(dir.Path("solver.prototxt"), "train_net: 'x.prototxt'\n");
  EXPECT_EQ(
      WritePerWorkerFiles(dir.Path("solver.prototxt"), 2, dir.Path("w"), 1).status().message(),
      "--per-worker-files handles solvers with `net` or `net_param`; '" +
          dir.Path("solver.prototxt") + "' uses train_net");
}

// The job's --solver, in either form, points at the files; the default folder is beside it.
TEST(PerWorkerFilesTest, TheJobRunsWithTheRanksFiles) {
  testing::TempDir dir;
  testing::WriteTextFile(dir.Path("net.prototxt"),
                         "layer { name: 'd' type: 'Input' top: 'd' input_param { shape { dim: 1 } "
                         "} }");
  testing::WriteTextFile(dir.Path("solver.prototxt"),
                         "net: '" + dir.Path("net.prototxt") + "'\nbase_lr: 0.1\n");
  auto job = JobWithPerWorkerFiles(
      {"train", "--solver", dir.Path("solver.prototxt"), "--global-batch"}, 2, "", 1);
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(*job, (std::vector<std::string>{"train",
                                            "--solver=" + dir.Path("per_worker/solver_%#.prototxt"),
                                            "--global-batch"}));
  EXPECT_TRUE(std::filesystem::exists(dir.Path("per_worker/solver_1.prototxt")));
  job = JobWithPerWorkerFiles({"train", "--solver=" + dir.Path("solver.prototxt")}, 2,
                              dir.Path("elsewhere"), 1);
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->back(), "--solver=" + dir.Path("elsewhere/solver_%#.prototxt"));
  EXPECT_EQ(JobWithPerWorkerFiles({"train", "--global-batch"}, 2, "", 1).status().message(),
            "--per-worker-files needs the job's --solver=S");
}

}  // namespace
}  // namespace dtrain
