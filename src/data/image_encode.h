// Image encoding: 8-bit BGR or gray pixels (HWC, image_decode.h) to JPEG (TurboJPEG) or PNG
// (libpng) bytes, for `convert imageset --encoded` when it resizes or converts colour (Caffe's
// convert_imageset re-encodes with cv::imencode then). JPEG: baseline, 4:2:0 chroma subsampling
// for colour (libjpeg's default, as OpenCV's), `quality` 1..100 (OpenCV's default is 95). PNG:
// lossless, default compression. Failures are DataLoss Statuses giving the library's message.
// Free functions; thread-safe.
#pragma once

#include <string>

#include "core/status.h"
#include "data/image_decode.h"

namespace dtrain {

StatusOr<std::string> EncodeJpeg(const HwcImage& image, int quality = 95);
StatusOr<std::string> EncodePng(const HwcImage& image);

}  // namespace dtrain
