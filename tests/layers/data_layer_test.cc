#include "layers/data_layer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "../data/data_test_util.h"
#include "../data/image_test_util.h"
#include "data/image_decode.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::MakeLayer;
using testing::TempDir;

class DataLayerTest : public ::testing::Test {
 protected:
  // Forward once; expects the batch to hold TinyDatum records `records` (1x2x2 each).
  void ExpectBatch(Layer* layer, const std::vector<int>& records) {
    float loss = -1.f;
    Status s = layer->Forward({}, top_, &loss);
    ASSERT_TRUE(s.ok()) << s.message();
    const int n = static_cast<int>(records.size());
    ASSERT_EQ(data_.shape(), (std::vector<int>{n, 1, 2, 2}));
    ASSERT_EQ(label_.shape(), (std::vector<int>{n}));
    for (int b = 0; b < n; ++b) {
      EXPECT_EQ(label_.data()[b], records[b] * 10.f) << "item " << b;
      for (int j = 0; j < 4; ++j) {
        EXPECT_EQ(data_.data()[b * 4 + j], static_cast<float>(records[b] * 16 + j))
            << "item " << b << " value " << j;
      }
    }
    EXPECT_EQ(loss, 0.f);
  }

  TempDir dir_;
  Tensor data_, label_;
  TensorVec top_{&data_, &label_};
};

TEST_F(DataLayerTest, ReadsInOrderAndWrapsRound) {
  testing::WriteTinyLmdb(dir_.Path("db"), 5, 1, 2, 2);
  auto layer = MakeLayer(testing::DataLayerParam(dir_.Path("db"), 2), TEST);
  ASSERT_TRUE(layer);
  Status s = layer->Setup({}, top_);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(data_.shape(), (std::vector<int>{2, 1, 2, 2}));
  EXPECT_EQ(label_.shape(), (std::vector<int>{2}));
  ExpectBatch(layer.get(), {0, 1});
  ExpectBatch(layer.get(), {2, 3});
  ExpectBatch(layer.get(), {4, 0});
  ExpectBatch(layer.get(), {1, 2});
}

TEST_F(DataLayerTest, AppliesTheTransformation) {
  testing::WriteTinyLmdb(dir_.Path("db"), 3, 1, 3, 3);
  LayerParameter p = testing::DataLayerParam(dir_.Path("db"), 2);
  p.mutable_transform_param()->set_crop_size(1);
  p.mutable_transform_param()->set_scale(0.5f);
  p.mutable_transform_param()->add_mean_value(2.f);
  auto layer = MakeLayer(p, TEST);
  ASSERT_TRUE(layer->Setup({}, top_).ok());
  EXPECT_EQ(data_.shape(), (std::vector<int>{2, 1, 1, 1}));
  float loss;
  ASSERT_TRUE(layer->Forward({}, top_, &loss).ok());
  // The centre pixel (index 4) of records 0 and 1: (16 i + 4 - 2) * 0.5.
  EXPECT_EQ(data_.data()[0], 1.f);
  EXPECT_EQ(data_.data()[1], 9.f);
  EXPECT_EQ(label_.data()[1], 10.f);
}

