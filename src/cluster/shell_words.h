// Shell words: splitting a command line given as one string (`--data-server="ARGS"`) into
// arguments, as a POSIX shell would (shell_quote.h goes the other way). Pure function.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain {

// Splits as /bin/sh would, without expansions: blanks separate words; '...' keeps everything
// literally; "..." keeps everything but \" \\ \$ \` escapes; a backslash outside quotes escapes
// the next character. An unterminated quote is an error quoting the text.
StatusOr<std::vector<std::string>> SplitShellWords(const std::string& text);

}  // namespace dtrain
