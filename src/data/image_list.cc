#include "data/image_list.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>

#include "core/logging.h"

namespace dtrain {

StatusOr<std::vector<ImageListEntry>> ReadImageList(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return NotFound("image list '" + path + "' does not exist");
  }
  std::ifstream in(path);
  if (!in) return IoError("cannot read image list '" + path + "'");
  std::vector<ImageListEntry> entries;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.find_first_not_of(" \t") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(line) + ": ";
    const size_t space = text.find_last_of(' ');
    if (space == std::string::npos || space == 0 || space + 1 == text.size()) {
      return InvalidArgument(where + "expected 'path label', got '" + text + "'");
    }
    const std::string label = text.substr(space + 1);
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(label.c_str(), &end, 10);
    if (*end != '\0' || errno == ERANGE || value < INT32_MIN || value > INT32_MAX) {
      return InvalidArgument(where + "label '" + label + "' is not an integer (the label is the " +
                             "text after the last space)");
    }
    entries.push_back({text.substr(0, space), static_cast<int>(value), line});
  }
  if (in.bad()) return IoError("error reading image list '" + path + "'");
  if (entries.empty()) return InvalidArgument("image list '" + path + "' lists no images");
  return entries;
}

std::string ImageListLine(const ImageListEntry& entry) {
  return entry.path + " " + std::to_string(entry.label);
}

std::vector<std::vector<int64_t>> SplitIndices(int64_t count, int workers, uint64_t seed,
                                               bool shuffle) {
  std::vector<int64_t> order(static_cast<size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  if (shuffle) {
    Rng rng(seed);
    ShuffleWith(rng, &order);
  }
  std::vector<std::vector<int64_t>> lists(workers);
  for (int64_t i = 0; i < count; ++i) lists[i % workers].push_back(order[i]);
  return lists;
}

Status SplitImageList(const std::string& list, const std::vector<std::string>& out_paths,
                      uint64_t seed, bool shuffle) {
  std::set<std::string> seen;
  for (const std::string& path : out_paths) {
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) {
      return InvalidArgument("output '" + path + "' already exists; refusing to overwrite it");
    }
    if (!seen.insert(path).second) {
      return InvalidArgument("two workers would write the same list '" + path + "'");
    }
  }
  DT_ASSIGN_OR_RETURN(std::vector<ImageListEntry> entries, ReadImageList(list));
  const int workers = static_cast<int>(out_paths.size());
  const auto split = SplitIndices(static_cast<int64_t>(entries.size()), workers, seed, shuffle);
  std::vector<std::string> written;
  auto fail = [&](Status status) {
    std::error_code ec;
    for (const std::string& path : written) std::filesystem::remove(path, ec);
    return status;
  };
  for (int k = 0; k < workers; ++k) {
    const std::string& path = out_paths[k];
    const std::string partial = path + ".partial";
    {
      std::ofstream out(partial, std::ios::trunc);
      for (int64_t index : split[k]) out << ImageListLine(entries[index]) << "\n";
      out.close();
      if (!out) {
        std::error_code ec;
        std::filesystem::remove(partial, ec);
        return fail(IoError("cannot write '" + partial + "'"));
      }
    }
    std::error_code ec;
    std::filesystem::rename(partial, path, ec);
    if (ec) {
      std::filesystem::remove(partial, ec);
      return fail(IoError("cannot rename '" + partial + "' to '" + path + "'"));
    }
    written.push_back(path);
    DT_LOG(INFO) << "Wrote " << split[k].size() << " images to " << path;
  }
  return Status::Ok();
}

}  // namespace dtrain
