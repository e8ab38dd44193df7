// Resizing 8-bit images as OpenCV's cv::resize does, for the interpolations Intel Caffe's
// transform_param asks for (ResizeParameter.interp_mode): LINEAR (INTER_LINEAR, see
// ResizeBilinear in image_decode.h), CUBIC (INTER_CUBIC) and NEAREST (INTER_NEAREST).
//
// CUBIC follows cv::resize's generic 8-bit path: the source coordinate of output column x is
// fx = (x + 0.5) * (in_width / out_width) - 0.5 in float, its taps floor(fx) - 1 .. floor(fx) + 2
// (replicated at the borders), the four weights Keys' cubic with A = -0.75 at t = fx - floor(fx),
// each rounded to 11-bit fixed point; rows alike; the two passes multiply in integers and the sum
// is rounded once, (v + 2^21) >> 22, then saturated to [0, 255]. OpenCV's vectorised
// vertical pass rounds in float instead and may differ by 1 in rare pixels.
// NEAREST takes source pixel min(floor(x * in_width / out_width), in_width - 1) (double), and rows
// alike. A resize to the same size copies.
//
// Images are HWC interleaved with any channel count (each channel resized on its own, so a CHW
// plane is a 1-channel image). Free functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/image_decode.h"

namespace dtrain {

enum class Interpolation { kLinear, kCubic, kNearest };

// "LINEAR", "CUBIC", "NEAREST": Intel Caffe's names, for messages.
std::string InterpolationName(Interpolation mode);

// Resizes `in` to out_height x out_width (both > 0) into `out` (out_height * out_width *
// in.channels values). `scratch`, if given, keeps the working buffers from call to call.
void ResizeImage(const HwcImage& in, int out_height, int out_width, Interpolation mode,
                 uint8_t* out, std::vector<int>* scratch = nullptr);

}  // namespace dtrain
