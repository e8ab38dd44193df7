#include "solver/snapshot_retention.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "solver/snapshot_names.h"

namespace dtrain {
namespace {

namespace fs = std::filesystem;

// A file name's place in kSnapshotExtensions (no extension is the end of another).
int ExtensionRank(const std::string& name) {
  int k = 0;
  for (const std::string e : kSnapshotExtensions) {
    if (name.size() >= e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0) return k;
    ++k;
  }
  return k;
}

bool SameDirectory(const fs::path& a, const fs::path& b) {
  std::error_code error;
  const bool same = fs::equivalent(a, b, error);
  return !error && same;
}

}  // namespace

SnapshotRetention::SnapshotRetention(std::string snapshot_prefix, int keep)
    : prefix_(std::move(snapshot_prefix)), keep_(keep) {}

void SnapshotRetention::ResumedFrom(const std::string& solverstate_path) {
  const fs::path state(solverstate_path);
  const std::string base = fs::path(prefix_).filename().string();
  const long long resumed = SnapshotIteration(state.filename().string(), base);
  const fs::path state_dir = state.parent_path().empty() ? "." : state.parent_path();
  if (resumed < 0 || !SameDirectory(state_dir, SnapshotDirectory(prefix_))) return;
  for (const auto& [iteration, names] : SnapshotFilesByIteration(prefix_)) {
    if (iteration <= resumed &&
        std::find(history_.begin(), history_.end(), iteration) == history_.end()) {
      history_.push_back(iteration);
    }
  }
  std::sort(history_.begin(), history_.end());
}

std::vector<std::string> SnapshotRetention::Written(long long iteration) {
  // Written again (a snapshot at the end of the iteration of the last one): now the newest.
  history_.erase(std::remove(history_.begin(), history_.end(), iteration), history_.end());
  history_.push_back(iteration);
  std::vector<std::string> removed;
  if (keep_ <= 0 || history_.size() <= static_cast<size_t>(keep_)) return removed;
  const size_t old = history_.size() - static_cast<size_t>(keep_);
  auto on_disk = SnapshotFilesByIteration(prefix_);
  const fs::path dir = SnapshotDirectory(prefix_);
  std::error_code error;
  for (size_t i = 0; i < old; ++i) {
    std::vector<std::string>& names = on_disk[history_[i]];
    std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
      return ExtensionRank(a) < ExtensionRank(b);
    });
    for (const std::string& name : names) {
      const fs::path path = dir / name;
      if (fs::remove(path, error)) removed.push_back(path.string());
    }
  }
  history_.erase(history_.begin(), history_.begin() + static_cast<std::ptrdiff_t>(old));
  return removed;
}

}  // namespace dtrain
