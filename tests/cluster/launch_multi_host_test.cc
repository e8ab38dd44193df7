// `dtrain launch` and the recipes in scripts/ on the hosts of a NetnsCluster: the launcher runs
// in the root namespace and reaches the hosts through the harness's mpirun (tests/cluster/
// mpirun.sh), as it would through ssh on a real cluster. Suite MultiHostLaunch runs alone, like
// MultiHost (tests/CMakeLists.txt).
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <random>

#include "cluster/model_job.h"
#include "cluster/netns_cluster.h"
#include "cluster/slurm_cluster.h"
#include "data/image_test_util.h"
#include "testing/files.h"
#include "testing/run_command.h"
#include "testing/trainable_data.h"

namespace dtrain {
namespace {

using testing::CommandResult;
using testing::NetnsCluster;
using testing::TempDir;

// Cluster ids of this file (multi_host_test.cc: 1..19, data server: 20..29, Slurm scripts: 30..39).
enum ClusterId {
  kCifarRecipeCluster = 40,
  kPreflightCluster,
  kGooglenetRecipeCluster,
  kSlurmLaunchCluster,
  kCifarRestartCluster,
};

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A hostfile with one slot on each of the cluster's hosts.
std::string WriteHostfile(const NetnsCluster& cluster, const TempDir& dir) {
  std::string text = "# the test cluster; the first host is the master\n";
  for (int i = 0; i < cluster.hosts(); ++i) text += cluster.Host(i) + " slots=1\n";
  testing::WriteTextFile(dir.Path("hosts"), text);
  return dir.Path("hosts");
}

// dtrain launch flags for the harness: its mpirun, no binding (the hosts share this machine's
// cores), one compute thread per rank.
std::string HarnessLaunchFlags(const NetnsCluster& cluster) {
  return "--bind=none --threads-per-rank=1 --mpirun=" + std::string(DTRAIN_SOURCE_DIR) +
         "/tests/cluster/mpirun.sh";
}

// CIFAR-10's binary batches in miniature: `per_file` records of label byte + 3072 pixel bytes.
void WriteCifarBatches(const std::string& dir, int per_file) {
  std::filesystem::create_directories(dir);
  std::mt19937 rng(3);
  for (const std::string name : {"data_batch_1", "data_batch_2", "data_batch_3", "data_batch_4",
                                 "data_batch_5", "test_batch"}) {
    std::ofstream out(dir + "/" + name + ".bin", std::ios::binary);
    for (int i = 0; i < per_file; ++i) {
      out.put(static_cast<char>(i % 10));
      for (int j = 0; j < 3072; ++j) out.put(static_cast<char>(rng() % 256));
    }
  }
}

class MultiHostLaunch : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = NetnsCluster::Unavailable();
    if (!why.empty()) GTEST_SKIP() << "no network-namespace cluster here: " << why;
  }
};

TEST_F(MultiHostLaunch, Cifar10RecipeTrainsOnThreeHostsFedByTheDataServer) {
  TempDir dir;
  NetnsCluster cluster(kCifarRecipeCluster, 3);
  ASSERT_TRUE(cluster.ok()) << cluster.up_output();
  WriteCifarBatches(dir.Path("cifar"), 60);
  const std::string command =
      "timeout -s KILL 600 env " + cluster.Environment() +
      " HOSTFILE=" + WriteHostfile(cluster, dir) + " CIFAR_DIR=" + dir.Path("cifar") +
      " WORK=" + dir.Path("work") +
      " BATCH_PER_NODE=10 ITERATIONS=6 TEST_ITER=3 TEST_INTERVAL=6 DTRAIN=" + DTRAIN_BINARY +
      " LAUNCH_FLAGS='" + HarnessLaunchFlags(cluster) + "' bash " + DTRAIN_SOURCE_DIR +
      "/scripts/run_cifar10_multinode.sh";
  const CommandResult r = testing::RunShell(command);
  std::cout << r.output.substr(r.output.size() > 4000 ? r.output.size() - 4000 : 0) << "\n";
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "pre-flight on 3 host(s)")) << r.output;
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(Contains(r.output, "  " + cluster.Host(i) + ": ok\n")) << r.output;
    // Each rank subscribed from its own host.
    EXPECT_TRUE(Contains(r.output, "rank " + std::to_string(i) + " of 3, batches of 10"))
        << r.output;
  }
  EXPECT_TRUE(Contains(r.output, "Test net output")) << r.output;
  EXPECT_TRUE(Contains(r.output, "launch: stopping the data server")) << r.output;
  EXPECT_TRUE(Contains(r.output, "data server: served ")) << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir.Path("work/cifar10_full_iter_6.caffemodel")));
}