// Intel Caffe's random area/aspect crop over JPEG records of two sizes in one batch: the same
// values as over raw records of the decoded pixels (1 and 3 channels).
TEST_F(DataLayerTest, IntelRandomResizesTreatEncodedAndRawRecordsAlikeWhateverTheirSize) {
  for (int channels : {1, 3}) {
    SCOPED_TRACE(std::to_string(channels) + " channel(s)");
    TempDir dir;
    auto encoded = LmdbWriter::Create(dir.Path("jpeg"));
    auto raw = LmdbWriter::Create(dir.Path("raw"));
    ASSERT_TRUE(encoded.ok() && raw.ok());
    const int sizes[4][2] = {{30, 40}, {44, 26}, {30, 40}, {44, 26}};
    for (int i = 0; i < 4; ++i) {
      const int height = sizes[i][0], width = sizes[i][1];
      std::vector<uint8_t> bgr = testing::GradientBgr(height, width, i);
      std::vector<uint8_t> pixels(bgr.size() / 3 * channels);
      for (size_t p = 0; p < pixels.size(); ++p) pixels[p] = bgr[channels == 3 ? p : 3 * p + 1];
      Datum jpeg;
      jpeg.set_encoded(true);
      jpeg.set_data(testing::JpegBytes(pixels, height, width, channels));
      jpeg.set_label(i);
      ASSERT_TRUE((*encoded)->Put(RecordKey(i), jpeg.SerializeAsString()).ok());
      StatusOr<ChwImage> decoded = DecodeImage(jpeg.data(), ImageColor::kNative);
      ASSERT_TRUE(decoded.ok());
      ASSERT_EQ(decoded->channels, channels);
      const Datum plain = MakeDatum(channels, height, width, decoded->pixels.data(), i);
      ASSERT_TRUE((*raw)->Put(RecordKey(i), plain.SerializeAsString()).ok());
    }
    ASSERT_TRUE((*encoded)->Close().ok());
    ASSERT_TRUE((*raw)->Close().ok());
    std::vector<std::vector<float>> batches;
    for (const std::string source : {"jpeg", "raw"}) {
      LayerParameter p = testing::DataLayerParam(dir.Path(source), 2);
      p.mutable_transform_param()->set_crop_size(16);
      p.mutable_transform_param()->set_mirror(true);
      p.mutable_transform_param()->add_mean_value(100.f);
      RandomAspectRatioParameter* a =
          p.mutable_transform_param()->mutable_random_aspect_ratio_param();
      a->set_min_area_ratio(0.08f);
      a->set_aspect_ratio_change(0.75f);
      a->mutable_resize_param()->add_interp_mode(ResizeParameter::CUBIC);
      auto layer = MakeLayer(p, TRAIN);
      ASSERT_TRUE(layer);
      Status s = layer->Setup({}, top_);
      ASSERT_TRUE(s.ok()) << s.message();
      EXPECT_EQ(data_.shape(), (std::vector<int>{2, channels, 16, 16}));
      std::vector<float> values;
      for (int batch = 0; batch < 2; ++batch) {
        float loss;
        s = layer->Forward({}, top_, &loss);
        ASSERT_TRUE(s.ok()) << s.message();
        values.insert(values.end(), data_.data(), data_.data() + data_.count());
      }
      batches.push_back(values);
    }
    EXPECT_EQ(batches[0], batches[1]);
  }
}

TEST_F(DataLayerTest, DataTopAlone) {
  testing::WriteTinyLmdb(dir_.Path("db"), 2, 1, 2, 2);
  LayerParameter p = testing::DataLayerParam(dir_.Path("db"), 3);
  p.clear_top();
  p.add_top("data");
  auto layer = MakeLayer(p, TEST);
  TensorVec top = {&data_};
  ASSERT_TRUE(layer->Setup({}, top).ok());
  float loss;
  ASSERT_TRUE(layer->Forward({}, top, &loss).ok());
  EXPECT_EQ(data_.shape(), (std::vector<int>{3, 1, 2, 2}));
  EXPECT_EQ(data_.data()[8], 0.f);  // record 0 again, after the wrap
}

TEST_F(DataLayerTest, ShardReadsEveryCountthRecord) {
  testing::WriteTinyLmdb(dir_.Path("db"), 5, 1, 2, 2);
  auto layer = MakeLayer(testing::DataLayerParam(dir_.Path("db"), 2), TEST);
  auto* data_layer = static_cast<DataLayer*>(layer.get());
  data_layer->SetShard(1, 2);
  ASSERT_TRUE(layer->Setup({}, top_).ok());
  // Positions 1, 3, 5, 7, 9, 11 of the wrapping sequence 0 1 2 3 4 0 1 2 3 4 0 1 ...
  ExpectBatch(layer.get(), {1, 3});
  ExpectBatch(layer.get(), {0, 2});
  ExpectBatch(layer.get(), {4, 1});
}

