// Reading a whole file into memory (image files, for decoding). Errors say what failed, without
// the path, which callers give as context: "cannot open: No such file or directory" (NotFound
// when the file is missing), "read error: Input/output error". Stateless; thread-safe.
#pragma once

#include <string>

#include "core/status.h"

namespace dtrain {

// Replaces `bytes` with the contents of the file at `path`, reusing its capacity.
Status ReadFileInto(const std::string& path, std::string* bytes);

}  // namespace dtrain
