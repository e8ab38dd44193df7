#include "layers/annotated_data_layer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/rng.h"
#include "data/data_test_util.h"
#include "data/in_process_data_server.h"
#include "data/lmdb_db.h"
#include "detection/box.h"
#include "detection/sampler.h"
#include "proto/annotation.pb.h"
#include "proto/net.pb.h"
#include "served_layer_agreement.h"
#include "testing/files.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::LayerPtr;
using testing::MakeLayer;
using testing::TempDir;

struct TestBox {
  int label;
  float xmin, ymin, xmax, ymax;
  bool difficult = false;
};

// A 1-channel height x width raw image with pixel value (i * 7 + y * width + x) % 256, and boxes
// of one group per distinct label, in the order given.
AnnotatedDatum Record(int i, int height, int width, const std::vector<TestBox>& boxes,
                      bool typed = true) {
  AnnotatedDatum record;
  Datum* datum = record.mutable_datum();
  datum->set_channels(1);
  datum->set_height(height);
  datum->set_width(width);
  datum->set_label(100 + i);
  std::string pixels(static_cast<size_t>(height) * width, '\0');
  for (size_t j = 0; j < pixels.size(); ++j) pixels[j] = static_cast<char>((i * 7 + j) % 256);
  datum->set_data(pixels);
  if (typed) record.set_type(AnnotatedDatum::BBOX);
  for (const TestBox& b : boxes) {
    AnnotationGroup* group = nullptr;
    for (AnnotationGroup& g : *record.mutable_annotation_group()) {
      if (g.group_label() == b.label) group = &g;
    }
    if (!group) {
      group = record.add_annotation_group();
      group->set_group_label(b.label);
    }
    Annotation* a = group->add_annotation();
    a->set_instance_id(group->annotation_size() - 1);
    NormalizedBBox* box = a->mutable_bbox();
    box->set_xmin(b.xmin);
    box->set_ymin(b.ymin);
    box->set_xmax(b.xmax);
    box->set_ymax(b.ymax);
    box->set_difficult(b.difficult);
  }
  return record;
}

void WriteRecords(const std::string& path, const std::vector<std::string>& values) {
  auto writer = LmdbWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.status().message();
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_TRUE((*writer)->Put(RecordKey(static_cast<int>(i)), values[i]).ok());
  }
  ASSERT_TRUE((*writer)->Close().ok());
}

void WriteRecords(const std::string& path, const std::vector<AnnotatedDatum>& records) {
  std::vector<std::string> values;
  for (const AnnotatedDatum& r : records) values.push_back(r.SerializeAsString());
  WriteRecords(path, values);
}

LayerParameter Param(const std::string& source, int batch_size, const std::string& extra = "") {
  LayerParameter p = testing::ParseLayerParameter(
      "name: 'data' type: 'AnnotatedData' top: 'data' top: 'label' " + extra);
  p.mutable_data_param()->set_source(source);
  p.mutable_data_param()->set_batch_size(batch_size);
  p.mutable_data_param()->set_backend(DataParameter::LMDB);
  return p;
}

class AnnotatedDataLayerTest : public ::testing::Test {
 protected:
  Status SetupAndForward(const LayerParameter& p, Phase phase = TEST, uint64_t seed = 1) {
    layer_ = MakeLayer(p, phase, seed);
    if (!layer_) return InvalidArgument("no layer");
    DT_RETURN_IF_ERROR(layer_->Setup({}, top_));
    float loss = 0;
    return layer_->Forward({}, top_, &loss);
  }
  Status Forward() {
    float loss = 0;
    return layer_->Forward({}, top_, &loss);
  }

  TempDir dir_;
  LayerPtr layer_;
  Tensor data_, label_;
  TensorVec top_{&data_, &label_};
};

