#include "solver/snapshot_retention.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "solver/snapshot_names.h"

namespace dtrain {

std::vector<std::string> RemoveOldSnapshots(const std::string& snapshot_prefix, int keep) {
  std::vector<std::string> removed;
  if (keep <= 0) return removed;
  const std::filesystem::path dir = SnapshotDirectory(snapshot_prefix);
  auto by_iteration = SnapshotFilesByIteration(snapshot_prefix);  // ascending
  if (by_iteration.size() <= static_cast<size_t>(keep)) return removed;
  std::error_code error;
  const size_t old = by_iteration.size() - static_cast<size_t>(keep);
  auto it = by_iteration.begin();
  for (size_t i = 0; i < old; ++i, ++it) {
    std::vector<std::string>& names = it->second;
    // By extension, in kSnapshotExtensions' order (no extension is the end of another).
    auto rank = [](const std::string& n) {
      int k = 0;
      for (const std::string e : kSnapshotExtensions) {
        if (n.size() >= e.size() && n.compare(n.size() - e.size(), e.size(), e) == 0) return k;
        ++k;
      }
      return k;
    };
    std::sort(names.begin(), names.end(),
              [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
    for (const std::string& name : names) {
      const std::filesystem::path path = dir / name;
      if (std::filesystem::remove(path, error)) removed.push_back(path.string());
    }
  }
  return removed;
}

}  // namespace dtrain
