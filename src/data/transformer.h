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
// is set), then h_off, then w_off (only when cropping in TRAIN).
//
// Init() validates the parameters and loads mean_file (a BlobProto .binaryproto). Not
// thread-safe (the Rng): one owner, normally the Data layer's prefetch thread.
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

class DataTransformer {
 public:
  DataTransformer(const TransformationParameter& param, Phase phase, uint64_t seed);

  // Checks the parameters and reads mean_file. Errors name the offending field or file.
  Status Init();

  // The shape Transform writes for `datum`: {C, H, W} after cropping.
  std::vector<int> OutputShape(const Datum& datum) const;

  // Checks that `datum` (already validated, see datum.h) fits the parameters: at least crop_size
  // high and wide, same shape as the mean image, one mean_value or one per channel.
  Status CheckFits(const Datum& datum) const;

  // Writes OutputShape(datum) values to `out`. Calls CheckFits first.
  Status Transform(const Datum& datum, float* out);

  const TransformationParameter& param() const { return param_; }
  // The random stream, for saving and restoring it with a snapshot.
  Rng& rng() { return rng_; }
  const Rng& rng() const { return rng_; }

 private:
  TransformationParameter param_;
  Phase phase_;
  Rng rng_;
  Tensor mean_;  // the mean image, {C, H, W}, when mean_file is set
  bool has_mean_file_ = false;
};

}  // namespace dtrain