// The label rows list every box of the batch: [item, group_label, instance_id, xmin, ymin, xmax,
// ymax, difficult], groups in record order; the pixels are the records' own.
TEST_F(AnnotatedDataLayerTest, LabelRowsListTheBatchsBoxes) {
  WriteRecords(dir_.Path("db"),
               {Record(0, 2, 3, {{2, 0.1f, 0.2f, 0.5f, 0.6f}, {1, 0.f, 0.f, 1.f, 1.f, true}}),
                Record(1, 2, 3, {{2, 0.3f, 0.3f, 0.4f, 0.9f}, {2, 0.5f, 0.5f, 0.7f, 0.7f}}),
                Record(2, 2, 3, {})});
  ASSERT_TRUE(SetupAndForward(Param(dir_.Path("db"), 2)).ok());
  EXPECT_EQ(data_.shape(), (std::vector<int>{2, 1, 2, 3}));
  EXPECT_EQ(testing::Values(data_), (std::vector<float>{0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12}));
  EXPECT_EQ(label_.shape(), (std::vector<int>{1, 1, 4, 8}));
  EXPECT_EQ(testing::Values(label_), (std::vector<float>{0, 2, 0, 0.1f, 0.2f, 0.5f, 0.6f, 0,  //
                                                         0, 1, 0, 0.f,  0.f,  1.f,  1.f,  1,  //
                                                         1, 2, 0, 0.3f, 0.3f, 0.4f, 0.9f, 0,  //
                                                         1, 2, 1, 0.5f, 0.5f, 0.7f, 0.7f, 0}));
  // Records 2 (no boxes) and 0 again: only record 0's boxes, as item 1.
  ASSERT_TRUE(Forward().ok());
  EXPECT_EQ(label_.shape(), (std::vector<int>{1, 1, 2, 8}));
  EXPECT_EQ(label_.data()[0], 1.f);
  // Record 1 and 2: record 1's.
  ASSERT_TRUE(Forward().ok());
  EXPECT_EQ(label_.shape(), (std::vector<int>{1, 1, 2, 8}));
}

TEST_F(AnnotatedDataLayerTest, ABatchWithoutBoxesGivesOneRowOfMinusOne) {
  WriteRecords(dir_.Path("db"), {Record(0, 2, 2, {}), Record(1, 2, 2, {})});
  ASSERT_TRUE(SetupAndForward(Param(dir_.Path("db"), 2)).ok());
  EXPECT_EQ(label_.shape(), (std::vector<int>{1, 1, 1, 8}));
  EXPECT_EQ(testing::Values(label_), std::vector<float>(8, -1.f));
}

// Records that state no annotation type label the batch as Data does: the Datums' labels.
TEST_F(AnnotatedDataLayerTest, UntypedRecordsGiveTheDatumLabels) {
  WriteRecords(dir_.Path("db"), {Record(0, 2, 2, {}, false), Record(1, 2, 2, {}, false)});
  ASSERT_TRUE(SetupAndForward(Param(dir_.Path("db"), 2)).ok());
  EXPECT_EQ(testing::Values(label_), (std::vector<float>{100, 101}));
  // anno_type makes them box records.
  ASSERT_TRUE(
      SetupAndForward(Param(dir_.Path("db"), 2, "annotated_data_param { anno_type: BBOX }")).ok());
  EXPECT_EQ(label_.shape(), (std::vector<int>{1, 1, 1, 8}));
}

// A batch sampler that always draws a box of half the image's side: the image is cropped to
// the drawn box and the boxes projected into it, as the fork does. The draws are replayed here
// from the record's stream (the layer's seed and its position).
TEST_F(AnnotatedDataLayerTest, SamplersCropTheImageAndItsBoxes) {
  const std::vector<TestBox> boxes = {{1, 0.2f, 0.2f, 0.6f, 0.6f}, {3, 0.5f, 0.0f, 1.0f, 0.5f}};
  WriteRecords(dir_.Path("db"), {Record(0, 8, 8, boxes)});
  const LayerParameter p =
      Param(dir_.Path("db"), 1,
            "annotated_data_param { batch_sampler { sampler { min_scale: 0.5 max_scale: 0.5 } "
            "max_trials: 1 max_sample: 1 } }");
  const uint64_t seed = 7;
  ASSERT_TRUE(SetupAndForward(p, TEST, seed).ok());

  detection::BatchSampler sampler;
  sampler.min_scale = sampler.max_scale = 0.5f;
  sampler.max_trials = 1;
  sampler.max_sample = 1;
  Rng rng(DeriveSeed(seed, 1));  // position 0
  std::vector<detection::NormalizedBox> objects;
  for (const TestBox& b : boxes) objects.push_back({b.xmin, b.ymin, b.xmax, b.ymax, b.label});
  const std::vector<detection::NormalizedBox> samples =
      detection::GenerateBatchSamples(objects, {sampler}, rng);
  ASSERT_EQ(samples.size(), 1u);
  const detection::NormalizedBox crop = samples[rng.UniformInt(1)];
  // The pixels: the window at the crop's corner (pixel value y * 8 + x), its offset and sides
  // truncated to whole pixels as the fork's CropImage truncates them.
  const int x0 = static_cast<int>(crop.xmin * 8), y0 = static_cast<int>(crop.ymin * 8);
  const int width = static_cast<int>(crop.xmax * 8 - crop.xmin * 8);
  const int height = static_cast<int>(crop.ymax * 8 - crop.ymin * 8);
  ASSERT_EQ(data_.shape(), (std::vector<int>{1, 1, height, width}));
  EXPECT_GE(width, 3);
  EXPECT_GE(height, 3);
  std::vector<float> expected;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) expected.push_back(static_cast<float>((y0 + y) * 8 + x0 + x));
  }
  EXPECT_EQ(testing::Values(data_), expected) << "crop at " << x0 << ", " << y0;
  // The boxes: each projected into the crop; those left outside are dropped.
  std::vector<float> rows;
  for (const detection::NormalizedBox& object : objects) {
    detection::NormalizedBox projected;
    if (!detection::ProjectBox(crop, object, &projected)) continue;
    rows.insert(rows.end(), {0, static_cast<float>(object.label), 0, projected.xmin, projected.ymin,
                             projected.xmax, projected.ymax, 0});
  }
  if (rows.empty()) rows.assign(8, -1.f);
  const std::vector<float> got = testing::Values(label_);
  ASSERT_EQ(got.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_NEAR(got[i], rows[i], 1e-6) << "value " << i;
}

