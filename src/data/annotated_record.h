// One AnnotatedDatum record (annotation.proto, the SSD fork's format) as AnnotatedData reads it:
// the image decoded to 8-bit pixels, interleaved (HWC; B, G, R for colour), and its boxes in
// record order (groups in order, annotations in order within a group).
//
// An encoded Datum (JPEG/PNG, as `dtrain convert annoset` and the fork's convert_annoset write
// by default) decodes in `color` (kNative: the file's own); a raw one must hold uint8 `data`
// (float_data is refused: the fork's augmentations work on 8-bit images). Every problem is a
// DataLoss naming the record's key: bytes that are not an AnnotatedDatum, a record without a
// Datum, a shape that does not match the payload, a box with a coordinate that is not finite or
// a negative label. Boxes outside [0, 1] or with xmax < xmin are kept: the transform clips them
// and drops the empty ones, as the fork does. Free functions; thread-safe for distinct decoders.
#pragma once

#include <string_view>
#include <vector>

#include "core/status.h"
#include "data/annotated_transformer.h"
#include "data/image_decode.h"

namespace dtrain {

struct AnnotatedRecord {
  Image8 image;
  std::vector<AnnotatedBox> boxes;
  bool has_type = false;  // whether the record states an AnnotationType
  int type = 0;           // that type (0: BBOX)
  int label = 0;          // the Datum's own label (records without boxes)
};

Status ParseAnnotatedRecord(std::string_view bytes, std::string_view key, ImageColor color,
                            ImageDecoder* decoder, AnnotatedRecord* out);

}  // namespace dtrain
