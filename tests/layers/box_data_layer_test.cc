// BoxData (the YOLO ports' data layer, Intel Caffe's): a tiny LMDB of encoded images with boxes
// read in TEST (pixels and rows as stored, 30 rows at most), Intel's random crop in TRAIN redrawn
// by hand, a data-only top, and every refusal's message.
#include "layers/box_data_layer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/rng.h"
#include "data/data_test_util.h"
#include "data/image_encode.h"
#include "data/in_process_data_server.h"
#include "data/lmdb_db.h"
#include "layers/layer_inputs.h"
#include "proto/blob.pb.h"
#include "proto/net.pb.h"
#include "served_layer_agreement.h"
#include "testing/files.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::MakeLayer;
using testing::TempDir;
using testing::Values;

constexpr int kHeight = 6, kWidth = 8;

// A 3-channel kHeight x kWidth image whose value at (y, x, c) is 10 y + x + 60 c, PNG-encoded
// (lossless), with `boxes` (6 values each) as float_data.
std::string Record(const std::vector<float>& boxes, bool encoded = true) {
  std::vector<uint8_t> pixels(kHeight * kWidth * 3);
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kWidth; ++x) {
      for (int c = 0; c < 3; ++c) pixels[(y * kWidth + x) * 3 + c] = 10 * y + x + 60 * c;
    }
  }
  Datum datum;
  if (encoded) {
    StatusOr<std::string> png = EncodePng({pixels.data(), 3, kHeight, kWidth});
    EXPECT_TRUE(png.ok());
    datum.set_data(*png);
    datum.set_encoded(true);
  } else {
    datum.set_channels(3);
    datum.set_height(kHeight);
    datum.set_width(kWidth);
    datum.set_data(pixels.data(), pixels.size());
  }
  for (float v : boxes) datum.add_float_data(v);
  return datum.SerializeAsString();
}

void WriteRecords(const std::string& path, const std::vector<std::string>& values) {
  auto writer = LmdbWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_TRUE((*writer)->Put(RecordKey(static_cast<int>(i)), values[i]).ok());
  }
  ASSERT_TRUE((*writer)->Close().ok());
}

LayerParameter Param(const std::string& source, int batch_size, const std::string& extra = "") {
  LayerParameter p = testing::ParseLayerParameter(
      "name: 'data' type: 'BoxData' top: 'data' top: 'label' " + extra);
  p.mutable_data_param()->set_source(source);
  p.mutable_data_param()->set_batch_size(batch_size);
  p.mutable_data_param()->set_backend(DataParameter::LMDB);
  return p;
}

class BoxDataLayerTest : public ::testing::Test {
 protected:
  Status SetupAndForward(const LayerParameter& p, Phase phase, uint64_t seed = 1) {
    layer_ = MakeLayer(p, phase, seed);
    if (!layer_) return InvalidArgument("no layer");
    DT_RETURN_IF_ERROR(layer_->Setup({}, top_));
    return layer_->Forward({}, top_, nullptr);
  }

  TempDir dir_;
  testing::LayerPtr layer_;
  Tensor data_, label_;
  TensorVec top_{&data_, &label_};
};

TEST_F(BoxDataLayerTest, TestPhaseGivesTheImageAndItsBoxesAsStored) {
  // Record 0: two boxes; record 1: 31 boxes, of which the label top keeps the first 30.
  std::vector<float> many;
  for (int k = 0; k < 31; ++k) many.insert(many.end(), {float(k), 0, 0.5f, 0.5f, 0.1f, 0.2f});
  WriteRecords(dir_.Path("db"), {Record({1, 0, 0.25f, 0.5f, 0.5f, 0.25f,  //
                                         3, 1, 0.75f, 0.1f, 0.2f, 0.3f}),
                                 Record(many)});
  const Status s = SetupAndForward(
      Param(dir_.Path("db"), 2, "transform_param { mean_value: 1 scale: 0.5 }"), TEST);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(data_.shape(), (std::vector<int>{2, 3, kHeight, kWidth}));
  EXPECT_EQ(label_.shape(), (std::vector<int>{2, 150}));
  // (pixel - 1) * 0.5 in CHW order: (0, 0, 0) is (0 - 1) * 0.5; channel 1, row 2, column 3
  // (83 - 1) * 0.5.
  EXPECT_FLOAT_EQ(data_.data()[0], -0.5f);
  EXPECT_FLOAT_EQ(data_.data()[(1 * kHeight + 2) * kWidth + 3], 41.f);
  std::vector<float> image0(150, 0.f);
  const float rows0[] = {1, 0.25f, 0.5f, 0.5f, 0.25f, 3, 0.75f, 0.1f, 0.2f, 0.3f};
  std::copy(rows0, rows0 + 10, image0.begin());
  const std::vector<float> labels = Values(label_);
  EXPECT_EQ(std::vector<float>(labels.begin(), labels.begin() + 150), image0);
  for (int k = 0; k < 30; ++k) {
    EXPECT_EQ(labels[150 + 5 * k], float(k));
    EXPECT_EQ(labels[150 + 5 * k + 4], 0.2f);
  }
}

