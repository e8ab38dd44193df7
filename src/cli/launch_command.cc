// dtrain launch: plan a job over a hostfile (cluster/launch_plan.h), check every host, start the
// data server on the master if asked, run the training and stop the server at the end. With
// --max-restarts, a failed job is restarted from its latest complete snapshot on the hosts that
// are left (docs/launch.md, "Restarts").
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "cli/command.h"
#include "cli/job_check.h"
#include "cli/job_restart.h"
#include "cli/launch_preflight.h"
#include "cli/launch_processes.h"
#include "cli/per_worker_files.h"
#include "cluster/launch_plan.h"
#include "cluster/lost_hosts.h"
#include "cluster/shell_quote.h"
#include "cluster/shell_words.h"
#include "core/logging.h"
#include "solver/latest_snapshot.h"

namespace dtrain {
namespace {

// The dtrain binary to run on every host: --dtrain, else this very binary's path.
std::string ThisBinary() {
  std::error_code ec;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("dtrain") : path.string();
}

StatusOr<LaunchOptions> OptionsFromFlags(const Flags& flags) {
  LaunchOptions options;
  if (!flags.Has("hostfile"))
    return InvalidArgument("--hostfile=H is required (dtrain hosts writes one)");
  options.hostfile = flags.Get("hostfile");
  DT_ASSIGN_OR_RETURN(options.hosts, ReadHostfile(options.hostfile));
  DT_ASSIGN_OR_RETURN(options.np, flags.GetInt("np"));
  options.dtrain = flags.Has("dtrain") ? flags.Get("dtrain") : ThisBinary();
  options.job = flags.after_dashdash();
  if (flags.Has("data-server")) {
    DT_ASSIGN_OR_RETURN(options.data_server, SplitShellWords(flags.Get("data-server")));
    if (options.data_server.empty())
      return InvalidArgument("--data-server needs the server's arguments");
  }
  DT_ASSIGN_OR_RETURN(options.data_server_port, flags.GetInt("data-server-port"));
  DT_ASSIGN_OR_RETURN(options.threads_per_rank, flags.GetInt("threads-per-rank"));
  options.bind = flags.Get("bind");
  options.interface = flags.Get("interface");
  DT_ASSIGN_OR_RETURN(options.forward_env, SplitShellWords(flags.Get("forward-env")));
  const std::string launcher = flags.Get("launcher");
  if (launcher != "auto" && launcher != "mpirun" && launcher != "srun") {
    return InvalidArgument("--launcher must be auto, mpirun or srun, not '" + launcher + "'");
  }
  options.slurm = launcher == "srun" || (launcher == "auto" && std::getenv("SLURM_JOB_ID"));
  options.mpirun = flags.Get("mpirun");
  return options;
}

// --per-worker-files: writes each rank's solver, net and list and points the job's --solver at
// them (per_worker_files.h).
Status UsePerWorkerFiles(const Flags& flags, int ranks, LaunchOptions* options) {
  std::string* solver = nullptr;
  for (std::string& arg : options->job) {
    if (arg.rfind("--solver=", 0) == 0 || arg.rfind("-solver=", 0) == 0) solver = &arg;
  }
  if (!solver) return InvalidArgument("--per-worker-files needs the job's --solver=S");
  const std::string path = solver->substr(solver->find('=') + 1);
  const std::string dir = flags.Has("work-dir")
                              ? flags.Get("work-dir")
                              : (std::filesystem::path(path).parent_path() / "per_worker").string();
  DT_ASSIGN_OR_RETURN(int seed, flags.GetInt("seed"));
  DT_ASSIGN_OR_RETURN(std::string pattern,
                      WritePerWorkerFiles(path, ranks, dir, static_cast<uint64_t>(seed)));
  *solver = "--solver=" + pattern;
  DT_LOG(INFO) << "launch: per-worker solver, net and list files for " << ranks << " ranks in "
               << dir;
  return Status::Ok();
}

// Whether the data server's arguments give its address (--listen).
bool HasListenFlag(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(),
                     [](const std::string& a) { return SetsFlag(a, "listen"); });
}

// The plan for `options`, with per-worker files written for its rank count when asked.
StatusOr<LaunchPlan> PlanJob(const Flags& flags, LaunchOptions* options) {
  DT_ASSIGN_OR_RETURN(LaunchPlan plan, PlanLaunch(*options));
  if (!flags.GetBool("per-worker-files")) return plan;
  DT_RETURN_IF_ERROR(UsePerWorkerFiles(flags, plan.ranks, options));
  return PlanLaunch(*options);
}

// How a run of the job ended, and what its console said.
struct RunOutcome {
  int exit_code = 0;
  LostHostScanner console;
};

// One run of the plan: the data server in the background (stopped when training ends), then
// the training, its output passed on and scanned.
StatusOr<RunOutcome> RunPlan(const LaunchPlan& plan) {
  RunOutcome outcome;
  pid_t server = 0;
  for (const LaunchStep& step : plan.steps) {
    DT_LOG(INFO) << "launch: " << step.role << ": " << ShellJoin(step.argv);
    if (step.role == "data server") {
      DT_ASSIGN_OR_RETURN(server, Spawn(step.argv, /*own_group=*/true));
      continue;
    }
    StatusOr<int> exit_code = RunWatchingOutput(
        step.argv, [&outcome](const std::string& line) { outcome.console.AddLine(line); });
    if (server != 0) {
      DT_LOG(INFO) << "launch: stopping the data server";
      StopProcessGroup(server);
    }
    DT_RETURN_IF_ERROR(exit_code.status());
    outcome.exit_code = *exit_code;
  }
  return outcome;
}

struct RestartPolicy {
  int max_restarts = 0;  // 0: a failure ends the launch
  int min_hosts = 1;
  std::string on_shrink = "keep-batch";  // train's --uneven-batch on the restarted runs
};

StatusOr<RestartPolicy> RestartPolicyFromFlags(const Flags& flags) {
  RestartPolicy policy;
  DT_ASSIGN_OR_RETURN(policy.max_restarts, flags.GetInt("max-restarts"));
  DT_ASSIGN_OR_RETURN(policy.min_hosts, flags.GetInt("min-hosts"));
  if (policy.max_restarts < 0) return InvalidArgument("--max-restarts must not be negative");
  if (policy.min_hosts < 1) return InvalidArgument("--min-hosts must be at least 1");
  policy.on_shrink = flags.Get("on-shrink");
  if (policy.on_shrink != "keep-batch" && policy.on_shrink != "scale-lr") {
    return InvalidArgument("--on-shrink must be keep-batch or scale-lr, not '" + policy.on_shrink +
                           "'");
  }
  return policy;
}

// The restarts so far, for the summary.
struct RestartHistory {
  int restarts = 0;
  std::vector<std::string> lost;  // "host (why)"
  long long iterations_redone = 0;

