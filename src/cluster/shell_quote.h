// Words quoted for a POSIX shell (bash, sh), for generated scripts: a word made only of
// characters no shell treats specially (letters, digits and _@%+=:,./-) stays as it is; any other
// word is put in single quotes, each ' in it written as '\''. So `--solver=my solver.prototxt`
// becomes '--solver=my solver.prototxt', and the empty word ''. Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

namespace dtrain {

std::string ShellQuote(const std::string& word);
// The words quoted and joined by single spaces.
std::string ShellJoin(const std::vector<std::string>& words);

}  // namespace dtrain