// Every random choice of a record depends on its position: two shards, interleaved, give what
// one reader gives, with samplers, distortion and mirror at work.
TEST_F(AnnotatedDataLayerTest, ShardsDrawWhatOneReaderDraws) {
  std::vector<AnnotatedDatum> records;
  for (int i = 0; i < 5; ++i) {
    AnnotatedDatum r = Record(i, 12, 16, {{1, 0.1f * i, 0.2f, 0.5f + 0.1f * i, 0.9f}});
    records.push_back(r);
  }
  WriteRecords(dir_.Path("db"), records);
  const std::string augment =
      "transform_param { mirror: true resize_param { height: 6 width: 8 interp_mode: LINEAR "
      "interp_mode: NEAREST } emit_constraint { emit_type: CENTER } } "
      "annotated_data_param { batch_sampler { sampler { min_scale: 0.3 max_scale: 1 "
      "min_aspect_ratio: 0.5 max_aspect_ratio: 2 } sample_constraint { min_jaccard_overlap: 0.1 "
      "} max_trials: 50 max_sample: 1 } }";
  std::vector<std::vector<float>> whole_data, whole_label;
  layer_ = MakeLayer(Param(dir_.Path("db"), 1, augment), TRAIN, 3);
  ASSERT_TRUE(layer_->Setup({}, top_).ok());
  for (int b = 0; b < 6; ++b) {
    ASSERT_TRUE(Forward().ok());
    whole_data.push_back(testing::Values(data_));
    whole_label.push_back(testing::Values(label_));
  }
  for (int shard = 0; shard < 2; ++shard) {
    layer_ = MakeLayer(Param(dir_.Path("db"), 1, augment), TRAIN, 3);
    ASSERT_TRUE(layer_->Setup({}, top_).ok());
    static_cast<AnnotatedDataLayer*>(layer_.get())->SetShard(shard, 2);
    for (int b = shard; b < 6; b += 2) {
      ASSERT_TRUE(Forward().ok());
      EXPECT_EQ(testing::Values(data_), whole_data[b]) << "batch " << b;
      EXPECT_EQ(testing::Values(label_), whole_label[b]) << "batch " << b;
    }
  }
}

TEST_F(AnnotatedDataLayerTest, ASnapshotPositionResumesTheStream) {
  std::vector<AnnotatedDatum> records;
  for (int i = 0; i < 4; ++i) records.push_back(Record(i, 8, 8, {{1, 0.1f, 0.1f, 0.7f, 0.8f}}));
  WriteRecords(dir_.Path("db"), records);
  const std::string augment =
      "transform_param { mirror: true resize_param { height: 4 width: 4 } } "
      "annotated_data_param { batch_sampler { sampler { "
      "min_scale: 0.5 max_scale: 1 } max_trials: 10 max_sample: 1 } }";
  layer_ = MakeLayer(Param(dir_.Path("db"), 2, augment), TRAIN, 5);
  ASSERT_TRUE(layer_->Setup({}, top_).ok());
  ASSERT_TRUE(Forward().ok());
  const std::string state = layer_->SaveState();
  ASSERT_TRUE(Forward().ok());
  const std::vector<float> data = testing::Values(data_), label = testing::Values(label_);
  layer_ = MakeLayer(Param(dir_.Path("db"), 2, augment), TRAIN, 5);
  ASSERT_TRUE(layer_->Setup({}, top_).ok());
  ASSERT_TRUE(layer_->RestoreState(state).ok());
  ASSERT_TRUE(Forward().ok());
  EXPECT_EQ(testing::Values(data_), data);
  EXPECT_EQ(testing::Values(label_), label);
}

