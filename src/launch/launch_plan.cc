#include "launch/launch_plan.h"

#include <algorithm>

#include "cluster/job_command_line.h"
#include "cluster/shell_quote.h"

namespace dtrain {
namespace {

// The process-placement and network options for `ranks` ranks.
std::vector<std::string> MpirunPlacement(const LaunchOptions& options, int ranks) {
  std::vector<std::string> argv = {options.mpirun, "-np", std::to_string(ranks), "--hostfile",
                                   options.hostfile};
  if (options.bind == "core" && options.threads_per_rank > 0) {
    argv.insert(argv.end(), {"--map-by", "slot:PE=" + std::to_string(options.threads_per_rank),
                             "--bind-to", "core"});
  } else if (options.bind == "core") {
    argv.insert(argv.end(), {"--map-by", "slot", "--bind-to", "core"});
  } else {
    argv.insert(argv.end(), {"--map-by", "slot", "--bind-to", "none"});
  }
  if (!options.interface.empty()) {
    argv.insert(argv.end(), {"--mca", "btl_tcp_if_include", options.interface, "--mca",
                             "oob_tcp_if_include", options.interface});
  }
  if (options.threads_per_rank > 0) {
    argv.insert(argv.end(), {"-x", "OMP_NUM_THREADS=" + std::to_string(options.threads_per_rank)});
  }
  for (const std::string& name : options.forward_env) argv.insert(argv.end(), {"-x", name});
  return argv;
}

std::vector<std::string> SrunPlacement(const LaunchOptions& options, int ranks) {
  std::vector<std::string> argv = {"srun", "--mpi=pmix", "--overlap", "-n", std::to_string(ranks)};
  if (!options.slurm_nodes.empty()) {
    std::string nodes;
    for (const std::string& node : options.slurm_nodes) nodes += (nodes.empty() ? "" : ",") + node;
    argv.insert(argv.end(), {"-N", std::to_string(options.slurm_nodes.size()), "-w", nodes});
  }
  if (options.threads_per_rank > 0) {
    argv.push_back("--cpus-per-task=" + std::to_string(options.threads_per_rank));
  }
  std::string exports = "--export=ALL";
  if (options.threads_per_rank > 0) {
    exports += ",OMP_NUM_THREADS=" + std::to_string(options.threads_per_rank);
  }
  argv.push_back(exports);
  if (options.bind == "none") argv.push_back("--cpu-bind=none");
  return argv;
}

}  // namespace

StatusOr<LaunchPlan> PlanLaunch(const LaunchOptions& options) {
  if (options.hosts.empty()) return InvalidArgument("no hosts to launch on");
  if (options.job.empty())
    return InvalidArgument("no job: give the dtrain command after --, e.g. -- train --solver=S");
  if (options.job[0] != "train" && options.job[0] != "test" && options.job[0] != "time") {
    return InvalidArgument("the job must be a dtrain train, test or time command, not '" +
                           options.job[0] + "'");
  }
  if (options.bind != "core" && options.bind != "none") {
    return InvalidArgument("--bind must be core or none, not '" + options.bind + "'");
  }
  if (options.threads_per_rank < 0)
    return InvalidArgument("--threads-per-rank must not be negative");
  const int slots = TotalSlots(options.hosts);
  LaunchPlan plan;
  plan.ranks = options.np > 0 ? options.np : slots;
  if (options.np < 0) return InvalidArgument("--np must be positive");
  if (plan.ranks > slots) {
    return InvalidArgument("--np=" + std::to_string(plan.ranks) + " is more than the " +
                           std::to_string(slots) + " slots of " + options.hostfile +
                           " (give hosts more slots=N)");
  }
  plan.master = options.hosts[0].name;
  int rank = 0;
  for (const Host& host : options.hosts) {
    const int here = std::min(host.slots, plan.ranks - rank);
    plan.first_rank.push_back(rank);
    plan.ranks_on.push_back(here);
    rank += here;
  }

  if (!options.data_server.empty()) {
    std::vector<std::string> server = {options.dtrain, "data-server"};
    server.insert(server.end(), options.data_server.begin(), options.data_server.end());
    plan.data_server_uri = "tcp://" + plan.master + ":" + std::to_string(options.data_server_port);
    const JobCommandLine server_args = JobCommandLine::ParseArguments(options.data_server);
    if (server_args.Has("listen")) {
      plan.data_server_uri = server_args.ValueOr("listen", plan.data_server_uri);
    } else {
      server.push_back("--listen=" + plan.data_server_uri);
    }
    std::vector<std::string> argv;
    if (options.slurm) {
      argv = {"srun", "--overlap", "-N1", "-n1", "-w", plan.master};
    } else {
      argv = {options.mpirun, "-np", "1", "--host", plan.master, "--bind-to", "none"};
      if (!options.interface.empty()) {
        argv.insert(argv.end(), {"--mca", "oob_tcp_if_include", options.interface});
      }
    }
    argv.insert(argv.end(), server.begin(), server.end());
    plan.steps.push_back({"data server", argv});
  }

  std::vector<std::string> train =
      options.slurm ? SrunPlacement(options, plan.ranks) : MpirunPlacement(options, plan.ranks);
  train.push_back(options.dtrain);
  train.insert(train.end(), options.job.begin(), options.job.end());
  if (options.threads_per_rank > 0 && !JobCommandLine::ParseCommand(options.job).Has("threads")) {
    train.push_back("--threads=" + std::to_string(options.threads_per_rank));
  }
  plan.steps.push_back({"training", train});
  return plan;
}

std::string FormatPlan(const LaunchPlan& plan) {
  std::string text;
  for (const LaunchStep& step : plan.steps) {
    text += "# " + step.role + "\n" + ShellJoin(step.argv) +
            (step.role == "data server" ? " &" : "") + "\n";
  }
  return text;
}

}  // namespace dtrain
