// The SSD fork's random photometric distortion (its im_transforms.cpp, ApplyDistort, as Intel
// Caffe carries it) of an 8-bit B, G, R image, HWC interleaved, in place, with OpenCV's 8-bit
// colour arithmetic written out.
//
// What each step does to every value v (rounding: to nearest, ties to even, then saturated to
// [0, 255], as OpenCV's convertTo):
//   brightness d: v + d (skipped when d == 0);
//   contrast f: v * f (skipped when |f - 1| <= 1e-3);
//   saturation f: S * f in HSV, then back to BGR. The fork's test `|f - 1| != 1e-3` is always
//     true, so even f == 1 makes the (lossy) round trip through HSV: kept;
//   hue d: H + d in HSV (H in 0..180; a sum past 255 or below 0 saturates, and HsvToBgr wraps H
//     at 180), then back (skipped when d == 0);
//   channel order: a random permutation of B, G, R.
//
// The draws, from the caller's Rng, in this order (the fork's, from Caffe's global generator):
// u = Uniform(0, 1) picks the order: u > 0.5 gives brightness, contrast, saturation, hue,
// channel order; otherwise brightness, saturation, hue, contrast, channel order. Each step then
// draws p = Uniform(0, 1) and, when p < its probability, its amount: Uniform(-delta, delta) for
// brightness and hue, Uniform(lower, upper) for contrast and saturation; the channel order
// draws UniformInt(2) then UniformInt(3), swapping channel 1 with the first draw's channel, then
// channel 2 with the second's (libstdc++'s std::random_shuffle). Every step draws its p even
// when its probability is 0.
//
// BgrToHsv is OpenCV's 8-bit COLOR_BGR2HSV (integer tables, 12-bit fixed point): exact against
// OpenCV 4.6 over all 2^24 colours. HsvToBgr is OpenCV's 8-bit COLOR_HSV2BGR as its source
// states it and OpenCV 2.4 computes it: S and V times 1.f / 255, the float sector formula, each
// of B, G, R times 255 rounded to nearest. This file is compiled without fused multiply-adds
// (src/data/CMakeLists.txt), so the result does not depend on the machine. Measured against
// OpenCV 4.6 pixel by pixel (its scalar path) over all 2^24 HSV triples, H up to 255: equal
// but for 265 triples, off by 1, where its AVX2 build fuses 1 - s h; and OpenCV 3.4+'s vector
// path, which converts all but the last few pixels of an image, truncates B, G, R instead of
// rounding (1 lower in most pixels). Free functions; thread-safe for distinct Rngs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/rng.h"
#include "core/status.h"
#include "proto/layer_params.pb.h"

namespace dtrain {

// One pixel: B, G, R to H (0..179), S, V, and back.
void BgrToHsv(const uint8_t* bgr, uint8_t* hsv);
void HsvToBgr(const uint8_t* hsv, uint8_t* bgr);

// The steps above on `pixels` B, G, R pixels (3 * pixels values).
void AdjustBrightness(float delta, uint8_t* bgr, size_t pixels);
void AdjustContrast(float factor, uint8_t* bgr, size_t pixels);
void AdjustSaturation(float factor, uint8_t* bgr, size_t pixels);
void AdjustHue(float delta, uint8_t* bgr, size_t pixels);

// Errors name the field ("transform_param.distort_param.brightness_delta ..."): a value that is
// not finite or beyond 1e30 in magnitude; where the step's probability is positive, the fork's
// checks: a negative brightness_delta or hue_delta, a negative lower bound or upper < lower.
Status ValidateDistortion(const DistortionParameter& param);

// Draws and applies the distortion to a 3-channel image (param as validated).
void ApplyDistortion(const DistortionParameter& param, Rng& rng, uint8_t* bgr, size_t pixels);

}  // namespace dtrain
