// The data server across hosts: `dtrain data-server` on host 0 of a NetnsCluster, clients on the
// other hosts (data_client_probe, tests/tools/) or training ranks under mpirun. Suite
// MultiHostDataServer runs alone, like MultiHost (tests/CMakeLists.txt).
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <future>
#include <iostream>
#include <iterator>
#include <sstream>
#include <thread>

#include "cluster/model_job.h"
#include "cluster/netns_cluster.h"
#include "data/data_test_util.h"
#include "testing/files.h"
#include "testing/run_command.h"
#include "testing/trainable_data.h"
#include "testing/weights_difference.h"

namespace dtrain {
namespace {

using testing::ReadFile;

using testing::CommandResult;
using testing::NetnsCluster;
using testing::TempDir;

// Cluster ids of this file (multi_host_test.cc uses 1..19).
enum ClusterId { kServedEpochCluster = 20, kServedTrainingCluster };

constexpr int kPort = 5700;

std::string Quoted(const std::string& path) { return "'" + path + "'"; }

// Starts `dtrain data-server ARGS` in the background on host 0, listening on host 0's name;
// its log goes to `log`. Returns the address clients use.
std::string StartDataServer(const NetnsCluster& cluster, const std::string& args,
                            const std::string& log) {
  const std::string uri = "tcp://" + cluster.Host(0) + ":" + std::to_string(kPort);
  const CommandResult r =
      cluster.Run(0, std::string("'") + DTRAIN_BINARY + "' data-server --listen=" + uri +
                         " --log-interval=1 " + args + " > " + Quoted(log) + " 2>&1 < /dev/null &");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return uri;
}

// Sends `signal` to the processes on `host` whose command line contains `part` (pkill would
// reach every host: the hosts share one process namespace).
void KillOnHost(const NetnsCluster& cluster, int host, const std::string& part, int signal) {
  for (int pid : cluster.Pids(host)) {
    std::string cmdline = ReadFile("/proc/" + std::to_string(pid) + "/cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find(part) != std::string::npos) kill(pid, signal);
  }
}

std::string Probe(const std::string& args) {
  return std::string("'") + DTRAIN_DATA_CLIENT_PROBE + "' " + args;
}

// The record numbers of "INDEX: R R R" lines, in order.
std::vector<int> RecordsIn(const std::string& lines) {
  std::vector<int> records;
  std::istringstream in(lines);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line.substr(line.find(':') + 1));
    for (int r; fields >> r;) records.push_back(r);
  }
  return records;
}

// Rank r of n's strided share of `count` records, `batches` batches of `batch`.
std::vector<int> Share(int rank, int ranks, int batch, int batches, int count) {
  std::vector<int> records;
  for (int i = 0; i < batch * batches; ++i) records.push_back((i * ranks + rank) % count);
  return records;
}

class MultiHostDataServer : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = NetnsCluster::Unavailable();
    if (!why.empty()) GTEST_SKIP() << "no network-namespace cluster here: " << why;
  }
};

