// dtrain launch: plan a job over a hostfile (cluster/launch_plan.h), check every host, start the
// data server on the master if asked, run the training and stop the server at the end.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <sstream>
#include <thread>

#include "cli/command.h"
#include "cli/job_inputs.h"
#include "cli/per_worker_files.h"
#include "cluster/launch_plan.h"
#include "cluster/shell_quote.h"
#include "cluster/shell_words.h"
#include "core/logging.h"

extern char** environ;

namespace dtrain {
namespace {

volatile sig_atomic_t g_stop_signal = 0;
void RecordStopSignal(int signal) { g_stop_signal = signal; }

// Starts argv; in its own process group when `own_group` (so that a Ctrl-C meant for the
// training does not stop it before its time).
StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, bool own_group) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  if (own_group) {
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
  }
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], nullptr, &attributes, args.data(), environ);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) return IoError("cannot start " + argv[0] + ": " + std::strerror(rc));
  return pid;
}

// Waits for `pid`, passing SIGINT/SIGTERM received meanwhile on to it; its exit status (128 + N
// when signal N killed it).
int WaitForwardingSignals(pid_t pid) {
  int status = 0;
  while (true) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (g_stop_signal != 0) {
      kill(pid, g_stop_signal);
      g_stop_signal = 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// SIGTERM to the data server's launcher and its group, then SIGKILL if it is still there after
// 10 s.
void StopDataServer(pid_t pid) {
  kill(-pid, SIGTERM);
  int status = 0;
  for (int i = 0; i < 100; ++i) {
    if (waitpid(pid, &status, WNOHANG) == pid) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(-pid, SIGKILL);
  waitpid(pid, &status, 0);
}

// The command that runs `dtrain preflight` on `host` the way the job's processes are started.
std::vector<std::string> PreflightArgv(const LaunchOptions& options, const std::string& host,
                                       const std::string& mpirun, int timeout_s,
                                       const std::vector<std::string>& paths) {
  std::vector<std::string> argv = {"timeout", "-k", "5", std::to_string(timeout_s)};
  if (options.slurm) {
    argv.insert(argv.end(), {"srun", "--overlap", "-N1", "-n1", "-w", host});
  } else {
    argv.insert(argv.end(), {mpirun, "-np", "1", "--host", host, "--bind-to", "none"});
  }
  argv.insert(argv.end(), {options.dtrain, "preflight", "--expect-version=" + DtrainVersion()});
  if (!options.interface.empty()) argv.push_back("--interface=" + options.interface);
  argv.insert(argv.end(), paths.begin(), paths.end());
  return argv;
}

// Runs a command line through the shell; its exit status and output (stdout and stderr).
std::pair<int, std::string> Capture(const std::vector<std::string>& argv) {
  FILE* pipe = popen((ShellJoin(argv) + " 2>&1 < /dev/null").c_str(), "r");
  if (!pipe) return {-1, "cannot run " + argv[0]};
  std::string output;
  char chunk[4096];
  for (size_t n; (n = fread(chunk, 1, sizeof(chunk), pipe)) > 0;) output.append(chunk, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), output};
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

Status RunPreflightOnHosts(const LaunchOptions& options, const LaunchPlan& plan,
                           const std::string& mpirun, int timeout_s) {
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
                   PreflightArgv(options, options.hosts[i].name, mpirun, timeout_s, paths)));
  }
  int failed = 0;
  std::string report;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto [exit_code, output] = runs[i].get();
    const std::vector<std::string> problems = HostVerdict(exit_code, output, timeout_s);
    if (problems.empty()) {
      report += "  " + options.hosts[i].name + ": ok\n";
      continue;
    }
    ++failed;
    for (const std::string& problem : problems)
      report += "  " + options.hosts[i].name + ": " + problem + "\n";
  }
  std::printf("pre-flight on %zu host(s):\n%s", options.hosts.size(), report.c_str());
  std::fflush(stdout);
  if (failed > 0) {
    return InvalidArgument("pre-flight failed on " + std::to_string(failed) + " of " +
                           std::to_string(options.hosts.size()) +
                           " host(s) (listed above; --no-preflight skips the checks)");
  }
  return Status::Ok();
}

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

Status RunLaunch(const Flags& flags) {
  DT_ASSIGN_OR_RETURN(LaunchOptions options, OptionsFromFlags(flags));
  DT_ASSIGN_OR_RETURN(LaunchPlan plan, PlanLaunch(options));
  if (flags.GetBool("per-worker-files")) {
    DT_RETURN_IF_ERROR(UsePerWorkerFiles(flags, plan.ranks, &options));
    DT_ASSIGN_OR_RETURN(plan, PlanLaunch(options));
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
  if (!flags.GetBool("no-preflight")) {
    DT_RETURN_IF_ERROR(RunPreflightOnHosts(options, plan, options.mpirun, preflight_timeout));
  }
  signal(SIGTERM, RecordStopSignal);
  signal(SIGINT, RecordStopSignal);
  pid_t server = 0;
  for (const LaunchStep& step : plan.steps) {
    DT_LOG(INFO) << "launch: " << step.role << ": " << ShellJoin(step.argv);
    if (step.role == "data server") {
      DT_ASSIGN_OR_RETURN(server, Spawn(step.argv, /*own_group=*/true));
      continue;
    }
    auto training = Spawn(step.argv, /*own_group=*/false);
    int exit_code = 127;
    if (training.ok()) exit_code = WaitForwardingSignals(*training);
    if (server != 0) {
      DT_LOG(INFO) << "launch: stopping the data server";
      StopDataServer(server);
    }
    if (!training.ok()) return training.status();
    if (exit_code != 0) {
      return IoError("training exited with status " + std::to_string(exit_code) +
                     " (the launcher's messages above name the failed rank)");
    }
  }
  DT_LOG(INFO) << "launch: done";
  return Status::Ok();
}

}  // namespace

Command LaunchCommand() {
  return {"launch",
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
           {"preflight-timeout", "seconds each host has to answer the pre-flight", false, "30"}},
          RunLaunch};
}

}  // namespace dtrain