  std::string Summary(const RestartPolicy& policy) const {
    std::string text = std::to_string(restarts) +
                       " restart(s) of --max-restarts=" + std::to_string(policy.max_restarts) +
                       "; hosts lost: ";
    if (lost.empty()) text += "none";
    for (size_t i = 0; i < lost.size(); ++i) text += (i ? ", " : "") + lost[i];
    return text + "; iterations redone: " + std::to_string(iterations_redone);
  }
};

// Why the run counts as failed ("" when the job is done): a non-zero exit, or training that
// stopped before its end because one of its ranks was sent SIGTERM or SIGINT (pre-emption).
std::string FailureOf(const RunOutcome& outcome) {
  if (outcome.exit_code != 0) {
    return "training exited with status " + std::to_string(outcome.exit_code);
  }
  if (outcome.console.stopped_early()) {
    return "training stopped early at a signal to one of its ranks (SIGTERM: pre-emption?)";
  }
  return "";
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

// The hosts of `options` lost in the run that ended with `outcome`: those its console names, then
// (with `preflight`) those of the rest that fail a new pre-flight. Host -> why.
std::map<std::string, std::string> LostHosts(const LaunchOptions& options,
                                             const std::vector<std::string>& job,
                                             const RunOutcome& outcome, bool preflight,
                                             int preflight_timeout) {
  std::map<std::string, std::string> named = outcome.console.lost();
  if (outcome.exit_code == 0 && outcome.console.stopped_early()) {
    named.insert(outcome.console.sent_sigterm().begin(), outcome.console.sent_sigterm().end());
  }
  std::map<std::string, std::string> lost;
  for (const auto& [host, why] : named) {
    if (std::any_of(options.hosts.begin(), options.hosts.end(),
                    [&](const Host& h) { return h.name == host; }))
      lost[host] = why;
  }
  LaunchOptions check = options;  // every slot of the hosts left, the job as given
  check.hosts = HostsLeft(options.hosts, lost);
  check.np = 0;
  check.job = job;
  if (!preflight || check.hosts.empty()) return lost;
  StatusOr<LaunchPlan> check_plan = PlanLaunch(check);
  if (!check_plan.ok()) return lost;
  const auto verdicts = RunPreflight(check, *check_plan, preflight_timeout);
  for (size_t i = 0; i < verdicts.size(); ++i) {
    if (!verdicts[i].empty()) lost[check.hosts[i].name] = "pre-flight: " + verdicts[i][0];
  }
  return lost;
}

// Files removed when the launch ends: the restarts' hostfiles.
struct TemporaryFiles {
  std::vector<std::string> paths;
  ~TemporaryFiles() {
    std::error_code ignored;
    for (const std::string& path : paths) std::filesystem::remove(path, ignored);
  }
};

// A hostfile of `hosts` for the restarted run's mpirun, in the temporary directory.
StatusOr<std::string> WriteRestartHostfile(const std::vector<Host>& hosts, int restart) {
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("dtrain-launch-" + std::to_string(getpid()) + "-hosts-" + std::to_string(restart)))
          .string();
  std::ofstream out(path);
  out << FormatHostfile(hosts);
  out.close();
  if (!out) return IoError("cannot write the restart's hostfile " + path);
  return path;
}

Status RunLaunch(const Flags& flags) {
  DT_ASSIGN_OR_RETURN(LaunchOptions options, OptionsFromFlags(flags));
  DT_ASSIGN_OR_RETURN(const RestartPolicy policy, RestartPolicyFromFlags(flags));
  if (policy.min_hosts > static_cast<int>(options.hosts.size())) {
    return InvalidArgument("--min-hosts=" + std::to_string(policy.min_hosts) +
                           " is more than the " + std::to_string(options.hosts.size()) +
                           " host(s) of " + options.hostfile + ": no run could go on");
  }
  // Everything the real launch refuses, the dry run refuses too.
  DT_RETURN_IF_ERROR(CheckJobCommand(options.job));
  const std::vector<std::string> job = options.job;  // as given: each restart starts from it
  DT_ASSIGN_OR_RETURN(LaunchPlan plan, PlanJob(flags, &options));
  JobTarget target;
  if (policy.max_restarts > 0) {
    DT_ASSIGN_OR_RETURN(target, ResolveJobTarget(job, plan.ranks));
  }
  if (flags.GetBool("dry-run")) {
    std::printf(
        "# %d rank(s) on %zu host(s); master %s%s\n%s", plan.ranks, options.hosts.size(),
        plan.master.c_str(),
        plan.data_server_uri.empty() ? "" : ("; data server " + plan.data_server_uri).c_str(),
        FormatPlan(plan).c_str());
    return Status::Ok();
  }
  DT_ASSIGN_OR_RETURN(int preflight_timeout, flags.GetInt("preflight-timeout"));
  const bool preflight = !flags.GetBool("no-preflight");
  if (preflight) DT_RETURN_IF_ERROR(RunPreflightOnHosts(options, plan, preflight_timeout));
  RecordStopSignals();
  RestartHistory history;
  TemporaryFiles temporaries;
  std::string master = plan.master;
  std::string moved_server_uri;  // once the master is lost, where its data server went
  long long run_start = -1;      // the iteration the run resumed from (-1: as the job says)
  int runs_stuck_at_setup = 0;   // consecutive failed runs without progress or a lost host
  while (true) {
    DT_ASSIGN_OR_RETURN(RunOutcome outcome, RunPlan(plan));
    const std::string failure = FailureOf(outcome);
    if (failure.empty()) {
      if (history.restarts > 0) DT_LOG(INFO) << "launch: done; " << history.Summary(policy);
      DT_LOG(INFO) << "launch: done";
      return Status::Ok();
    }
    if (policy.max_restarts == 0 || StopSignalReceived() != 0) {
      if (outcome.exit_code == 0) return Status::Ok();  // stopped as asked
      return IoError("training exited with status " + std::to_string(outcome.exit_code) +
                     " (the launcher's messages above name the failed rank)");
    }
    auto give_up = [&](const std::string& why) {
      return IoError("not restarted: " + why + " (" + failure + "); " + history.Summary(policy));
    };
    if (history.restarts == policy.max_restarts) {
      return give_up("--max-restarts=" + std::to_string(policy.max_restarts) + " used up");
    }
    const std::map<std::string, std::string> lost =
        LostHosts(options, job, outcome, preflight, preflight_timeout);
    // A failure before the first iteration with every host fine (a net refused at setup, a
    // missing file) is the same on every run: once more might be chance, twice is not.
    const bool progressed = outcome.console.last_iteration() > run_start;
    runs_stuck_at_setup = progressed || !lost.empty() ? 0 : runs_stuck_at_setup + 1;
    if (runs_stuck_at_setup >= 2) {
      return give_up(
          "the job failed twice in a row before its first iteration with every host usable: a "
          "failure at setup (a net or solver refused, a missing or damaged file) fails the same "
          "way on every restart; the error is in the ranks' messages above");
    }
    LaunchOptions next = options;
    next.hosts = HostsLeft(options.hosts, lost);
    for (const auto& [host, why] : lost) {
      DT_LOG(WARNING) << "launch: dropping host " << host << ": " << why;
      history.lost.push_back(host + " (" + why + ")");
    }
    if (static_cast<int>(next.hosts.size()) < policy.min_hosts) {
      return give_up(std::to_string(next.hosts.size()) +
                     " host(s) left, fewer than --min-hosts=" + std::to_string(policy.min_hosts));
    }
    const bool server_moves = !options.data_server.empty() && next.hosts.front().name != master;
    if (server_moves && HasListenFlag(options.data_server)) {
      return give_up("the master " + master +
                     " was lost, and --data-server's --listen names an address on it");
    }
    if (next.hosts.size() != options.hosts.size()) {
      DT_ASSIGN_OR_RETURN(next.hostfile, WriteRestartHostfile(next.hosts, history.restarts + 1));
      temporaries.paths.push_back(next.hostfile);
      next.slurm_nodes.clear();
      for (const Host& host : next.hosts) next.slurm_nodes.push_back(host.name);
      if (next.np > TotalSlots(next.hosts)) next.np = TotalSlots(next.hosts);
    }
    // Resume from the newest complete snapshot (none yet: from the start).
    const SnapshotChoice snapshot = FindLatestCompleteSnapshot(target.snapshot_prefix);
    for (const std::string& skipped : snapshot.passed_over)
      DT_LOG(WARNING) << "launch: passing over an incomplete snapshot: " << skipped;
    const long long resumed = std::max(0LL, snapshot.iteration);
    run_start = snapshot.solverstate.empty() ? -1 : snapshot.iteration;
    history.iterations_redone += std::max(0LL, outcome.console.last_iteration() - resumed);
    ++history.restarts;
    std::string reason = failure;
    for (const auto& [host, why] : lost) reason += "; lost " + host + ": " + why;
    next.job = RestartedJob(job, snapshot.solverstate, history.restarts, reason);
    if (server_moves) {
      // The server starts on the new master; the ranks ask it instead of the one their nets name.
      master = next.hosts.front().name;
      moved_server_uri = "tcp://" + master + ":" + std::to_string(next.data_server_port);
      DT_LOG(WARNING) << "launch: the data server moves to the new master " << master;
    }
    if (!moved_server_uri.empty()) next.job.push_back("--data-server-uri=" + moved_server_uri);
    const bool job_sets_uneven = std::any_of(
        job.begin(), job.end(), [](const std::string& a) { return SetsFlag(a, "uneven-batch"); });
    if (policy.on_shrink != "keep-batch" && !job_sets_uneven)
      next.job.push_back("--uneven-batch=" + policy.on_shrink);
    options = next;
    DT_ASSIGN_OR_RETURN(plan, PlanJob(flags, &options));
    DT_LOG(WARNING) << "launch: restart " << history.restarts << " of at most "
                    << policy.max_restarts << " (" << reason << "): "
                    << (snapshot.solverstate.empty()
                            ? std::string("no complete snapshot yet, from the start")
                            : "resuming from iteration " + std::to_string(snapshot.iteration) +
                                  " (" + snapshot.solverstate + ")")
                    << " on " << options.hosts.size() << " host(s), " << plan.ranks << " rank(s)";
  }
}

}  // namespace

