// Data-parallel training over MPI on this machine: mpirun starts N dtrain ranks (the same code
// path as across hosts, over Open MPI's shared-memory and TCP transports), and N ranks with batch
// b must train the same model as one process with batch N * b, from the same seed.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/proto_io.h"
#include "distributed/rank_job.h"
#include "proto/net.pb.h"
#include "testing/data_parallel_job.h"
#include "testing/files.h"
#include "testing/mpi_jobs.h"
#include "testing/run_command.h"
#include "testing/trainable_data.h"
#include "testing/weights_difference.h"

namespace dtrain {
namespace {

using testing::ReadFile;

using testing::EditSolver;
using testing::RunShell;
using testing::WriteJob;
using testing::WriteTextFile;

// The mpirun prefix every test uses: as root, more ranks than cores (ranks yield when idle), one
// thread each, and a backstop timeout so that no test can hang.
std::string Mpirun(int ranks) {
  return "mpirun --allow-run-as-root --oversubscribe --timeout 100 -np " + std::to_string(ranks) +
         " --mca mpi_yield_when_idle 1 -x OMP_NUM_THREADS=1 ";
}

std::string Train(const testing::TempDir& dir, const std::string& name, int ranks,
                  const std::string& flags = "") {
  const std::string dtrain = std::string(DTRAIN_BINARY) + " train --threads=1 " + flags +
                             " --solver=" + dir.Path(name + "_solver.prototxt");
  const std::string command = ranks == 1 ? dtrain : Mpirun(ranks) + dtrain;
  auto r = RunShell(command + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.output;
}

using testing::RelativeWeightDifference;

TEST(DataParallel, RanksTimesBatchEqualsOneProcessWithTheWholeBatch) {
  if (const std::string why = testing::WhyNoMpiJobs(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 128, 1, 12, 10);  // 128 images, 1x12x12
  WriteJob(dir, "one", 32, 20);
  WriteJob(dir, "two", 16, 20);
  WriteJob(dir, "four", 8, 20);
  Train(dir, "one", 1);
  const std::string two_log = Train(dir, "two", 2);
  Train(dir, "four", 4);
  EXPECT_NE(two_log.find("Data-parallel: MPI"), std::string::npos) << two_log;
  EXPECT_NE(two_log.find("rank 0 of 2"), std::string::npos) << two_log;
  const double two = RelativeWeightDifference(dir.Path("two_iter_20.caffemodel"),
                                              dir.Path("one_iter_20.caffemodel"));
  const double four = RelativeWeightDifference(dir.Path("four_iter_20.caffemodel"),
                                               dir.Path("one_iter_20.caffemodel"));
  EXPECT_LE(two, 1e-5);
  EXPECT_LE(four, 1e-5);
  std::cout << "relative weight difference after 20 iterations: 2 ranks " << two << ", 4 ranks "
            << four << "\n";
}

// Small buckets: ip1's weights (5 KiB) travel while conv1's backward runs; ip1's bias and conv1's
// weights and bias (< 1 KiB together) follow in a second bucket.
TEST(DataParallel, ManySmallBucketsGiveTheSameModel) {
  if (const std::string why = testing::WhyNoMpiJobs(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 64, 1, 12, 10);
  WriteJob(dir, "one", 32, 10);
  WriteJob(dir, "two", 16, 10);
  Train(dir, "one", 1);
  const std::string log = Train(dir, "two", 2, "--bucket-kb=1");
  EXPECT_NE(log.find("Gradients summed over 2 ranks in 2 bucket(s) of up to 1 KiB"),
            std::string::npos)
      << log;
  EXPECT_LE(RelativeWeightDifference(dir.Path("two_iter_10.caffemodel"),
                                     dir.Path("one_iter_10.caffemodel")),
            1e-5);
}

TEST(DataParallel, TheSameRunTwiceGivesBitIdenticalWeights) {
  if (const std::string why = testing::WhyNoMpiJobs(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 64, 1, 12, 10);
  WriteJob(dir, "a", 16, 10);
  WriteJob(dir, "b", 16, 10);
  Train(dir, "a", 2);
  Train(dir, "b", 2);
  EXPECT_EQ(
      RelativeWeightDifference(dir.Path("a_iter_10.caffemodel"), dir.Path("b_iter_10.caffemodel")),
      0.0);
}

// Intel Caffe's per-worker files: with `source: "lmdb_%#"` rank r reads all of lmdb_r, not a
// strided share. With two identical copies, 2 ranks x batch 8 then train exactly as one process
// with batch 8 (a strided share would make it batch 16; an unexpanded path would not open).
TEST(DataParallel, PerRankSourcesReadTheirOwnFiles) {
  if (const std::string why = testing::WhyNoMpiJobs(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb_0"), 64, 1, 12, 10);
  testing::WriteTrainableLmdb(dir.Path("lmdb_1"), 64, 1, 12, 10);
  WriteJob(dir, "one", 8, 10, dir.Path("lmdb_0"));
  WriteJob(dir, "two", 8, 10, dir.Path("lmdb_%#"));
  Train(dir, "one", 1);
  Train(dir, "two", 2);
  EXPECT_LE(RelativeWeightDifference(dir.Path("two_iter_10.caffemodel"),
                                     dir.Path("one_iter_10.caffemodel")),
            1e-5);
}

TEST(DataParallel, LogDirGetsEveryRanksLogAndOnlyRankZeroTalks) {
  if (const std::string why = testing::WhyNoMpiJobs(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 32, 1, 12, 10);
  WriteJob(dir, "job", 8, 4);
  auto r = RunShell(Mpirun(2) + std::string(DTRAIN_BINARY) + " train --threads=1 --log-dir=" +
                    dir.Path("logs") + " --solver=" + dir.Path("job_solver.prototxt") + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The console shows one rank's progress: the first display line once, not twice.
  size_t lines = 0;
  for (size_t at = r.output.find("Iteration 0 ("); at != std::string::npos;
       at = r.output.find("Iteration 0 (", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 1u) << r.output;
  for (int rank = 0; rank < 2; ++rank) {
    const std::string log = ReadFile(dir.Path("logs/rank_" + std::to_string(rank) + ".log"));
    EXPECT_NE(log.find("rank " + std::to_string(rank) + " of 2"), std::string::npos) << log;
    EXPECT_NE(log.find("Optimization Done."), std::string::npos) << log;
  }
}

// Open MPI waits forever for a stopped rank; dtrain's watchdog must end the job, naming the
// operation, within the collective timeout plus a margin.
TEST(DataParallel, AStoppedRankEndsTheJobWithinTheTimeout) {
  if (const std::string why = testing::WhyNoMpiJobs(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 64, 1, 12, 10);
  WriteJob(dir, "job", 16, 1000000);
  const std::string script =
      R"(
    cd ')" +
      dir.Path("") + R"('
    )" +
      Mpirun(2) + std::string(DTRAIN_BINARY) +
      R"( train --threads=1 --collective-timeout=3 --log-dir=logs --solver=job_solver.prototxt > out.txt 2>&1 &
    job=$!
    pid=
    for i in $(seq 300); do
      pid=$(sed -n 's/.*this is rank 1 of 2 (host .*, pid \([0-9]*\)).*/\1/p' logs/rank_1.log 2>/dev/null)
      [ -n "$pid" ] && grep -q 'Iteration 10' out.txt && break
      sleep 0.1
    done
    [ -n "$pid" ] || { echo "rank 1 never started"; kill $job; exit 2; }
    kill -STOP $pid
    start=$(date +%s)
    wait $job
    rc=$?
    echo "mpirun exit $rc after $(( $(date +%s) - start )) s"
    kill -CONT $pid 2>/dev/null; kill -9 $pid 2>/dev/null
    cat out.txt
  )";
  auto r = RunShell(script);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m, std::regex(R"(mpirun exit (\d+) after (\d+) s)")))
      << r.output;
  EXPECT_NE(std::stoi(m[1]), 0) << r.output;
  EXPECT_LE(std::stoi(m[2]), 3 + 30) << r.output;
  EXPECT_NE(r.output.find("rank 0 of 2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("has made no progress for"), std::string::npos) << r.output;
  // The heartbeat names the stopped rank: it has been silent since SIGSTOP.
  EXPECT_TRUE(
      std::regex_search(r.output, std::regex(R"(missing: rank 1 \(host [^)]+\): silent for)")))
      << r.output;
  std::cout << m[0] << "\n";
}

// The test phase is split over the ranks (rank r runs test iterations r, r + N, ...) and the
// scores summed: 2 ranks print the scores one process prints over the same 8 test batches.
TEST(DataParallel, TestPhaseIsSplitOverRanksAndGivesTheSameScores) {
  if (const std::string why = testing::WhyNoMpiJobs(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 128, 1, 12, 10);
  const std::string test = "test_iter: 8 test_interval: 10";
  WriteJob(dir, "one", 32, 10, "", test);
  WriteJob(dir, "two", 16, 10, "", test);
  const std::string one = Train(dir, "one", 1);
  const std::string two = Train(dir, "two", 2);
  const std::regex final_test(
      R"(Final test scores \(net #0, iteration 10\): accuracy ([-0-9.e+]+), loss ([-0-9.e+]+))");
  std::smatch a, b;
  ASSERT_TRUE(std::regex_search(one, a, final_test)) << one;
  ASSERT_TRUE(std::regex_search(two, b, final_test)) << two;
  EXPECT_NEAR(std::stod(a[1]), std::stod(b[1]), 1e-6) << a[0] << " vs " << b[0];
  EXPECT_NEAR(std::stod(a[2]), std::stod(b[2]), 1e-4) << a[0] << " vs " << b[0];
  // The display line reports the whole job's rate, the ranks and the communication wait.
  EXPECT_TRUE(std::regex_search(
      two, std::regex(R"(img/s \(2 ranks x [0-9.]+\), [0-9]+% waiting for gradients)")))
      << two;
}

// Resuming a data-parallel run: rank 0 reads the snapshot and sends the weights, the update
// history and the data position to every rank; the resumed run ends bit-identical to the
// uninterrupted one.
TEST(DataParallel, ResumingEndsBitIdenticalToTheUninterruptedRun) {
  if (const std::string why = testing::WhyNoMpiJobs(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 72, 1, 12, 10);  // epochs end mid-batch
  WriteJob(dir, "whole", 16, 20);
  WriteJob(dir, "part", 16, 20);
  EditSolver(dir, "part", "snapshot: 0", "snapshot: 10");
  Train(dir, "whole", 2);
  Train(dir, "part", 2, "--iterations=10");
  std::filesystem::remove(dir.Path("part_iter_10.caffemodel.tmp"));
  const std::string resumed =
      Train(dir, "part", 2, "--snapshot=" + dir.Path("part_iter_10.solverstate"));
  EXPECT_NE(resumed.find("(sent to every rank)"), std::string::npos) << resumed;
  EXPECT_EQ(RelativeWeightDifference(dir.Path("part_iter_20.caffemodel"),
                                     dir.Path("whole_iter_20.caffemodel")),
            0.0);
}

// BatchNorm's running mean and variance are gathered by each rank from its own data and averaged
// over ranks before a snapshot. Right after the data layer they depend on the data alone, so the
// 2-rank snapshot holds the mean of what one process reading each rank's file holds.
TEST(DataParallel, BatchNormStatisticsAreAveragedOverRanks) {
  if (const std::string why = testing::WhyNoMpiJobs(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb_0"), 32, 1, 12, 10, /*seed=*/1);
  testing::WriteTrainableLmdb(dir.Path("lmdb_1"), 32, 1, 12, 10, /*seed=*/2);
  WriteJob(dir, "zero", 8, 6, dir.Path("lmdb_0"), "", /*batch_norm=*/true);
  WriteJob(dir, "one", 8, 6, dir.Path("lmdb_1"), "", true);
  WriteJob(dir, "both", 8, 6, dir.Path("lmdb_%#"), "", true);
  Train(dir, "zero", 1);
  Train(dir, "one", 1);
  Train(dir, "both", 2);
  testing::ExpectBatchNormStatisticsAveraged(dir, 6, "zero", "one", "both");
}

// A rank that fails alone (here: its per-rank LMDB is missing) ends the whole job at once,
// saying which rank failed and why, instead of leaving the others waiting for it.
TEST(DataParallel, AnErrorOnOneRankEndsTheJobNamingTheRank) {
  if (const std::string why = testing::WhyNoMpiJobs(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb_0"), 32, 1, 12, 10);
  WriteJob(dir, "job", 8, 1000, dir.Path("lmdb_%#"));
  const auto start = std::chrono::steady_clock::now();
  auto r = RunShell(Mpirun(2) + std::string(DTRAIN_BINARY) +
                    " train --threads=1 --solver=" + dir.Path("job_solver.prototxt") + " 2>&1");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_LT(seconds, 30) << r.output;
  EXPECT_TRUE(
      std::regex_search(r.output, std::regex(R"(error on rank 1 of 2 \(host [^)]+\): .*lmdb_1)")))
      << r.output;
}

// lr_scaling: LINEAR multiplies base_lr by the number of ranks.
TEST(DataParallel, LinearLearningRateScalingMultipliesByTheRanks) {
  if (const std::string why = testing::WhyNoMpiJobs(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 64, 1, 12, 10);
  WriteJob(dir, "plain", 16, 10);  // base_lr 0.05
  WriteJob(dir, "scaled", 16, 10, "", "lr_scaling: LINEAR");
  EditSolver(dir, "scaled", "base_lr: 0.05", "base_lr: 0.025");
  Train(dir, "plain", 2);
  const std::string log = Train(dir, "scaled", 2);
  EXPECT_NE(log.find("lr_scaling: LINEAR: base_lr 0.025 x 2 ranks = 0.05"), std::string::npos)
      << log;
  EXPECT_EQ(RelativeWeightDifference(dir.Path("scaled_iter_10.caffemodel"),
                                     dir.Path("plain_iter_10.caffemodel")),
            0.0);
}

// --timeline: each rank writes a Chrome trace. Every iteration shows forward, backward and update
// on the training thread, each bucket's allreduce on the communication thread, starting after
// that iteration's backward began and ending before the training thread's wait for it ends.
TEST(DataParallel, TimelineShowsEveryBucketsAllreduceInsideItsIteration) {
  if (const std::string why = testing::WhyNoMpiJobs(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 64, 1, 12, 10);
  WriteJob(dir, "job", 16, 6);
  Train(dir, "job", 2, "--bucket-kb=1 --timeline=" + dir.Path("trace.json"));
  for (int rank = 0; rank < 2; ++rank) {
    const std::string path = dir.Path("trace.rank" + std::to_string(rank) + ".json");
    const nlohmann::json trace = nlohmann::json::parse(ReadFile(path));
    struct Span {
      long long begin, end;
    };
    std::map<std::string, std::vector<Span>> spans;
    for (const auto& e : trace) {
      if (!e.contains("ph") || e["ph"] != "X") continue;
      EXPECT_EQ(e["pid"], rank);
      const std::string name = e["name"];
      EXPECT_EQ(e["tid"], name.rfind("allreduce", 0) == 0 ? 1 : 0) << name;
      spans[name].push_back(
          {e["ts"].get<long long>(), e["ts"].get<long long>() + e["dur"].get<long long>()});
    }
    ASSERT_EQ(spans["forward"].size(), 6u) << path;
    ASSERT_EQ(spans["backward"].size(), 6u);
    ASSERT_EQ(spans["update"].size(), 6u);
    ASSERT_EQ(spans["wait for gradients"].size(), 6u);
    for (const char* bucket : {"allreduce bucket 0 (5 KiB)", "allreduce bucket 1 (0 KiB)"}) {
      ASSERT_EQ(spans[bucket].size(), 6u) << bucket << " in " << path;
      for (size_t i = 0; i < 6; ++i) {
        EXPECT_GE(spans[bucket][i].begin, spans["backward"][i].begin) << bucket << " " << i;
        EXPECT_LE(spans[bucket][i].end, spans["wait for gradients"][i].end) << bucket << " " << i;
      }
    }
  }
}

// --global-batch: the solver's batch_size is the job's; 2 ranks read 16 each and train exactly
// as one process reading 32 from the same files.
TEST(DataParallel, GlobalBatchSharesTheSolversBatchOverRanks) {
  if (const std::string why = testing::WhyNoMpiJobs(); !why.empty()) GTEST_SKIP() << why;
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 128, 1, 12, 10);
  WriteJob(dir, "one", 32, 10);
  WriteJob(dir, "two", 32, 10);
  Train(dir, "one", 1);
  const std::string log = Train(dir, "two", 2, "--global-batch");
  EXPECT_NE(log.find("--global-batch over 2 rank(s): data: 32 -> 16"), std::string::npos) << log;
  EXPECT_LE(RelativeWeightDifference(dir.Path("two_iter_10.caffemodel"),
                                     dir.Path("one_iter_10.caffemodel")),
            1e-5);
}

TEST(GlobalBatch, DividesOnlyTrainPhaseDataLayersAndRejectsUnevenShares) {
  SolverParameter solver;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"(
    net_param {
      layer { name: "train" type: "Data" top: "d" include { phase: TRAIN } data_param { batch_size: 64 } }
      layer { name: "test" type: "Data" top: "d" include { phase: TEST } data_param { batch_size: 100 } }
      layer { name: "both" type: "Data" top: "e" data_param { batch_size: 10 } }
    })",
                                                            &solver));
  SolverParameter four = solver;
  auto changed = SplitGlobalBatch(&four, 4);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_EQ(changed.value(), std::vector<std::string>{"train: 64 -> 16"});
  EXPECT_EQ(four.net_param().layer(0).data_param().batch_size(), 16u);
  EXPECT_EQ(four.net_param().layer(1).data_param().batch_size(), 100u);
  EXPECT_EQ(four.net_param().layer(2).data_param().batch_size(), 10u);
  SolverParameter three = solver;
  EXPECT_EQ(SplitGlobalBatch(&three, 3).status().message(),
            "--global-batch: layer 'train' has batch_size 64: 64 images per iteration, which 3 "
            "ranks cannot share evenly with any batch and iter_size (--uneven-batch=scale-lr "
            "rounds each rank's batch down and scales base_lr to match)");
}

// Where the per-rank batch alone cannot keep the images per iteration, iter_size does: the job
// shrunk from 8 ranks (60 x 2 each) to 5... the same 120 images per iteration on any count that
// divides them.
TEST(GlobalBatch, ChangesIterSizeWhereTheBatchAloneCannotBeShared) {
  SolverParameter solver;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"(
    iter_size: 2
    train_net_param { layer { name: "a" type: "Data" top: "d" data_param { batch_size: 60 } } })",
                                                            &solver));
  SolverParameter eight = solver;
  auto changed = SplitGlobalBatch(&eight, 8);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_EQ(changed.value(),
            (std::vector<std::string>{"a: 60 -> 5",
                                      "iter_size 2 -> 3, to keep 120 images per iteration"}));
  EXPECT_EQ(eight.iter_size(), 3);
  SolverParameter four = solver;  // 15 each, iter_size unchanged
  ASSERT_TRUE(SplitGlobalBatch(&four, 4).ok());
  EXPECT_EQ(four.train_net_param().layer(0).data_param().batch_size(), 15u);
  EXPECT_EQ(four.iter_size(), 2);
  SolverParameter seven = solver;
  EXPECT_FALSE(SplitGlobalBatch(&seven, 7).ok());
}

// --uneven-batch=scale-lr: what cannot be shared is rounded down, the rate scaled to match.
TEST(GlobalBatch, ScaleLrRoundsTheBatchDownAndScalesTheRate) {
  SolverParameter solver;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"(
    base_lr: 0.01
    train_net_param { layer { name: "a" type: "Data" top: "d" data_param { batch_size: 64 } } })",
                                                            &solver));
  SolverParameter exact = solver;  // even shares stay exact under scale-lr too
  ASSERT_TRUE(SplitGlobalBatch(&exact, 4, UnevenBatch::kScaleLr).ok());
  EXPECT_FLOAT_EQ(exact.base_lr(), 0.01f);
  auto changed = SplitGlobalBatch(&solver, 3, UnevenBatch::kScaleLr);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_EQ(changed.value(),
            (std::vector<std::string>{"a: 64 -> 21",
                                      "base_lr 0.01 -> 0.00984375 for 63 of 64 "
                                      "images per pass (--uneven-batch=scale-lr)"}));
  EXPECT_EQ(solver.train_net_param().layer(0).data_param().batch_size(), 21u);
  EXPECT_FLOAT_EQ(solver.base_lr(), 0.01f * 63 / 64);
  // A batch smaller than the ranks cannot be rounded down: refused, never rounded up (which would
  // train on 2 images where 1 was asked and double base_lr).
  SolverParameter one;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"(
    base_lr: 0.01
    train_net_param { layer { name: "a" type: "Data" top: "d" data_param { batch_size: 1 } } })",
                                                            &one));
  auto refused = SplitGlobalBatch(&one, 2, UnevenBatch::kScaleLr);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "--global-batch with --uneven-batch=scale-lr: layer 'a' has batch_size 1, fewer "
            "images than the 2 ranks, so a rank's share cannot be rounded down (it would be 0); "
            "give a batch of at least 2 or run on fewer ranks");
  EXPECT_FLOAT_EQ(one.base_lr(), 0.01f);
}

// A dedicated train net (train_net_param) needs no phase rules: all its Data layers feed training.
TEST(GlobalBatch, DividesEveryDataLayerOfADedicatedTrainNet) {
  SolverParameter solver;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"(
    train_net_param {
      layer { name: "a" type: "Data" top: "d" data_param { batch_size: 64 } }
      layer { name: "b" type: "Data" top: "e" include { phase: TEST } data_param { batch_size: 10 } }
    })",
                                                            &solver));
  auto changed = SplitGlobalBatch(&solver, 2);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_EQ(changed.value(), std::vector<std::string>{"a: 64 -> 32"});
  EXPECT_EQ(solver.train_net_param().layer(1).data_param().batch_size(), 10u);
}

// lr_scaling: LINEAR is for a global batch N times the solver's; --global-batch keeps the
// solver's batch, so asking for both is an error, not a silently N times larger rate.
TEST(DataParallel, LinearScalingWithGlobalBatchIsRefused) {
  testing::TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 16, 1, 12, 10);
  WriteJob(dir, "job", 8, 2, "", "lr_scaling: LINEAR");
  auto r = RunShell(std::string(DTRAIN_BINARY) +
                    " train --global-batch --solver=" + dir.Path("job_solver.prototxt") + " 2>&1");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("lr_scaling: LINEAR scales the rate for a global batch N times the "
                          "solver's; with --global-batch"),
            std::string::npos)
      << r.output;
}