// The recipe with --max-restarts: the rank on the master, beside the data server, is killed; the
// master is dropped, the server starts on host 1 and the job resumes there from its snapshot's
// data position (the records at the same global positions: 3 ranks x 10 per iteration before,
// 2 x 10 after, from record 30 x the snapshot's iteration).
TEST_F(MultiHostLaunch, Cifar10RecipeRestartsWithTheDataServerOnTheNewMaster) {
  TempDir dir;
  NetnsCluster cluster(kCifarRestartCluster, 3);
  ASSERT_TRUE(cluster.ok()) << cluster.up_output();
  WriteCifarBatches(dir.Path("cifar"), 60);
  const std::string command =
      "timeout -s KILL 500 env " + cluster.Environment() +
      " HOSTFILE=" + WriteHostfile(cluster, dir) + " CIFAR_DIR=" + dir.Path("cifar") +
      " WORK=" + dir.Path("work") +
      " BATCH_PER_NODE=10 ITERATIONS=300 SNAPSHOT=10 TEST_ITER=3 TEST_INTERVAL=300 DTRAIN=" +
      DTRAIN_BINARY + " LAUNCH_FLAGS='" + HarnessLaunchFlags(cluster) + " --max-restarts=1' bash " +
      DTRAIN_SOURCE_DIR + "/scripts/run_cifar10_multinode.sh > " + dir.Path("console.txt") +
      " 2>&1; echo $? > " + dir.Path("exit_code");
  auto done = std::async(std::launch::async, [command] { return testing::RunShell(command); });
  const auto start = std::chrono::steady_clock::now();
  while (!std::filesystem::exists(dir.Path("work/cifar10_full_iter_20.solverstate")) &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(300) &&
         done.wait_for(std::chrono::milliseconds(100)) == std::future_status::timeout) {
  }
  for (int pid : cluster.Pids(0, "dtrain")) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmdline.find(std::string("train") + '\0') != std::string::npos) kill(pid, SIGKILL);
  }
  done.get();
  std::ifstream console_file(dir.Path("console.txt"));
  const std::string console((std::istreambuf_iterator<char>(console_file)),
                            std::istreambuf_iterator<char>());
  std::ifstream exit_file(dir.Path("exit_code"));
  int exit_code = -1;
  exit_file >> exit_code;
  std::cout << console.substr(console.size() > 3000 ? console.size() - 3000 : 0) << "\n";
  ASSERT_EQ(exit_code, 0) << console;
  EXPECT_TRUE(Contains(console, "launch: dropping host " + cluster.Host(0) + ": rank 0 was killed"))
      << console;
  EXPECT_TRUE(
      Contains(console, "launch: the data server moves to the new master " + cluster.Host(1)))
      << console;
  EXPECT_TRUE(Contains(console, "rank 0 of 2, batches of 10")) << console;
  EXPECT_TRUE(Contains(console, "Restart 1 of this job, on 2 rank(s), resuming from iteration "))
      << console;
  EXPECT_TRUE(std::filesystem::exists(dir.Path("work/cifar10_full_iter_300.caffemodel")));
}

TEST_F(MultiHostLaunch, PreflightNamesADownHostAndAMissingDataPath) {
  TempDir dir;
  NetnsCluster cluster(kPreflightCluster, 3);
  ASSERT_TRUE(cluster.ok()) << cluster.up_output();
  testing::WriteTextFile(dir.Path("net.prototxt"), R"(
    layer { name: "d" type: "Data" top: "data" top: "label"
            data_param { source: ")" + dir.Path("no_such_lmdb") +
                                                       R"(" batch_size: 4 } }
    layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip" inner_product_param { num_output: 2 } }
    layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" })");
  testing::WriteTextFile(dir.Path("solver.prototxt"),
                         "net: '" + dir.Path("net.prototxt") + "'\nbase_lr: 0.1\nmax_iter: 2\n");
  cluster.LinkDown(2);
  const std::string launch =
      "timeout -s KILL 120 env " + cluster.Environment() + " " + DTRAIN_BINARY +
      " launch --hostfile=" + WriteHostfile(cluster, dir) + " " + HarnessLaunchFlags(cluster) +
      " --preflight-timeout=10 -- train --solver=" + dir.Path("solver.prototxt");
  const CommandResult r = testing::RunShell(launch);
  std::cout << r.output << "\n";
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(Contains(r.output, "  " + cluster.Host(0) + ": missing: " + dir.Path("no_such_lmdb")))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "  " + cluster.Host(1) + ": missing: " + dir.Path("no_such_lmdb")))
      << r.output;
  EXPECT_TRUE(Contains(r.output, "  " + cluster.Host(2) + ": unreachable")) << r.output;
  EXPECT_TRUE(Contains(r.output, "pre-flight failed on 3 of 3 host(s)")) << r.output;
  EXPECT_FALSE(Contains(r.output, "Solving")) << "nothing may start after a failed pre-flight";
}

