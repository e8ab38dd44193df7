#include "data/annotated_record.h"

#include <cmath>
#include <string>

#include "data/datum.h"
#include "data/lmdb_db.h"
#include "proto/annotation.pb.h"

namespace dtrain {
namespace {

Status RecordError(std::string_view key, const std::string& message) {
  return DataLoss("record '" + PrintableKey(key) + "': " + message);
}

// CHW planes of a raw Datum to interleaved pixels.
void Interleave(const Datum& datum, Image8* image) {
  const int channels = datum.channels(), pixels = datum.height() * datum.width();
  image->channels = channels;
  image->height = datum.height();
  image->width = datum.width();
  image->pixels.resize(static_cast<size_t>(channels) * pixels);
  const auto* planes = reinterpret_cast<const uint8_t*>(datum.data().data());
  for (int c = 0; c < channels; ++c) {
    for (int i = 0; i < pixels; ++i) {
      image->pixels[static_cast<size_t>(i) * channels + c] =
          planes[static_cast<size_t>(c) * pixels + i];
    }
  }
}

Status DecodeImage(const Datum& datum, std::string_view key, ImageColor color,
                   ImageDecoder* decoder, Image8* image) {
  if (datum.encoded()) {
    StatusOr<HwcImage> decoded = decoder->Decode(datum.data(), color);
    if (!decoded.ok()) return RecordError(key, "encoded image: " + decoded.status().message());
    image->channels = decoded->channels;
    image->height = decoded->height;
    image->width = decoded->width;
    const size_t count = static_cast<size_t>(decoded->channels) * decoded->height * decoded->width;
    image->pixels.assign(decoded->pixels, decoded->pixels + count);
    return Status::Ok();
  }
  DT_RETURN_IF_ERROR(ValidateDatum(datum, key));
  if (datum.data().empty()) {
    return RecordError(key,
                       "holds float_data; AnnotatedData reads 8-bit images (the SSD fork's "
                       "augmentations work on them)");
  }
  if (color != ImageColor::kNative && datum.channels() != (color == ImageColor::kGray ? 1 : 3)) {
    return RecordError(key, "a raw " + DatumShapeString(datum) + " image cannot be forced to " +
                                (color == ImageColor::kGray ? "gray" : "colour") +
                                " (force_color / force_gray apply to encoded images)");
  }
  Interleave(datum, image);
  return Status::Ok();
}

}  // namespace

Status ParseAnnotatedRecord(std::string_view bytes, std::string_view key, ImageColor color,
                            ImageDecoder* decoder, AnnotatedRecord* out) {
  AnnotatedDatum record;
  if (!record.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return RecordError(key, "not a valid AnnotatedDatum (" + std::to_string(bytes.size()) +
                                " bytes; truncated or corrupt record)");
  }
  if (!record.has_datum()) return RecordError(key, "an AnnotatedDatum without its datum");
  DT_RETURN_IF_ERROR(DecodeImage(record.datum(), key, color, decoder, &out->image));
  out->has_type = record.has_type();
  out->type = record.type();
  out->label = record.datum().label();
  out->boxes.clear();
  for (int g = 0; g < record.annotation_group_size(); ++g) {
    const AnnotationGroup& group = record.annotation_group(g);
    const std::string where = "annotation_group " + std::to_string(g);
    if (group.group_label() < 0) {
      return RecordError(key,
                         where + " has the negative label " + std::to_string(group.group_label()));
    }
    for (int a = 0; a < group.annotation_size(); ++a) {
      const NormalizedBBox& b = group.annotation(a).bbox();
      AnnotatedBox box;
      box.box.xmin = b.xmin();
      box.box.ymin = b.ymin();
      box.box.xmax = b.xmax();
      box.box.ymax = b.ymax();
      box.box.label = group.group_label();
      box.box.difficult = b.difficult();
      box.instance_id = group.annotation(a).instance_id();
      for (float v : {box.box.xmin, box.box.ymin, box.box.xmax, box.box.ymax}) {
        if (!std::isfinite(v)) {
          return RecordError(key, where + " annotation " + std::to_string(a) +
                                      " has a coordinate that is not finite");
        }
      }
      out->boxes.push_back(box);
    }
  }
  return Status::Ok();
}

}  // namespace dtrain
