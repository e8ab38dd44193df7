// VideoDataLayer ("VideoData"): the frames of a video file, as Intel Caffe's VideoData layer (the
// SSD fork's) reads them through OpenCV's VideoCapture; here through FFmpeg (data/video_file.h).
//
// Tops: data (N x 3 x H x W, float32, BGR, after transform_param) and an optional label (N), 0 for
// every frame as in Intel's layer. No bottoms, no backward.
// Parameters: video_data_param.video_type VIDEO with video_file (a path, relative to the working
// directory, as data_param.source); WEBCAM, the field's default, is refused by name (dtrain reads
// no camera, so device_id is unused). skip_frames: frames skipped before each frame read.
// data_param.batch_size, data_param.prefetch (batches read ahead), and Caffe's legacy data_param
// scale/mean_file/crop_size/mirror for the transform_param fields left unset.
// transform_param: resize_param (the SSD fork's resize policy, data/resize_policy.h) first, as
// Intel's Transform(cv::Mat) applies it to each frame; then what DataTransformer applies:
// crop_size, mirror, mean_file or mean_value, scale, Intel's random_resize_param,
// random_aspect_ratio_param and pad. resize_param together with a random resize is refused (Intel
// applies the random resize first, then resize_param); with resize_param and crop_size the crop is
// taken from the resized frame (Intel takes the window's pixels from the frame before resize_param,
// the bug docs/intel-caffe.md notes for AnnotatedData). The SSD fork's other augmentations are
// refused by name, as in every data layer but AnnotatedData.
//
// Order (data/video_frame_source.h): position p is record p mod R of the video, R =
// floor(frames / (skip_frames + 1)), record r being frame r (skip_frames + 1) + skip_frames. At the
// end of the video the layer reads it again from the first frame, in every phase, logging the
// first time; Intel's raises SIGINT there, stopping the run. The batch shape comes from frame 0 (as
// Intel's, which reads it at setup); every frame has its size (a frame of another size is an error
// naming it). Random draws of a frame come from a stream seeded by the layer's seed and the frame's
// position (the resize's interpolation when resize_param names several, then the transformer's
// mirror coin and crop offsets), so shards and resumed runs transform exactly as one reader does.
//
// Sharding, prefetching and state are PrefetchingDataLayer's: shard i of n reads positions i,
// i + n, ...; the state is the position (the start of the next round of n positions), a decimal
// number. Errors name the layer and the video (and the frame): a missing or undecodable file, no
// video stream, no frames, fewer frames than skip_frames + 1, frames or batches larger than the
// machine's memory. Not thread-safe, like every layer.
#pragma once

#include <memory>
#include <string>

#include "data/image_resize.h"
#include "data/transformer.h"
#include "data/video_frame_source.h"
#include "layers/layer_inputs.h"
#include "layers/prefetching_data_layer.h"

namespace dtrain {

class VideoDataLayer : public PrefetchingDataLayer {
 public:
  VideoDataLayer(const LayerParameter& p, const LayerContext& c);
  ~VideoDataLayer() override;

  const char* type() const override { return "VideoData"; }
  // What the parameters name for it to read, and pointing its records elsewhere (layer_inputs.h).
  static LayerInputs Inputs(const LayerParameter& p);
  static void SetRecords(LayerParameter* p, const std::string& records);
  int MinTopBlobs() const override { return 1; }
  int MaxTopBlobs() const override { return 2; }

 protected:
  Status SetUpSource(const TensorVec& top) override;
  RecordSource* source() override { return frames_.get(); }
  Status FillItem(int item, int64_t position, Batch* batch) override;

 private:
  // Checks video_data_param and opens the video.
  Status OpenVideo();
  // Splits transform_param into resize_param (resize_) and the rest (transformer_).
  Status SetUpTransform();

  uint64_t seed_;
  std::unique_ptr<VideoFrameSource> frames_;
  std::unique_ptr<DataTransformer> transformer_;
  std::unique_ptr<ResizeParameter> resize_;  // transform_param.resize_param, when set
  Image8 resized_;                           // the current frame after resize_, reused
  int64_t item_size_ = 0;                    // values of one transformed frame
  bool told_wrap_ = false;                   // the first return to frame 0 is logged
};

}  // namespace dtrain
