// What `dtrain launch` does after a run of its job ends: done, stopped as asked, give up (with the
// error the launch ends with), or restart with --max-restarts (docs/launch.md, "Restarts"): on
// which hosts, with how many ranks, with which command line, where the data server goes, and the
// lines to log. The caller (cli/launch_command.cc) gathers the facts (runs the job and reads its
// console, runs the pre-flight on the hosts left, finds the latest complete snapshot, reads the
// stop signal) and applies the decision (logs, writes the restart's hostfile, plans, runs).
//
// The rules, in order: a run that exited 0 without stopping early is done; without
// --max-restarts or after a stop signal to the launcher, a failure ends the launch (an early stop
// that exited 0 is a stop as asked); with --max-restarts used up, the launch gives up; the hosts
// the console names (and, after a clean early stop, those whose ranks got SIGTERM) and those the
// new pre-flight fails are dropped; two failed runs in a row without progress or a lost host is a
// failure at setup, given up; fewer hosts than --min-hosts is given up; a lost master moves the
// data server to the first host left (given up when --data-server's --listen names the old one);
// the restart resumes from the latest complete snapshot (none: from the start), with np capped at
// the slots left and --on-shrink's --uneven-batch unless the job sets one.
//
// Pure: no I/O, no processes, no clock; values in, values out.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/logging.h"
#include "launch/launch_plan.h"
#include "solver/latest_snapshot.h"

namespace dtrain {

class LostHostScanner;

struct RestartPolicy {
  int max_restarts = 0;                  // 0: a failure ends the launch
  int min_hosts = 1;                     // fewer hosts left than this: give up
  std::string on_shrink = "keep-batch";  // train's --uneven-batch on the restarted runs
};

// The restarts so far, for the summary.
struct RestartHistory {
  int restarts = 0;
  std::vector<std::string> lost;  // "host (why)"
  long long iterations_redone = 0;

  // "1 restart(s) of --max-restarts=2; hosts lost: n2 (why); iterations redone: 10"
  std::string Summary(const RestartPolicy& policy) const;
};

// What the launch carries from one run to the next.
struct LaunchState {
  RestartPolicy policy;
  std::vector<std::string> job;  // the job as given after `--`: each restart starts from it
  LaunchOptions options;         // of the run that just ended
  std::string master;            // the first host of the run, where the data server runs
  std::string moved_server_uri;  // once the master is lost, where its data server went
  long long run_start = -1;      // the iteration the run resumed from (-1: as the job says)
  int runs_stuck_at_setup = 0;   // consecutive failed runs without progress or a lost host
  RestartHistory history;
};

// What a run produced.
struct RunFacts {
  int exit_code = 0;
  std::map<std::string, std::string> lost;          // host -> why, as the console names them
  std::map<std::string, std::string> sent_sigterm;  // host -> why, ranks told to stop
  bool stopped_early = false;                       // the training said it stopped early
  long long last_iteration = -1;                    // the console's highest; -1: none
  int stop_signal = 0;                              // SIGINT or SIGTERM to the launcher; 0: none
  // Gathered only where NeedsRestartFacts says so:
  std::map<std::string, std::string> preflight_failed;  // host -> its first problem
  SnapshotChoice snapshot;  // the latest complete one of the job's snapshot prefix
};

// The console's part of the facts.
RunFacts FactsFromConsole(const LostHostScanner& console, int exit_code, int stop_signal);

// Whether the decision will look at preflight_failed and snapshot: the run failed and may be
// restarted.
bool NeedsRestartFacts(const LaunchState& state, const RunFacts& facts);

// The options to pre-flight for preflight_failed: every slot of the run's hosts that the console
// did not name as lost, with the job as given.
LaunchOptions PreflightOfHostsLeft(const LaunchState& state, const RunFacts& facts);

enum class NextStep { kDone, kStopAsAsked, kGiveUp, kRestart };

struct LogLine {
  LogSeverity severity;
  std::string text;
};

struct RestartDecision {
  NextStep step = NextStep::kDone;
  std::vector<LogLine> log;  // to log first, in order
  std::string error;         // kGiveUp: the launch's error message
  // kRestart:
  LaunchState next;  // the next run's: options with its hosts, np, job; history, master, ...
  // Hosts were dropped: next.options.hostfile must be rewritten with next.options.hosts.
  bool new_hostfile = false;
  std::string reason;  // why the run failed, with the hosts lost
  std::string resume;  // "resuming from iteration N (STATE)" or "no complete snapshot yet, ..."

  // The line that announces the restart, once it is planned with `ranks` ranks.
  std::string RestartLine(int ranks) const;
};

RestartDecision DecideNextAttempt(const LaunchState& state, const RunFacts& facts);

}  // namespace dtrain
