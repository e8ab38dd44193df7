// Runs the dtrain binary (or any shell command) for end-to-end tests and captures what it prints.
#pragma once

#include <string>

namespace dtrain::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs `command` through /bin/sh in `working_dir` (empty: the current one).
CommandResult RunShell(const std::string& command, const std::string& working_dir = "");
// Runs `dtrain <args>`.
CommandResult RunDtrain(const std::string& args, const std::string& working_dir = "");
// Writes text to a file, creating parent directories.
void WriteTextFile(const std::string& path, const std::string& text);

}  // namespace dtrain::testing

// A dtrain command that must fail (exit status 1: an error, not a crash) saying `text` (in stdout
// or stderr). Needs gtest.
#define EXPECT_FAILS_WITH(result, text)                                          \
  do {                                                                           \
    EXPECT_EQ((result).exit_code, 1) << (result).output;                         \
    EXPECT_NE((result).output.find(text), std::string::npos) << (result).output; \
  } while (0)
