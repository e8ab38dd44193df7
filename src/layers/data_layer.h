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
// Records are read in key order and the reader wraps round to the first record after the last
// (data/lmdb_record_source.h). Random transforms (crop, mirror) of a record are drawn from a
// stream seeded by the layer's seed and the record's position in the sequence: a sharded reader
// transforms each record exactly as an unsharded one would.
// The shape of each batch comes from its first record; every record of a batch must match it.
// Prefetching, sharding and faults are PrefetchingDataLayer's: a corrupt record makes Forward
// return a Status naming the layer and the record's key.
//
// Data server (a dtrain extension, docs/data-server.md): with `source: "tcp://HOST:PORT"` the
// batches come from `dtrain data-server` instead of an LMDB: rank `index` of `count` asks for its
// strided share, the same records this layer would read from the LMDB itself, so both train
// alike. Shipped records are read through a ServedRecordSource and transformed here exactly as
// LMDB records are (the same code: FillItem); shipped float batches were transformed by the
// server (this layer's transform_param is then unused) and are copied in whole (LoadServedBatch).
// data_param's server_timeout bounds the wait for the server, server_auth_file gives the shared
// secret. batch_size is the per-rank batch.
//
// Sharding: SetShard(index, count) makes this layer read only the records at positions
// index, index + count, index + 2*count, ... of the (wrapping) record sequence, as Caffe's
// multi-solver Data layer does; the default (0, 1) reads everything. Called after the first
// Forward, it drops the batches read ahead and restarts from the first record.
//
// State: "position\ntransformer rng", as of the last batch Forward returned (not the batches
// read ahead), so that a run resumed from a snapshot reads and crops exactly what the
// uninterrupted run would have. The position is the start of a round of shard_count records,
// the same on every shard (PrefetchingDataLayer).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "data/data_server_client.h"
#include "data/image_decode.h"
#include "data/stored_record_source.h"
#include "data/transformer.h"
#include "layers/layer_inputs.h"
#include "layers/prefetching_data_layer.h"

namespace dtrain {

class DataLayer : public PrefetchingDataLayer {
 public:
  DataLayer(const LayerParameter& p, const LayerContext& c);
  ~DataLayer() override;

  const char* type() const override { return "Data"; }
  // What the parameters name for it to read, and pointing its records elsewhere (layer_inputs.h).
  static LayerInputs Inputs(const LayerParameter& p);
  static void SetRecords(LayerParameter* p, const std::string& records);
  int MinTopBlobs() const override { return 1; }
  int MaxTopBlobs() const override { return 2; }

 protected:
  Status SetUpSource(const TensorVec& top) override;
  Status LoadBatch(Batch* batch) override;
  RecordSource* source() override { return records_.get(); }
  Status FillItem(int item, int64_t position, Batch* batch) override;
  std::string LoaderState() const override;
  Status RestoreLoader(const std::string& state) override;
  Status ShardChanged(bool started) override;
  void PrefetchStarting() override { subscribed_ = false; }
  void InterruptLoader() override;

 private:
  // Sets top_shapes_ from one record's transformed shape (C, H, W).
  void SetTopShapes(const std::vector<int>& shape);
  // Sizes the tops from the first record of records_ (position 0).
  Status SetTopShapesFromFirstRecord();
  // The LMDB half: opens the source and sizes the tops from its first record.
  Status SetUpLmdb(const DataParameter& data);
  // The data-server half (data_layer_served.cc): connects; a server of records becomes records_,
  // one of float batches served_, whose batches LoadServedBatch copies in.
  Status SetUpServed(const DataParameter& data);
  Status LoadServedBatch(Batch* batch);
  Status UnpackFloats(Batch* batch);

  uint64_t seed_;
  uint32_t skip_ = 0;  // records skipped at the start (rand_skip)
  // The records parsed here: an LMDB, or a data server shipping records.
  std::unique_ptr<StoredRecordSource> records_;
  std::unique_ptr<DataServerClient> served_;  // a data server shipping float batches
  bool subscribed_ = false;  // whether served_ streams from offset_ (reset with the prefetcher)
  ReceivedBatch received_;   // reused by LoadServedBatch
  std::unique_ptr<DataTransformer> transformer_;
  ImageColor color_ = ImageColor::kNative;  // how encoded records decode
  Datum datum_;                             // reused by FillItem
  // The shape of the batch being filled: its first record's, and where its items go.
  int channels_ = 0, height_ = 0, width_ = 0;
  int64_t item_size_ = 0;
};

}  // namespace dtrain
