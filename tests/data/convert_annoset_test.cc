// dtrain convert annoset: images and their VOC boxes to an LMDB of AnnotatedDatums laid out as the
// SSD fork's convert_annoset writes them.
#include <gtest/gtest.h>

#include <filesystem>

#include "data/convert.h"
#include "data/image_decode.h"
#include "data/lmdb_db.h"
#include "image_test_util.h"
#include "proto/annotation.pb.h"
#include "testing/layer_test_util.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

using testing::TempDir;

std::string Voc(int width, int height, const std::string& objects) {
  return "<annotation><size><width>" + std::to_string(width) + "</width><height>" +
         std::to_string(height) + "</height></size>" + objects + "</annotation>";
}

std::string VocObject(const std::string& name, int xmin, int ymin, int xmax, int ymax) {
  return "<object><name>" + name + "</name><bndbox><xmin>" + std::to_string(xmin) +
         "</xmin><ymin>" + std::to_string(ymin) + "</ymin><xmax>" + std::to_string(xmax) +
         "</xmax><ymax>" + std::to_string(ymax) + "</ymax></bndbox></object>";
}

// Two images (a 10 x 8 PNG with two boxes, a 16 x 16 JPEG with one), their XML files and a
// label map, under dir/voc/.
void WriteVoc(const TempDir& dir) {
  std::filesystem::create_directories(dir.Path("voc/Annotations"));
  testing::WriteBytes(dir.Path("voc/a.png"), testing::BgrPng(testing::GradientBgr(8, 10), 8, 10));
  testing::WriteBytes(dir.Path("voc/b.jpg"),
                      testing::JpegBytes(testing::GradientBgr(16, 16), 16, 16, 3));
  testing::WriteBytes(dir.Path("voc/Annotations/a.xml"),
                      Voc(10, 8, VocObject("cat", 1, 2, 6, 8) + VocObject("dog", 0, 0, 10, 4)));
  testing::WriteBytes(dir.Path("voc/Annotations/b.xml"),
                      Voc(16, 16, VocObject("dog", 4, 4, 12, 8)));
  testing::WriteBytes(dir.Path("list.txt"), "a.png Annotations/a.xml\nb.jpg Annotations/b.xml\n");
  testing::WriteBytes(dir.Path("labelmap.prototxt"),
                      "item { name: 'none_of_the_above' label: 0 display_name: 'background' }\n"
                      "item { name: 'cat' label: 1 }\nitem { name: 'dog' label: 2 }\n");
}

std::vector<std::pair<std::string, AnnotatedDatum>> ReadAll(const std::string& path) {
  std::vector<std::pair<std::string, AnnotatedDatum>> records;
  auto reader = LmdbReader::Open(path);
  EXPECT_TRUE(reader.ok()) << reader.status().message();
  if (!reader.ok()) return records;
  for (int64_t i = 0; i < (*reader)->Count(); ++i) {
    AnnotatedDatum datum;
    EXPECT_TRUE(datum.ParseFromArray((*reader)->value().data(), (*reader)->value().size()));
    records.emplace_back(std::string((*reader)->key()), datum);
    EXPECT_TRUE((*reader)->Next().ok());
  }
  return records;
}

AnnosetOptions Detection(const TempDir& dir) {
  AnnosetOptions options;
  options.anno_type = "detection";
  options.label_map_file = dir.Path("labelmap.prototxt");
  return options;
}

TEST(ConvertAnnosetTest, RecordsHoldTheImageAndItsNormalisedBoxesUnderTheForksKeys) {
  TempDir dir;
  WriteVoc(dir);
  AnnosetOptions options = Detection(dir);
  options.image.resize_height = 4;  // boxes stay normalised by the original size
  options.image.resize_width = 5;
  Status s = ConvertAnnoset(dir.Path("voc") + "/", dir.Path("list.txt"), dir.Path("out"), options);
  ASSERT_TRUE(s.ok()) << s.message();
  const auto records = ReadAll(dir.Path("out"));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].first, "00000000_a.png");
  EXPECT_EQ(records[1].first, "00000001_b.jpg");
  const AnnotatedDatum& a = records[0].second;
  EXPECT_EQ(a.type(), AnnotatedDatum::BBOX);
  EXPECT_EQ(a.datum().channels(), 3);
  EXPECT_EQ(a.datum().height(), 4);
  EXPECT_EQ(a.datum().width(), 5);
  ASSERT_EQ(a.annotation_group_size(), 2);
  EXPECT_EQ(a.annotation_group(0).group_label(), 1);
  const NormalizedBBox& cat = a.annotation_group(0).annotation(0).bbox();
  EXPECT_FLOAT_EQ(cat.xmin(), 0.1f);
  EXPECT_FLOAT_EQ(cat.ymin(), 0.25f);
  EXPECT_FLOAT_EQ(cat.xmax(), 0.6f);
  EXPECT_FLOAT_EQ(cat.ymax(), 1.f);
  EXPECT_EQ(a.annotation_group(1).group_label(), 2);
  EXPECT_FLOAT_EQ(a.annotation_group(1).annotation(0).bbox().ymax(), 0.5f);
  const AnnotatedDatum& b = records[1].second;
  ASSERT_EQ(b.annotation_group_size(), 1);
  EXPECT_FLOAT_EQ(b.annotation_group(0).annotation(0).bbox().xmin(), 0.25f);
}