// Three ranks on three hosts split an epoch; one of them is killed and restarted and goes on; a
// fourth peer sends garbage, oversized and truncated frames and a wrong secret meanwhile. Every
// bad connection is refused (logged with its address) and the good clients never notice.
TEST_F(MultiHostDataServer, ThreeHostsShareAnEpochWhileBadPeersAreRefused) {
  TempDir dir;
  testing::WriteTinyLmdb(dir.Path("lmdb"), 60, 3, 8, 8);
  testing::WriteTextFile(dir.Path("secret"), "job-secret\n");
  testing::WriteTextFile(dir.Path("wrong"), "guess\n");
  NetnsCluster cluster(kServedEpochCluster, 3);
  ASSERT_TRUE(cluster.ok()) << cluster.up_output();
  const std::string log = dir.Path("server.log");
  const std::string uri = StartDataServer(cluster,
                                          "--source=" + Quoted(dir.Path("lmdb")) +
                                              " --batch-size=5 --handshake-timeout=2 "
                                              "--auth-file=" +
                                              Quoted(dir.Path("secret")),
                                          log);
  const std::string secret = Quoted(dir.Path("secret"));

  // Ranks 0 and 2 fetch their 4 batches slowly, so that they are being served while the rest
  // happens; rank 1 is killed after its second batch and restarted where its output ends.
  auto fetch = [&](int host, int rank, int first, int count, int delay_ms, const std::string& out) {
    return std::async(std::launch::async, [&, host, rank, first, count, delay_ms, out] {
      return cluster.Run(host, Probe("fetch " + uri + " " + std::to_string(rank) + " 3 5 " +
                                     std::to_string(first) + " " + std::to_string(count) + " " +
                                     secret + " " + std::to_string(delay_ms)) +
                                   " > " + Quoted(out));
    });
  };
  auto rank0 = fetch(0, 0, 0, 4, 700, dir.Path("rank0"));
  auto rank2 = fetch(2, 2, 0, 4, 700, dir.Path("rank2"));
  auto killed = fetch(1, 1, 0, 4, 1000, dir.Path("rank1_first"));
  for (int i = 0; i < 100 && RecordsIn(ReadFile(dir.Path("rank1_first"))).size() < 10; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  KillOnHost(cluster, 1, "data_client_probe fetch", SIGKILL);
  EXPECT_NE(killed.get().exit_code, 0);
  const int done = static_cast<int>(RecordsIn(ReadFile(dir.Path("rank1_first"))).size()) / 5;
  EXPECT_GE(done, 2);

  // Bad peers on host 1, while ranks 0 and 2 are being served.
  const std::string raw = Probe("raw " + uri + " ");
  EXPECT_EQ(
      cluster.Run(1, raw + "474554202f20485454502f312e310d0a0d0a").output,  // "GET / HTTP/1.1"
      "not a dtrain data-server frame (bad magic)\n");
  EXPECT_EQ(cluster.Run(1, raw + "44544453010200000000004000000000").output,  // 1 GiB meta
            "frame meta of 1073741824 bytes exceeds the limit of 4096\n");
  EXPECT_EQ(cluster.Run(1, raw + "44544453010200006400000000000000abcd").output,  // 2 of 100 bytes
            "closed\n");
  const CommandResult wrong =
      cluster.Run(1, Probe("fetch " + uri + " 1 3 5 0 1 " + Quoted(dir.Path("wrong"))));
  EXPECT_NE(wrong.exit_code, 0);
  EXPECT_NE(wrong.output.find("authentication failed: wrong shared secret"), std::string::npos)
      << wrong.output;

  auto restarted = fetch(1, 1, done, 4 - done, 0, dir.Path("rank1_rest"));
  EXPECT_EQ(restarted.get().exit_code, 0);
  const CommandResult r0 = rank0.get(), r2 = rank2.get();
  EXPECT_EQ(r0.exit_code, 0) << r0.output;
  EXPECT_EQ(r2.exit_code, 0) << r2.output;

  std::vector<int> rank1 = RecordsIn(ReadFile(dir.Path("rank1_first")));
  rank1.resize(static_cast<size_t>(done) * 5);
  for (int r : RecordsIn(ReadFile(dir.Path("rank1_rest")))) rank1.push_back(r);
  EXPECT_EQ(RecordsIn(ReadFile(dir.Path("rank0"))), Share(0, 3, 5, 4, 60));
  EXPECT_EQ(rank1, Share(1, 3, 5, 4, 60));
  EXPECT_EQ(RecordsIn(ReadFile(dir.Path("rank2"))), Share(2, 3, 5, 4, 60));
  std::vector<int> all = RecordsIn(ReadFile(dir.Path("rank0")));
  all.insert(all.end(), rank1.begin(), rank1.end());
  for (int r : RecordsIn(ReadFile(dir.Path("rank2")))) all.push_back(r);
  std::sort(all.begin(), all.end());
  std::vector<int> epoch(60);
  for (int i = 0; i < 60; ++i) epoch[i] = i;
  EXPECT_EQ(all, epoch) << "the three ranks together read each record exactly once";

  const std::string server_log = ReadFile(log);
  const std::string host1 = "10.231." + std::to_string(kServedEpochCluster) + ".11:";
  for (const char* refusal : {"not a dtrain data-server frame", "exceeds the limit",
                              "incomplete HELLO frame", "authentication failed"}) {
    EXPECT_NE(server_log.find(refusal), std::string::npos) << refusal << "\n" << server_log;
  }
  EXPECT_NE(server_log.find("client " + host1), std::string::npos) << server_log;
  EXPECT_NE(server_log.find("batches/s"), std::string::npos) << server_log;
  std::cout << "rank 1 killed after " << done << " batches and restarted; server log:\n"
            << server_log;
}

// 2 ranks on 2 hosts fed by a data server on host 0 train exactly as 2 ranks reading the LMDB:
// shipping records (the ranks transform) and shipping floats (the server transforms, --solver).
TEST_F(MultiHostDataServer, TrainingFedByTheServerMatchesReadingTheLmdb) {
  TempDir dir;
  testing::WriteTrainableLmdb(dir.Path("lmdb"), 256, 1, 28, 10);
  NetnsCluster cluster(kServedTrainingCluster, 2);
  ASSERT_TRUE(cluster.ok()) << cluster.up_output();
  testing::ModelJob job = testing::LenetJob(dir.Path("lmdb"));
  job.batch = 32;
  job.iterations = 30;
  const std::string direct_solver = testing::WriteJob(dir, "direct", job);
  auto train = [&](const std::string& solver) {
    return testing::RunShell(cluster.Mpirun(
        2, "-x OMP_NUM_THREADS=1 " + testing::DtrainTrain(solver, "--collective-timeout=60")));
  };
  CommandResult r = train(direct_solver);
  ASSERT_EQ(r.exit_code, 0) << r.output;

  struct Mode {
    std::string name;
    std::string server_args;
  };
  const Mode modes[] = {
      {"records", "--source=" + Quoted(dir.Path("lmdb")) + " --batch-size=32"},
      {"floats", "--solver=" + Quoted(direct_solver) + " --ship=floats"},
  };
  for (const Mode& mode : modes) {
    const std::string log = dir.Path("server_" + mode.name + ".log");
    job.train_lmdb = StartDataServer(cluster, mode.server_args, log);
    r = train(testing::WriteJob(dir, mode.name, job));
    ASSERT_EQ(r.exit_code, 0) << r.output << ReadFile(log);
    const double difference = testing::RelativeWeightDifference(
        testing::WeightsPath(dir, "direct", 30), testing::WeightsPath(dir, mode.name, 30));
    EXPECT_LE(difference, 1e-5) << mode.name;
    std::cout << "LeNet, 2 hosts x batch 32, 30 iterations, data server shipping " << mode.name
              << ": relative weight difference to reading the LMDB " << difference << "\n";
    KillOnHost(cluster, 0, "data-server --listen", SIGTERM);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
}

}  // namespace
}  // namespace dtrain
