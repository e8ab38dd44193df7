#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "data/convert.h"
#include "data/datum.h"
#include "data/image_list.h"
#include "data/lmdb_db.h"
#include "image_test_util.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::TempDir;

// Three images under dir/images/: two PNGs (4 x 5, 6 x 5) and one JPEG, listed in dir/list.txt.
void WriteImageset(const TempDir& dir, bool with_jpeg = true) {
  std::filesystem::create_directories(dir.Path("images/sub"));
  testing::WriteBytes(dir.Path("images/a.png"), testing::BgrPng(testing::GradientBgr(4, 5), 4, 5));
  testing::WriteBytes(dir.Path("images/sub/b c.png"),
                      testing::BgrPng(testing::GradientBgr(6, 5, 9), 6, 5));
  std::string list = "a.png 3\nsub/b c.png 1\n";
  if (with_jpeg) {
    testing::WriteBytes(dir.Path("images/d.jpg"),
                        testing::JpegBytes(testing::GradientBgr(8, 8), 8, 8, 3));
    list += "d.jpg 0\n";
  }
  testing::WriteBytes(dir.Path("list.txt"), list);
}

// Every (key, Datum) of an LMDB, in key order, Datums as stored (not decoded).
std::vector<std::pair<std::string, Datum>> ReadAll(const std::string& path) {
  std::vector<std::pair<std::string, Datum>> records;
  auto reader = LmdbReader::Open(path);
  EXPECT_TRUE(reader.ok()) << reader.status().message();
  if (!reader.ok()) return records;
  for (int64_t i = 0; i < (*reader)->Count(); ++i) {
    Datum datum;
    EXPECT_TRUE(datum.ParseFromArray((*reader)->value().data(), (*reader)->value().size()));
    records.emplace_back(std::string((*reader)->key()), datum);
    EXPECT_TRUE((*reader)->Next().ok());
  }
  return records;
}

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(ConvertImagesetTest, PlainDatumsHoldBgrPixelsUnderCaffesKeys) {
  TempDir dir;
  WriteImageset(dir);
  Status s = ConvertImageset(dir.Path("images") + "/", dir.Path("list.txt"), dir.Path("out"), {});
  ASSERT_TRUE(s.ok()) << s.message();
  const auto records = ReadAll(dir.Path("out"));
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].first, "00000000_a.png");
  EXPECT_EQ(records[1].first, "00000001_sub/b c.png");
  EXPECT_EQ(records[2].first, "00000002_d.jpg");
  const std::string names[3] = {"a.png", "sub/b c.png", "d.jpg"};
  const int labels[3] = {3, 1, 0};
  for (int i = 0; i < 3; ++i) {
    const Datum& datum = records[i].second;
    EXPECT_FALSE(datum.encoded());
    EXPECT_EQ(datum.label(), labels[i]);
    StatusOr<ChwImage> image =
        DecodeImage(FileBytes(dir.Path("images/" + names[i])), ImageColor::kColor);
    ASSERT_TRUE(image.ok());
    EXPECT_EQ(DatumShapeString(datum),
              "3x" + std::to_string(image->height) + "x" + std::to_string(image->width));
    EXPECT_EQ(datum.data(), std::string(image->pixels.begin(), image->pixels.end()));
  }
}

TEST(ConvertImagesetTest, EncodedKeepsTheFilesUnlessResizing) {
  TempDir dir;
  WriteImageset(dir);
  ImagesetOptions options;
  options.encoded = true;
  Status s =
      ConvertImageset(dir.Path("images") + "/", dir.Path("list.txt"), dir.Path("enc"), options);
  ASSERT_TRUE(s.ok()) << s.message();
  auto records = ReadAll(dir.Path("enc"));
  ASSERT_EQ(records.size(), 3u);
  EXPECT_TRUE(records[1].second.encoded());
  EXPECT_EQ(records[1].second.data(), FileBytes(dir.Path("images/sub/b c.png")));
  EXPECT_EQ(records[2].second.data(), FileBytes(dir.Path("images/d.jpg")));

  options.resize_height = 3;
  options.resize_width = 2;
  options.gray = true;
  s = ConvertImageset(dir.Path("images") + "/", dir.Path("list.txt"), dir.Path("small"), options);
  ASSERT_TRUE(s.ok()) << s.message();
  records = ReadAll(dir.Path("small"));
  for (const auto& [key, datum] : records) {
    EXPECT_TRUE(datum.encoded()) << key;
    Datum decoded;
    Status parsed = ParseDatum(datum.SerializeAsString(), key, &decoded);
    ASSERT_TRUE(parsed.ok()) << parsed.message();
    EXPECT_EQ(DatumShapeString(decoded), "1x3x2") << key;
  }
  EXPECT_EQ(DetectImageFormat(records[0].second.data()), ImageFormat::kPng);
  EXPECT_EQ(DetectImageFormat(records[2].second.data()), ImageFormat::kJpeg);
}

