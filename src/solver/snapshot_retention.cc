#include "solver/snapshot_retention.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <system_error>

namespace dtrain {
namespace {

// The solver states first: see the header.
constexpr const char* kExtensions[] = {".solverstate", ".solverstate.h5", ".caffemodel",
                                       ".caffemodel.h5"};

// The iteration of "<base>_iter_<N><extension>", or -1 for any other name.
long long IterationOf(const std::string& name, const std::string& base) {
  const std::string lead = base + "_iter_";
  if (name.rfind(lead, 0) != 0) return -1;
  size_t end = lead.size();
  while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
  if (end == lead.size() || end - lead.size() > 18) return -1;
  const std::string rest = name.substr(end);
  if (std::find(std::begin(kExtensions), std::end(kExtensions), rest) == std::end(kExtensions))
    return -1;
  return std::stoll(name.substr(lead.size(), end - lead.size()));
}

}  // namespace

std::vector<std::string> RemoveOldSnapshots(const std::string& snapshot_prefix, int keep) {
  std::vector<std::string> removed;
  if (keep <= 0) return removed;
  const std::filesystem::path prefix(snapshot_prefix);
  const std::filesystem::path dir = prefix.parent_path().empty() ? "." : prefix.parent_path();
  const std::string base = prefix.filename().string();
  std::map<long long, std::vector<std::string>> by_iteration;  // ascending
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    const long long iteration = IterationOf(name, base);
    if (iteration >= 0) by_iteration[iteration].push_back(name);
  }
  if (error || by_iteration.size() <= static_cast<size_t>(keep)) return removed;
  const size_t old = by_iteration.size() - static_cast<size_t>(keep);
  auto it = by_iteration.begin();
  for (size_t i = 0; i < old; ++i, ++it) {
    std::vector<std::string>& names = it->second;
    const std::string lead = base + "_iter_" + std::to_string(it->first);
    std::sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
      auto rank = [&](const std::string& n) {
        return std::find(std::begin(kExtensions), std::end(kExtensions), n.substr(lead.size())) -
               std::begin(kExtensions);
      };
      return rank(a) < rank(b);
    });
    for (const std::string& name : names) {
      const std::filesystem::path path = dir / name;
      if (std::filesystem::remove(path, error)) removed.push_back(path.string());
    }
  }
  return removed;
}

}  // namespace dtrain
