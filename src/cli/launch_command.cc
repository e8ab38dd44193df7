// dtrain launch: plan a job over a hostfile (launch/launch_plan.h), check every host, start the
// data server on the master if asked, run the training and stop the server at the end. With
// --max-restarts, a failed job is restarted from its latest complete snapshot on the hosts that
// are left (docs/launch.md, "Restarts"): this file reads the flags, gathers the facts of each run
// and applies what launch/restart_decision.h decides.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "cli/command.h"
#include "cli/job_check.h"
#include "cluster/shell_words.h"
#include "core/logging.h"
#include "launch/job_restart.h"
#include "launch/launch_plan.h"
#include "launch/launch_preflight.h"
#include "launch/launch_processes.h"
#include "launch/per_worker_files.h"
#include "launch/restart_decision.h"
#include "launch/restart_hostfiles.h"
#include "launch/run_plan.h"
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

// The plan for `options`, with per-worker files written for its rank count when asked
// (launch/per_worker_files.h).
StatusOr<LaunchPlan> PlanJob(const Flags& flags, LaunchOptions* options) {
  DT_ASSIGN_OR_RETURN(LaunchPlan plan, PlanLaunch(*options));
  if (!flags.GetBool("per-worker-files")) return plan;
  DT_ASSIGN_OR_RETURN(const int seed, flags.GetInt("seed"));
  DT_ASSIGN_OR_RETURN(options->job,
                      JobWithPerWorkerFiles(options->job, plan.ranks, flags.Get("work-dir"),
                                            static_cast<uint64_t>(seed)));
  return PlanLaunch(*options);
}

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

// The hosts of `state`'s run that fail a new pre-flight: host -> its first problem.
std::map<std::string, std::string> PreflightFailures(const LaunchState& state,
                                                     const RunFacts& facts,
                                                     const PreflightSettings& settings) {
  std::map<std::string, std::string> failed;
  const LaunchOptions check = PreflightOfHostsLeft(state, facts);
  if (check.hosts.empty()) return failed;
  StatusOr<LaunchPlan> check_plan = PlanLaunch(check);
  if (!check_plan.ok()) return failed;
  const auto verdicts = RunPreflight(check, *check_plan, settings);
  for (size_t i = 0; i < verdicts.size(); ++i) {
    if (!verdicts[i].empty()) failed[check.hosts[i].name] = verdicts[i][0];
  }
  return failed;
}

Status RunLaunch(const Flags& flags) {
  LaunchState state;
  DT_ASSIGN_OR_RETURN(state.options, OptionsFromFlags(flags));
  DT_ASSIGN_OR_RETURN(state.policy, RestartPolicyFromFlags(flags));
  const LaunchOptions& given = state.options;
  if (state.policy.min_hosts > static_cast<int>(given.hosts.size())) {
    return InvalidArgument("--min-hosts=" + std::to_string(state.policy.min_hosts) +
                           " is more than the " + std::to_string(given.hosts.size()) +
                           " host(s) of " + given.hostfile + ": no run could go on");
  }
  // Everything the real launch refuses, the dry run refuses too.
  DT_RETURN_IF_ERROR(CheckJobCommand(given.job));
  state.job = given.job;  // as given: each restart starts from it
  DT_ASSIGN_OR_RETURN(LaunchPlan plan, PlanJob(flags, &state.options));
  JobTarget target;
  if (state.policy.max_restarts > 0) {
    DT_ASSIGN_OR_RETURN(target, ResolveJobTarget(state.job, plan.ranks));
  }
  if (flags.GetBool("dry-run")) {
    std::printf(
        "# %d rank(s) on %zu host(s); master %s%s\n%s", plan.ranks, state.options.hosts.size(),
        plan.master.c_str(),
        plan.data_server_uri.empty() ? "" : ("; data server " + plan.data_server_uri).c_str(),
        FormatPlan(plan).c_str());
    return Status::Ok();
  }
  PreflightSettings preflight_settings;
  DT_ASSIGN_OR_RETURN(preflight_settings.timeout_s, flags.GetInt("preflight-timeout"));
  preflight_settings.version = DtrainVersion();
  const bool preflight = !flags.GetBool("no-preflight");
  if (preflight) DT_RETURN_IF_ERROR(RunPreflightOnHosts(state.options, plan, preflight_settings));
  RecordStopSignals();
  RestartHostfiles hostfiles;
  state.master = plan.master;
  while (true) {
    DT_ASSIGN_OR_RETURN(const RunOutcome outcome, RunPlan(plan));
    RunFacts facts = FactsFromConsole(outcome.console, outcome.exit_code, StopSignalReceived());
    if (NeedsRestartFacts(state, facts)) {
      if (preflight) facts.preflight_failed = PreflightFailures(state, facts, preflight_settings);
      facts.snapshot = FindLatestCompleteSnapshot(target.snapshot_prefix);
    }
    RestartDecision decision = DecideNextAttempt(state, facts);
    for (const LogLine& line : decision.log) {
      LogMessage(line.severity, __FILE__, __LINE__).stream() << line.text;
    }
    switch (decision.step) {
      case NextStep::kDone:
      case NextStep::kStopAsAsked:
        return Status::Ok();
      case NextStep::kGiveUp:
        return IoError(decision.error);
      case NextStep::kRestart:
        break;
    }
    if (decision.new_hostfile) {
      DT_ASSIGN_OR_RETURN(
          decision.next.options.hostfile,
          hostfiles.Write(decision.next.options.hosts, decision.next.history.restarts));
    }
    state = decision.next;
    DT_ASSIGN_OR_RETURN(plan, PlanJob(flags, &state.options));
    DT_LOG(WARNING) << decision.RestartLine(plan.ranks);
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
