// Shell words: splitting a command line given as one string (`--data-server="ARGS"`) into
// arguments, and quoting arguments back into a line a POSIX shell reads as the same words (for
// --dry-run plans and generated scripts). Pure functions.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace dtrain {

// Splits as /bin/sh would, without expansions: blanks separate words; '...' keeps everything
// literally; "..." keeps everything but \" \\ \$ \` escapes; a backslash outside quotes escapes
// the next character. An unterminated quote is an error quoting the text.
StatusOr<std::vector<std::string>> SplitShellWords(const std::string& text);

// `word` as is when it holds only characters no shell treats specially, else single-quoted.
std::string ShellQuote(const std::string& word);
// The words quoted and joined by spaces.
std::string ShellLine(const std::vector<std::string>& words);

}  // namespace dtrain
