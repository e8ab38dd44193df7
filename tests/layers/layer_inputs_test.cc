// What a layer's parameters name for it to read, as the launch and data-server commands see it.
#include "layers/layer_inputs.h"

#include <gtest/gtest.h>

#include <string>

#include "proto/net.pb.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::ParseLayerParameter;

TEST(LayerInputs, EachDataLayerTypeNamesItsRecordsAndFiles) {
  LayerInputs lmdb = InputsOfLayer(ParseLayerParameter(
      R"(name: "d" type: "Data" transform_param { mean_file: "t.binaryproto" }
         data_param { source: "train_%#_lmdb" mean_file: "legacy.binaryproto" })"));
  EXPECT_EQ(lmdb.format, RecordsFormat::kLmdb);
  EXPECT_EQ(lmdb.records, "train_%#_lmdb");
  EXPECT_EQ(lmdb.files, (std::vector<std::string>{"legacy.binaryproto", "t.binaryproto"}));

  EXPECT_EQ(InputsOfLayer(ParseLayerParameter(
                              R"(name: "d" type: "Data" data_param { source: "tcp://m:5555" })"))
                .format,
            RecordsFormat::kDataServer);
  // The detection data layers too: nothing for dtrain launch to stage.
  for (const char* type : {"AnnotatedData", "BoxData"}) {
    LayerParameter p = ParseLayerParameter(R"(name: "d" data_param { source: "tcp://m:5555" })");
    p.set_type(type);
    EXPECT_EQ(InputsOfLayer(p).format, RecordsFormat::kDataServer) << type;
    p.mutable_data_param()->set_source("voc_lmdb");
    EXPECT_EQ(InputsOfLayer(p).format, std::string(type) == "BoxData"
                                           ? RecordsFormat::kBoxLmdb
                                           : RecordsFormat::kAnnotatedLmdb)
        << type;
  }

  LayerInputs list = InputsOfLayer(ParseLayerParameter(
      R"(name: "i" type: "ImageData" image_data_param { source: "l.txt" root_folder: "/r/" })"));
  EXPECT_EQ(list.format, RecordsFormat::kImageList);
  EXPECT_EQ(list.records, "l.txt");
  EXPECT_EQ(list.root_folder, "/r/");

  EXPECT_EQ(InputsOfLayer(ParseLayerParameter(
                              R"(name: "h" type: "HDF5Data" hdf5_data_param { source: "h.txt" })"))
                .format,
            RecordsFormat::kHdf5List);
  LayerInputs window = InputsOfLayer(ParseLayerParameter(
      R"(name: "w" type: "WindowData" window_data_param { source: "w.txt" root_folder: "/v/" })"));
  EXPECT_EQ(window.format, RecordsFormat::kWindowFile);
  EXPECT_EQ(window.root_folder, "/v/");

  LayerInputs video = InputsOfLayer(ParseLayerParameter(
      R"(name: "v" type: "VideoData" data_param { batch_size: 1 }
         video_data_param { video_type: VIDEO video_file: "street.mp4" })"));
  EXPECT_EQ(video.format, RecordsFormat::kVideoFile);
  EXPECT_EQ(video.records, "street.mp4");
  // A camera (refused when the layer is built) names no file.
  LayerInputs camera = InputsOfLayer(ParseLayerParameter(
      R"(name: "v" type: "VideoData" video_data_param { video_type: WEBCAM })"));
  EXPECT_EQ(camera.format, RecordsFormat::kNone);
  EXPECT_TRUE(camera.records.empty());
}

TEST(LayerInputs, LayersThatReadNothingAndUnknownTypesNameNothing) {
  for (const char* text : {R"(name: "x" type: "Input")", R"(name: "x" type: "DummyData")",
                           R"(name: "x" type: "Convolution")", R"(name: "x" type: "NoSuchType")"}) {
    LayerInputs in = InputsOfLayer(ParseLayerParameter(text));
    EXPECT_EQ(in.format, RecordsFormat::kNone) << text;
    EXPECT_TRUE(in.records.empty() && in.root_folder.empty() && in.files.empty()) << text;
  }
}

TEST(LayerInputs, RecordsArePointedElsewhereOnlyForLayersThatReadThem) {
  LayerParameter list =
      ParseLayerParameter(R"(name: "i" type: "ImageData" image_data_param { source: "all.txt" })");
  ASSERT_TRUE(SetRecordsOfLayer(&list, "rank_1.txt").ok());
  EXPECT_EQ(list.image_data_param().source(), "rank_1.txt");
  LayerParameter rows =
      ParseLayerParameter(R"(name: "h" type: "HDF5Data" hdf5_data_param { source: "a.txt" })");
  ASSERT_TRUE(SetRecordsOfLayer(&rows, "b.txt").ok());
  EXPECT_EQ(rows.hdf5_data_param().source(), "b.txt");

  LayerParameter video = ParseLayerParameter(
      R"(name: "v" type: "VideoData" video_data_param { video_type: VIDEO video_file: "a.mp4" })");
  ASSERT_TRUE(SetRecordsOfLayer(&video, "b.mp4").ok());
  EXPECT_EQ(video.video_data_param().video_file(), "b.mp4");

  LayerParameter conv = ParseLayerParameter(R"(name: "conv1" type: "Convolution")");
  const Status status = SetRecordsOfLayer(&conv, "x.txt");
  EXPECT_EQ(status.message(), "layer 'conv1' (Convolution) reads no records to point at 'x.txt'");
  EXPECT_FALSE(conv.has_image_data_param());
}

}  // namespace
}  // namespace dtrain