TEST(ConvertAnnosetTest, EncodedRecordsKeepTheFilesOrReencodeThemAsAsked) {
  TempDir dir;
  WriteVoc(dir);
  AnnosetOptions options = Detection(dir);
  options.image.encoded = true;
  ASSERT_TRUE(
      ConvertAnnoset(dir.Path("voc") + "/", dir.Path("list.txt"), dir.Path("kept"), options).ok());
  auto kept = ReadAll(dir.Path("kept"));
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_TRUE(kept[0].second.datum().encoded());
  EXPECT_EQ(DetectImageFormat(kept[0].second.datum().data()), ImageFormat::kPng);
  EXPECT_EQ(DetectImageFormat(kept[1].second.datum().data()), ImageFormat::kJpeg);
  options.image.encode_type = "png";
  ASSERT_TRUE(
      ConvertAnnoset(dir.Path("voc") + "/", dir.Path("list.txt"), dir.Path("png"), options).ok());
  auto png = ReadAll(dir.Path("png"));
  EXPECT_EQ(DetectImageFormat(png[1].second.datum().data()), ImageFormat::kPng);
  EXPECT_EQ(png[0].second.datum().data(), kept[0].second.datum().data());  // already PNG
}

TEST(ConvertAnnosetTest, ClassificationListsMakeRecordsWithoutBoxes) {
  TempDir dir;
  WriteVoc(dir);
  testing::WriteBytes(dir.Path("classes.txt"), "a.png 4\nb.jpg 7\n");
  AnnosetOptions options;  // the fork's default anno_type
  ASSERT_TRUE(
      ConvertAnnoset(dir.Path("voc") + "/", dir.Path("classes.txt"), dir.Path("out"), options)
          .ok());
  auto records = ReadAll(dir.Path("out"));
  ASSERT_EQ(records.size(), 2u);
  EXPECT_FALSE(records[1].second.has_type());
  EXPECT_EQ(records[1].second.datum().label(), 7);
  EXPECT_EQ(records[1].second.annotation_group_size(), 0);
}

TEST(ConvertAnnosetTest, BadInputIsAnErrorAndLeavesNoOutput) {
  TempDir dir;
  WriteVoc(dir);
  const std::string root = dir.Path("voc") + "/";
  AnnosetOptions options = Detection(dir);
  testing::WriteBytes(dir.Path("missing.txt"),
                      "a.png Annotations/a.xml\nb.jpg Annotations/x.xml\n");
  Status s = ConvertAnnoset(root, dir.Path("missing.txt"), dir.Path("out"), options);
  EXPECT_EQ(s.message(), dir.Path("missing.txt") + ":2: annotation file '" + root +
                             "Annotations/x.xml': cannot open: No such file or directory");
  EXPECT_FALSE(std::filesystem::exists(dir.Path("out")));

  testing::WriteBytes(dir.Path("one.txt"), "a.png\n");
  EXPECT_EQ(ConvertAnnoset(root, dir.Path("one.txt"), dir.Path("out"), options).message(),
            dir.Path("one.txt") + ":1: expected \"image annotation\" (two paths), got 1 fields");

  AnnosetOptions no_map = options;
  no_map.label_map_file.clear();
  EXPECT_EQ(ConvertAnnoset(root, dir.Path("list.txt"), dir.Path("out"), no_map).message(),
            "--label_type=xml needs --label_map_file (a LabelMap prototxt)");
  AnnosetOptions bad_type = options;
  bad_type.label_type = "yaml";
  EXPECT_EQ(ConvertAnnoset(root, dir.Path("list.txt"), dir.Path("out"), bad_type).message(),
            "--label_type must be xml, json or txt, not 'yaml'");
  AnnosetOptions bad_encoding = options;
  bad_encoding.image.encoded = true;
  bad_encoding.image.encode_type = "gif";
  EXPECT_EQ(ConvertAnnoset(root, dir.Path("list.txt"), dir.Path("out"), bad_encoding).message(),
            "encode_type 'gif' is not jpg or png");
  EXPECT_FALSE(std::filesystem::exists(dir.Path("out")));
}

TEST(ConvertAnnosetTest, TheCommandRefusesTheForksAspectResizeAndForeignFlags) {
  TempDir dir;
  WriteVoc(dir);
  auto r = testing::RunDtrain("convert annoset " + dir.Path("voc") + "/ " + dir.Path("list.txt") +
                              " " + dir.Path("out") + " --anno_type=detection --label_map_file=" +
                              dir.Path("labelmap.prototxt") + " --min_dim=300");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--min_dim is refused: Intel Caffe's convert_annoset ignores it while "
                          "the SSD fork resizes by it"),
            std::string::npos)
      << r.output;
  r = testing::RunDtrain("convert imageset " + dir.Path("voc") + "/ " + dir.Path("list.txt") + " " +
                         dir.Path("out") + " --label_type=xml");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--label_type applies to convert annoset only"), std::string::npos)
      << r.output;
  r = testing::RunDtrain(
      "convert annoset " + dir.Path("voc") + "/ " + dir.Path("list.txt") + " " + dir.Path("out") +
      " --anno_type=detection --label_map_file=" + dir.Path("labelmap.prototxt"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Processed 2 files, 3 boxes."), std::string::npos) << r.output;
}

}  // namespace
}  // namespace dtrain
