// PrefetchingDataLayer: what every data layer with a source shares, written once: sharding over
// ranks, the prefetch thread and its queue of ready batches, the exact resume position and the
// reporting of faults. Data, ImageData, HDF5Data, WindowData, AnnotatedData, BoxData and VideoData
// are its subclasses; each keeps only its parameter checks, the source it opens and how a record
// becomes top blobs.
//
// A subclass implements SetUpSource (check the parameters, open the source, set batch_size_,
// prefetch_depth_ and top_shapes_) and says how a batch is made, either
//   - record by record (the default LoadBatch): for each item, the next position of this shard
//     is read from source() (data/record_source.h) and FillItem writes that record into the
//     batch (transform, label), one virtual call per record, none per value; or
//   - a whole batch at once, overriding LoadBatch (ImageData decodes a batch on a thread pool,
//     a data server's float batches come whole, WindowData draws its windows per batch,
//     AnnotatedData's label rows depend on the whole batch).
//
// Positions and sharding (ShardedSource): shard index of count reads the positions p of the
// endless record sequence with p % count == index, in order (NextPosition), so that the batches of
// the shards, interleaved, are those one reader of count times the batch reads. The position a
// snapshot records is RoundStart(), the start of the next round of count positions: the same on
// every shard, so one shard's state resumes them all, also on another shard count (each reads on
// from there, its own share). source() is told its shard (RecordSource::ExpectShard) after
// SetUpSource and on every SetShard, so that a data server streams that share only.
//
// State (SaveState/RestoreState): LoaderState() is stored in each batch as it is filled; SaveState
// returns that of the last batch Forward handed out (not of the batches read ahead), or, while
// nothing is read ahead, the loader's own. The default state is RoundStart() as a decimal number;
// a subclass adding to it (a random stream, a count of skipped images) overrides LoaderState and
// RestoreLoader together, keeping the text snapshots already hold.
//
// Faults: an error of the loader (a corrupt record, a missing file, a failed read) stops the
// prefetch thread; Forward first returns the batches completed before it, then the error, with
// "layer 'name' (Type): " before it. An error repositioning the loader in SetShard is returned by
// the next Forward. Nothing aborts the process.
//
// Lifetime and threads: the prefetch thread starts at the first Forward and runs LoadBatch and
// whatever it touches (the source, the transformer, the position); Setup, SetShard, RestoreState
// and StopPrefetching stop and join it first. A subclass's destructor must call StopPrefetching()
// before its own members go. Not thread-safe otherwise, like every layer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/prefetch.h"
#include "data/record_source.h"
#include "data/stored_record_source.h"
#include "layers/layer.h"
#include "layers/sharded_source.h"

namespace dtrain {

class PrefetchingDataLayer : public Layer, public ShardedSource {
 public:
  ~PrefetchingDataLayer() override;

  int ExactNumBottomBlobs() const override { return 0; }
  Status Reshape(const TensorVec& bottom, const TensorVec& top) override;

  // Reads positions index, index + count, ... (0 <= index < count); drops the batches read
  // ahead and repositions the loader (ShardChanged). Best called before the first Forward.
  void SetShard(int index, int count) final;

  std::string SaveState() const final;
  // Requires Setup. Drops the batches read ahead; the next Forward reads from the state's position.
  Status RestoreState(const std::string& state) final;

 protected:
  PrefetchingDataLayer(const LayerParameter& p, const LayerContext& c) : Layer(p, c) {}

  // Checks the parameters and opens the source; sets batch_size_, prefetch_depth_, top_shapes_.
  // Runs with prefetching stopped and the position at 0.
  virtual Status SetUpSource(const TensorVec& top) = 0;

  // Fills one batch and stores LoaderState() in it; runs on the prefetch thread. The default reads
  // batch_size_ records of this shard from source() through FillItem.
  virtual Status LoadBatch(Batch* batch);
  // For the default LoadBatch: the source, and how the record now current at `position` becomes
  // item `item` of `batch` (item 0 reshapes the batch).
  virtual RecordSource* source() { return nullptr; }
  virtual Status FillItem(int item, int64_t position, Batch* batch) { return Status::Ok(); }

  // The loader's state now, and its inverse: parses a state LoaderState made (CorruptState()
  // when it is not one) and positions the loader there. The hooks below return errors that
  // already name the layer (WithLayer); LoadBatch's are named by this class.
  virtual std::string LoaderState() const;
  virtual Status RestoreLoader(const std::string& state);
  // After SetShard changed the shard (prefetching stopped): repositions the loader. `started`:
  // whether this layer had begun prefetching. The default resumes from the consumed state.
  virtual Status ShardChanged(bool started);
  // A batch Forward hands out (the consumer's thread), after its state became the consumed one.
  virtual void BatchConsumed(const Batch& batch) {}
  // Before the prefetch thread starts (Forward), and to wake a loader blocked on something
  // outside the process (a data server) before the thread is stopped; the default interrupts
  // source().
  virtual void PrefetchStarting() {}
  virtual void InterruptLoader();

  // For a subclass that parses data_param's stored records (AnnotatedData, BoxData): checks
  // source (set) and batch_size, sets batch_size_ and prefetch_depth_, and opens the LMDB
  // (backend LMDB; data_param's rand_skip and shuffle drawn from `seed` as Data draws them) or,
  // for a "tcp://HOST:PORT" source, the data server's records (data/data_param_server.h,
  // data/served_record_source.h; a server shipping float batches is refused). Errors name the
  // layer.
  StatusOr<std::unique_ptr<StoredRecordSource>> OpenDataParamRecords(uint64_t seed);

  // Stops and joins the prefetch thread, dropping the batches read ahead.
  void StopPrefetching();
  bool prefetching() const { return prefetcher_ != nullptr; }
  const std::string& consumed_state() const { return consumed_state_; }

  // The next position this shard reads: moving past it, and without moving.
  int64_t NextPosition();
  int64_t PeekPosition() const;
  // The start of the next round of shard_count_ positions: what a snapshot records.
  int64_t RoundStart() const;
  // Parses a non-negative decimal position filling all of `text`; -1 if it is not one.
  static int64_t ParsePosition(const std::string& text);
  // "corrupt data position for layer 'name'", DataLoss.
  Status CorruptState() const;
  // `status` with "layer 'name' (Type)" before it.
  Status WithLayer(const Status& status) const;

  int batch_size_ = 0;
  int prefetch_depth_ = 1;
  std::vector<std::vector<int>> top_shapes_;  // per top, set by SetUpSource
  int shard_index_ = 0;
  int shard_count_ = 1;
  int64_t offset_ = 0;  // the next position of the sequence to consider

 private:
  Status LayerSetUp(const TensorVec& bottom, const TensorVec& top) final;
  Status ForwardImpl(const TensorVec& bottom, const TensorVec& top) final;
  void BackwardImpl(const TensorVec& top, const std::vector<bool>& propagate_down,
                    const TensorVec& bottom) final {}

  bool set_up_ = false;
  Status pending_;              // ShardChanged's error, returned by the next Forward
  std::string consumed_state_;  // LoaderState() as of the last batch handed out
  std::unique_ptr<BatchPrefetcher> prefetcher_;
};

}  // namespace dtrain
