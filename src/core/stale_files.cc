#include "core/stale_files.h"

#include <signal.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

namespace dtrain {

bool ProcessRunning(long pid) {
  if (pid <= 0) return false;
  return kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

std::vector<std::string> RemoveStaleTemporaries(const std::string& dir, const std::string& prefix,
                                                const std::string& marker) {
  namespace fs = std::filesystem;
  std::vector<std::string> removed;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir.empty() ? "." : dir, ec)) {
    const std::string name = entry.path().filename().string();
    const size_t at = name.rfind(marker);
    if (name.compare(0, prefix.size(), prefix) != 0 || at == std::string::npos) continue;
    const std::string digits = name.substr(at + marker.size());
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    if (ProcessRunning(std::strtol(digits.c_str(), nullptr, 10))) continue;
    std::error_code remove_ec;
    fs::remove_all(entry.path(), remove_ec);
    if (!remove_ec) removed.push_back(entry.path().string());
  }
  return removed;
}

}  // namespace dtrain
