// ImageDataLayer ("ImageData"): reads batches of JPEG/PNG files named by a list file, as Caffe's
// ImageData layer.
//
// Tops: data (N x C x H x W, float32, BGR channel order, after transform_param's crop/mirror/
// mean/scale) and an optional label (N). No bottoms, no backward.
// Parameters (image_data_param): source (the list file of "path label" lines, data/image_list.h;
// a relative path is taken as given, i.e. against the working directory, as data_param.source),
// root_folder (prefixed to every path, as a string), batch_size, shuffle, new_height/new_width
// (both or neither: resize every image, OpenCV's INTER_LINEAR), is_color (3-channel BGR, or
// gray), rand_skip (skip a random 0..rand_skip-1 images at the start), and the dtrain fields
// decode_threads, skip_bad_images and prefetch (proto/layer_params.proto). Caffe's legacy
// scale/mean_file/crop_size/mirror fill the transform_param fields that are not set there.
//
// Order: positions 0, 1, 2, ... of an endless sequence walk through the list epoch after epoch
// (the first epoch starts after the rand_skip images). With shuffle, each epoch is its own
// permutation, drawn from the layer's seed and the epoch number; without, list order. The random
// crop and mirror of an image are drawn from a stream seeded by the layer's seed and the image's
// position. So the images and their transforms depend on the seed and the position only: not on
// decode_threads, on prefetching, or on how the sequence is sharded.
//
// Batches are prepared ahead on a BatchPrefetcher thread; each batch's images are read, decoded
// and transformed on a pool of decode_threads threads (the prefetch thread among them), straight
// from the decoder's buffer into the batch. A batch takes its shape from its first image (fixed
// when crop_size or new_height/new_width are set); a later image of another size is a bad image.
//
// Bad images (missing, unreadable, corrupt, too small for crop_size, of another size): by default
// Forward fails with a Status naming the layer, the list file and line, and the image path. With
// skip_bad_images, a warning names the image and the count skipped so far (bad_images()), and the
// next position of the sequence takes its place; every image bad is still an error.
//
// Sharding, prefetching and state are PrefetchingDataLayer's: SetShard(index, count) reads
// positions index, index + count, ..., as DataLayer does, and restarts from the first position.
// The state, "position\nbad_images" as of the last batch Forward returned, carries the read
// position and the count of skipped images, so that a resumed run reads and transforms exactly
// what the uninterrupted run would have. Not thread-safe, like every layer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "data/image_decode.h"
#include "data/image_list_source.h"
#include "data/transformer.h"
#include "layers/layer_inputs.h"
#include "layers/prefetching_data_layer.h"

namespace dtrain {

class ImageDataLayer : public PrefetchingDataLayer {
 public:
  ImageDataLayer(const LayerParameter& p, const LayerContext& c);
  ~ImageDataLayer() override;

  const char* type() const override { return "ImageData"; }
  // What the parameters name for it to read, and pointing its records elsewhere (layer_inputs.h).
  static LayerInputs Inputs(const LayerParameter& p);
  static void SetRecords(LayerParameter* p, const std::string& records);
  int MinTopBlobs() const override { return 1; }
  int MaxTopBlobs() const override { return 2; }

  // Images skipped as bad (skip_bad_images) in the batches Forward has returned.
  int64_t bad_images() const { return consumed_bad_images_; }
  int decode_threads() const { return pool_ ? pool_->size() : 0; }

 protected:
  Status SetUpSource(const TensorVec& top) override;
  // Fills one batch, its images decoded on the pool; runs on the prefetch thread.
  Status LoadBatch(Batch* batch) override;
  std::string LoaderState() const override;
  Status RestoreLoader(const std::string& state) override;
  Status ShardChanged(bool started) override;
  void BatchConsumed(const Batch& batch) override;

 private:
  // One decoding thread's reusable buffers.
  struct Worker {
    ImageDecoder decoder;
    std::string bytes;  // the file being decoded
  };
  // One image of the batch being filled.
  struct Slot {
    int64_t position = 0;
    const ImageListEntry* entry = nullptr;  // the list entry at `position`
    Status status;
  };

  // Gives `slot` the next position and its entry.
  void Assign(Slot* slot);
  // Reads and decodes an image with `worker`'s buffers.
  StatusOr<HwcImage> Decode(const ImageListEntry& entry, Worker& worker) const;
  // Transforms a slot's decoded image into `out`, with the slot position's random stream.
  Status TransformInto(const Slot& slot, const HwcImage& image, float* out) const;
  // Decodes a slot's image and transforms it into `out`; the decoded image must be the size of
  // `like` when given (batches whose shape no crop or resize fixes). Thread-safe for distinct
  // workers.
  Status LoadItem(const Slot& slot, Worker& worker, const HwcImage* like, float* out) const;
  // `status` with "list:line: image 'path'" before it, if it is an error.
  Status InContext(const Status& status, const ImageListEntry& entry) const;
  // "list:line: image 'root/path'", for messages.
  std::string Where(const ImageListEntry& entry) const;
  // Counts and logs a skipped image; fails once one batch has skipped more than the list holds.
  Status SkipBadImage(const Status& status, int* skipped_in_batch);

  uint64_t seed_;
  bool skip_bad_ = false;
  ImageColor color_ = ImageColor::kColor;
  int new_height_ = 0, new_width_ = 0;
  int64_t bad_images_ = 0;  // skipped so far by the loader
  std::string list_path_;
  std::unique_ptr<ImageListSource> list_;
  std::unique_ptr<DataTransformer> transformer_;
  std::unique_ptr<ThreadPool> pool_;
  std::vector<std::unique_ptr<Worker>> workers_;  // one per pool worker
  std::vector<Slot> slots_;                       // batch_size, reused by LoadBatch
  std::vector<int> todo_, again_;                 // slot indices, reused by LoadBatch
  int64_t consumed_bad_images_ = 0;
};

}  // namespace dtrain
