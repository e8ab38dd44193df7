// WindowDataLayer: Caffe's "WindowData", batches of image windows for R-CNN style fine-tuning.
//
// No bottoms; tops data (N x C x crop_size x crop_size) and label (N). The window file
// (window_data_param.source, format in data/window_file.h) lists images and their windows with a
// class and an overlap; fg_threshold/bg_threshold split them into foreground and background
// (background windows get class 0). Each batch holds N - floor(N * fg_fraction) background
// windows, then the foreground ones, each drawn uniformly with replacement, as Caffe does.
//
// Each window, exactly as Caffe's WindowDataLayer (image file decoded to BGR, or gray for a
// 1-channel file):
//   - crop_mode "warp" without context_pad: the window is resized (OpenCV's INTER_LINEAR, as
//     data/image_decode.h) to crop_size x crop_size;
//   - with context_pad > 0 or crop_mode "square" (the window made square around its centre first),
//     the window is grown so that after warping it keeps context_pad pixels of context on each
//     side; the part outside the image is left as zero padding in the output;
//   - mirror flips the warped window (and its padding) left-right with probability 1/2;
//   - value = (pixel - mean) * scale, the mean from mean_file (a square image at least crop_size
//     wide, read centred) or mean_value.
// Parameters: window_data_param source, root_folder (prefixed to image paths), batch_size,
// fg_threshold, bg_threshold, fg_fraction, context_pad, crop_mode, cache_images (keep the encoded
// files in memory); transform_param crop_size (required), mirror, scale, mean_file/mean_value.
// Caffe's legacy scale/mean_file/crop_size/mirror in window_data_param fill the transform_param
// fields left unset.
//
// Where Caffe would crash (a window outside its image in warp mode, a class with no window to
// draw from, a 1-channel header for a colour read), the layer fails with a Status naming the
// layer, the window file and the line.
//
// Randomness: batch b of shard i (of n) draws from a stream seeded by the layer's seed and
// b * n + i, so that SaveState/RestoreState (the count of batches consumed, the same on every
// shard) resume exactly. Prefetching (one batch ahead), sharding and faults are
// PrefetchingDataLayer's; the window file is read whole at setup (data/window_file.h) and its
// windows drawn per batch, so this layer makes its batches itself (LoadBatch). Not thread-safe,
// like every layer.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "data/image_decode.h"
#include "data/transformer.h"
#include "data/window_file.h"
#include "layers/layer_inputs.h"
#include "layers/prefetching_data_layer.h"

namespace dtrain {

class WindowDataLayer : public PrefetchingDataLayer {
 public:
  WindowDataLayer(const LayerParameter& p, const LayerContext& c);
  ~WindowDataLayer() override;

  const char* type() const override { return "WindowData"; }
  // What the parameters name for it to read, and pointing its records elsewhere (layer_inputs.h).
  static LayerInputs Inputs(const LayerParameter& p);
  static void SetRecords(LayerParameter* p, const std::string& records);
  int ExactNumTopBlobs() const override { return 2; }

 protected:
  Status SetUpSource(const TensorVec& top) override;
  // Fills one batch (prefetch thread).
  Status LoadBatch(Batch* batch) override;
  // The batches this shard has read, as a decimal number.
  std::string LoaderState() const override { return std::to_string(next_batch_); }
  Status RestoreLoader(const std::string& state) override;

 private:
  // Warps `window` into item `item` of `data` (already zeroed).
  Status LoadWindow(const Window& window, bool mirror, float* data);
  // The decoded image `index` (read from disk, or from the cache with cache_images).
  StatusOr<HwcImage> DecodeImage(int index);
  // "window file:line" of a window, for messages.
  std::string Where(const Window& window) const;
  Status CheckMean() const;

  uint64_t seed_;
  WindowFile windows_;
  std::string source_, root_;
  int batch_size_ = 0, foreground_per_batch_ = 0;
  int channels_ = 0, crop_size_ = 0, context_pad_ = 0;
  bool square_ = false, mirror_ = false, cache_ = false;
  float scale_ = 1;
  std::unique_ptr<DataTransformer> transformer_;  // checks and reads the mean

  // Prefetch thread only while the prefetcher lives.
  ImageDecoder decoder_;
  std::string bytes_;
  std::vector<std::string> cached_;  // per image, when cache_images
  std::vector<uint8_t> roi_, warped_;
  std::vector<int> resize_scratch_;
  int64_t next_batch_ = 0;  // the batch LoadBatch fills next, counted on this shard
};

}  // namespace dtrain