TEST_F(BoxDataLayerTest, TrainPhaseCropsAsIntelWithTheRecordsOwnDraws) {
  // One box centred at (0.5, 0.5), 0.25 x 0.5 of the 8 x 6 image: pixels centre (4, 3), size
  // (2, 3). The draws of record 0 (seed 7, position 0), redone here: scale 1 - u / 100, the crop
  // int(8 s) - 1 by int(6 s) - 1 at x0, y0; redrawn until the centre is inside.
  WriteRecords(dir_.Path("db"), {Record({2, 0, 0.5f, 0.5f, 0.25f, 0.5f})});
  const Status s = SetupAndForward(Param(dir_.Path("db"), 1), TRAIN, 7);
  ASSERT_TRUE(s.ok()) << s.message();
  Rng rng(DeriveSeed(7, 1));
  float expected[5] = {};
  for (;;) {
    const float scale = static_cast<float>(1.0 - rng.UniformInt(30) / 100.0);
    const int w = static_cast<int>(8 * scale) - 1, h = static_cast<int>(6 * scale) - 1;
    const int x0 = static_cast<int>(rng.UniformInt(8 - w)),
              y0 = static_cast<int>(rng.UniformInt(6 - h));
    if (4 < x0 || 4 >= x0 + w || 3 < y0 || 3 >= y0 + h) continue;
    expected[0] = 2;
    expected[1] = float(4 - x0) / float(w);
    expected[2] = float(3 - y0) / float(h);
    expected[3] = 2.f / float(w);
    expected[4] = 3.f / float(h);
    break;
  }
  const std::vector<float> labels = Values(label_);
  for (int k = 0; k < 5; ++k) EXPECT_FLOAT_EQ(labels[k], expected[k]) << k;
  EXPECT_EQ(labels[5], 0.f);
  EXPECT_EQ(data_.shape(), (std::vector<int>{1, 3, kHeight, kWidth}));
}

TEST_F(BoxDataLayerTest, WithOnlyADataTopBoxesAreNotRead) {
  WriteRecords(dir_.Path("db"), {Record({})});
  LayerParameter p = Param(dir_.Path("db"), 1);
  p.clear_top();
  p.add_top("data");
  layer_ = MakeLayer(p, TRAIN);
  TensorVec top{&data_};
  ASSERT_TRUE(layer_->Setup({}, top).ok());
  const Status s = layer_->Forward({}, top, nullptr);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FLOAT_EQ(data_.data()[1], 1.f);
}