// Random crops and mirrors are drawn per record position: two shards (batch 2 each) produce
// exactly the images one unsharded reader (batch 4) produces for the same records.
TEST_F(DataLayerTest, ShardsTransformEachRecordAsOneReaderDoes) {
  testing::WriteTinyLmdb(dir_.Path("db"), 8, 1, 4, 4);
  auto random_layer = [&](int batch) {
    LayerParameter p = testing::DataLayerParam(dir_.Path("db"), batch);
    p.mutable_transform_param()->set_crop_size(3);
    p.mutable_transform_param()->set_mirror(true);
    return MakeLayer(p, TRAIN);
  };
  auto whole = random_layer(4);
  ASSERT_TRUE(whole->Setup({}, top_).ok());
  float loss;
  std::vector<float> expected;
  for (int i = 0; i < 3; ++i) {  // 12 records: past the end of the 8-record epoch
    ASSERT_TRUE(whole->Forward({}, top_, &loss).ok());
    expected.insert(expected.end(), data_.data(), data_.data() + data_.count());
  }
  std::vector<float> shards[2];
  for (int shard = 0; shard < 2; ++shard) {
    auto layer = random_layer(2);
    static_cast<DataLayer*>(layer.get())->SetShard(shard, 2);
    ASSERT_TRUE(layer->Setup({}, top_).ok());
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE(layer->Forward({}, top_, &loss).ok());
      shards[shard].insert(shards[shard].end(), data_.data(), data_.data() + data_.count());
    }
  }
  const int image = 9;  // 1 x 3 x 3
  for (int record = 0; record < 12; ++record) {
    const float* from = &shards[record % 2][(record / 2) * image];
    for (int j = 0; j < image; ++j) {
      EXPECT_EQ(from[j], expected[record * image + j]) << "record " << record << " pixel " << j;
    }
  }
}

TEST_F(DataLayerTest, SetShardAfterForwardRestarts) {
  testing::WriteTinyLmdb(dir_.Path("db"), 5, 1, 2, 2);
  auto layer = MakeLayer(testing::DataLayerParam(dir_.Path("db"), 2), TEST);
  ASSERT_TRUE(layer->Setup({}, top_).ok());
  ExpectBatch(layer.get(), {0, 1});
  static_cast<DataLayer*>(layer.get())->SetShard(0, 2);
  ExpectBatch(layer.get(), {0, 2});
  ExpectBatch(layer.get(), {4, 1});
}

TEST_F(DataLayerTest, RandSkipStartsWithinTheSkipRange) {
  testing::WriteTinyLmdb(dir_.Path("db"), 6, 1, 2, 2);
  LayerParameter p = testing::DataLayerParam(dir_.Path("db"), 2);
  p.mutable_data_param()->set_rand_skip(3);
  auto layer = MakeLayer(p, TEST);
  ASSERT_TRUE(layer->Setup({}, top_).ok());
  float loss;
  ASSERT_TRUE(layer->Forward({}, top_, &loss).ok());
  const int first = static_cast<int>(label_.data()[0]) / 10;
  EXPECT_GE(first, 0);
  EXPECT_LT(first, 3);
  EXPECT_EQ(label_.data()[1], (first + 1) * 10.f);
}

TEST_F(DataLayerTest, SavedStateResumesReadPositionAndRandomCrops) {
  testing::WriteTinyLmdb(dir_.Path("db"), 7, 1, 4, 4);
  LayerParameter p = testing::DataLayerParam(dir_.Path("db"), 3);
  p.mutable_transform_param()->set_crop_size(2);
  p.mutable_transform_param()->set_mirror(true);
  auto forward = [&](Layer* layer) {
    float loss;
    Status s = layer->Forward({}, top_, &loss);
    EXPECT_TRUE(s.ok()) << s.message();
    return std::vector<float>(data_.data(), data_.data() + data_.count());
  };

  auto a = MakeLayer(p, TRAIN);
  ASSERT_TRUE(a->Setup({}, top_).ok());
  forward(a.get());
  forward(a.get());
  const std::string state = a->SaveState();  // the prefetcher has read ahead by now
  const std::vector<float> third = forward(a.get());
  const std::vector<float> third_labels = {label_.data()[0], label_.data()[1], label_.data()[2]};
  const std::vector<float> fourth = forward(a.get());

  auto b = MakeLayer(p, TRAIN);
  ASSERT_TRUE(b->Setup({}, top_).ok());
  forward(b.get());  // b's own position and stream, then overwritten
  Status s = b->RestoreState(state);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(forward(b.get()), third);
  EXPECT_EQ(forward(b.get()), fourth);
  // Records 6, 0, 1 (wrapped) came third, and 2, 3, 4 fourth.
  EXPECT_EQ(third_labels, (std::vector<float>{60.f, 0.f, 10.f}));
  EXPECT_EQ(label_.data()[0], 20.f);

  EXPECT_EQ(b->RestoreState("garbage").code(), StatusCode::kDataLoss);
}

