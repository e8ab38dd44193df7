#include "data/datum.h"

#include "data/lmdb_db.h"

namespace dtrain {
namespace {

Status RecordError(std::string_view key, const std::string& message) {
  return DataLoss("record '" + PrintableKey(key) + "': " + message);
}

}  // namespace

int64_t DatumSize(const Datum& datum) {
  return static_cast<int64_t>(datum.channels()) * datum.height() * datum.width();
}

std::string DatumShapeString(const Datum& datum) {
  return std::to_string(datum.channels()) + "x" + std::to_string(datum.height()) + "x" +
         std::to_string(datum.width());
}

Status ParseDatum(std::string_view bytes, std::string_view key, Datum* datum, ImageColor color) {
  if (!datum->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return RecordError(key, "not a valid Datum (" + std::to_string(bytes.size()) +
                                " bytes; truncated or corrupt record)");
  }
  if (datum->encoded()) {
    StatusOr<ChwImage> image = DecodeImage(datum->data(), color);
    if (!image.ok()) return RecordError(key, "encoded image: " + image.status().message());
    datum->set_channels(image->channels);
    datum->set_height(image->height);
    datum->set_width(image->width);
    datum->set_data(image->pixels.data(), image->pixels.size());
    datum->set_encoded(false);
  }
  return ValidateDatum(*datum, key);
}

Status ValidateDatum(const Datum& datum, std::string_view key) {
  if (datum.encoded()) {
    return RecordError(key, "holds an encoded (JPEG/PNG) image; decode it first (ParseDatum)");
  }
  if (datum.channels() <= 0 || datum.height() <= 0 || datum.width() <= 0) {
    return RecordError(key, "bad shape " + DatumShapeString(datum) +
                                " (channels, height and width must be positive)");
  }
  const int64_t expected = DatumSize(datum);
  if (!datum.data().empty()) {
    const int64_t got = static_cast<int64_t>(datum.data().size());
    if (got != expected) {
      return RecordError(key, "shape " + DatumShapeString(datum) + " needs " +
                                  std::to_string(expected) + " uint8 values, the record has " +
                                  std::to_string(got));
    }
    return Status::Ok();
  }
  const int64_t got = datum.float_data_size();
  if (got != expected) {
    return RecordError(key, "shape " + DatumShapeString(datum) + " needs " +
                                std::to_string(expected) + " values, the record has " +
                                std::to_string(got) + " float values and no uint8 data");
  }
  return Status::Ok();
}

Datum MakeDatum(int channels, int height, int width, const uint8_t* pixels, int label) {
  Datum datum;
  datum.set_channels(channels);
  datum.set_height(height);
  datum.set_width(width);
  datum.set_data(pixels, static_cast<size_t>(channels) * height * width);
  datum.set_label(label);
  return datum;
}

}  // namespace dtrain
