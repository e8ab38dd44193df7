// kill -9 at any moment, a snapshot being written included, never makes a resume pick a partial
// snapshot: 30 times in a row a training process that snapshots every iteration (16 MB a pair,
// snapshot_keep: 3) is killed at a random time and resumed from FindLatestCompleteSnapshot, as
// `dtrain launch --max-restarts` resumes a job.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <random>
#include <thread>

#include "solver/latest_snapshot.h"
#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

// Starts `dtrain train` with `args` in `dir`, output to dir/log; its pid.
pid_t StartTraining(const std::string& dir, const std::vector<std::string>& args) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0) _exit(127);
    FILE* log = std::freopen("log", "a", stdout);
    if (!log || dup2(fileno(stdout), STDERR_FILENO) < 0) _exit(127);
    std::vector<char*> argv = {const_cast<char*>(DTRAIN_BINARY), const_cast<char*>("train")};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(DTRAIN_BINARY, argv.data());
    _exit(127);
  }
  return pid;
}

bool HasTemporaries(const std::string& dir) {
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename().string().find(".tmp-") != std::string::npos) return true;
  }
  return false;
}

TEST(KilledSnapshots, EveryResumeFindsACompleteSnapshot) {
  testing::TempDir dir;
  // 2 M parameters: each snapshot pair takes a while to write, so kills land inside writes.
  testing::WriteTextFile(dir.Path("solver.prototxt"), R"(
    base_lr: 0.01 momentum: 0.9 lr_policy: "fixed" max_iter: 100000 display: 0 random_seed: 5
    snapshot: 1 snapshot_keep: 3 snapshot_prefix: "run"
    net_param {
      layer { name: "data" type: "DummyData" top: "data" top: "label"
              dummy_data_param { shape { dim: 4 dim: 1000 } shape { dim: 4 }
                data_filler { type: "gaussian" } data_filler { type: "constant" value: 1 } } }
      layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
              inner_product_param { num_output: 2000 weight_filler { type: "xavier" } } }
      layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" }
    })");
  std::mt19937 random(17);
  std::uniform_int_distribution<int> delay_ms(300, 1500);
  int resumed = 0, kills_during_writes = 0;
  long long last_iteration = -1;
  for (int round = 0; round < 30; ++round) {
    const SnapshotChoice choice = FindLatestCompleteSnapshot(dir.Path("run"));
    std::vector<std::string> args = {"--solver=solver.prototxt", "--threads=1"};
    if (!choice.solverstate.empty()) {
      // Never older than a snapshot seen complete before (snapshot_keep keeps three).
      EXPECT_GE(choice.iteration, last_iteration - 3) << "round " << round;
      last_iteration = choice.iteration;
      args.push_back("--snapshot=" + choice.solverstate);
      ++resumed;
    }
    const pid_t pid = StartTraining(dir.Path(""), args);
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(random)));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    // Resumed runs must have started: a refused snapshot would exit before being killed.
    ASSERT_TRUE(WIFSIGNALED(status)) << "round " << round << " exited by itself:\n"
                                     << testing::RunShell("tail -5 " + dir.Path("log")).output;
    if (HasTemporaries(dir.Path(""))) ++kills_during_writes;
  }
  // The last kill's leftovers: a final resume still finds a complete pair and trains on.
  const SnapshotChoice choice = FindLatestCompleteSnapshot(dir.Path("run"));
  ASSERT_NE(choice.solverstate, "");
  const testing::CommandResult r = testing::RunShell(
      std::string(DTRAIN_BINARY) + " train --solver=solver.prototxt --threads=1 --snapshot=" +
          choice.solverstate + " --iterations=" + std::to_string(choice.iteration + 2) + " 2>&1",
      dir.Path(""));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_GE(resumed, 25);
  std::cout << "30 kills -9 at random times: " << resumed << " resumes from a complete snapshot, "
            << kills_during_writes << " kills left a write in progress behind; last resume from "
            << "iteration " << choice.iteration << " (" << choice.passed_over.size()
            << " newer ones passed over)\n";
}

}  // namespace
}  // namespace dtrain
