#include "core/file_bytes.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "testing/files.h"

namespace dtrain {
namespace {

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(FileBytes, ReadsWholeFilesOfEverySizeReusingTheBuffer) {
  testing::TempDir dir;
  std::string bytes = "left over from the last file";
  for (size_t size : {size_t{0}, size_t{1}, size_t{1000}, size_t{65536}, size_t{200001}}) {
    std::string expected(size, '\0');
    for (size_t i = 0; i < size; ++i) expected[i] = static_cast<char>(i * 7 + size);
    const std::string path = dir.Path("f" + std::to_string(size));
    WriteFile(path, expected);
    ASSERT_TRUE(ReadFileInto(path, &bytes).ok());
    EXPECT_EQ(bytes, expected) << size << " bytes";
  }
}

TEST(FileBytes, AMissingFileIsNotFoundAndADirectoryAReadError) {
  testing::TempDir dir;
  std::string bytes;
  const Status missing = ReadFileInto(dir.Path("absent.jpg"), &bytes);
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.message(), "cannot open: No such file or directory");
  const Status directory = ReadFileInto(dir.Path("."), &bytes);
  EXPECT_FALSE(directory.ok());
  EXPECT_EQ(directory.message(), "read error: Is a directory");
}

TEST(FileBytes, ReadsFilesWhoseSizeIsNotKnownInAdvance) {
  std::string bytes;
  ASSERT_TRUE(ReadFileInto("/proc/self/status", &bytes).ok());  // size 0 in stat, not empty
  EXPECT_NE(bytes.find("Name:"), std::string::npos);
}

}  // namespace
}  // namespace dtrain
