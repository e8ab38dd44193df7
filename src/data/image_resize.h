// Resizing 8-bit images as OpenCV's cv::resize does, for the interpolations Intel Caffe's
// transform_param asks for (ResizeParameter.interp_mode): LINEAR (INTER_LINEAR, see
// ResizeBilinear in image_decode.h), CUBIC (INTER_CUBIC), NEAREST (INTER_NEAREST), AREA
// (INTER_AREA) and LANCZOS4 (INTER_LANCZOS4).
//
// CUBIC follows cv::resize's generic 8-bit path: the source coordinate of output column x is
// fx = (x + 0.5) * (in_width / out_width) - 0.5 in float, its taps floor(fx) - 1 .. floor(fx) + 2
// (replicated at the borders), the four weights Keys' cubic with A = -0.75 at t = fx - floor(fx),
// each rounded to 11-bit fixed point; rows alike; the two passes multiply in integers and the sum
// is rounded once, (v + 2^21) >> 22, then saturated to [0, 255]. OpenCV's vectorised
// vertical pass rounds in float instead and may differ by 1 in rare pixels.
// AREA has three cases, as cv::resize: (1) shrinking by whole factors kx, ky on both axes (the
// input kx and ky times the output): the mean of each kx x ky block, (sum + 2) >> 2 for 2 x 2
// blocks of 1, 3 or 4 channels (OpenCV's vector path), else the float sum * (1.f / (kx * ky))
// rounded to nearest, ties to even. (2) Shrinking otherwise (neither axis grows): each output
// pixel is the area-weighted mean of the source pixels its cell covers, cell width s = in / out
// (double): the source column k gets weight (overlap of [k, k + 1) with [x s, x s + s)) / s,
// with OpenCV's 1e-3 tolerance for slivers and its cell clipped at the image's end; the weights
// are floats, the sums accumulate in float in OpenCV's order (per source row, then rows times
// their weight) and the result is rounded ties to even: exact. (3) Any axis grows: a bilinear
// resize whose source coordinate is sx = floor(x s) and fraction f = (x + 1) - (sx + 1) / s,
// 0 when not positive, else f - floor(f) (the same for rows), weights in 11-bit fixed point and
// the vertical pass as LINEAR's (see ResizeBilinear): may differ by 1 where LINEAR may.
// LANCZOS4 follows OpenCV's 8-tap kernel: source coordinate fx = (x + 0.5) s - 0.5 (float), taps
// floor(fx) - 3 .. floor(fx) + 4 replicated at the borders, the weight of the tap at distance t
// proportional to sin(pi t) sin(pi t / 4) / t^2 (computed in double as OpenCV does, each
// converted to float and divided by their float sum; a whole fx gives the one tap floor(fx)),
// rounded to 11-bit fixed point; the two passes multiply in integers and round once,
// (v + 2^21) >> 22, saturated: exact (OpenCV has no vector path for it on 8 bits).
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

enum class Interpolation { kLinear, kCubic, kNearest, kArea, kLanczos4 };

// An 8-bit image, HWC interleaved (B, G, R for colour), owned.
struct Image8 {
  int channels = 0, height = 0, width = 0;
  std::vector<uint8_t> pixels;  // height * width * channels values
  HwcImage view() const { return {pixels.data(), channels, height, width}; }
};

// "LINEAR", "CUBIC", "NEAREST", "AREA", "LANCZOS4": Intel Caffe's names, for messages.
std::string InterpolationName(Interpolation mode);

// Resizes `in` to out_height x out_width (both > 0) into `out` (out_height * out_width *
// in.channels values). `scratch`, if given, keeps the working buffers from call to call.
void ResizeImage(const HwcImage& in, int out_height, int out_width, Interpolation mode,
                 uint8_t* out, std::vector<int>* scratch = nullptr);

}  // namespace dtrain
