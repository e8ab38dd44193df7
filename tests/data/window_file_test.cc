// Window files (data/window_file.h): the fg/bg split by Caffe's rules, and every damaged file
// refused with the file, the line and what was wrong.
#include "data/window_file.h"

#include <gtest/gtest.h>

#include <string>

#include "data_test_util.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::TempDir;

// Reads `text` as a window file; fg_threshold 0.5, bg_threshold 0.3.
StatusOr<WindowFile> Read(const TempDir& dir, const std::string& text) {
  testing::WriteTextFile(dir.Path("windows.txt"), text);
  return ReadWindowFile(dir.Path("windows.txt"), 0.5f, 0.3f);
}

TEST(WindowFileTest, SplitsWindowsIntoForegroundAndBackground) {
  TempDir dir;
  auto file = Read(dir,
                   "# 0\na.jpg\n3\n100\n200\n3\n"
                   "4 0.9 1 2 30 40\n"                        // foreground
                   "2 0.4 5 6 50 60\n"                        // between the thresholds: unused
                   "7 0.1 0 0 10 10\n"                        // background, class dropped
                   "# 1 b.jpg 3 50 60 1 3 0.5 0 0 59 49\n");  // line breaks do not matter
  ASSERT_TRUE(file.ok()) << file.status().message();
  ASSERT_EQ(file->images.size(), 2u);
  EXPECT_EQ(file->images[1].path, "b.jpg");
  EXPECT_EQ(file->images[0].height, 100);
  EXPECT_EQ(file->images[0].width, 200);
  ASSERT_EQ(file->foreground.size(), 2u);
  EXPECT_EQ(file->foreground[0].label, 4);
  EXPECT_EQ(file->foreground[0].x2, 30);
  EXPECT_EQ(file->foreground[0].y2, 40);
  EXPECT_EQ(file->foreground[0].line, 7);
  EXPECT_EQ(file->foreground[1].image, 1);  // overlap == fg_threshold is foreground
  ASSERT_EQ(file->background.size(), 1u);
  EXPECT_EQ(file->background[0].label, 0);
  EXPECT_EQ(file->background[0].overlap, 0.f);
  EXPECT_EQ(file->background[0].x2, 10);
}

TEST(WindowFileTest, DamagedFilesAreRefusedWithTheLine) {
  TempDir dir;
  const std::string f = dir.Path("windows.txt");
  const struct {
    std::string text, message;
  } cases[] = {
      {"", "window file '" + f + "' is empty"},
      {"  \n\n", "window file '" + f + "' is empty"},
      {"0 a.jpg", f + ":1: expected '# image_index', got '0'"},
      {"# 1 a.jpg 3 10 10 0", f + ":1: image index 1 where 0 was expected (images are numbered "
                                  "0, 1, 2, ... in order)"},
      {"# 0\na.jpg\n2\n10 10 0", f + ":3: the channel count must be 1 or 3, got 2"},
      {"# 0 a.jpg 3 10 10 0\n# 1 b.jpg 1 10 10 0", f + ":2: image 1 has 1 channels but image 0 "
                                                       "has 3; every image of a window file needs "
                                                       "the same count"},
      {"# 0 a.jpg 3 0 10 0", f + ":1: the image height must be an integer in [1, 65536], got '0'"},
      {"# 0 a.jpg 3 10 10 -1", f + ":1: the window count must be an integer in [0, 1048576], "
                                   "got '-1'"},
      {"# 0 a.jpg 3 10 10 99999999999", f + ":1: the window count must be an integer in [0, "
                                            "1048576], got '99999999999'"},
      {"# 0\na.jpg\n3 10 10 2\n1 0.9 0 0 5 5\n1 0.9 0 0", f + ":5: file ends where a window's x2 "
                                                              "was expected"},
      {"# 0 a.jpg 3 10 10 1\n1 nan 0 0 5 5", f + ":2: a window's overlap must be a finite "
                                                 "number, got 'nan'"},
      {"# 0 a.jpg 3 10 10 1\n1 0.9 6 0 5 5", f + ":2: window (6, 0, 5, 5) needs x1 <= x2 and "
                                                 "y1 <= y2"},
      {"# 0 a.jpg 3 10 10 1\n1 0.9 -1 0 5 5", f + ":2: a window's x1 must be an integer in [0, "
                                                  "65536], got '-1'"},
      {"# 0 a.jpg 3 10 10 1\n0 0.8 0 0 5 5", f + ":2: a foreground window (overlap 0.800000 >= "
                                                 "fg_threshold) has class 0, the background class"},
      {"# 0 a.jpg 3 10 10 1\nx 0.8 0 0 5 5", f + ":2: a window's class index must be an integer "
                                                 "in [0, 2147483647], got 'x'"},
  };
  for (const auto& c : cases) {
    auto file = Read(dir, c.text);
    ASSERT_FALSE(file.ok()) << c.text;
    EXPECT_EQ(file.status().message(), c.message) << c.text;
  }
  auto missing = ReadWindowFile(dir.Path("none.txt"), 0.5f, 0.3f);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace dtrain
