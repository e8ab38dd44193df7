#include "data/image_datum.h"

#include <cctype>

#include "data/image_encode.h"

namespace dtrain {

StatusOr<ImageFormat> EncodeFormat(const std::string& encode_type, ImageFormat file_format) {
  std::string type = encode_type;
  if (!type.empty() && type[0] == '.') type = type.substr(1);
  for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (type.empty()) return file_format;
  if (type == "jpg" || type == "jpeg") return ImageFormat::kJpeg;
  if (type == "png") return ImageFormat::kPng;
  return InvalidArgument("encode_type '" + encode_type + "' is not jpg or png");
}

StatusOr<Datum> ImageDatum(const std::string& bytes, int label, const ImagesetOptions& options,
                           ImageDecoder* decoder) {
  DT_ASSIGN_OR_RETURN(HwcImage image,
                      decoder->Decode(bytes, options.gray ? ImageColor::kGray : ImageColor::kColor,
                                      options.resize_height, options.resize_width));
  Datum datum;
  datum.set_label(label);
  if (options.encoded) {
    datum.set_encoded(true);
    const ImageFormat file_format = DetectImageFormat(bytes);
    DT_ASSIGN_OR_RETURN(const ImageFormat format, EncodeFormat(options.encode_type, file_format));
    if (options.resize_height == 0 && !options.gray && format == file_format) {
      datum.set_data(bytes);  // the file as it is
    } else if (format == ImageFormat::kJpeg) {
      DT_ASSIGN_OR_RETURN(std::string jpeg, EncodeJpeg(image));
      datum.set_data(std::move(jpeg));
    } else {
      DT_ASSIGN_OR_RETURN(std::string png, EncodePng(image));
      datum.set_data(std::move(png));
    }
    return datum;
  }
  std::string pixels(static_cast<size_t>(image.channels) * image.height * image.width, '\0');
  HwcToChw(image, reinterpret_cast<uint8_t*>(pixels.data()));
  datum.set_channels(image.channels);
  datum.set_height(image.height);
  datum.set_width(image.width);
  datum.set_data(std::move(pixels));
  return datum;
}

}  // namespace dtrain
