// ShardedSource: a data layer whose record sequence can be split between the ranks of a job.
//
// SetShard(index, count) makes the layer read only positions index, index + count, ... of the
// sequence it would read alone (0 <= index < count), so that the batches of `count` shards,
// interleaved, are the batches one reader of `count` times the size reads. The trainer calls it
// on every layer that implements this interface (every PrefetchingDataLayer: Data, ImageData,
// HDF5Data, WindowData) and whose source is not a per-rank file. Not thread-safe: called before
// training, like the layer's other setters.
#pragma once

namespace dtrain {

class ShardedSource {
 public:
  virtual void SetShard(int index, int count) = 0;

 protected:
  ~ShardedSource() = default;
};

}  // namespace dtrain
