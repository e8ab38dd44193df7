// The SSD fork's resize policy (ResizeParameter, its im_transforms.cpp and bbox_util.cpp as Intel
// Caffe carries them): how an image is resized before the final crop, and how its normalised
// boxes follow.
//
// Modes, for an input of H x W resized to resize_param's height h and width w (aspect a = W / H
// in float):
//   WARP: the image becomes h x w.
//   FIT_SMALL_SIZE: the aspect is kept and the image covers h x w: h' = floor(w / a) x w when
//     a < w / h, else h x floor(a h).
//   FIT_LARGE_SIZE_AND_PAD: the aspect is kept and the image fits in h x w: resized to
//     floor(w / a) x w (a > w / h) or h x floor(a h), then padded to h x w with floor(pad / 2)
//     before and the rest after, by pad_mode: CONSTANT (pad_value: one for every channel or one
//     per channel, rounded to nearest and saturated; 0 without), MIRRORED (OpenCV's
//     BORDER_REFLECT_101, reflected again where the padding outgrows the image) or
//     REPEAT_NEAREST (the edge pixel).
// The interpolation is one of interp_mode's, picked uniformly (LINEAR when none is given).
// resize_param.prob is read by nothing in the fork, nor here.
//
// Boxes (ResizeBoxByPolicy, the fork's UpdateBBoxByResizePolicy): WARP and FIT_SMALL_SIZE only
// clip each box to the image ([0, 1]); FIT_LARGE_SIZE_AND_PAD maps it into the padded image with
// the unrounded padding (h - w / a) / 2 (or (w - a h) / 2), clipping before the padding is added
// as the fork does (a box past the image's bottom ends in the padding). ExtrapolateBox is the
// fork's ExtrapolateBBox: with FIT_SMALL_SIZE and both height_scale and width_scale set, a box
// already projected into the crop is scaled by (the crop's size in the resized image) /
// (width_scale, height_scale), reaching past [0, 1].
//
// Pure functions; thread-safe for distinct Rngs.
#pragma once

#include <string>

#include "core/rng.h"
#include "core/status.h"
#include "data/image_resize.h"
#include "detection/box.h"
#include "proto/layer_params.pb.h"

namespace dtrain {

// At most this many pixels (height x width) in any image the SSD augmentations make.
constexpr int64_t kMaxAugmentedPixels = int64_t{1} << 28;

// Checks resize_param; errors start with `field` ("transform_param.resize_param"): height and
// width positive, pad_value finite.
Status ValidateResizePolicy(const ResizeParameter& resize, const std::string& field);

// The interpolation of one resize: one of interp_mode's, drawn with UniformInt when there are
// several; LINEAR when there are none.
Interpolation PickInterpolation(const ResizeParameter& resize, Rng& rng);

// The size an image of height x width has after ApplyResizePolicy (the fork's InferNewSize).
struct ImageSize {
  int64_t height = 0, width = 0;
};
ImageSize ResizedSize(const ResizeParameter& resize, int height, int width);

// Resizes `in` (at least 1 x 1) into *out. Errors, naming `field`: a result with no rows or
// columns (FIT_LARGE_SIZE_AND_PAD of a very long image) or over kMaxAugmentedPixels, a
// pad_value count other than 1 or the channel count.
Status ApplyResizePolicy(const ResizeParameter& resize, Interpolation interpolation,
                         const Image8& in, Image8* out, const std::string& field);

// `box`, normalised to an old_height x old_width image, normalised to the resized one.
detection::NormalizedBox ResizeBoxByPolicy(const ResizeParameter& resize, int old_height,
                                           int old_width, detection::NormalizedBox box);

// The fork's ExtrapolateBBox (see above) on *box; `crop` is the crop in the resized image,
// normalised. Error (the fork aborts): the crop is narrower than width_scale or lower than
// height_scale.
Status ExtrapolateBox(const ResizeParameter& resize, int old_height, int old_width,
                      const detection::NormalizedBox& crop, detection::NormalizedBox* box,
                      const std::string& field);

}  // namespace dtrain