// A Data layer over an encoded LMDB of PNGs produces the tensors it produces over the plain one.
TEST(ConvertImagesetTest, DataLayerReadsEncodedAsPlain) {
  TempDir dir;
  WriteImageset(dir, /*with_jpeg=*/false);
  testing::WriteBytes(dir.Path("list.txt"), "a.png 3\na.png 4\n");  // one shape per batch
  ImagesetOptions options;
  ASSERT_TRUE(
      ConvertImageset(dir.Path("images/"), dir.Path("list.txt"), dir.Path("plain"), options).ok());
  options.encoded = true;
  ASSERT_TRUE(
      ConvertImageset(dir.Path("images/"), dir.Path("list.txt"), dir.Path("enc"), options).ok());
  std::vector<float> outputs[2];
  const char* names[2] = {"plain", "enc"};
  for (int k = 0; k < 2; ++k) {
    LayerParameter p;
    p.set_name("d");
    p.set_type("Data");
    p.add_top("data");
    p.add_top("label");
    p.mutable_data_param()->set_source(dir.Path(names[k]));
    p.mutable_data_param()->set_batch_size(2);
    p.mutable_data_param()->set_backend(DataParameter::LMDB);
    p.mutable_transform_param()->set_crop_size(3);
    p.mutable_transform_param()->set_mirror(true);
    auto layer = testing::MakeLayer(p, TRAIN);
    Tensor data, label;
    Status s = layer->Setup({}, {&data, &label});
    ASSERT_TRUE(s.ok()) << s.message();
    float loss;
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(layer->Forward({}, {&data, &label}, &loss).ok());
      outputs[k].insert(outputs[k].end(), data.data(), data.data() + data.count());
      outputs[k].insert(outputs[k].end(), label.data(), label.data() + label.count());
    }
    EXPECT_EQ(data.shape(), (std::vector<int>{2, 3, 3, 3}));
  }
  EXPECT_EQ(outputs[0], outputs[1]);
}

TEST(ConvertImagesetTest, ShuffleFollowsTheSeed) {
  TempDir dir;
  WriteImageset(dir);
  ImagesetOptions options;
  options.shuffle = true;
  std::vector<std::string> keys[3];
  const uint64_t seeds[3] = {5, 5, 6};
  for (int run = 0; run < 3; ++run) {
    options.seed = seeds[run];
    const std::string out = dir.Path("out" + std::to_string(run));
    ASSERT_TRUE(ConvertImageset(dir.Path("images/"), dir.Path("list.txt"), out, options).ok());
    for (const auto& record : ReadAll(out)) keys[run].push_back(record.first.substr(9));
  }
  EXPECT_EQ(keys[0], keys[1]);
  std::set<std::string> names(keys[0].begin(), keys[0].end());
  EXPECT_EQ(names, (std::set<std::string>{"a.png", "sub/b c.png", "d.jpg"}));
}

TEST(ConvertImagesetTest, BadImageNamesItAndLeavesNothing) {
  TempDir dir;
  WriteImageset(dir);
  const std::string jpeg = FileBytes(dir.Path("images/d.jpg"));
  testing::WriteBytes(dir.Path("images/sub/b c.png"), "\x89PNG\r\n\x1a\n garbage");
  Status s = ConvertImageset(dir.Path("images/"), dir.Path("list.txt"), dir.Path("out"), {});
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.message().rfind(dir.Path("list.txt") + ":2: image '" + dir.Path("images/") +
                                  "sub/b c.png': corrupt PNG: ",
                              0),
            0u)
      << s.message();
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(dir.Path(""))) {
    left.push_back(entry.path().filename().string());
  }
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"images", "list.txt"}));

  std::filesystem::remove(dir.Path("images/a.png"));
  s = ConvertImageset(dir.Path("images/"), dir.Path("list.txt"), dir.Path("out"), {});
  EXPECT_EQ(s.message(), dir.Path("list.txt") + ":1: image '" + dir.Path("images/") +
                             "a.png': cannot open: No such file or directory");
  EXPECT_FALSE(std::filesystem::exists(dir.Path("out")));
}

TEST(SplitListTest, BalancedDisjointAndCovering) {
  for (bool shuffle : {false, true}) {
    const auto lists = SplitIndices(10, 3, 7, shuffle);
    ASSERT_EQ(lists.size(), 3u);
    EXPECT_EQ(lists[0].size(), 4u);
    EXPECT_EQ(lists[1].size(), 3u);
    EXPECT_EQ(lists[2].size(), 3u);
    std::set<int64_t> all;
    for (const auto& list : lists) all.insert(list.begin(), list.end());
    EXPECT_EQ(all.size(), 10u);
    EXPECT_EQ(*all.begin(), 0);
    EXPECT_EQ(*all.rbegin(), 9);
    EXPECT_EQ(SplitIndices(10, 3, 7, shuffle), lists);  // the seed fixes it
  }
  EXPECT_EQ(SplitIndices(5, 2, 7, false)[1], (std::vector<int64_t>{1, 3}));
  EXPECT_NE(SplitIndices(100, 2, 7, true), SplitIndices(100, 2, 8, true));
}

TEST(SplitListTest, WritesOneListPerWorker) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 7; ++i)
    text += "dir/img " + std::to_string(i) + ".jpg " + std::to_string(i % 3) + "\n";
  testing::WriteBytes(dir.Path("train.txt"), text);
  const std::vector<std::string> outs = {dir.Path("w0.txt"), dir.Path("w1.txt")};
  Status s = SplitImageList(dir.Path("train.txt"), outs, 3, true);
  ASSERT_TRUE(s.ok()) << s.message();
  auto first = ReadImageList(outs[0]);
  auto second = ReadImageList(outs[1]);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->size(), 4u);
  EXPECT_EQ(second->size(), 3u);
  std::set<std::string> lines;
  for (const auto* list : {&*first, &*second}) {
    for (const ImageListEntry& entry : *list) lines.insert(ImageListLine(entry));
  }
  EXPECT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines.count("dir/img 4.jpg 1"), 1u);
  EXPECT_EQ(SplitImageList(dir.Path("train.txt"), outs, 3, true).message(),
            "output '" + outs[0] + "' already exists; refusing to overwrite it");
}

}  // namespace
}  // namespace dtrain
