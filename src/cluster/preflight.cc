#include "cluster/preflight.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace dtrain {
namespace {

std::string NetworkInterfaces() {
  std::string names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/class/net", ec)) {
    names += (names.empty() ? "" : ", ") + entry.path().filename().string();
  }
  return names;
}

}  // namespace

std::vector<std::string> PreflightProblems(const PreflightRequest& request) {
  std::vector<std::string> problems;
  if (!request.expected_version.empty() && request.version != request.expected_version) {
    problems.push_back("dtrain version " + request.version + " here, " + request.expected_version +
                       " on the launching host");
  }
  for (const std::string& path : request.paths) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      problems.push_back("missing: " + path);
    } else if (access(path.c_str(), R_OK) != 0) {
      problems.push_back("not readable: " + path);
    }
  }
  if (!request.interface.empty()) {
    std::ifstream state("/sys/class/net/" + request.interface + "/operstate");
    std::string operstate;
    if (!state || !(state >> operstate)) {
      problems.push_back("network interface '" + request.interface +
                         "' does not exist (this host has: " + NetworkInterfaces() + ")");
    } else if (operstate != "up" && operstate != "unknown") {  // loopback says "unknown"
      problems.push_back("network interface '" + request.interface + "' is " + operstate);
    }
  }
  return problems;
}

}  // namespace dtrain
