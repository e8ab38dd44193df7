#include "core/printable.h"

#include <cstdio>

namespace dtrain {

std::string PrintableBytes(std::string_view bytes, size_t limit) {
  std::string text;
  const size_t shown = bytes.size() > limit ? limit : bytes.size();
  for (size_t i = 0; i < shown; ++i) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      text += static_cast<char>(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      text += hex;
    }
  }
  if (shown < bytes.size()) text += "... (" + std::to_string(bytes.size()) + " bytes)";
  return text;
}

}  // namespace dtrain
