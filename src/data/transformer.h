// DataTransformer: Caffe's preprocessing of one Datum into float CHW values.
//
// For every output value, exactly as Caffe's DataTransformer::Transform(Datum):
//   out[c][h][w] = (in[c][h + h_off][w' + w_off] - mean) * scale
// where
//   - crop_size > 0 takes a crop_size x crop_size window: at a random offset in TRAIN, centred
//     ((H - crop) / 2, (W - crop) / 2) in TEST; crop_size 0 keeps the whole image;
//   - mirror flips the window left-right (w' = width - 1 - w) with probability 1/2. As in Caffe
//     the coin is tossed in every phase; only TRAIN nets normally set mirror;
//   - mean is mean_file's value at the same (uncropped) pixel, or mean_value[c] (a single
//     mean_value applies to every channel), or 0;
//   - scale defaults to 1.
// Random draws come from the transformer's own Rng in Caffe's order: mirror coin (only when mirror
// is set), then h_off, then w_off (only when cropping in TRAIN). Each is a raw 32-bit draw taken
// modulo its range, as Caffe's rand_num(n).
//
// Intel Caffe's additions (its data_transformer.cpp):
//   - random_resize_param / random_aspect_ratio_param (random_resize.h) resize each image before
//     the crop, in every phase, as Intel's do; crop_size is required with them. The raw draws of
//     the mirror coin and crop offsets come first, then the resize's draws, then the offsets are
//     taken modulo the resized image's ranges: the order of Intel's Data layer, which draws
//     mirror and offsets ahead (GenerateRandNumbers). 8-bit images only (a float_data Datum is
//     refused); the resized image is what the crop, mean_file and mirror then see;
//   - pad surrounds the output (crop, or whole image) with pad zeros on each side: the output is
//     (crop_size or H) + 2 * pad square; as in Intel's, the values inside are rounded to the
//     nearest integer (nearbyint) when mean_value is given. pad with mean_file is refused (Intel
//     reads the mean image shifted by pad). Intel's padded rows h == H_out - pad and columns
//     w == W_out - pad got (0 - mean) * scale, an off-by-one of its loop; here every border value
//     is 0.
//
// The same transform reads a Datum (uint8 or float payload) or 8-bit pixels straight from a
// decoder's buffer, CHW planes or HWC interleaved (PixelView), so that decoded images are cropped
// and mirrored without an intermediate copy.
//
// Init() validates the parameters and loads mean_file (a BlobProto .binaryproto). The methods
// that take an Rng are const and may run on several threads at once, each with its own Rng; the
// others use the transformer's own Rng and so have one owner, normally a prefetch thread.
#pragma once

#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "core/status.h"
#include "core/tensor.h"
#include "proto/blob.pb.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"

namespace dtrain {

// `transform` completed with Caffe's legacy preprocessing fields of data_param (scale, mean_file,
// crop_size, mirror) where it leaves them unset.
TransformationParameter WithLegacyDataFields(TransformationParameter transform,
                                             const DataParameter& data);
// 8-bit pixels of one image, not owned: CHW planes, or HWC interleaved (a decoder's layout).
struct PixelView {
  const uint8_t* pixels = nullptr;
  int channels = 0;
  int height = 0;
  int width = 0;
  bool interleaved = false;  // true: HWC; false: CHW
};

class DataTransformer {
 public:
  DataTransformer(const TransformationParameter& param, Phase phase, uint64_t seed);

  // Checks the parameters and reads mean_file. Errors name the offending field or file.
  Status Init();

  // The shape Transform writes for a channels x height x width image: {C, H, W} after cropping.
  std::vector<int> OutputShape(int channels, int height, int width) const;
  std::vector<int> OutputShape(const Datum& datum) const;

  // Checks that an image (a Datum already validated, see datum.h) fits the parameters: at least
  // crop_size high and wide, same shape as the mean image, one mean_value or one per channel.
  // Where each image is resized (resizes()), only the mean_value count: the rest is checked on
  // the resized image, by Transform.
  Status CheckFits(int channels, int height, int width) const;
  Status CheckFits(const Datum& datum) const;

  // Writes OutputShape(datum) values to `out`, drawing from this transformer's Rng. Calls
  // CheckFits first.
  Status Transform(const Datum& datum, float* out);
  // The same for decoded pixels, drawing from `rng`. Thread-safe for distinct `rng`s.
  Status Transform(const PixelView& image, Rng& rng, float* out) const;

  const TransformationParameter& param() const { return param_; }
  // True when every image is resized before the crop (random_resize_param or
  // random_aspect_ratio_param): images of any size give the same output shape.
  bool resizes() const { return resizes_; }
  // The mean image ({C, H, W}) read by Init(), or null when mean_file is not set.
  const Tensor* mean_image() const { return has_mean_file_ ? &mean_ : nullptr; }
  // The random stream, for saving and restoring it with a snapshot.
  Rng& rng() { return rng_; }
  const Rng& rng() const { return rng_; }

 private:
  TransformationParameter param_;
  Phase phase_;
  Rng rng_;
  bool resizes_ = false;
  // The raw draws of the mirror coin and the crop offsets, in Caffe's order.
  struct Draws {
    uint32_t mirror = 0, h = 0, w = 0;
  };
  Draws DrawRaw(Rng& rng) const;
  // Crop window and mirror coin of one image.
  struct Window {
    int height, width, h_off, w_off;
    bool mirror;
  };
  Window WindowOf(const Draws& draws, int in_height, int in_width) const;
  Status CheckFitsImage(int channels, int height, int width) const;
  // One mean_value, or one per channel.
  Status CheckMeanValueCount(int channels) const;
  // Transform of 8-bit pixels with the raw draws made: the window's values to `out`.
  void ApplyPixels(const Window& window, const PixelView& image, float* out) const;
  // Resize (resizes()) and pad around ApplyPixels.
  Status TransformIntel(const PixelView& image, Rng& rng, float* out) const;
  // out[c][h][w] = (pixel(c, y, x) - mean) * scale over the window; see the file comment.
  template <typename Pixel>
  void Apply(const Window& window, int channels, int in_height, int in_width, const Pixel& pixel,
             float* out) const;
  // Apply for 3-channel HWC pixels, row by row: the hot path of ImageData. Each source row is read
  // once, front to back, and its B, G, R values go to the three output planes as
  // value(channel, y, x, pixel) (Apply walks the image once per channel, striding over the
  // other two).
  template <typename Value>
  void ApplyInterleaved3(const Window& window, const uint8_t* pixels, int in_width,
                         const Value& value, float* out) const;

  Tensor mean_;  // the mean image, {C, H, W}, when mean_file is set
  bool has_mean_file_ = false;
};

}  // namespace dtrain