TEST_F(BoxDataLayerTest, RefusesParametersAndRecordsByName) {
  const std::string prefix = "layer 'data' (BoxData): ";
  WriteRecords(dir_.Path("good"), {Record({1, 0, 0.5f, 0.5f, 0.1f, 0.1f})});
  EXPECT_EQ(SetupAndForward(Param(dir_.Path("good"), 1, "transform_param { mirror: true }"), TRAIN)
                .message(),
            prefix +
                "transform_param.mirror is not supported by BoxData: Intel's BoxData would change "
                "the image without moving its boxes");
  EXPECT_EQ(
      SetupAndForward(Param(dir_.Path("good"), 1, "transform_param { crop_size: 4 }"), TRAIN)
          .message(),
      prefix +
          "transform_param.crop_size is not supported by BoxData: Intel's BoxData would change "
          "the image without moving its boxes");
  {
    LayerParameter p = Param(dir_.Path("good"), 1);
    p.add_top("label2");
    layer_ = MakeLayer(p, TRAIN);
    Tensor extra;
    TensorVec top{&data_, &label_, &extra};
    EXPECT_EQ(layer_->Setup({}, top).message(),
              prefix +
                  "one label top at most: Intel's data_param.side (a label top per value) is not "
                  "in dtrain's schema");
  }
  const std::vector<std::pair<std::string, std::string>> records = {
      {Record({1, 0, 0.5f, 0.5f, 0.1f, 0.1f}, false),
       "is not an encoded image: BoxData reads encoded (JPEG/PNG) Datums"},
      {Record({1, 0, 0.5f, 0.5f, 0.1f}),
       "holds 5 float_data values, not 6 per box (class, difficult, x, y, w, h) with at least "
       "one box"},
      {Record({}),
       "holds 0 float_data values, not 6 per box (class, difficult, x, y, w, h) with at least "
       "one box"},
      {Record({-1, 0, 0.5f, 0.5f, 0.1f, 0.1f}), ": box 0 has class -1.000000, below 0"},
      {Record({1, 0, 0.5f, NAN, 0.1f, 0.1f}), ": box 0 holds a value that is not finite"},
      {Record({1, 0, 1.5f, 0.5f, 0.1f, 0.1f}),
       ": no box's centre lies inside the image, so no training crop keeps one"},
  };
  for (size_t k = 0; k < records.size(); ++k) {
    const std::string db = dir_.Path("bad" + std::to_string(k));
    WriteRecords(db, {records[k].first});
    const std::string message = SetupAndForward(Param(db, 1), TRAIN).message();
    EXPECT_NE(message.find(records[k].second), std::string::npos) << message;
    EXPECT_EQ(message.rfind(prefix, 0), 0u) << message;
  }
}

// Fed by a data server shipping the LMDB's records, the layer gives exactly the tops it gives
// reading the LMDB itself: TRAIN (Intel's random crops, drawn from each record's position) and
// TEST, one rank and shard 1 of 2, over more than two epochs, and resumed from a saved position.
TEST_F(BoxDataLayerTest, FedByADataServerItGivesWhatTheLmdbGives) {
  std::vector<std::string> records;
  for (int i = 0; i < 5; ++i) {
    records.push_back(Record({float(i), 0, 0.2f + 0.1f * i, 0.5f, 0.3f, 0.4f,  //
                              float(i + 1), 1, 0.7f, 0.25f + 0.1f * i, 0.2f, 0.2f}));
  }
  WriteRecords(dir_.Path("db"), records);
  auto server = testing::StartDataServer(testing::ServedRecords(dir_.Path("db")));
  ASSERT_TRUE(server);
  const LayerParameter p = Param("", 2, "transform_param { mean_value: 3 scale: 0.5 }");
  for (Phase phase : {TRAIN, TEST}) {
    SCOPED_TRACE(phase == TRAIN ? "TRAIN" : "TEST");
    // 6 batches of 2: 12 positions of the shard, beyond two epochs of 5 records.
    testing::ExpectServedLayerMatchesLmdb(p, dir_.Path("db"), testing::ServerUri(*server), phase, 9,
                                          0, 1, 6);
    testing::ExpectServedLayerMatchesLmdb(p, dir_.Path("db"), testing::ServerUri(*server), phase, 9,
                                          1, 2, 6);
  }
}

TEST_F(BoxDataLayerTest, ADataServerShippingFloatsIsRefused) {
  testing::WriteTinyLmdb(dir_.Path("datums"), 4, 1, 2, 2);
  ServedData floats = testing::ServedRecords(dir_.Path("datums"));
  floats.shipping = SHIP_FLOATS;
  auto server = testing::StartDataServer(floats);
  ASSERT_TRUE(server);
  EXPECT_EQ(SetupAndForward(Param(testing::ServerUri(*server), 2), TRAIN).message(),
            "layer 'data' (BoxData): data server " + testing::ServerUri(*server) +
                " ships float batches (Datums transformed by the server: --ship=floats, the "
                "default of --solver for a Data layer), which BoxData cannot read; start the "
                "server with --ship=records");
}

TEST(BoxDataInputsTest, NamesItsLmdbForLaunchToStage) {
  LayerParameter p = Param("voc_boxes_lmdb", 8);
  LayerInputs in = InputsOfLayer(p);
  EXPECT_EQ(in.format, RecordsFormat::kBoxLmdb);
  EXPECT_EQ(in.records, "voc_boxes_lmdb");
  ASSERT_TRUE(SetRecordsOfLayer(&p, "rank0_lmdb").ok());
  EXPECT_EQ(p.data_param().source(), "rank0_lmdb");
}

}  // namespace
}  // namespace dtrain