// `dtrain launch` moving the data server with a lost master: every served Data layer asks the new
// address; LMDB-backed layers stay as they are.
TEST(RankJob, DataServerUriPointsServedLayersAtTheMovedServer) {
  testing::TempDir dir;
  testing::WriteTextFile(dir.Path("net.prototxt"), R"(
    layer { name: "served" type: "Data" top: "d" include { phase: TRAIN }
            data_param { source: "tcp://n0:5555" batch_size: 8 } }
    layer { name: "local" type: "Data" top: "d" include { phase: TEST }
            data_param { source: "test_lmdb" batch_size: 8 } })");
  testing::WriteTextFile(dir.Path("solver.prototxt"),
                         "net: '" + dir.Path("net.prototxt") + "' base_lr: 0.1");
  JobRequest request;
  request.solver_path = dir.Path("solver.prototxt");
  request.data_server_uri = "tcp://n1:5555";
  auto job = ResolveRankJob(request);
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->solver.net_param().layer(0).data_param().source(), "tcp://n1:5555");
  EXPECT_EQ(job->solver.net_param().layer(1).data_param().source(), "test_lmdb");
  EXPECT_EQ(job->changes, std::vector<std::string>{
                              "--data-server-uri: layer 'served': tcp://n0:5555 -> tcp://n1:5555"});
  request.data_server_uri = "n1:5555";
  EXPECT_EQ(ResolveRankJob(request).status().message(),
            "--data-server-uri must be tcp://HOST:PORT, not 'n1:5555'");
}