// Intel Caffe's data_param.shuffle: every epoch a new order of all the records; the same orders
// for the same seed; shards take strided positions of them; a saved position resumes them.
TEST_F(DataLayerTest, ShuffleReadsEveryRecordOncePerEpochInANewOrder) {
  testing::WriteTinyLmdb(dir_.Path("db"), 6, 1, 2, 2);
  LayerParameter p = testing::DataLayerParam(dir_.Path("db"), 3);
  p.mutable_data_param()->set_shuffle(true);
  auto labels = [&](Layer* layer, int batches) {
    std::vector<int> seen;
    for (int b = 0; b < batches; ++b) {
      float loss;
      EXPECT_TRUE(layer->Forward({}, top_, &loss).ok());
      for (int i = 0; i < 3; ++i) seen.push_back(static_cast<int>(label_.data()[i] / 10));
    }
    return seen;
  };
  auto whole = MakeLayer(p, TRAIN);
  ASSERT_TRUE(whole->Setup({}, top_).ok());
  const std::vector<int> sequence = labels(whole.get(), 6);  // three epochs of 6 records
  std::vector<std::vector<int>> epochs;
  for (int e = 0; e < 3; ++e) {
    std::vector<int> epoch(sequence.begin() + 6 * e, sequence.begin() + 6 * (e + 1));
    epochs.push_back(epoch);
    std::sort(epoch.begin(), epoch.end());
    EXPECT_EQ(epoch, (std::vector<int>{0, 1, 2, 3, 4, 5})) << "epoch " << e;
  }
  EXPECT_TRUE(epochs[0] != epochs[1] || epochs[1] != epochs[2]) << "a new order every epoch";
  EXPECT_NE(epochs[0], (std::vector<int>{0, 1, 2, 3, 4, 5}));
  // The same seed, the same orders; shards split them by position.
  auto again = MakeLayer(p, TRAIN);
  ASSERT_TRUE(again->Setup({}, top_).ok());
  EXPECT_EQ(labels(again.get(), 6), sequence);
  std::vector<int> shards[2];
  for (int shard = 0; shard < 2; ++shard) {
    auto layer = MakeLayer(p, TRAIN);
    static_cast<DataLayer*>(layer.get())->SetShard(shard, 2);
    ASSERT_TRUE(layer->Setup({}, top_).ok());
    shards[shard] = labels(layer.get(), 3);
  }
  for (size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(shards[0][i], sequence[2 * i]) << i;
    EXPECT_EQ(shards[1][i], sequence[2 * i + 1]) << i;
  }
  // A saved position resumes the same order.
  auto first = MakeLayer(p, TRAIN);
  ASSERT_TRUE(first->Setup({}, top_).ok());
  labels(first.get(), 3);
  const std::string state = first->SaveState();
  auto resumed = MakeLayer(p, TRAIN);
  ASSERT_TRUE(resumed->Setup({}, top_).ok());
  ASSERT_TRUE(resumed->RestoreState(state).ok());
  EXPECT_EQ(labels(resumed.get(), 3), std::vector<int>(sequence.begin() + 9, sequence.end()));
}

TEST_F(DataLayerTest, ShuffleWithADataServerSourceIsRefused) {
  LayerParameter p = testing::DataLayerParam("tcp://127.0.0.1:1", 2);
  p.mutable_data_param()->set_shuffle(true);
  auto layer = MakeLayer(p, TRAIN);
  EXPECT_EQ(layer->Setup({}, top_).message(),
            "layer 'data' (Data): data_param.shuffle with a data server's source: the server "
            "orders the records (dtrain data-server --shuffle)");
}

