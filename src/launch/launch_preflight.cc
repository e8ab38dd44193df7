#include "launch/launch_preflight.h"

#include <algorithm>
#include <future>
#include <sstream>

#include "launch/job_inputs.h"
#include "launch/launch_processes.h"

namespace dtrain {
namespace {

// The command that runs `dtrain preflight` on `host` the way the job's processes are started.
std::vector<std::string> PreflightArgv(const LaunchOptions& options, const std::string& host,
                                       const std::string& mpirun, const PreflightSettings& settings,
                                       const std::vector<std::string>& paths) {
  std::vector<std::string> argv = {"timeout", "-k", "5", std::to_string(settings.timeout_s)};
  if (options.slurm) {
    argv.insert(argv.end(), {"srun", "--overlap", "-N1", "-n1", "-w", host});
  } else {
    argv.insert(argv.end(), {mpirun, "-np", "1", "--host", host, "--bind-to", "none"});
  }
  argv.insert(argv.end(), {options.dtrain, "preflight", "--expect-version=" + settings.version});
  if (!options.interface.empty()) argv.push_back("--interface=" + options.interface);
  argv.insert(argv.end(), paths.begin(), paths.end());
  return argv;
}

// What one host's pre-flight found: "ok", or its problems, or why it could not be reached.
std::vector<std::string> HostVerdict(int exit_code, const std::string& output, int timeout_s) {
  std::vector<std::string> problems;
  bool answered = false;
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    const std::string line = output.substr(start, end - start);
    if (line.rfind("preflight ok", 0) == 0) answered = true;
    if (line.rfind("preflight problem: ", 0) == 0) {
      answered = true;
      problems.push_back(line.substr(19));
    }
    start = end + 1;
  }
  if (answered) return problems;
  if (exit_code == 124 || exit_code == 137) {
    return {"unreachable: no answer within " + std::to_string(timeout_s) + " s"};
  }
  // The launcher's first line of text (Open MPI frames its messages with lines of dashes).
  std::string reason = "no output";
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.find_first_not_of("- \t") != std::string::npos) {
      reason = line;
      break;
    }
  }
  return {"unreachable (exit " + std::to_string(exit_code) + "): " + reason};
}

}  // namespace

std::vector<std::vector<std::string>> RunPreflight(const LaunchOptions& options,
                                                   const LaunchPlan& plan,
                                                   const PreflightSettings& settings) {
  const std::string& mpirun = options.mpirun;
  std::vector<std::future<std::pair<int, std::string>>> runs;
  for (size_t i = 0; i < options.hosts.size(); ++i) {
    std::vector<int> ranks;
    for (int r = 0; r < plan.ranks_on[i]; ++r) ranks.push_back(plan.first_rank[i] + r);
    std::vector<std::string> paths = JobInputPaths(options.job, ranks, plan.ranks);
    if (i == 0) {
      for (const std::string& p : DataServerInputPaths(options.data_server)) paths.push_back(p);
    }
    runs.push_back(
        std::async(std::launch::async, Capture,
                   PreflightArgv(options, options.hosts[i].name, mpirun, settings, paths)));
  }
  std::vector<std::vector<std::string>> verdicts;
  std::string report;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto [exit_code, output] = runs[i].get();
    verdicts.push_back(HostVerdict(exit_code, output, settings.timeout_s));
    if (verdicts.back().empty()) report += "  " + options.hosts[i].name + ": ok\n";
    for (const std::string& problem : verdicts.back())
      report += "  " + options.hosts[i].name + ": " + problem + "\n";
  }
  std::printf("pre-flight on %zu host(s):\n%s", options.hosts.size(), report.c_str());
  std::fflush(stdout);
  return verdicts;
}

Status RunPreflightOnHosts(const LaunchOptions& options, const LaunchPlan& plan,
                           const PreflightSettings& settings) {
  const auto verdicts = RunPreflight(options, plan, settings);
  const auto failed =
      std::count_if(verdicts.begin(), verdicts.end(), [](const auto& v) { return !v.empty(); });
  if (failed > 0) {
    return InvalidArgument("pre-flight failed on " + std::to_string(failed) + " of " +
                           std::to_string(options.hosts.size()) +
                           " host(s) (listed above; --no-preflight skips the checks)");
  }
  return Status::Ok();
}

}  // namespace dtrain