// Bad records and settings: errors naming the layer and the record or field, never a crash.
TEST_F(AnnotatedDataLayerTest, BadRecordsAndSettingsAreNamed) {
  const std::string prefix = "layer 'data' (AnnotatedData): ";
  WriteRecords(dir_.Path("garbage"), std::vector<std::string>{"\x0a\xff\xff\xff\x0f", "x"});
  EXPECT_EQ(SetupAndForward(Param(dir_.Path("garbage"), 1)).message().rfind(prefix, 0), 0u);
  EXPECT_NE(
      SetupAndForward(Param(dir_.Path("garbage"), 1)).message().find("not a valid AnnotatedDatum"),
      std::string::npos);

  const float nan = std::numeric_limits<float>::quiet_NaN();
  WriteRecords(dir_.Path("nan"), {Record(0, 2, 2, {}), Record(1, 2, 2, {{1, nan, 0, 1, 1}})});
  Status s = SetupAndForward(Param(dir_.Path("nan"), 2));
  EXPECT_NE(s.message().find("record '00000001': annotation_group 0 annotation 0 has a "
                             "coordinate that is not finite"),
            std::string::npos)
      << s.message();

  WriteRecords(dir_.Path("negative"), {Record(0, 2, 2, {{-2, 0, 0, 1, 1}})});
  s = SetupAndForward(Param(dir_.Path("negative"), 1));
  EXPECT_NE(s.message().find("annotation_group 0 has the negative label -2"), std::string::npos)
      << s.message();

  WriteRecords(dir_.Path("sizes"), {Record(0, 2, 2, {}), Record(1, 3, 2, {})});
  s = SetupAndForward(Param(dir_.Path("sizes"), 2));
  EXPECT_NE(s.message().find("gives a 1x3x2 image but this batch's first record gives 1x2x2"),
            std::string::npos)
      << s.message();

  WriteRecords(dir_.Path("mixed"), {Record(0, 2, 2, {}), Record(1, 2, 2, {}, false)});
  s = SetupAndForward(Param(dir_.Path("mixed"), 2));
  EXPECT_NE(s.message().find("states no AnnotationType, but the first record does"),
            std::string::npos)
      << s.message();

  WriteRecords(dir_.Path("ok"), {Record(0, 2, 2, {})});
  EXPECT_EQ(SetupAndForward(Param(dir_.Path("ok"), 2,
                                  "transform_param { resize_param { resize_mode: FIT_SMALL_SIZE "
                                  "height: 4 width: 4 } }"))
                .message(),
            prefix +
                "transform_param.resize_param.resize_mode FIT_SMALL_SIZE gives every image its "
                "own shape: data_param.batch_size must be 1 (it is 2)");
  EXPECT_EQ(SetupAndForward(Param(dir_.Path("ok"), 1,
                                  "annotated_data_param { batch_sampler { sampler { min_scale: 0 "
                                  "} } }"))
                .message()
                .rfind(prefix + "annotated_data_param.batch_sampler[0]: ", 0),
            0u);
  EXPECT_EQ(
      SetupAndForward(Param("tcp://127.0.0.1:1", 1, "data_param { shuffle: true }")).message(),
      prefix +
          "data_param.shuffle with a data server's source: the server orders the records "
          "(dtrain data-server --shuffle)");
  LayerParameter leveldb = Param(dir_.Path("ok"), 1);
  leveldb.mutable_data_param()->set_backend(DataParameter::LEVELDB);
  EXPECT_EQ(SetupAndForward(leveldb).message(),
            prefix + "data_param.backend LEVELDB is not supported; convert the data set to LMDB");
}

