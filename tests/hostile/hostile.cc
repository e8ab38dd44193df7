#include "hostile/hostile.h"

#include <filesystem>
#include <fstream>
#include <iterator>

namespace dtrain::testing {

CommandResult RunDtrainWithin(int seconds, const std::string& args, const std::string& dir) {
  return RunShell("timeout -s KILL " + std::to_string(seconds) + " '" + DTRAIN_BINARY + "' " + args,
                  dir);
}

std::map<std::string, std::string> FilesUnder(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    files[std::filesystem::relative(entry.path(), dir).string()] =
        std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return files;
}

}  // namespace dtrain::testing
