// dtrain: train, test, time and check Caffe-format nets; convert datasets; set up clusters.
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/command.h"
#ifdef DTRAIN_PYTHON_LAYERS
#include "pylayer/python_layers.h"
#endif

namespace {

std::vector<dtrain::Command> AllCommands() {
  return {dtrain::TrainCommand(),      dtrain::TestCommand(),    dtrain::TimeCommand(),
          dtrain::CheckCommand(),      dtrain::ConvertCommand(), dtrain::ComputeMeanCommand(),
          dtrain::DataServerCommand(), dtrain::HostsCommand(),   dtrain::LaunchCommand(),
          dtrain::PreflightCommand(),  dtrain::VersionCommand(), dtrain::SplitListCommand(),
          dtrain::PlotCommand()};
}

// Commands with subcommands: `dtrain cluster slurm-script ...`.
std::vector<dtrain::CommandGroup> AllGroups() {
  return {dtrain::ClusterCommands(), dtrain::UpgradeCommands(), dtrain::ExportCommands()};
}

void PrintUsage(const std::vector<dtrain::Command>& commands,
                const std::vector<dtrain::CommandGroup>& groups) {
  std::fprintf(stderr, "usage: dtrain <command> [flags]\n\ncommands:\n");
  for (const auto& c : commands)
    std::fprintf(stderr, "  %-20s %s\n", c.name.c_str(), c.summary.c_str());
  for (const auto& g : groups) {
    for (const auto& c : g.commands) {
      std::fprintf(stderr, "  %-20s %s\n", (g.name + " " + c.name).c_str(), c.summary.c_str());
    }
  }
  std::fprintf(stderr, "\n'dtrain <command> --help' describes a command's flags.\n");
}

// Runs `command` (shown as `name`) on `args`, the arguments after its name.
int Run(const dtrain::Command& command, const std::string& name,
        const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") break;  // what follows belongs to another command line
    if (a == "--help" || a == "-help" || a == "-h") {
      std::printf("usage: dtrain %s [flags] %s\n%s\n\nflags:\n%s", name.c_str(),
                  command.usage.c_str(), command.summary.c_str(),
                  dtrain::FlagsHelp(command.flags).c_str());
      return 0;
    }
  }
  auto flags = dtrain::Flags::Parse(args, command.flags);
  dtrain::Status status = flags.ok() ? command.run(*flags) : flags.status();
  if (!status.ok()) {
    std::fflush(stdout);  // what the command printed comes before its error, also through a pipe
    std::fprintf(stderr, "dtrain %s: error: %s\n", name.c_str(), status.message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // A file grown past a size limit (ulimit -f, a Slurm job's) is a write that fails, reported
  // with the file's name, not a signal that ends the process without a word.
  std::signal(SIGXFSZ, SIG_IGN);
#ifdef DTRAIN_PYTHON_LAYERS
  // Caffe's Python layers: the interpreter starts with the first one a net has.
  dtrain::pylayer::InstallPythonLayers(dtrain::pylayer::Interpreter::kStartOnFirstLayer);
#endif
  const std::vector<dtrain::Command> commands = AllCommands();
  const std::vector<dtrain::CommandGroup> groups = AllGroups();
  if (argc == 2 && std::string(argv[1]) == "--version") {
    dtrain::PrintVersion();
    return 0;
  }
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" ||
      std::string(argv[1]) == "help") {
    PrintUsage(commands, groups);
    return argc < 2 ? 1 : 0;
  }
  const std::string name = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  for (const auto& command : commands) {
    if (command.name == name) return Run(command, name, args);
  }
  for (const auto& group : groups) {
    if (group.name != name) continue;
    const std::string sub = args.empty() ? "" : args[0];
    for (const auto& command : group.commands) {
      if (command.name == sub) {
        return Run(command, name + " " + sub,
                   std::vector<std::string>(args.begin() + 1, args.end()));
      }
    }
    const bool help = sub == "--help" || sub == "-h" || sub == "help";
    std::FILE* out = help ? stdout : stderr;
    if (!help) {
      std::fprintf(
          out, "dtrain %s: %s\n\n", name.c_str(),
          sub.empty() ? "needs a subcommand" : ("unknown subcommand '" + sub + "'").c_str());
    }
    std::fprintf(out, "usage: dtrain %s <subcommand> [flags]\n%s\n\nsubcommands:\n", name.c_str(),
                 group.summary.c_str());
    for (const auto& c : group.commands) {
      std::fprintf(out, "  %-13s %s\n", c.name.c_str(), c.summary.c_str());
    }
    return help ? 0 : 1;
  }
  std::fprintf(stderr, "dtrain: unknown command '%s'\n\n", name.c_str());
  PrintUsage(commands, groups);
  return 1;
}
