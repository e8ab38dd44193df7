// Datum helpers: turning the bytes of one LMDB record into a checked Datum, and back.
//
// A Datum (proto/blob.proto) is one labelled example: channels x height x width values in CHW
// order, stored either as uint8 bytes (`data`) or as floats (`float_data`). An encoded Datum
// (`encoded: true`, as `convert imageset --encoded` and Caffe's convert_imageset -encoded write)
// holds a JPEG or PNG file in `data` and no shape; ParseDatum decodes it (image_decode.h) into a
// plain uint8 Datum in BGR CHW order with the same label, so that everything downstream sees raw
// pixels. Every problem with a record is a DataLoss Status naming its key, so that a corrupt data
// set stops training with a message saying which record is bad. Free functions over values;
// thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"
#include "data/image_decode.h"
#include "proto/blob.pb.h"

namespace dtrain {

// Parses `bytes` (the value stored under `key`), decodes an encoded image in the colour mode
// `color` (kNative: as the file holds it, Caffe's default), and checks it with ValidateDatum.
Status ParseDatum(std::string_view bytes, std::string_view key, Datum* datum,
                  ImageColor color = ImageColor::kNative);

// Checks that the shape is positive, the record is not (still) encoded, and the payload (`data`
// or `float_data`) holds exactly channels*height*width values.
Status ValidateDatum(const Datum& datum, std::string_view key);

// channels * height * width.
int64_t DatumSize(const Datum& datum);
// Value `index` (CHW order) of a validated Datum, from whichever payload it carries.
inline float DatumValue(const Datum& datum, int64_t index) {
  return datum.data().empty() ? datum.float_data(static_cast<int>(index))
                              : static_cast<float>(static_cast<uint8_t>(datum.data()[index]));
}

// A uint8 Datum from channels*height*width bytes in CHW order.
Datum MakeDatum(int channels, int height, int width, const uint8_t* pixels, int label);

// "3x32x32", for messages.
std::string DatumShapeString(const Datum& datum);

}  // namespace dtrain
