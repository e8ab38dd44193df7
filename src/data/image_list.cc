#include "data/image_list.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>

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

}  // namespace dtrain
