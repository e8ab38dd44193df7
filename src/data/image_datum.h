// One image file as a Datum, the way Caffe's convert_imageset and the SSD fork's convert_annoset
// store it (data/convert.h says what each option does). Shared by the two converters.
#pragma once

#include <string>

#include "core/status.h"
#include "data/convert.h"
#include "data/image_decode.h"
#include "proto/blob.pb.h"

namespace dtrain {

// The format `encode_type` ("jpg", "jpeg", "png", with or without a dot, any case) names, or
// `file_format` for "".
StatusOr<ImageFormat> EncodeFormat(const std::string& encode_type, ImageFormat file_format);

// The Datum for an image file's `bytes` with `label`: BGR (or gray) CHW pixels, or, when
// options.encoded, the file itself (re-encoded in its own format if resized or made gray).
// decoder->decoded_height()/decoded_width() give the image's size before resizing afterwards.
StatusOr<Datum> ImageDatum(const std::string& bytes, int label, const ImagesetOptions& options,
                           ImageDecoder* decoder);

}  // namespace dtrain
