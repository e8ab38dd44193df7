// Hostile input to the detection capabilities: absurd settings of the detection layers refused
// by `dtrain check` before anything is allocated, damaged annotation data refused by
// `dtrain convert annoset` with the file and line, leaving no LMDB, and damaged AnnotatedDatum
// records stopping `dtrain train` with the record named. Every run is under a time
// limit and must exit 1.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "data/image_test_util.h"
#include "data/lmdb_db.h"
#include "hostile/hostile.h"
#include "proto/annotation.pb.h"
#include "testing/files.h"

namespace dtrain {
namespace {

using testing::RunDtrainWithin;
using testing::TempDir;
using testing::WriteTextFile;

testing::CommandResult CheckNet(const TempDir& dir, const std::string& net) {
  WriteTextFile(dir.Path("net.prototxt"), net);
  return RunDtrainWithin(120, "check --model=" + dir.Path("net.prototxt"));
}

TEST(HostileDetection, AbsurdLayerSettingsAreRefusedBeforeAnyAllocation) {
  TempDir dir;
  EXPECT_REFUSED_WITH(
      CheckNet(dir,
               "layer { name: 'f' type: 'Input' top: 'f' top: 'r' input_param { shape { dim: 1 "
               "dim: 8 dim: 10 dim: 10 } shape { dim: 4 dim: 5 } } }\n"
               "layer { name: 'roi' type: 'ROIPooling' bottom: 'f' bottom: 'r' top: 'p' "
               "roi_pooling_param { pooled_h: 100000 pooled_w: 100000 } }\n"),
      "layer 'roi' (ROIPooling): a tensor of shape 4 x 8 x 100000 x 100000 (320000000000 values");
  EXPECT_REFUSED_WITH(
      CheckNet(dir,
               "layer { name: 'in' type: 'Input' top: 'loc' top: 'conf' top: 'pri' input_param "
               "{ shape { dim: 1 dim: 16 } shape { dim: 1 dim: 8 } shape { dim: 1 dim: 2 dim: 16 "
               "} } }\n"
               "layer { name: 'out' type: 'DetectionOutput' bottom: 'loc' bottom: 'conf' "
               "bottom: 'pri' top: 'd' detection_output_param { num_classes: 4000000000 } }\n"),
      "layer 'out' (DetectionOutput): detection_output_param.num_classes is 4000000000, more "
      "than a dimension may be (2147483647)");
  EXPECT_REFUSED_WITH(
      CheckNet(dir,
               "layer { name: 'in' type: 'Input' top: 'f' input_param { shape { dim: 1 dim: 8 "
               "dim: 10 dim: 10 } } }\n"
               "layer { name: 'r' type: 'Reorg' bottom: 'f' top: 'o' "
               "reorg_param { stride: 4294967295 } }\n"),
      "layer 'r' (Reorg): reorg_param.stride is 4294967295, more than a dimension may be "
      "(2147483647)");
}

TEST(HostileDetection, DamagedAnnotationsStopTheConversionNamingFileAndLine) {
  TempDir dir;
  std::filesystem::create_directories(dir.Path("voc"));
  testing::WriteBytes(dir.Path("voc/a.png"), testing::BgrPng(testing::GradientBgr(1, 1), 1, 1));
  WriteTextFile(dir.Path("map.prototxt"), "item { name: 'cat' label: 1 }\n");
  WriteTextFile(dir.Path("list.txt"), "a.png a.xml\n");
  const std::string command = "convert annoset " + dir.Path("voc") + "/ " + dir.Path("list.txt") +
                              " " + dir.Path("out") +
                              " --anno_type=detection --label_map_file=" + dir.Path("map.prototxt");
  const std::string xml = dir.Path("voc/a.xml");
  const std::pair<std::string, std::string> cases[] = {
      {"<annotation>\n<object><name>cat", xml + ":2: "},
      {"<annotation><object><name>dog</name><bndbox/></object></annotation>",
       xml + ":1: object name 'dog' is not in the label map"},
      {"<annotation><object><name>cat</name><bndbox><xmin>1e999</xmin><ymin>0</ymin>"
       "<xmax>1</xmax><ymax>1</ymax></bndbox></object></annotation>",
       xml + ":1: xmin is not finite"},
      {"<annotation><size><width>1</width><height>1</height></size><object><name>cat</name>"
       "<bndbox><xmin>5</xmin><ymin>5</ymin><xmax>9</xmax><ymax>9</ymax></bndbox></object>"
       "</annotation>",
       "lies outside the 1x1 image"},
  };
  for (const auto& [text, message] : cases) {
    WriteTextFile(xml, text);
    EXPECT_REFUSED_WITH(RunDtrainWithin(120, command), message);
    EXPECT_FALSE(std::filesystem::exists(dir.Path("out"))) << text;
  }
}

// An AnnotatedDatum of a 2 x 2 gray image with one box.
std::string GoodRecord() {
  AnnotatedDatum record;
  Datum* datum = record.mutable_datum();
  datum->set_channels(1);
  datum->set_height(2);
  datum->set_width(2);
  datum->set_data(std::string("\x01\x02\x03\x04", 4));
  record.set_type(AnnotatedDatum::BBOX);
  AnnotationGroup* group = record.add_annotation_group();
  group->set_group_label(1);
  NormalizedBBox* box = group->add_annotation()->mutable_bbox();
  box->set_xmin(0.1f);
  box->set_ymin(0.1f);
  box->set_xmax(0.9f);
  box->set_ymax(0.9f);
  return record.SerializeAsString();
}

// Training stops at a damaged record with the layer and the record's key, exit 1, and leaves
// the files already written as they were; absurd samplers are refused before anything runs.
TEST(HostileDetection, DamagedAnnotatedRecordsStopTrainingNamingTheRecord) {
  TempDir dir;
  const std::string good = GoodRecord();
  auto writer = LmdbWriter::Create(dir.Path("db"));
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  ASSERT_TRUE((*writer)->Put(RecordKey(0), good).ok());
  ASSERT_TRUE((*writer)->Put(RecordKey(1), good).ok());
  ASSERT_TRUE((*writer)->Put(RecordKey(2), good.substr(0, good.size() / 2)).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  const std::string net = dir.Path("net.prototxt");
  auto write_net = [&](const std::string& sampler) {
    WriteTextFile(net,
                  "layer { name: 'data' type: 'AnnotatedData' top: 'data' top: 'label' "
                  "data_param { source: '" +
                      dir.Path("db") + "' batch_size: 1 backend: LMDB } " + sampler +
                      "}\n"
                      "layer { name: 'quiet' type: 'Silence' bottom: 'label' }\n"
                      "layer { name: 'ip' type: 'InnerProduct' bottom: 'data' top: 'ip' "
                      "inner_product_param { num_output: 1 weight_filler { type: "
                      "'gaussian' } } }\n"
                      "layer { name: 'loss' type: 'Reduction' bottom: 'ip' top: 'loss' "
                      "loss_weight: 1 }\n");
  };
  write_net("");
  WriteTextFile(dir.Path("solver.prototxt"), "net: '" + net +
                                                 "'\nbase_lr: 0.01\nlr_policy: 'fixed'\n"
                                                 "max_iter: 6\nsnapshot_prefix: '" +
                                                 dir.Path("snap") + "'\n");
  WriteTextFile(dir.Path("snap_iter_6.caffemodel"), "an earlier run's weights\n");
  EXPECT_REFUSED_WITH(RunDtrainWithin(120, "train --solver=" + dir.Path("solver.prototxt")),
                      "layer 'data' (AnnotatedData): LMDB '" + dir.Path("db") +
                          "': record '00000002': not a valid AnnotatedDatum");
  EXPECT_EQ(testing::ReadFile(dir.Path("snap_iter_6.caffemodel")), "an earlier run's weights\n");

  write_net("annotated_data_param { batch_sampler { max_trials: 4000000000 } } ");
  EXPECT_REFUSED_WITH(RunDtrainWithin(120, "check --model=" + net),
                      "layer 'data' (AnnotatedData): annotated_data_param.batch_sampler[0]: ");
}

}  // namespace
}  // namespace dtrain