TEST_F(DataLayerTest, MissingSourceNamesThePathAndLayer) {
  const std::string path = dir_.Path("missing_lmdb");
  auto layer = MakeLayer(testing::DataLayerParam(path, 2), TEST);
  Status s = layer->Setup({}, top_);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "layer 'data' (Data): LMDB '" + path + "' does not exist");
}

TEST_F(DataLayerTest, LeveldbIsUnsupported) {
  testing::WriteTinyLmdb(dir_.Path("db"), 2, 1, 2, 2);
  LayerParameter p = testing::DataLayerParam(dir_.Path("db"), 2);
  p.mutable_data_param()->set_backend(DataParameter::LEVELDB);
  auto layer = MakeLayer(p, TEST);
  Status s = layer->Setup({}, top_);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_EQ(s.message(),
            "layer 'data' (Data): backend LEVELDB is not supported; convert the data set to LMDB "
            "and set data_param { backend: LMDB }");

  // Unset (Caffe's default LEVELDB) on a directory that is not an LMDB.
  p.mutable_data_param()->clear_backend();
  p.mutable_data_param()->set_source(dir_.Path(""));
  layer = MakeLayer(p, TEST);
  s = layer->Setup({}, top_);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_EQ(s.message().rfind("layer 'data' (Data): backend LEVELDB is not supported (Caffe's", 0),
            0u)
      << s.message();

  // Unset on a source that does not exist: both are said, not just that an LMDB is missing.
  p.mutable_data_param()->set_source(dir_.Path("no_such_db"));
  layer = MakeLayer(p, TEST);
  s = layer->Setup({}, top_);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "layer 'data' (Data): source '" + dir_.Path("no_such_db") +
                             "' does not exist, and backend LEVELDB is not supported (Caffe's "
                             "default when backend is unset); convert the data set to LMDB and "
                             "set data_param { backend: LMDB }");
}

TEST_F(DataLayerTest, UnsetBackendReadsAnLmdb) {
  testing::WriteTinyLmdb(dir_.Path("db"), 3, 1, 2, 2);
  LayerParameter p = testing::DataLayerParam(dir_.Path("db"), 2);
  p.mutable_data_param()->clear_backend();
  auto layer = MakeLayer(p, TEST);
  Status s = layer->Setup({}, top_);
  ASSERT_TRUE(s.ok()) << s.message();
  ExpectBatch(layer.get(), {0, 1});
}

TEST_F(DataLayerTest, BadParametersAreErrors) {
  testing::WriteTinyLmdb(dir_.Path("db"), 2, 1, 2, 2);
  auto layer = MakeLayer(testing::DataLayerParam(dir_.Path("db"), 0), TEST);
  EXPECT_EQ(layer->Setup({}, top_).message(),
            "layer 'data' (Data): data_param.batch_size must be positive");
  LayerParameter crop = testing::DataLayerParam(dir_.Path("db"), 1);
  crop.mutable_transform_param()->set_crop_size(3);
  layer = MakeLayer(crop, TEST);
  EXPECT_EQ(layer->Setup({}, top_).message(),
            "layer 'data' (Data): crop_size 3 is larger than the image (1x2x2)");
}

TEST_F(DataLayerTest, CorruptRecordStopsForwardWithItsKey) {
  {
    auto writer = LmdbWriter::Create(dir_.Path("db"));
    ASSERT_TRUE(writer.ok());
    for (int i = 0; i < 3; ++i) {
      Datum datum = testing::TinyDatum(i, 1, 2, 2);
      if (i == 2) datum.mutable_data()->resize(3);
      ASSERT_TRUE((*writer)->Put(RecordKey(i), datum.SerializeAsString()).ok());
    }
    ASSERT_TRUE((*writer)->Close().ok());
  }
  auto layer = MakeLayer(testing::DataLayerParam(dir_.Path("db"), 2), TEST);
  ASSERT_TRUE(layer->Setup({}, top_).ok());
  ExpectBatch(layer.get(), {0, 1});
  float loss;
  Status s = layer->Forward({}, top_, &loss);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.message(), "layer 'data' (Data): LMDB '" + dir_.Path("db") +
                             "': record '00000002': shape 1x2x2 needs 4 uint8 values, the record "
                             "has 3");
}

}  // namespace
}  // namespace dtrain
