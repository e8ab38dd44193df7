// A normalised box in the pixels of the original image, as the SSD fork writes and evaluates
// detections (its OutputBBox): the box is clipped to [0, 1] and scaled to the image's size, after
// undoing the padding of FIT_LARGE_SIZE_AND_PAD when the net's input was resized that way.
// Pure; thread-safe.
#pragma once

#include <string>

#include "core/status.h"
#include "detection/box.h"

namespace dtrain::detection {

// ResizeParameter's resize_mode values (the modes OutputPixelBox understands).
enum class ResizeMode { kWarp = 1, kFitSmallSize = 2, kFitLargeSizeAndPad = 3 };

// The net input's resize (ResizeParameter), where there was one.
struct ResizeSettings {
  ResizeMode mode = ResizeMode::kWarp;
  float height = 0, width = 0;  // the resized size; both must be positive
  int height_scale = 0, width_scale = 0;
};

// "" when OutputPixelBox can use `resize`, else what is wrong with it, naming the field
// (resize_param.height or width not positive: the fork aborts; FIT_SMALL_SIZE with height_scale
// and width_scale, whose boxes the fork compares with areas of another convention: not
// implemented).
std::string ResizeProblem(const ResizeSettings& resize);

// `box` in pixels of an image of image_height x image_width. Where `resize` is non-null and
// FIT_LARGE_SIZE_AND_PAD, the box is first projected out of the padded input (a box outside
// the image content stays as it was, as in the fork). Precondition: ResizeProblem(*resize) == "".
NormalizedBox OutputPixelBox(const NormalizedBox& box, int image_height, int image_width,
                             const ResizeSettings* resize);

}  // namespace dtrain::detection
