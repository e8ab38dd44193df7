// Files for tests: a temporary directory removed at the end of the test, and whole-file reads and
// writes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace dtrain::testing {

// A fresh directory under the system temp dir, removed (with its contents) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // The path of `name` inside the directory.
  std::string Path(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// The whole file as bytes; empty if it cannot be read.
std::string ReadFile(const std::string& path);

// Writes raw bytes to a file.
void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace dtrain::testing