// Inside a Slurm allocation (salloc on host 0), launch runs its pre-flight and the ranks as srun
// steps, with no mpirun at all.
TEST_F(MultiHostLaunch, InsideASlurmAllocationTheStepsAreSrun) {
  const std::string why = testing::SlurmCluster::Unavailable();
  if (!why.empty()) GTEST_SKIP() << "no Slurm here: " << why;
  TempDir dir;
  NetnsCluster cluster(kSlurmLaunchCluster, 2);
  ASSERT_TRUE(cluster.ok()) << cluster.up_output();
  testing::SlurmCluster slurm(cluster);
  ASSERT_TRUE(slurm.ok()) << slurm.up_output();
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 128, 1, 28, 10);
  testing::ModelJob job = testing::LenetJob(dir.Path("lmdb"));
  job.batch = 16;
  job.iterations = 10;
  const std::string solver = testing::WriteJob(dir, "slurm", job);
  // The allocation's command is launch; on_slurm_host.sh gives it the harness's MPI settings.
  const CommandResult r = testing::RunShell(
      "timeout -s KILL 300 env " + cluster.Environment() + cluster.Script("on_slurm_host.sh") +
      " salloc -N2 -n2 " + DTRAIN_BINARY + " launch --hostfile=" + WriteHostfile(cluster, dir) +
      " --bind=none --threads-per-rank=1 -- train --solver=" + solver);
  std::cout << r.output.substr(r.output.size() > 3000 ? r.output.size() - 3000 : 0) << "\n";
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(Contains(r.output, "pre-flight on 2 host(s)")) << r.output;
  EXPECT_TRUE(Contains(r.output, "launch: training: srun --mpi=pmix --overlap -n 2")) << r.output;
  EXPECT_TRUE(std::filesystem::exists(testing::WeightsPath(dir, "slurm", 10)));
}

// The GoogLeNet recipe: 3 hosts, each rank reading its own shard of a folder of JPEGs, with the
// shards as %# paths (split-list) and as per-worker files (launch --per-worker-files). Batch 1 per
// rank and 2 iterations: GoogLeNet on a shared 2-core machine is slow, and what is checked is the
// data path and the launch, not learning.
TEST_F(MultiHostLaunch, GooglenetRecipeTrainsOnThreeHostsEachReadingItsShard) {
  TempDir dir;
  NetnsCluster cluster(kGooglenetRecipeCluster, 3);
  ASSERT_TRUE(cluster.ok()) << cluster.up_output();
  for (int c = 0; c < 3; ++c) {
    for (int i = 0; i < 4; ++i) {
      const std::string folder = dir.Path("images/n0" + std::to_string(c));
      std::filesystem::create_directories(folder);
      testing::WriteBytes(
          folder + "/img" + std::to_string(i) + ".JPEG",
          testing::JpegBytes(testing::GradientBgr(12, 16, 10 * c + i), 12, 16, 3, 90));
    }
  }
  for (const std::string per_worker : {"0", "1"}) {
    const std::string work = dir.Path("work" + per_worker);
    const std::string command = "timeout -s KILL 600 env " + cluster.Environment() +
                                " HOSTFILE=" + WriteHostfile(cluster, dir) +
                                " path_to_imagenet_train_folder=" + dir.Path("images") +
                                " batchsize_pernode=1 WORK=" + work +
                                " ITERATIONS=2 SNAPSHOT=2 PER_WORKER_FILES=" + per_worker +
                                " DTRAIN=" + DTRAIN_BINARY + " LAUNCH_FLAGS='" +
                                HarnessLaunchFlags(cluster) + "' bash " + DTRAIN_SOURCE_DIR +
                                "/scripts/run_googlenet_multinode.sh";
    const CommandResult r = testing::RunShell(command);
    std::cout << r.output.substr(r.output.size() > 2500 ? r.output.size() - 2500 : 0) << "\n";
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(Contains(r.output, "12 images, 3 ranks x 1 per iteration")) << r.output;
    EXPECT_TRUE(Contains(r.output, "pre-flight on 3 host(s)")) << r.output;
    EXPECT_TRUE(std::filesystem::exists(work + "/googlenet_iter_2.caffemodel")) << r.output;
    // Each rank's shard: 4 of the 12 images, together all of them.
    std::vector<std::string> lines;
    for (int rank = 0; rank < 3; ++rank) {
      const std::string shard = per_worker == "1"
                                    ? work + "/per_worker/data_" + std::to_string(rank) + ".txt"
                                    : work + "/train_" + std::to_string(rank) + "_of_3.txt";
      std::ifstream in(shard);
      int count = 0;
      for (std::string line; std::getline(in, line); ++count) lines.push_back(line);
      EXPECT_EQ(count, 4) << shard;
    }
    std::sort(lines.begin(), lines.end());
    EXPECT_EQ(std::unique(lines.begin(), lines.end()), lines.end());
    EXPECT_EQ(lines.size(), 12u);
  }
}

}  // namespace
}  // namespace dtrain
