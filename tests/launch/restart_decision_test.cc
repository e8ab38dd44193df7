// What `dtrain launch` does after each run of its job, every branch of the rule, without
// processes or root: the messages are the ones tests/cluster/restart_multi_host_test.cc and
// tests/hostile/careless_runs_test.cc find in real launches.
#include "launch/restart_decision.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "launch/lost_hosts.h"

namespace dtrain {
namespace {

const std::string kKilled = "rank 2 was killed by signal 9";

// A launch over n0, n1, n2 (2 slots each) that may restart twice, its first run just ended.
LaunchState ThreeHosts() {
  LaunchState state;
  state.policy.max_restarts = 2;
  state.job = {"train", "--solver=s.prototxt", "--weights=w.caffemodel", "--global-batch"};
  state.options.hosts = {{"n0", 2}, {"n1", 2}, {"n2", 2}};
  state.options.hostfile = "hosts";
  state.options.job = state.job;
  state.master = "n0";
  return state;
}

RunFacts Failed(int exit_code, long long last_iteration) {
  RunFacts facts;
  facts.exit_code = exit_code;
  facts.last_iteration = last_iteration;
  return facts;
}

SnapshotChoice Snapshot(long long iteration) {
  SnapshotChoice choice;
  choice.iteration = iteration;
  choice.solverstate = "snap_iter_" + std::to_string(iteration) + ".solverstate";
  return choice;
}

std::vector<std::string> Texts(const RestartDecision& decision, LogSeverity severity) {
  std::vector<std::string> texts;
  for (const LogLine& line : decision.log) {
    if (line.severity == severity) texts.push_back(line.text);
  }
  return texts;
}

std::vector<std::string> HostNames(const std::vector<Host>& hosts) {
  std::vector<std::string> names;
  for (const Host& host : hosts) names.push_back(host.name);
  return names;
}

TEST(RestartDecision, ARunThatEndsWellIsDone) {
  const LaunchState state = ThreeHosts();
  RunFacts facts;
  facts.last_iteration = 300;
  EXPECT_FALSE(NeedsRestartFacts(state, facts));
  const RestartDecision decision = DecideNextAttempt(state, facts);
  EXPECT_EQ(decision.step, NextStep::kDone);
  EXPECT_EQ(Texts(decision, LogSeverity::kInfo), std::vector<std::string>{"launch: done"});
}

TEST(RestartDecision, ARunThatEndsWellAfterRestartsSaysWhatTheyCost) {
  LaunchState state = ThreeHosts();
  state.history.restarts = 1;
  state.history.lost = {"n2 (" + kKilled + ")"};
  state.history.iterations_redone = 23;
  const RestartDecision decision = DecideNextAttempt(state, RunFacts());
  EXPECT_EQ(decision.step, NextStep::kDone);
  EXPECT_EQ(Texts(decision, LogSeverity::kInfo),
            (std::vector<std::string>{"launch: done; 1 restart(s) of --max-restarts=2; hosts lost: "
                                      "n2 (rank 2 was killed by signal 9); iterations redone: 23",
                                      "launch: done"}));
}

TEST(RestartDecision, WithoutMaxRestartsAFailureEndsTheLaunch) {
  LaunchState state = ThreeHosts();
  state.policy.max_restarts = 0;
  const RunFacts facts = Failed(1, 40);
  EXPECT_FALSE(NeedsRestartFacts(state, facts));
  const RestartDecision decision = DecideNextAttempt(state, facts);
  EXPECT_EQ(decision.step, NextStep::kGiveUp);
  EXPECT_EQ(decision.error,
            "training exited with status 1 (the launcher's messages above name the failed rank)");
  // A clean early stop (the ranks were told to stop) is no failure of the launch.
  RunFacts stopped;
  stopped.stopped_early = true;
  EXPECT_EQ(DecideNextAttempt(state, stopped).step, NextStep::kStopAsAsked);
}

TEST(RestartDecision, AStopSignalToTheLauncherIsNeverRestarted) {
  const LaunchState state = ThreeHosts();
  RunFacts killed = Failed(143, 40);
  killed.stop_signal = 15;
  EXPECT_FALSE(NeedsRestartFacts(state, killed));
  const RestartDecision decision = DecideNextAttempt(state, killed);
  EXPECT_EQ(decision.step, NextStep::kGiveUp);
  EXPECT_EQ(decision.error,
            "training exited with status 143 (the launcher's messages above name the failed rank)");
  RunFacts stopped;
  stopped.stopped_early = true;
  stopped.stop_signal = 2;
  EXPECT_EQ(DecideNextAttempt(state, stopped).step, NextStep::kStopAsAsked);
}

TEST(RestartDecision, MaxRestartsUsedUpGivesUpWithTheSummary) {
  LaunchState state = ThreeHosts();
  state.policy.max_restarts = 1;
  state.history.restarts = 1;
  state.history.lost = {"n1 (rank 1 was killed by signal 9)"};
  const RunFacts facts = Failed(137, 80);
  EXPECT_FALSE(NeedsRestartFacts(state, facts));
  const RestartDecision decision = DecideNextAttempt(state, facts);
  EXPECT_EQ(decision.step, NextStep::kGiveUp);
  EXPECT_EQ(decision.error,
            "not restarted: --max-restarts=1 used up (training exited with status 137); 1 "
            "restart(s) of --max-restarts=1; hosts lost: n1 (rank 1 was killed by signal 9); "
            "iterations redone: 0");
}

TEST(RestartDecision, ALostHostIsDroppedAndTheRestartResumesTheSnapshotOnTheRest) {
  LaunchState state = ThreeHosts();
  state.options.np = 6;
  RunFacts facts = Failed(137, 73);
  facts.lost = {{"n2", kKilled}, {"elsewhere", "not one of the run's hosts"}};
  facts.snapshot = Snapshot(50);
  ASSERT_TRUE(NeedsRestartFacts(state, facts));
  // The pre-flight then checks the hosts the console did not name, every slot, the job as given.
  const LaunchOptions check = PreflightOfHostsLeft(state, facts);
  EXPECT_EQ(HostNames(check.hosts), (std::vector<std::string>{"n0", "n1"}));
  EXPECT_EQ(check.np, 0);
  EXPECT_EQ(check.job, state.job);

  const RestartDecision decision = DecideNextAttempt(state, facts);
  ASSERT_EQ(decision.step, NextStep::kRestart) << decision.error;
  const LaunchOptions& next = decision.next.options;
  EXPECT_EQ(HostNames(next.hosts), (std::vector<std::string>{"n0", "n1"}));
  EXPECT_TRUE(decision.new_hostfile);
  EXPECT_EQ(next.slurm_nodes, (std::vector<std::string>{"n0", "n1"}));
  EXPECT_EQ(next.np, 4);  // capped at the slots left
  const std::string reason = "training exited with status 137; lost n2: " + kKilled;
  EXPECT_EQ(decision.reason, reason);
  EXPECT_EQ(next.job,
            (std::vector<std::string>{"train", "--solver=s.prototxt", "--global-batch",
                                      "--snapshot=snap_iter_50.solverstate", "--restart-count=1",
                                      "--restart-reason=" + reason}));
  EXPECT_EQ(Texts(decision, LogSeverity::kWarning),
            std::vector<std::string>{"launch: dropping host n2: " + kKilled});
  EXPECT_EQ(decision.RestartLine(4),
            "launch: restart 1 of at most 2 (" + reason +
                "): resuming from iteration 50 (snap_iter_50.solverstate) on 2 host(s), 4 rank(s)");
  EXPECT_EQ(decision.next.run_start, 50);
  EXPECT_EQ(decision.next.history.restarts, 1);
  EXPECT_EQ(decision.next.history.iterations_redone, 23);
  EXPECT_EQ(decision.next.history.lost, std::vector<std::string>{"n2 (" + kKilled + ")"});
  EXPECT_EQ(decision.next.master, "n0");
  EXPECT_TRUE(decision.next.moved_server_uri.empty());
  // The state it started from is left as it was.
  EXPECT_EQ(state.options.hosts.size(), 3u);
}

TEST(RestartDecision, WithEveryHostLeftTheHostsAndTheirFileStay) {
  const LaunchState state = ThreeHosts();
  RunFacts facts = Failed(1, 73);
  facts.snapshot = Snapshot(50);
  const RestartDecision decision = DecideNextAttempt(state, facts);
  ASSERT_EQ(decision.step, NextStep::kRestart) << decision.error;
  EXPECT_FALSE(decision.new_hostfile);
  EXPECT_EQ(decision.next.options.hostfile, "hosts");
  EXPECT_EQ(HostNames(decision.next.options.hosts), (std::vector<std::string>{"n0", "n1", "n2"}));
  EXPECT_TRUE(decision.next.options.slurm_nodes.empty());
  EXPECT_TRUE(Texts(decision, LogSeverity::kWarning).empty());
}

TEST(RestartDecision, AHostThatFailsTheNewPreflightIsDroppedToo) {
  const LaunchState state = ThreeHosts();
  RunFacts facts = Failed(137, 73);
  facts.lost = {{"n2", kKilled}};
  facts.preflight_failed = {{"n1", "unreachable: no answer within 30 s"}};
  const RestartDecision decision = DecideNextAttempt(state, facts);
  ASSERT_EQ(decision.step, NextStep::kRestart) << decision.error;
  EXPECT_EQ(HostNames(decision.next.options.hosts), std::vector<std::string>{"n0"});
  EXPECT_EQ(Texts(decision, LogSeverity::kWarning),
            (std::vector<std::string>{
                "launch: dropping host n1: pre-flight: unreachable: no answer within 30 s",
                "launch: dropping host n2: " + kKilled}));
}

TEST(RestartDecision, FewerHostsThanMinHostsGivesUpNamingTheLostOnes) {
  LaunchState state = ThreeHosts();
  state.policy.max_restarts = 3;
  state.policy.min_hosts = 3;
  RunFacts facts = Failed(137, 73);
  facts.lost = {{"n2", kKilled}};
  const RestartDecision decision = DecideNextAttempt(state, facts);
  EXPECT_EQ(decision.step, NextStep::kGiveUp);
  EXPECT_EQ(decision.error,
            "not restarted: 2 host(s) left, fewer than --min-hosts=3 (training exited with status "
            "137); 0 restart(s) of --max-restarts=3; hosts lost: n2 (" +
                kKilled + "); iterations redone: 0");
  EXPECT_EQ(Texts(decision, LogSeverity::kWarning),
            std::vector<std::string>{"launch: dropping host n2: " + kKilled});
}

const char kSetupFailure[] =
    "not restarted: the job failed twice in a row before its first iteration with every host "
    "usable: a failure at setup (a net or solver refused, a missing or damaged file) fails the "
    "same way on every restart; the error is in the ranks' messages above (training exited with "
    "status 1); 1 restart(s) of --max-restarts=1000000; hosts lost: none; iterations redone: 0";

TEST(RestartDecision, AFailureAtSetupTwiceInARowIsGivenUp) {
  LaunchState state = ThreeHosts();
  state.policy.max_restarts = 1000000;
  const RunFacts at_setup = Failed(1, -1);
  const RestartDecision first = DecideNextAttempt(state, at_setup);
  ASSERT_EQ(first.step, NextStep::kRestart) << first.error;  // once might be chance
  EXPECT_EQ(first.next.runs_stuck_at_setup, 1);
  EXPECT_EQ(first.resume, "no complete snapshot yet, from the start");
  const RestartDecision second = DecideNextAttempt(first.next, at_setup);
  EXPECT_EQ(second.step, NextStep::kGiveUp);
  EXPECT_EQ(second.error, kSetupFailure);
}

TEST(RestartDecision, ProgressOrALostHostBetweenSetupFailuresStartsTheCountAgain) {
  LaunchState state = ThreeHosts();
  state.policy.max_restarts = 10;
  state.runs_stuck_at_setup = 1;
  const RestartDecision progressed = DecideNextAttempt(state, Failed(1, 5));
  ASSERT_EQ(progressed.step, NextStep::kRestart) << progressed.error;
  EXPECT_EQ(progressed.next.runs_stuck_at_setup, 0);
  RunFacts lost = Failed(137, -1);
  lost.lost = {{"n2", kKilled}};
  const RestartDecision dropped = DecideNextAttempt(state, lost);
  ASSERT_EQ(dropped.step, NextStep::kRestart) << dropped.error;
  EXPECT_EQ(dropped.next.runs_stuck_at_setup, 0);
  // Progress counts from where the run resumed: back at iteration 50 and failing there is stuck.
  state.run_start = 50;
  EXPECT_EQ(DecideNextAttempt(state, Failed(1, 50)).step, NextStep::kGiveUp);
  EXPECT_EQ(DecideNextAttempt(state, Failed(1, 51)).step, NextStep::kRestart);
}

TEST(RestartDecision, TheDataServerMovesWithALostMasterOnceAndForAll) {
  LaunchState state = ThreeHosts();
  state.options.data_server = {"--solver=s.prototxt", "--source=/lmdb"};
  state.options.data_server_port = 5600;
  RunFacts facts = Failed(137, 73);
  facts.lost = {{"n0", "rank 0 was killed by signal 9"}};
  facts.snapshot = Snapshot(50);
  const RestartDecision moved = DecideNextAttempt(state, facts);
  ASSERT_EQ(moved.step, NextStep::kRestart) << moved.error;
  EXPECT_EQ(Texts(moved, LogSeverity::kWarning),
            (std::vector<std::string>{"launch: dropping host n0: rank 0 was killed by signal 9",
                                      "launch: the data server moves to the new master n1"}));
  EXPECT_EQ(moved.next.master, "n1");
  EXPECT_EQ(moved.next.moved_server_uri, "tcp://n1:5600");
  EXPECT_EQ(moved.next.options.job.back(), "--data-server-uri=tcp://n1:5600");
  // A later restart that loses another host keeps pointing the ranks at the moved server.
  RunFacts later = Failed(137, 120);
  later.lost = {{"n2", kKilled}};
  later.snapshot = Snapshot(100);
  const RestartDecision again = DecideNextAttempt(moved.next, later);
  ASSERT_EQ(again.step, NextStep::kRestart) << again.error;
  EXPECT_EQ(again.next.master, "n1");
  EXPECT_EQ(again.next.options.job.back(), "--data-server-uri=tcp://n1:5600");
  EXPECT_EQ(std::count(again.next.options.job.begin(), again.next.options.job.end(),
                       "--data-server-uri=tcp://n1:5600"),
            1);
  EXPECT_EQ(Texts(again, LogSeverity::kWarning),
            std::vector<std::string>{"launch: dropping host n2: " + kKilled});
}

TEST(RestartDecision, AMovedMasterIsRefusedWhenListenNamesTheOldOne) {
  LaunchState state = ThreeHosts();
  state.options.data_server = {"--source=/lmdb", "--listen", "tcp://n0:5600"};
  RunFacts facts = Failed(137, 73);
  facts.lost = {{"n0", "rank 0 was killed by signal 9"}};
  const RestartDecision decision = DecideNextAttempt(state, facts);
  EXPECT_EQ(decision.step, NextStep::kGiveUp);
  EXPECT_EQ(decision.error,
            "not restarted: the master n0 was lost, and --data-server's --listen names an address "
            "on it (training exited with status 137); 0 restart(s) of --max-restarts=2; hosts "
            "lost: n0 (rank 0 was killed by signal 9); iterations redone: 0");
  // Losing another host is fine: the server stays where it listens.
  facts.lost = {{"n2", kKilled}};
  EXPECT_EQ(DecideNextAttempt(state, facts).step, NextStep::kRestart);
}

TEST(RestartDecision, ASigtermedHostIsLostOnlyWhenTheJobThenStoppedEarlyAndCleanly) {
  const LaunchState state = ThreeHosts();
  const std::string told = "rank 2 of 3 (host n2, pid 7) received SIGTERM";
  RunFacts preempted;
  preempted.stopped_early = true;
  preempted.last_iteration = 120;
  preempted.sent_sigterm = {{"n2", told}};
  preempted.snapshot = Snapshot(120);
  ASSERT_TRUE(NeedsRestartFacts(state, preempted));
  const RestartDecision decision = DecideNextAttempt(state, preempted);
  ASSERT_EQ(decision.step, NextStep::kRestart) << decision.error;
  EXPECT_EQ(HostNames(decision.next.options.hosts), (std::vector<std::string>{"n0", "n1"}));
  EXPECT_EQ(decision.reason,
            "training stopped early at a signal to one of its ranks (SIGTERM: pre-emption?); lost "
            "n2: " +
                told);
  EXPECT_EQ(decision.next.history.iterations_redone, 0);  // it snapshotted where it stopped
  // mpirun and srun send SIGTERM to the ranks left when they end a failed job: no loss.
  RunFacts failed = Failed(1, 120);
  failed.sent_sigterm = {{"n2", told}};
  const RestartDecision kept = DecideNextAttempt(state, failed);
  ASSERT_EQ(kept.step, NextStep::kRestart) << kept.error;
  EXPECT_EQ(kept.next.options.hosts.size(), 3u);
}

TEST(RestartDecision, OnShrinkAddsUnevenBatchUnlessTheJobSetsIt) {
  LaunchState state = ThreeHosts();
  RunFacts facts = Failed(137, 73);
  facts.lost = {{"n2", kKilled}};
  EXPECT_EQ(DecideNextAttempt(state, facts).next.options.job.back().rfind("--restart-reason=", 0),
            0u);  // keep-batch: the job as it was
  state.policy.on_shrink = "scale-lr";
  EXPECT_EQ(DecideNextAttempt(state, facts).next.options.job.back(), "--uneven-batch=scale-lr");
  state.job.push_back("--uneven-batch=keep-batch");
  const std::vector<std::string> job = DecideNextAttempt(state, facts).next.options.job;
  EXPECT_EQ(std::count_if(job.begin(), job.end(),
                          [](const std::string& a) { return a.rfind("--uneven-batch", 0) == 0; }),
            1);
  EXPECT_NE(std::find(job.begin(), job.end(), "--uneven-batch=keep-batch"), job.end());
}

TEST(RestartDecision, IterationsRedoneAddUpOverRestarts) {
  const LaunchState state = ThreeHosts();
  RunFacts first = Failed(1, 73);
  first.snapshot = Snapshot(50);
  const RestartDecision one = DecideNextAttempt(state, first);
  ASSERT_EQ(one.step, NextStep::kRestart) << one.error;
  RunFacts second = Failed(1, 140);
  second.snapshot = Snapshot(100);
  const RestartDecision two = DecideNextAttempt(one.next, second);
  ASSERT_EQ(two.step, NextStep::kRestart) << two.error;
  EXPECT_EQ(two.next.history.iterations_redone, 23 + 40);
  EXPECT_EQ(two.RestartLine(6).rfind("launch: restart 2 of at most 2 (training exited with status "
                                     "1): resuming from iteration 100",
                                     0),
            0u);
  const RestartDecision done = DecideNextAttempt(two.next, RunFacts());
  EXPECT_EQ(Texts(done, LogSeverity::kInfo).front(),
            "launch: done; 2 restart(s) of --max-restarts=2; hosts lost: none; iterations redone: "
            "63");
}

TEST(RestartDecision, WithoutASnapshotTheRestartStartsOverWithTheJobsWeights) {
  const LaunchState state = ThreeHosts();
  RunFacts facts = Failed(1, 30);
  facts.snapshot.passed_over = {"snap_iter_50.solverstate: its .caffemodel is missing"};
  const RestartDecision decision = DecideNextAttempt(state, facts);
  ASSERT_EQ(decision.step, NextStep::kRestart) << decision.error;
  EXPECT_EQ(decision.next.options.job,
            (std::vector<std::string>{"train", "--solver=s.prototxt", "--weights=w.caffemodel",
                                      "--global-batch", "--restart-count=1",
                                      "--restart-reason=training exited with status 1"}));
  EXPECT_EQ(decision.next.run_start, -1);
  EXPECT_EQ(decision.next.history.iterations_redone, 30);
  EXPECT_EQ(decision.RestartLine(6),
            "launch: restart 1 of at most 2 (training exited with status 1): no complete snapshot "
            "yet, from the start on 3 host(s), 6 rank(s)");
  EXPECT_EQ(Texts(decision, LogSeverity::kWarning),
            std::vector<std::string>{"launch: passing over an incomplete snapshot: "
                                     "snap_iter_50.solverstate: its .caffemodel is missing"});
}

TEST(RestartDecision, TheFactsOfAConsole) {
  LostHostScanner console;
  console.AddLine("Iteration 40, loss = 1.5");
  console.AddLine("Optimization stopped early.");
  const RunFacts facts = FactsFromConsole(console, 0, 15);
  EXPECT_EQ(facts.exit_code, 0);
  EXPECT_EQ(facts.last_iteration, 40);
  EXPECT_TRUE(facts.stopped_early);
  EXPECT_EQ(facts.stop_signal, 15);
  EXPECT_TRUE(facts.lost.empty());
}

}  // namespace
}  // namespace dtrain
