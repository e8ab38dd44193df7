// Intel Caffe's per-image resizes of transform_param (Intel's data_transformer.cpp,
// RandomResizeImage and RandomAlterAspectRatio): the checks of their fields and the draws that
// decide, for one image, which box of it is resized to which size. Pure: no pixels, no I/O.
//
// random_resize_param { min_size max_size resize_param }: the shorter side becomes
// s = min_size + (draw % (max_size - min_size + 1)), the longer int(float(long) / short * s)
// (float arithmetic, as Intel's), the aspect kept; min_size 0 stands for the image's shorter side
// and max_size 0 for its longer one, so both 0 draw s between the image's two sides. With
// min_size == max_size it is a fixed resize of the shorter side (Intel's TEST Data layers).
//
// random_aspect_ratio_param { min_area_ratio max_area_ratio aspect_ratio_change max_attempt
// resize_param }: the Inception crop. Up to max_attempt times: an area ratio and an aspect change
// are drawn by Intel's RandRatio(lo, hi) = (draw % int((hi - lo) * 1000 + 1) + lo * 1000) / 1000
// (float; steps of 0.001), the area ratio in [min_area_ratio, max_area_ratio], the change c in
// [aspect_ratio_change, 1 / aspect_ratio_change]; the box is h' = int(sqrt(ratio * H * W) * c),
// w' = int(sqrt(ratio * H * W) / c) (the square root in double), swapped when a third
// RandRatio(0, 1) is below 0.5; if h' <= H and w' <= W (and, dtrain's addition, neither is 0,
// where OpenCV would stop on an empty image) its top is draw % (H - h' + 1), its left
// draw % (W - w' + 1), and it is resized to crop_size x crop_size. When no attempt fits (or
// max_attempt is 0) the whole image's shorter side is resized to crop_size.
//
// Draws come from the caller's Rng in that order; then, only when resize_param names several
// interp_modes, one more picks the mode (Intel picks it from Caffe's global generator). The
// transformer draws its mirror coin and crop offsets before these (datum path of Intel's Data
// layer, which precomputes them), see transformer.h. Thread-safe for distinct Rngs.
#pragma once

#include <cstdint>

#include "core/rng.h"
#include "core/status.h"
#include "data/image_resize.h"
#include "proto/layer_params.pb.h"

namespace dtrain {

// Which box of an image is resized to which size, and how.
struct ResizePlan {
  int y = 0, x = 0, height = 0, width = 0;  // the box taken from the source
  int out_height = 0, out_width = 0;        // the size it is resized to
  Interpolation interpolation = Interpolation::kLinear;
};

// True when `transform` resizes every image (random_resize_param or random_aspect_ratio_param).
bool ResizesImages(const TransformationParameter& transform);

// Checks random_resize_param, random_aspect_ratio_param and pad with crop_size, mean_file and
// the machine's memory; every error names the field (under "transform_param.").
Status CheckResizeFields(const TransformationParameter& transform);

// The plan for one height x width image with `channels` channels (transform as checked by
// CheckResizeFields). Errors: a size range that this image leaves empty (min_size or max_size
// 0), a resized image larger than the machine's memory.
StatusOr<ResizePlan> DrawResize(const TransformationParameter& transform, int channels, int height,
                                int width, Rng& rng);

}  // namespace dtrain
