#include "data/text_fields.h"

namespace dtrain {

std::vector<std::string> TextLines(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::vector<std::string> BlankSeparatedFields(const std::string& line) {
  std::vector<std::string> fields;
  for (size_t pos = 0; (pos = line.find_first_not_of(" \t\r", pos)) != std::string::npos;) {
    const size_t stop = line.find_first_of(" \t\r", pos);
    fields.push_back(line.substr(pos, stop - pos));
    pos = stop;
  }
  return fields;
}

}  // namespace dtrain
