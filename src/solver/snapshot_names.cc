#include "solver/snapshot_names.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

namespace dtrain {

long long SnapshotIteration(const std::string& name, const std::string& base) {
  const std::string lead = base + "_iter_";
  if (name.rfind(lead, 0) != 0) return -1;
  size_t end = lead.size();
  while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
  if (end == lead.size() || end - lead.size() > 18) return -1;
  const std::string rest = name.substr(end);
  if (std::find(std::begin(kSnapshotExtensions), std::end(kSnapshotExtensions), rest) ==
      std::end(kSnapshotExtensions))
    return -1;
  return std::stoll(name.substr(lead.size(), end - lead.size()));
}

std::string SnapshotDirectory(const std::string& snapshot_prefix) {
  const std::filesystem::path parent = std::filesystem::path(snapshot_prefix).parent_path();
  return parent.empty() ? "." : parent.string();
}

std::map<long long, std::vector<std::string>> SnapshotFilesByIteration(
    const std::string& snapshot_prefix) {
  const std::string base = std::filesystem::path(snapshot_prefix).filename().string();
  std::map<long long, std::vector<std::string>> by_iteration;
  std::error_code error;
  for (const auto& entry :
       std::filesystem::directory_iterator(SnapshotDirectory(snapshot_prefix), error)) {
    const std::string name = entry.path().filename().string();
    const long long iteration = SnapshotIteration(name, base);
    if (iteration >= 0) by_iteration[iteration].push_back(name);
  }
  if (error) by_iteration.clear();
  return by_iteration;
}

}  // namespace dtrain
