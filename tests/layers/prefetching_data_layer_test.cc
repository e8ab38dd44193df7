// A new dataset format through the prefetching data layer base, as docs/architecture.md says to
// add one: a RecordSource (records from a vector, shuffled per epoch like an LMDB's) and a
// subclass that only says how a record becomes top blobs. Sharding, prefetching, the exact resume
// position and the fault reporting come from PrefetchingDataLayer.
#include "layers/prefetching_data_layer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "data/epoch_order.h"
#include "data/record_source.h"
#include "proto/net.pb.h"

namespace dtrain {
namespace {

// Record r holds the value 100 + r; `bad` is a record that cannot be read. Counts its reads.
class VectorSource : public RecordSource {
 public:
  VectorSource(int count, bool shuffle, int bad = -1)
      : order_(count, shuffle, /*seed=*/7), count_(count), bad_(bad) {}

  int64_t RecordCount() const override { return count_; }
  Status ReadAt(int64_t position) override {
    record_ = static_cast<int>(order_.RecordAt(position));
    if (record_ == bad_) {
      return DataLoss("vector 'test': record " + std::to_string(record_) + " is unreadable");
    }
    return Status::Ok();
  }
  float value() const { return 100.f + static_cast<float>(record_); }

 private:
  EpochOrder order_;
  int count_;
  int bad_;
  int record_ = -1;
};

// The whole layer of the new format: its source and how a record becomes the data top.
class VectorDataLayer : public PrefetchingDataLayer {
 public:
  VectorDataLayer(int batch, std::unique_ptr<VectorSource> source)
      : PrefetchingDataLayer(Param(), LayerContext{}), batch_(batch), source_(std::move(source)) {}
  ~VectorDataLayer() override { StopPrefetching(); }
  const char* type() const override { return "VectorData"; }
  int ExactNumTopBlobs() const override { return 1; }

 protected:
  Status SetUpSource(const TensorVec& top) override {
    batch_size_ = batch_;
    prefetch_depth_ = 3;  // reads ahead, so the saved state must not follow the loader
    top_shapes_ = {{batch_size_}};
    return Status::Ok();
  }
  RecordSource* source() override { return source_.get(); }
  Status FillItem(int item, int64_t position, Batch* batch) override {
    if (item == 0) batch->data.Reshape({batch_size_});
    batch->data.mutable_data()[item] = source_->value();
    return Status::Ok();
  }

 private:
  static LayerParameter Param() {
    LayerParameter param;
    param.set_name("vec");
    param.set_type("VectorData");
    param.add_top("data");
    return param;
  }

