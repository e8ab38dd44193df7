// Bytes from a user's file or a peer made fit for a message: printable ASCII as it is, every
// other byte as \xNN, so that a message never carries control characters or broken UTF-8 (a
// terminal, a log line or Python's str of an error stay readable). Pure.
#pragma once

#include <string>
#include <string_view>

namespace dtrain {

// At most `limit` input bytes are shown; a longer input ends in "... (N bytes)".
std::string PrintableBytes(std::string_view bytes, size_t limit = 200);

}  // namespace dtrain
