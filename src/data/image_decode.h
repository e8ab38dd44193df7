// Image decoding: JPEG (libjpeg-turbo's TurboJPEG API) and PNG (libpng) bytes in memory to 8-bit
// pixels in OpenCV's BGR channel order, as Caffe's cv::imdecode/cv::imread give them; the one
// place in dtrain that calls those two libraries for reading.
//
// The format is told by the magic bytes (FF D8 FF: JPEG; 89 'PNG' 0D 0A 1A 0A: PNG), not a file
// name. Colour: kColor gives 3 channels (B, G, R), kGray 1 (a colour JPEG's luma, a colour PNG
// weighted 0.299 R + 0.587 G + 0.114 B as OpenCV asks libpng to), kNative whichever the file holds
// (gray or gray+alpha PNGs and grayscale JPEGs are 1 channel, everything else 3; CMYK JPEGs are
// converted to BGR as OpenCV converts them). PNGs are
// expanded to 8 bits: palettes to BGR, 1/2/4-bit gray to 8, 16-bit samples to their high byte; an
// alpha channel or tRNS transparency is dropped (not composited), as OpenCV's IMREAD_COLOR does.
//
// Resizing (new_height and new_width both > 0) is OpenCV's cv::resize INTER_LINEAR on 8-bit
// images: source coordinate (dst + 0.5) * (src_size / dst_size) - 0.5, clamped to the image;
// 11-bit fixed-point weights, rounded once at the end. It is applied whatever the image size.
//
// Every failure (unknown format, corrupt or truncated data, an absurd size) is a DataLoss Status
// whose message gives the cause; callers add the file or record name. A libjpeg-turbo warning (such
// as "Premature end of JPEG file" on a truncated file) is an error too: the pixels it leaves are
// not the image's. The one exception is junk between segments ("N extraneous bytes before
// marker"), which leaves the pixels intact; OpenCV, and so Caffe, read such files.
//
// ImageDecoder keeps the TurboJPEG handle and its pixel buffers between calls, so a steady stream
// of images allocates nothing once the buffers have grown to the largest image: keep one per
// thread. Not thread-safe. DecodeImage is a one-shot convenience; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace dtrain {

enum class ImageColor { kNative, kColor, kGray };
enum class ImageFormat { kUnknown, kJpeg, kPng };

// The format named by the first bytes of `bytes`.
ImageFormat DetectImageFormat(std::string_view bytes);

// 8-bit pixels, HWC interleaved (B, G, R per pixel, or one gray value): the layout decoders write.
struct HwcImage {
  const uint8_t* pixels = nullptr;  // height * width * channels values; owned elsewhere
  int channels = 0;
  int height = 0;
  int width = 0;
};

// 8-bit pixels, CHW planes (B, G, R): a Datum's layout.
struct ChwImage {
  int channels = 0;
  int height = 0;
  int width = 0;
  std::vector<uint8_t> pixels;  // channels * height * width values
};

class ImageDecoder {
 public:
  ImageDecoder();
  ~ImageDecoder();
  ImageDecoder(const ImageDecoder&) = delete;
  ImageDecoder& operator=(const ImageDecoder&) = delete;

  // Decodes `bytes` (resized to new_height x new_width when both are > 0; one of them alone is an
  // error) into a buffer of this decoder. The returned image points into that buffer and stays
  // valid until the next call.
  StatusOr<HwcImage> Decode(std::string_view bytes, ImageColor color, int new_height = 0,
                            int new_width = 0);
  // The size of the last image Decode returned, before it was resized.
  int decoded_height() const { return decoded_height_; }
  int decoded_width() const { return decoded_width_; }

 private:
  Status DecodeJpeg(std::string_view bytes, ImageColor color, HwcImage* out);
  Status DecodeCmykJpeg(std::string_view bytes, ImageColor color, int width, int height,
                        HwcImage* out);
  Status DecodePng(std::string_view bytes, ImageColor color, HwcImage* out);

  void* jpeg_ = nullptr;  // tjhandle, made on first use
  int decoded_height_ = 0;
  int decoded_width_ = 0;
  std::vector<uint8_t> decoded_;  // the image as decoded
  std::vector<uint8_t> resized_;  // after resizing
  std::vector<int> resize_scratch_;
  std::vector<uint8_t*> rows_;  // libpng's row pointers into decoded_
};

// Decodes `bytes` into CHW planes (see ImageDecoder::Decode).
StatusOr<ChwImage> DecodeImage(std::string_view bytes, ImageColor color, int new_height = 0,
                               int new_width = 0);

// OpenCV's INTER_LINEAR resize of an 8-bit HWC image to out_height x out_width (both > 0);
// `out` must hold out_height * out_width * in.channels values. `scratch`, if given, keeps the
// working buffers from call to call.
void ResizeBilinear(const HwcImage& in, int out_height, int out_width, uint8_t* out,
                    std::vector<int>* scratch = nullptr);

// HWC interleaved to CHW planes; `out` holds channels * height * width values.
void HwcToChw(const HwcImage& in, uint8_t* out);

}  // namespace dtrain