Command LaunchCommand() {
  return {
      "launch",
      "run a job on the hosts of a hostfile: pre-flight, data server, mpirun or srun",
      "-- train --solver=S [train flags]",
      {{"hostfile", "Open MPI hostfile (HOST slots=N per line); the first host is the master"},
       {"np", "ranks; 0: every slot of the hostfile", false, "0"},
       {"data-server",
        "start `dtrain data-server ARGS` on the master first (quoted as one "
        "argument; --listen defaults to tcp://MASTER:--data-server-port)"},
       {"data-server-port", "the data server's port when ARGS has no --listen", false, "5555"},
       {"threads-per-rank", "OMP_NUM_THREADS and --threads of every rank; 0: dtrain's default",
        false, "0"},
       {"bind", "core: bind each rank to its cores; none", false, "core"},
       {"interface", "network interface for MPI's traffic (checked to be up on every host)"},
       {"forward-env", "environment variables passed on to every rank (space-separated)"},
       {"launcher", "auto (srun inside a Slurm allocation, else mpirun), mpirun or srun", false,
        "auto"},
       {"mpirun", "the mpirun to use", false, "mpirun"},
       {"dtrain", "the dtrain binary on the hosts (default: this one's path)"},
       {"per-worker-files",
        "write a solver, net and image list per rank from the job's "
        "solver (--solver=S) and run with those",
        true},
       {"work-dir", "where --per-worker-files writes (default: S's folder/per_worker)"},
       {"seed", "seed of --per-worker-files' list shuffle", false, "1"},
       {"dry-run", "print the commands, run nothing", true},
       {"no-preflight", "skip the pre-flight checks", true},
       {"preflight-timeout", "seconds each host has to answer the pre-flight", false, "30"},
       {"max-restarts",
        "restart a failed or pre-empted training job up to N times, from its latest "
        "complete snapshot, on the hosts that are still usable",
        false, "0"},
       {"min-hosts", "with --max-restarts: stop when fewer hosts than this are left", false, "1"},
       {"on-shrink",
        "with --max-restarts and the job's --global-batch, a restart on ranks that cannot share "
        "the batch exactly: keep-batch refuses, scale-lr rounds each rank's batch down and "
        "scales base_lr",
        false, "keep-batch"}},
      RunLaunch};
}

}  // namespace dtrain