// A VideoData layer's video_file with %# is a video per rank, read whole (not sharded).
TEST(RankJob, PerRankVideoFilesAreExpandedAndReadWhole) {
  testing::TempDir dir;
  testing::WriteTextFile(dir.Path("net.prototxt"), R"(
    layer { name: "clip" type: "VideoData" top: "d" data_param { batch_size: 2 }
            video_data_param { video_type: VIDEO video_file: "street_%#_of_%*.mp4" } }
    layer { name: "common" type: "VideoData" top: "e" data_param { batch_size: 2 }
            video_data_param { video_type: VIDEO video_file: "street.mp4" } })");
  testing::WriteTextFile(dir.Path("solver.prototxt"),
                         "net: '" + dir.Path("net.prototxt") + "' base_lr: 0.1");
  JobRequest request;
  request.solver_path = dir.Path("solver.prototxt");
  request.rank = 1;
  request.world = 2;
  auto job = ResolveRankJob(request);
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(job->solver.net_param().layer(0).video_data_param().video_file(), "street_1_of_2.mp4");
  EXPECT_EQ(job->solver.net_param().layer(1).video_data_param().video_file(), "street.mp4");
  EXPECT_EQ(job->per_rank_sources, std::set<std::string>{"clip"});
}

TEST(RankPaths, ExpandsRankAndWorldSize) {
  EXPECT_EQ(ExpandRankPattern("data/shard_%#_of_%*/lmdb", 3, 8), "data/shard_3_of_8/lmdb");
  EXPECT_EQ(ExpandRankPattern("%#%#", 1, 2), "11");
  EXPECT_EQ(ExpandRankPattern("plain/path", 1, 2), "plain/path");
}

}  // namespace
}  // namespace dtrain
