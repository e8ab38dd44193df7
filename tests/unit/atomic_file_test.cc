#include "core/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "testing/files.h"

namespace dtrain {
namespace {

using testing::ReadFile;

TEST(AtomicFileTest, ReplacesTheFileWithTheGivenModeAndLeavesNoTemporary) {
  testing::TempDir dir;
  const std::string path = dir.Path("script.sh");
  ASSERT_TRUE(WriteFileAtomically(path, "old\n").ok());
  ASSERT_TRUE(WriteFileAtomically(path, "#!/bin/bash\necho hi\n", 0755).ok());
  EXPECT_EQ(ReadFile(path), "#!/bin/bash\necho hi\n");
  struct stat info;
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_TRUE(info.st_mode & S_IXUSR);  // a new file, so the new mode applies
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.Path("")),
                          std::filesystem::directory_iterator()),
            1);
}

TEST(AtomicFileTest, AFailureNamesThePathAndChangesNothing) {
  const Status status = WriteFileAtomically("/nonexistent/dir/f", "x");
  EXPECT_EQ(status.code(), StatusCode::kIo);
  EXPECT_NE(status.message().find("/nonexistent/dir/f: cannot create temporary file "
                                  "/nonexistent/dir/f.tmp-"),
            std::string::npos)
      << status.message();
}

}  // namespace
}  // namespace dtrain
