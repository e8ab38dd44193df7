#include "testing/run_command.h"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace dtrain::testing {

CommandResult RunShell(const std::string& command, const std::string& working_dir) {
  // The cd applies to the whole script (a `cmd &` inside it still runs in working_dir), and
  // stderr joins stdout for every command of it.
  std::string full = "{\n" + command + "\n} 2>&1";
  if (!working_dir.empty()) full = "cd '" + working_dir + "' || exit 97\n" + full;
  CommandResult result;
  FILE* pipe = popen(full.c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) result.output.append(buffer, n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

CommandResult RunDtrain(const std::string& args, const std::string& working_dir) {
  return RunShell(std::string("'") + DTRAIN_BINARY + "' " + args, working_dir);
}

void WriteTextFile(const std::string& path, const std::string& text) {
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  std::ofstream(path) << text;
}

}  // namespace dtrain::testing
