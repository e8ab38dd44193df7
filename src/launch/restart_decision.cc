#include "launch/restart_decision.h"

#include <algorithm>

#include "cluster/job_command_line.h"
#include "launch/job_restart.h"
#include "launch/lost_hosts.h"

namespace dtrain {
namespace {

// Why the run counts as failed ("" when the job is done): a non-zero exit, or training that
// stopped before its end because one of its ranks was sent SIGTERM or SIGINT (pre-emption).
std::string FailureOf(const RunFacts& facts) {
  if (facts.exit_code != 0) {
    return "training exited with status " + std::to_string(facts.exit_code);
  }
  if (facts.stopped_early) {
    return "training stopped early at a signal to one of its ranks (SIGTERM: pre-emption?)";
  }
  return "";
}

bool RunsOn(const std::vector<Host>& hosts, const std::string& name) {
  return std::any_of(hosts.begin(), hosts.end(), [&](const Host& h) { return h.name == name; });
}

// Hosts of `hosts` that are not in `lost`.
std::vector<Host> HostsLeft(const std::vector<Host>& hosts,
                            const std::map<std::string, std::string>& lost) {
  std::vector<Host> left;
  for (const Host& host : hosts) {
    if (!lost.count(host.name)) left.push_back(host);
  }
  return left;
}

// The run's hosts the console names as lost: the ranks' hosts it lost, and after a clean early
// stop those whose ranks were sent SIGTERM (a pre-emption notice). Host -> why.
std::map<std::string, std::string> NamedLost(const LaunchState& state, const RunFacts& facts) {
  std::map<std::string, std::string> named = facts.lost;
  if (facts.exit_code == 0 && facts.stopped_early) {
    named.insert(facts.sent_sigterm.begin(), facts.sent_sigterm.end());
  }
  std::map<std::string, std::string> lost;
  for (const auto& [host, why] : named) {
    if (RunsOn(state.options.hosts, host)) lost[host] = why;
  }
  return lost;
}

}  // namespace

std::string RestartHistory::Summary(const RestartPolicy& policy) const {
  std::string text = std::to_string(restarts) +
                     " restart(s) of --max-restarts=" + std::to_string(policy.max_restarts) +
                     "; hosts lost: ";
  if (lost.empty()) text += "none";
  for (size_t i = 0; i < lost.size(); ++i) text += (i ? ", " : "") + lost[i];
  return text + "; iterations redone: " + std::to_string(iterations_redone);
}

RunFacts FactsFromConsole(const LostHostScanner& console, int exit_code, int stop_signal) {
  RunFacts facts;
  facts.exit_code = exit_code;
  facts.lost = console.lost();
  facts.sent_sigterm = console.sent_sigterm();
  facts.stopped_early = console.stopped_early();
  facts.last_iteration = console.last_iteration();
  facts.stop_signal = stop_signal;
  return facts;
}

bool NeedsRestartFacts(const LaunchState& state, const RunFacts& facts) {
  return !FailureOf(facts).empty() && state.policy.max_restarts > 0 && facts.stop_signal == 0 &&
         state.history.restarts < state.policy.max_restarts;
}

LaunchOptions PreflightOfHostsLeft(const LaunchState& state, const RunFacts& facts) {
  LaunchOptions check = state.options;
  check.hosts = HostsLeft(state.options.hosts, NamedLost(state, facts));
  check.np = 0;
  check.job = state.job;
  return check;
}

std::string RestartDecision::RestartLine(int ranks) const {
  return "launch: restart " + std::to_string(next.history.restarts) + " of at most " +
         std::to_string(next.policy.max_restarts) + " (" + reason + "): " + resume + " on " +
         std::to_string(next.options.hosts.size()) + " host(s), " + std::to_string(ranks) +
         " rank(s)";
}

RestartDecision DecideNextAttempt(const LaunchState& state, const RunFacts& facts) {
  RestartDecision decision;
  const RestartPolicy& policy = state.policy;
  const std::string failure = FailureOf(facts);
  if (failure.empty()) {
    if (state.history.restarts > 0) {
      decision.log.push_back(
          {LogSeverity::kInfo, "launch: done; " + state.history.Summary(policy)});
    }
    decision.log.push_back({LogSeverity::kInfo, "launch: done"});
    return decision;
  }
  if (policy.max_restarts == 0 || facts.stop_signal != 0) {
    if (facts.exit_code == 0) {
      decision.step = NextStep::kStopAsAsked;
    } else {
      decision.step = NextStep::kGiveUp;
      decision.error = "training exited with status " + std::to_string(facts.exit_code) +
                       " (the launcher's messages above name the failed rank)";
    }
    return decision;
  }
  RestartHistory history = state.history;
  auto give_up = [&](const std::string& why) {
    decision.step = NextStep::kGiveUp;
    decision.error = "not restarted: " + why + " (" + failure + "); " + history.Summary(policy);
    return decision;
  };
  if (history.restarts == policy.max_restarts) {
    return give_up("--max-restarts=" + std::to_string(policy.max_restarts) + " used up");
  }
  std::map<std::string, std::string> lost = NamedLost(state, facts);
  for (const auto& [host, problem] : facts.preflight_failed) {
    if (RunsOn(state.options.hosts, host)) lost.emplace(host, "pre-flight: " + problem);
  }
  // A failure before the first iteration with every host fine (a net refused at setup, a
  // missing file) is the same on every run: once more might be chance, twice is not.
  const bool progressed = facts.last_iteration > state.run_start;
  LaunchState next = state;
  next.runs_stuck_at_setup = progressed || !lost.empty() ? 0 : state.runs_stuck_at_setup + 1;
  if (next.runs_stuck_at_setup >= 2) {
    return give_up(
        "the job failed twice in a row before its first iteration with every host usable: a "
        "failure at setup (a net or solver refused, a missing or damaged file) fails the same "
        "way on every restart; the error is in the ranks' messages above");
  }
  next.options.hosts = HostsLeft(state.options.hosts, lost);
  for (const auto& [host, why] : lost) {
    decision.log.push_back({LogSeverity::kWarning, "launch: dropping host " + host + ": " + why});
    history.lost.push_back(host + " (" + why + ")");
  }
  const std::vector<Host>& left = next.options.hosts;
  if (static_cast<int>(left.size()) < policy.min_hosts) {
    return give_up(std::to_string(left.size()) +
                   " host(s) left, fewer than --min-hosts=" + std::to_string(policy.min_hosts));
  }
  const bool server_moves = !state.options.data_server.empty() && left.front().name != state.master;
  if (server_moves && JobCommandLine::ParseArguments(state.options.data_server).Has("listen")) {
    return give_up("the master " + state.master +
                   " was lost, and --data-server's --listen names an address on it");
  }
  if (left.size() != state.options.hosts.size()) {
    decision.new_hostfile = true;
    next.options.slurm_nodes.clear();
    for (const Host& host : left) next.options.slurm_nodes.push_back(host.name);
    next.options.np = std::min(next.options.np, TotalSlots(left));
  }
  // Resume from the newest complete snapshot (none yet: from the start).
  const SnapshotChoice& snapshot = facts.snapshot;
  for (const std::string& skipped : snapshot.passed_over) {
    decision.log.push_back(
        {LogSeverity::kWarning, "launch: passing over an incomplete snapshot: " + skipped});
  }
  const long long resumed = std::max(0LL, snapshot.iteration);
  next.run_start = snapshot.solverstate.empty() ? -1 : snapshot.iteration;
  history.iterations_redone += std::max(0LL, facts.last_iteration - resumed);
  ++history.restarts;
  decision.reason = failure;
  for (const auto& [host, why] : lost) decision.reason += "; lost " + host + ": " + why;
  next.options.job =
      RestartedJob(state.job, snapshot.solverstate, history.restarts, decision.reason);
  if (server_moves) {
    // The server starts on the new master; the ranks ask it instead of the one their nets name.
    next.master = left.front().name;
    next.moved_server_uri =
        "tcp://" + next.master + ":" + std::to_string(next.options.data_server_port);
    decision.log.push_back(
        {LogSeverity::kWarning, "launch: the data server moves to the new master " + next.master});
  }
  if (!next.moved_server_uri.empty()) {
    next.options.job.push_back("--data-server-uri=" + next.moved_server_uri);
  }
  const bool job_sets_uneven = JobCommandLine::ParseCommand(state.job).Has("uneven-batch");
  if (policy.on_shrink != "keep-batch" && !job_sets_uneven) {
    next.options.job.push_back("--uneven-batch=" + policy.on_shrink);
  }
  decision.resume = snapshot.solverstate.empty()
                        ? std::string("no complete snapshot yet, from the start")
                        : "resuming from iteration " + std::to_string(snapshot.iteration) + " (" +
                              snapshot.solverstate + ")";
  next.history = history;
  decision.step = NextStep::kRestart;
  decision.next = next;
  return decision;
}

}  // namespace dtrain
