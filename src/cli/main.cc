// dtrain: train, test, time and check Caffe-format nets; convert datasets.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/command.h"

namespace {

std::vector<dtrain::Command> AllCommands() {
  return {dtrain::TrainCommand(),   dtrain::TestCommand(),        dtrain::TimeCommand(),
          dtrain::CheckCommand(),   dtrain::ConvertCommand(),     dtrain::ComputeMeanCommand(),
          dtrain::SplitListCommand()};
}

void PrintUsage(const std::vector<dtrain::Command>& commands) {
  std::fprintf(stderr, "usage: dtrain <command> [flags]\n\ncommands:\n");
  for (const auto& c : commands) std::fprintf(stderr, "  %-13s %s\n", c.name.c_str(), c.summary.c_str());
  std::fprintf(stderr, "\n'dtrain <command> --help' describes a command's flags.\n");
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<dtrain::Command> commands = AllCommands();
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" ||
      std::string(argv[1]) == "help") {
    PrintUsage(commands);
    return argc < 2 ? 1 : 0;
  }
  const std::string name = argv[1];
  for (const auto& command : commands) {
    if (command.name != name) continue;
    std::vector<std::string> args(argv + 2, argv + argc);
    for (const std::string& a : args) {
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
      std::fprintf(stderr, "dtrain %s: error: %s\n", name.c_str(), status.message().c_str());
      return 1;
    }
    return 0;
  }
  std::fprintf(stderr, "dtrain: unknown command '%s'\n\n", name.c_str());
  PrintUsage(commands);
  return 1;
}