  int batch_;
  std::unique_ptr<VectorSource> source_;
};

std::unique_ptr<VectorDataLayer> SetUpLayer(int batch, bool shuffle, int shard = 0, int shards = 1,
                                            int bad = -1) {
  auto layer =
      std::make_unique<VectorDataLayer>(batch, std::make_unique<VectorSource>(5, shuffle, bad));
  Tensor data;
  EXPECT_TRUE(layer->Setup({}, {&data}).ok());
  layer->SetShard(shard, shards);
  return layer;
}

// The record numbers of `batches` forwards.
std::vector<int> Read(Layer& layer, int batches) {
  std::vector<int> records;
  Tensor data;
  for (int b = 0; b < batches; ++b) {
    const Status status = layer.Forward({}, {&data}, nullptr);
    EXPECT_TRUE(status.ok()) << status.message();
    if (!status.ok()) break;
    for (int i = 0; i < data.count(); ++i)
      records.push_back(static_cast<int>(data.data()[i]) - 100);
  }
  return records;
}

TEST(PrefetchingDataLayerTest, TwoShardsReadTheirStridedPositionsAcrossEpochs) {
  auto shard0 = SetUpLayer(2, false, 0, 2);
  auto shard1 = SetUpLayer(2, false, 1, 2);
  // Positions 0, 2, 4, 6, 8, 10 and 1, 3, 5, 7, 9, 11 of five records in order.
  EXPECT_EQ(Read(*shard0, 3), (std::vector<int>{0, 2, 4, 1, 3, 0}));
  EXPECT_EQ(Read(*shard1, 3), (std::vector<int>{1, 3, 0, 2, 4, 1}));
}

TEST(PrefetchingDataLayerTest, ShardsInterleaveToTheSingleReadersShuffledBatches) {
  const std::vector<int> whole = Read(*SetUpLayer(4, true), 3);
  const std::vector<int> a = Read(*SetUpLayer(2, true, 0, 2), 3);
  const std::vector<int> b = Read(*SetUpLayer(2, true, 1, 2), 3);
  std::vector<int> interleaved;
  for (size_t i = 0; i < a.size(); ++i) interleaved.insert(interleaved.end(), {a[i], b[i]});
  EXPECT_EQ(interleaved, whole);
  // Every record once per epoch of five positions, in an order that is not the records'.
  std::vector<int> epoch(whole.begin(), whole.begin() + 5);
  EXPECT_NE(epoch, (std::vector<int>{0, 1, 2, 3, 4}));
  std::sort(epoch.begin(), epoch.end());
  EXPECT_EQ(epoch, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(PrefetchingDataLayerTest, AResumedShardContinuesAtTheSameRecordMidEpoch) {
  for (int shard = 0; shard < 2; ++shard) {
    auto first = SetUpLayer(2, true, shard, 2);
    Read(*first, 1);  // positions shard and shard + 2; more batches are read ahead by now
    const std::string state = first->SaveState();
    EXPECT_EQ(state, "4");  // the start of the next round of two positions, on both shards
    const std::vector<int> expected = Read(*first, 3);

    auto resumed = SetUpLayer(2, true, shard, 2);
    ASSERT_TRUE(resumed->RestoreState(state).ok());
    EXPECT_EQ(Read(*resumed, 3), expected) << "shard " << shard;
  }
  // One reader's position resumes two shards: together they read on what it would have read.
  auto whole = SetUpLayer(2, true);
  Read(*whole, 2);
  const std::string state = whole->SaveState();
  EXPECT_EQ(state, "4");
  const std::vector<int> expected = Read(*whole, 2);
  std::vector<int> shards[2];
  for (int shard = 0; shard < 2; ++shard) {
    auto layer = SetUpLayer(1, true, shard, 2);
    ASSERT_TRUE(layer->RestoreState(state).ok());
    shards[shard] = Read(*layer, 2);
  }
  EXPECT_EQ(expected, (std::vector<int>{shards[0][0], shards[1][0], shards[0][1], shards[1][1]}));
}

TEST(PrefetchingDataLayerTest, AFaultyRecordIsTheErrorOfItsBatchNamingLayerAndRecord) {
  auto layer = SetUpLayer(2, false, 0, 1, /*bad=*/3);
  EXPECT_EQ(Read(*layer, 1), (std::vector<int>{0, 1}));  // the batch before it arrives
  Tensor data;
  const Status status = layer->Forward({}, {&data}, nullptr);
  EXPECT_EQ(status.code(), StatusCode::kDataLoss);
  EXPECT_EQ(status.message(), "layer 'vec' (VectorData): vector 'test': record 3 is unreadable");
  EXPECT_EQ(layer->Forward({}, {&data}, nullptr).message(), status.message());  // and stays
  EXPECT_EQ(layer->SaveState(), "2");  // the position of the last batch handed out
}

TEST(PrefetchingDataLayerTest, ACorruptOrEarlyStateIsRefused) {
  auto layer = SetUpLayer(2, false);
  EXPECT_EQ(layer->RestoreState("four").message(), "corrupt data position for layer 'vec'");
  EXPECT_EQ(layer->RestoreState("-4").code(), StatusCode::kDataLoss);
  VectorDataLayer unset(2, std::make_unique<VectorSource>(5, false));
  EXPECT_EQ(unset.RestoreState("4").message(),
            "layer 'vec' (VectorData): cannot restore the data position before Setup");
}

}  // namespace
}  // namespace dtrain
