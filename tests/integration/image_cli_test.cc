// `dtrain convert imageset` and `dtrain split-list` through the real command line: what they
// write, and the exact message and non-zero exit of each bad invocation.
#include <gtest/gtest.h>

#include <filesystem>

#include "data/image_list.h"
#include "data/image_test_util.h"
#include "data/lmdb_db.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::RunDtrain;
using testing::WriteTextFile;

void WriteTwoImages(const testing::TempDir& dir) {
  std::filesystem::create_directories(dir.Path("img"));
  testing::WriteBytes(dir.Path("img/a.png"), testing::BgrPng(testing::GradientBgr(4, 4), 4, 4));
  testing::WriteBytes(dir.Path("img/b.jpg"),
                      testing::JpegBytes(testing::GradientBgr(4, 4), 4, 4, 3));
  WriteTextFile(dir.Path("list.txt"), "a.png 0\nb.jpg 1\n");
}

TEST(ImageCli, ConvertImagesetWritesAnLmdb) {
  testing::TempDir dir;
  WriteTwoImages(dir);
  auto r = RunDtrain(
      "convert imageset img/ list.txt out_lmdb --resize_height=8 --resize_width=6 "
      "--shuffle --seed=3 --encoded",
      dir.Path(""));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto reader = LmdbReader::Open(dir.Path("out_lmdb"));
  ASSERT_TRUE(reader.ok()) << reader.status().message();
  EXPECT_EQ((*reader)->Count(), 2);
}

TEST(ImageCli, ConvertImagesetBadImageFailsAndWritesNothing) {
  testing::TempDir dir;
  WriteTwoImages(dir);
  testing::WriteBytes(dir.Path("img/b.jpg"), "\xFF\xD8\xFF garbage");
  auto r = RunDtrain("convert imageset img/ list.txt out_lmdb", dir.Path(""));
  EXPECT_FAILS_WITH(r, "dtrain convert: error: list.txt:2: image 'img/b.jpg': corrupt JPEG");
  EXPECT_FALSE(std::filesystem::exists(dir.Path("out_lmdb")));
}

TEST(ImageCli, ConvertImagesetUsageErrors) {
  testing::TempDir dir;
  WriteTwoImages(dir);
  EXPECT_FAILS_WITH(RunDtrain("convert imageset img/ list.txt", dir.Path("")),
                    "dtrain convert: error: usage: dtrain convert imageset ROOT LIST OUT_LMDB "
                    "[--resize_height=H] [--resize_width=W] [--shuffle] [--encoded] "
                    "[--encode_type=jpg|png] [--gray] "
                    "[--seed=N]");
  EXPECT_FAILS_WITH(RunDtrain("convert imageset img/ list.txt out --resize_height=8", dir.Path("")),
                    "dtrain convert: error: resize needs both --resize_height and --resize_width "
                    "(got 8 and 0)");
  EXPECT_FAILS_WITH(RunDtrain("convert imageset img/ nolist.txt out", dir.Path("")),
                    "dtrain convert: error: image list 'nolist.txt' does not exist");
  EXPECT_FAILS_WITH(RunDtrain("convert mnist a b c --gray", dir.Path("")),
                    "dtrain convert: error: --gray applies to convert imageset and annoset only");
  WriteTextFile(dir.Path("bad.txt"), "a.png 0\nb.jpg\n");
  EXPECT_FAILS_WITH(RunDtrain("convert imageset img/ bad.txt out", dir.Path("")),
                    "dtrain convert: error: bad.txt:2: expected 'path label', got 'b.jpg'");
  EXPECT_FALSE(std::filesystem::exists(dir.Path("out")));
}

TEST(ImageCli, SplitListWritesBalancedPerWorkerLists) {
  testing::TempDir dir;
  std::string text;
  for (int i = 0; i < 11; ++i)
    text += "n/" + std::to_string(i) + ".jpg " + std::to_string(i) + "\n";
  WriteTextFile(dir.Path("train.txt"), text);
  auto r = RunDtrain("split-list --workers=3 train.txt train_%#_of_%*.txt --seed=9", dir.Path(""));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  size_t total = 0;
  for (int k = 0; k < 3; ++k) {
    auto list = ReadImageList(dir.Path("train_" + std::to_string(k) + "_of_3.txt"));
    ASSERT_TRUE(list.ok()) << list.status().message();
    EXPECT_EQ(list->size(), k < 2 ? 4u : 3u);
    total += list->size();
  }
  EXPECT_EQ(total, 11u);
}

TEST(ImageCli, SplitListErrors) {
  testing::TempDir dir;
  WriteTextFile(dir.Path("train.txt"), "a.jpg 1\nb.jpg 2\n");
  EXPECT_FAILS_WITH(RunDtrain("split-list --workers=2 train.txt out.txt", dir.Path("")),
                    "dtrain split-list: error: OUT_PATTERN 'out.txt' has no %# (the worker index), "
                    "e.g. train_%#_of_%*.txt");
  EXPECT_FAILS_WITH(RunDtrain("split-list train.txt out_%#.txt", dir.Path("")),
                    "dtrain split-list: error: split-list needs --workers=N, the number of "
                    "per-worker lists");
  EXPECT_FAILS_WITH(RunDtrain("split-list --workers=0 train.txt out_%#.txt", dir.Path("")),
                    "dtrain split-list: error: --workers must be at least 1");
  EXPECT_FAILS_WITH(
      RunDtrain("split-list --workers=2 train.txt", dir.Path("")),
      "dtrain split-list: error: usage: dtrain split-list --workers=N LIST OUT_PATTERN");
  EXPECT_FAILS_WITH(RunDtrain("split-list --workers=2 missing.txt out_%#.txt", dir.Path("")),
                    "dtrain split-list: error: image list 'missing.txt' does not exist");
  EXPECT_FALSE(std::filesystem::exists(dir.Path("out_0.txt")));
}

}  // namespace
}  // namespace dtrain
