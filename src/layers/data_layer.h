// DataLayer ("Data"): reads batches of Datum records from an LMDB, as Caffe's Data layer.
//
// Tops: data (N x C x H x W, float32, after transform_param's crop/mirror/mean/scale) and an
// optional label (N). No bottoms, no backward.
// Parameters (data_param): source (the LMDB directory; relative paths are taken as given, i.e.
// against the working directory), batch_size, backend (LMDB only: an explicit LEVELDB is an
// error; unset, Caffe's default LEVELDB, is accepted when the source is an LMDB), rand_skip (skip a
// random 0..rand_skip-1 records at the start), prefetch (batches read ahead, default 4). Caffe's
// legacy data_param scale/mean_file/crop_size/mirror fill the transform_param fields that are not
// set there.
//
// Encoded records (JPEG/PNG bytes, `encoded: true`) are decoded to BGR pixels before the
// transform: in the file's own colour, or 3-channel colour with transform_param.force_color or
// data_param.force_encoded_color, or gray with transform_param.force_gray, as in Caffe.
//
// Records are read in key order and the reader wraps round to the first record after the last.
// Random transforms (crop, mirror) of a record are drawn from a stream seeded by the layer's seed
// and the record's position in the sequence: a sharded reader transforms each record exactly as
// an unsharded one would.
// The shape of each batch comes from its first record; every record of a batch must match it.
// A background thread (BatchPrefetcher) prepares batches from the first Forward on; a corrupt
// record makes Forward return a Status naming the layer and the record's key.
//
// Data server (a dtrain extension, docs/data-server.md): with `source: "tcp://HOST:PORT"` the
// batches come from `dtrain data-server` instead of an LMDB: rank `index` of `count` asks for its
// strided share, the same records this layer would read from the LMDB itself, so both train
// alike. Shipped records are transformed here as LMDB records are; shipped float batches were
// transformed by the server (this layer's transform_param is then unused). data_param's
// server_timeout bounds the wait for the server, server_auth_file gives the shared secret.
// batch_size is the per-rank batch.
//
// Sharding: SetShard(index, count) makes this layer read only the records at positions
// index, index + count, index + 2*count, ... of the (wrapping) record sequence, as Caffe's
// multi-solver Data layer does; the default (0, 1) reads everything. Not thread-safe.
#pragma once

#include <memory>
#include <vector>

#include "data/data_server_client.h"
#include "data/epoch_order.h"
#include "data/image_decode.h"
#include "data/lmdb_db.h"
#include "data/prefetch.h"
#include "data/transformer.h"
#include "layers/layer.h"
#include "layers/sharded_source.h"

namespace dtrain {

class DataLayer : public Layer, public ShardedSource {
 public:
  DataLayer(const LayerParameter& p, const LayerContext& c);
  ~DataLayer() override;

  const char* type() const override { return "Data"; }
  int ExactNumBottomBlobs() const override { return 0; }
  int MinTopBlobs() const override { return 1; }
  int MaxTopBlobs() const override { return 2; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

  // Read records index, index + count, ... (0 <= index < count). Best called before the first
  // Forward; a later call drops the batches read ahead and restarts from the first record.
  void SetShard(int index, int count) override;

  // The read position and transform random stream as of the last batch Forward returned (not
  // the batches read ahead), so that a run resumed from a snapshot reads and crops exactly what
  // the uninterrupted run would have. RestoreState requires Setup. Every shard saves the same
  // position (the start of a round of shard_count records), so one shard's state resumes them
  // all, also on another shard count (a job restarted on fewer ranks): they read on from that
  // record position, each its own share.
  std::string SaveState() const override;
  Status RestoreState(const std::string& state) override;

 protected:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) override;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) override;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) override {}

 private:
  // Stops and joins the prefetch thread (interrupting a wait for a data server), dropping the
  // batches read ahead.
  void StopPrefetching();
  // Puts the reader on the first record this layer reads: after the rand_skip records.
  Status Rewind();
  // Moves the reader one record on, counting positions for sharding.
  Status Advance();
  // Positions the reader at `offset` in the record sequence (from the first record read).
  Status SeekTo(int64_t offset);
  // "offset\ntransformer rng": the loader's state now.
  std::string LoaderState() const;
  // Fills one batch; runs on the prefetch thread.
  Status LoadBatch(Batch* batch);
  // The data-server half (data_layer_served.cc): connects and sizes the tops; fills a batch.
  Status SetUpServed(const DataParameter& data);
  Status LoadServedBatch(Batch* batch);
  // Copies one received batch of records (transformed here) or floats into `batch`.
  Status UnpackRecords(Batch* batch);
  Status UnpackFloats(Batch* batch);
  // Shuffled: puts the cursor on the record of sequence position offset_ + skip_.
  Status PositionCursor();
  // Prefixes "layer 'name' (Data)" to an error.
  Status WithLayer(const Status& status) const;

  uint64_t seed_;
  int batch_size_ = 0;
  int prefetch_depth_ = 1;
  uint32_t skip_ = 0;  // records skipped at the start (rand_skip)
  int shard_index_ = 0;
  int shard_count_ = 1;
  int64_t offset_ = 0;    // position in the record sequence since Rewind
  Status rewind_status_;  // a failed Rewind in SetShard, reported by the next Forward
  std::vector<int> top_shape_;
  std::unique_ptr<LmdbReader> reader_;        // LMDB source
  std::unique_ptr<EpochOrder> order_;         // data_param.shuffle: each epoch's record order
  std::unique_ptr<DataServerClient> served_;  // tcp:// source
  bool subscribed_ = false;  // whether served_ streams from offset_ (reset with the prefetcher)
  ReceivedBatch received_;   // reused by LoadServedBatch
  std::unique_ptr<DataTransformer> transformer_;
  ImageColor color_ = ImageColor::kNative;  // how encoded records decode
  Datum datum_;                             // reused by LoadBatch
  std::string consumed_state_;              // LoaderState() as of the last batch handed out
  // Last, so that the thread (which uses the members above) is stopped first.
  std::unique_ptr<BatchPrefetcher> prefetcher_;
};

}  // namespace dtrain
