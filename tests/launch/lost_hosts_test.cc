// The hosts a failed job's console names as lost, from the messages of mpirun, srun and dtrain's
// own watchdog, as they appear in the multi-host fault tests (tests/cluster/multi_host_test.cc).
#include "launch/lost_hosts.h"

#include <gtest/gtest.h>

namespace dtrain {
namespace {

using Lost = std::map<std::string, std::string>;

Lost Scan(const std::vector<std::string>& lines, long long* last_iteration = nullptr) {
  LostHostScanner scanner;
  for (const std::string& line : lines) scanner.AddLine(line);
  if (last_iteration) *last_iteration = scanner.last_iteration();
  return scanner.lost();
}

TEST(LostHosts, AKilledRankUnderMpirun) {
  long long last = 0;
  const Lost lost =
      Scan({"I1203 06:01:02.5 solver.cc:280] Iteration 80 (12 iter/s, ...), loss = 0.5",
            "I1203 06:01:03.5 solver.cc:280] Iteration 100 (12 iter/s, ...), loss = 0.4",
            "--------------------------------------------------------------------------",
            "mpirun noticed that process rank 2 with PID 4711 on node dtn60-2 exited on signal 9 "
            "(Killed).",
            "--------------------------------------------------------------------------"},
           &last);
  EXPECT_EQ(lost, (Lost{{"dtn60-2", "rank 2 was killed by signal 9 (Killed)"}}));
  EXPECT_EQ(last, 100);
}

TEST(LostHosts, SilentRanksInTheWatchdogsReport) {
  const Lost lost = Scan(
      {"E1203 06:01:02 trainer.cc:27] rank 0 of 3 (host n0, pid 10): the allreduce of a gradient "
       "bucket has made no progress for 10 s (--collective-timeout); missing: rank 1 (host n1): "
       "silent for 10.4 s; rank 2 (host n2): alive but has not reached this collective (it has "
       "entered 4, this is number 5). Ending the job."});
  // Rank 2 is alive and only behind: its host stays.
  EXPECT_EQ(lost, (Lost{{"n1", "rank 1 fell silent (no heartbeat for 10.4 s)"}}));
}

// Rank 1's watchdog, firing after rank 0's ended the job: rank 0 has been gone only briefly.
TEST(LostHosts, APeerTheJobsEndTookDownIsNotLost) {
  EXPECT_EQ(Scan({"E1203 rank 1 of 3 (host n1, pid 11): the allreduce of a gradient bucket has "
                  "made no progress for 10 s (--collective-timeout); missing: rank 0 (host n0): "
                  "silent for 1.6 s; rank 2 (host n2): silent for 11.5 s. Ending the job."}),
            (Lost{{"n2", "rank 2 fell silent (no heartbeat for 11.5 s)"}}));
}

TEST(LostHosts, ADaemonMpirunLostAndSrunsMessages) {
  EXPECT_EQ(Scan({"ORTE has lost communication with a remote daemon.", "",
                  "  HNP daemon   : [[1234,0],0] on node n0",
                  "  Remote daemon: [[1234,0],2] on node n2"}),
            (Lost{{"n2", "mpirun lost contact with its daemon"}}));
  EXPECT_EQ(Scan({"srun: error: n1: task 1: Killed", "srun: error: Node failure on n3",
                  "srun: error: n0: task 0: Exited with exit code 3"}),
            (Lost{{"n1", "task 1: Killed (srun)"}, {"n3", "node failure (srun)"}}));
  // With KillOnBadExit srun ends the step and kills the other tasks: they are no loss.
  EXPECT_EQ(Scan({"srun: error: n2: task 2: Killed",
                  "srun: launch/slurm: _step_signal: Terminating StepId=1.3",
                  "slurmstepd-n0: error: *** STEP 1.3 ON n0 CANCELLED AT 2026-12-03T06:09:16 ***",
                  "srun: error: n0: task 0: Killed", "srun: error: n1: task 1: Killed"}),
            (Lost{{"n2", "task 2: Killed (srun)"}}));
}

// A spot instance's interruption handler or Slurm's pre-emption: the host is going away.
TEST(LostHosts, ARankSentSigterm) {
  LostHostScanner scanner;
  for (const std::string line :
       {"dtrain train: rank 2 of 3 (host n2, pid 4711) received SIGTERM: snapshotting and "
        "stopping",
        "I1203 solver.cc:143] Optimization stopped early."})
    scanner.AddLine(line);
  EXPECT_TRUE(scanner.lost().empty());
  EXPECT_EQ(scanner.sent_sigterm(), (Lost{{"n2", "rank 2 was sent SIGTERM (pre-emption?)"}}));
  EXPECT_TRUE(scanner.stopped_early());
}

TEST(LostHosts, ARanksOwnErrorNamesNoHost) {
  long long last = 0;
  EXPECT_TRUE(
      Scan({"dtrain train: error on rank 1 of 2 (host n1, pid 7): cannot open lmdb",
            "MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD", "with errorcode 1."},
           &last)
          .empty());
  EXPECT_EQ(last, -1);
}

// Console lines are any bytes a rank prints: a line of 200,000 characters is skipped (no message
// read here is that long; std::regex recursed over it), and odd numbers never throw.
TEST(LostHosts, LongLinesAndOddNumbersAreNoMessages) {
  LostHostScanner scanner;
  scanner.AddLine("srun: error: n" + std::string(200000, 'x') + ": task 2: Killed");
  scanner.AddLine("Iteration " + std::string(200000, '9'));
  scanner.AddLine("has made no progress for . s; missing: rank 2 (host n2): silent for .. s");
  scanner.AddLine("has made no progress for 10 s; missing: rank 1 (host n1): silent for 9.5 s");
  EXPECT_EQ(scanner.lost().size(), 1u);
  EXPECT_EQ(scanner.lost().count("n1"), 1u);
  EXPECT_EQ(scanner.last_iteration(), -1);
}

}  // namespace
}  // namespace dtrain