// Fed by a data server shipping the LMDB's records, the layer gives exactly the tops it gives
// reading the LMDB itself (images and box rows, with samplers, resize and mirror drawing from each
// record's position): one rank and shard 1 of 2, over more than two epochs, and resumed from a
// saved position.
TEST_F(AnnotatedDataLayerTest, FedByADataServerItGivesWhatTheLmdbGives) {
  std::vector<AnnotatedDatum> records;
  for (int i = 0; i < 7; ++i) {
    records.push_back(Record(i, 12, 16,
                             {{1, 0.1f * (i % 4), 0.2f, 0.5f + 0.1f * (i % 4), 0.9f},
                              {2 + i % 2, 0.05f, 0.05f, 0.3f, 0.4f, i % 3 == 0}}));
  }
  records[4] = Record(4, 12, 16, {});  // a record without boxes
  WriteRecords(dir_.Path("db"), records);
  auto server = testing::StartDataServer(testing::ServedRecords(dir_.Path("db")));
  ASSERT_TRUE(server);
  const LayerParameter p =
      Param("", 2,
            "transform_param { mirror: true resize_param { height: 6 width: 8 interp_mode: LINEAR "
            "interp_mode: NEAREST } emit_constraint { emit_type: CENTER } } "
            "annotated_data_param { batch_sampler { sampler { min_scale: 0.3 max_scale: 1 "
            "min_aspect_ratio: 0.5 max_aspect_ratio: 2 } sample_constraint { "
            "min_jaccard_overlap: 0.1 } max_trials: 50 max_sample: 1 } }");
  // 8 batches of 2: 16 positions of the shard, beyond two epochs of 7 records.
  testing::ExpectServedLayerMatchesLmdb(p, dir_.Path("db"), testing::ServerUri(*server), TRAIN, 3,
                                        0, 1, 8);
  testing::ExpectServedLayerMatchesLmdb(p, dir_.Path("db"), testing::ServerUri(*server), TRAIN, 3,
                                        1, 2, 8);
}

// A server shipping float batches (transformed Datums) is refused by name, telling what to do.
TEST_F(AnnotatedDataLayerTest, ADataServerShippingFloatsIsRefused) {
  testing::WriteTinyLmdb(dir_.Path("datums"), 4, 1, 2, 2);
  ServedData floats = testing::ServedRecords(dir_.Path("datums"));
  floats.shipping = SHIP_FLOATS;
  auto server = testing::StartDataServer(floats);
  ASSERT_TRUE(server);
  EXPECT_EQ(SetupAndForward(Param(testing::ServerUri(*server), 2)).message(),
            "layer 'data' (AnnotatedData): data server " + testing::ServerUri(*server) +
                " ships float batches (Datums transformed by the server: --ship=floats, the "
                "default of --solver for a Data layer), which AnnotatedData cannot read; start "
                "the server with --ship=records");
}

// A served record that is no AnnotatedDatum is named as from the LMDB, by the server and the
// record's position (the server ships no keys).
TEST_F(AnnotatedDataLayerTest, ABadServedRecordIsNamedByItsPosition) {
  WriteRecords(dir_.Path("db"), std::vector<std::string>{Record(0, 2, 2, {}).SerializeAsString(),
                                                         "\x0a\xff\xff\xff\x0f"});
  auto server = testing::StartDataServer(testing::ServedRecords(dir_.Path("db")));
  ASSERT_TRUE(server);
  const std::string uri = testing::ServerUri(*server);
  ASSERT_TRUE(SetupAndForward(Param(uri, 1)).ok());
  EXPECT_EQ(Forward().message(),
            "layer 'data' (AnnotatedData): data server " + uri +
                ": record 'position 1': not a valid AnnotatedDatum (5 bytes; truncated or "
                "corrupt record)");
}

// A server that goes away mid-stream: once the batches already received are used, Forward fails
// within data_param.server_timeout naming the server, and the layer is destroyed without a wait.
TEST_F(AnnotatedDataLayerTest, AServerGoneMidStreamIsAnErrorNamingItNotAHang) {
  std::vector<AnnotatedDatum> records;
  for (int i = 0; i < 6; ++i) records.push_back(Record(i, 2, 2, {{1, 0.f, 0.f, 1.f, 1.f}}));
  WriteRecords(dir_.Path("db"), records);
  auto server = testing::StartDataServer(testing::ServedRecords(dir_.Path("db")));
  ASSERT_TRUE(server);
  const std::string uri = testing::ServerUri(*server);
  ASSERT_TRUE(SetupAndForward(Param(uri, 2, "data_param { server_timeout: 1 prefetch: 1 }")).ok());
  server->Stop();
  const auto start = std::chrono::steady_clock::now();
  Status s;
  for (int i = 0; i < 20 && s.ok(); ++i) s = Forward();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(s.message().rfind("layer 'data' (AnnotatedData): data server " + uri +
                                  " did not answer within 1 s (data_param.server_timeout); "
                                  "last error: ",
                              0),
            0u)
      << s.message();
  const auto destroyed = std::chrono::steady_clock::now();
  layer_.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - destroyed, std::chrono::seconds(2));
}

}  // namespace
}  // namespace dtrain
