// Line-oriented text files (annotation boxes, detection lists): lines numbered from 1, and the
// blank-separated words of a line. Free functions; thread-safe.
#pragma once

#include <string>
#include <vector>

namespace dtrain {

// The lines of `text`, without their "\n" (a last line without one counts too).
std::vector<std::string> TextLines(const std::string& text);

// The words of `line` separated by spaces, tabs or a Windows "\r"; none for a blank line.
std::vector<std::string> BlankSeparatedFields(const std::string& line);

}  // namespace dtrain
