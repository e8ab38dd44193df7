#include "data/image_decode.h"

#include <png.h>
#include <turbojpeg.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/machine_memory.h"

namespace dtrain {
namespace {

// Larger images are refused rather than allocated: a corrupt header can claim 65535 x 65535.
constexpr int64_t kMaxPixels = int64_t{1} << 28;

Status CheckDimensions(const char* format, int64_t height, int64_t width) {
  const std::string size = std::to_string(width) + "x" + std::to_string(height);
  if (height <= 0 || width <= 0) {
    return DataLoss(std::string("corrupt ") + format + " header (image size " + size + ")");
  }
  if (height * width > kMaxPixels) {
    return DataLoss(std::string(format) + " of " + size + " pixels is too large to decode");
  }
  return Status::Ok();
}

// What a failed tjDecompress2 means. libjpeg-turbo finishes the image after a warning but says
// so; a warning is an error too (a truncated file gets gray rows, a bad Huffman code garbage),
// except junk between two segments ("Corrupt JPEG data: N extraneous bytes before marker"),
// which leaves the pixels intact and is common in real data sets that OpenCV reads.
Status JpegFailure(tjhandle handle) {
  const std::string message = tjGetErrorStr2(handle);
  if (tjGetErrorCode(handle) != TJERR_WARNING) return DataLoss("corrupt JPEG: " + message);
  if (message.find("extraneous bytes before marker") != std::string::npos) return Status::Ok();
  return DataLoss("corrupt or truncated JPEG: " + message);
}

// ---- PNG: libpng reports errors by longjmp; nothing with a destructor lives across it ----

struct PngInput {
  const uint8_t* data;
  size_t size;
  size_t offset;
  char error[256];
};

void PngRead(png_structp png, png_bytep out, size_t count) {
  auto* input = static_cast<PngInput*>(png_get_io_ptr(png));
  if (count > input->size - input->offset) png_error(png, "truncated PNG (the data ends early)");
  std::memcpy(out, input->data + input->offset, count);
  input->offset += count;
}

void PngError(png_structp png, png_const_charp message) {
  auto* input = static_cast<PngInput*>(png_get_error_ptr(png));
  std::snprintf(input->error, sizeof(input->error), "%s", message);
  png_longjmp(png, 1);
}

void PngWarning(png_structp, png_const_charp) {}  // e.g. a bad iCCP profile: pixels are fine

}  // namespace

ImageFormat DetectImageFormat(std::string_view bytes) {
  static const unsigned char kJpeg[] = {0xFF, 0xD8, 0xFF};
  static const unsigned char kPng[] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  if (bytes.size() >= sizeof(kJpeg) && std::memcmp(bytes.data(), kJpeg, sizeof(kJpeg)) == 0) {
    return ImageFormat::kJpeg;
  }
  if (bytes.size() >= sizeof(kPng) && std::memcmp(bytes.data(), kPng, sizeof(kPng)) == 0) {
    return ImageFormat::kPng;
  }
  return ImageFormat::kUnknown;
}

ImageDecoder::ImageDecoder() = default;

ImageDecoder::~ImageDecoder() {
  if (jpeg_) tjDestroy(static_cast<tjhandle>(jpeg_));
}

Status ImageDecoder::DecodeJpeg(std::string_view bytes, ImageColor color, HwcImage* out) {
  if (!jpeg_) {
    jpeg_ = tjInitDecompress();
    if (!jpeg_) {
      return DataLoss(std::string("cannot start a JPEG decoder: ") + tjGetErrorStr2(nullptr));
    }
  }
  auto handle = static_cast<tjhandle>(jpeg_);
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const unsigned long size = static_cast<unsigned long>(bytes.size());
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(handle, data, size, &width, &height, &subsampling, &colorspace) != 0 &&
      !JpegFailure(handle).ok()) {
    return DataLoss(std::string("corrupt JPEG header: ") + tjGetErrorStr2(handle));
  }
  DT_RETURN_IF_ERROR(CheckDimensions("JPEG", height, width));
  if (colorspace == TJCS_CMYK || colorspace == TJCS_YCCK) {
    return DecodeCmykJpeg(bytes, color, width, height, out);
  }
  const bool gray =
      color == ImageColor::kGray || (color == ImageColor::kNative && colorspace == TJCS_GRAY);
  const int channels = gray ? 1 : 3;
  decoded_.resize(static_cast<size_t>(height) * width * channels);
  if (tjDecompress2(handle, data, size, decoded_.data(), width, 0, height,
                    gray ? TJPF_GRAY : TJPF_BGR, 0) != 0) {
    DT_RETURN_IF_ERROR(JpegFailure(handle));
  }
  *out = {decoded_.data(), channels, height, width};
  return Status::Ok();
}

// libjpeg-turbo does not convert CMYK to BGR; OpenCV's conversion of (Adobe's inverted) CMYK is
// B = k - (255 - y) * k / 256 (and likewise G from m, R from c), then its BGR-to-gray weights.
Status ImageDecoder::DecodeCmykJpeg(std::string_view bytes, ImageColor color, int width, int height,
                                    HwcImage* out) {
  auto handle = static_cast<tjhandle>(jpeg_);
  const size_t pixels = static_cast<size_t>(height) * width;
  resized_.resize(pixels * 4);  // the CMYK scratch; resizing, if asked, comes after
  if (tjDecompress2(handle, reinterpret_cast<const unsigned char*>(bytes.data()),
                    static_cast<unsigned long>(bytes.size()), resized_.data(), width, 0, height,
                    TJPF_CMYK, 0) != 0) {
    DT_RETURN_IF_ERROR(JpegFailure(handle));
  }
  const bool gray = color == ImageColor::kGray;
  const int channels = gray ? 1 : 3;
  decoded_.resize(pixels * channels);
  for (size_t i = 0; i < pixels; ++i) {
    const uint8_t* cmyk = &resized_[i * 4];
    const int k = cmyk[3];
    const int r = k - (((255 - cmyk[0]) * k) >> 8);
    const int g = k - (((255 - cmyk[1]) * k) >> 8);
    const int b = k - (((255 - cmyk[2]) * k) >> 8);
    if (gray) {
      decoded_[i] = static_cast<uint8_t>((b * 1868 + g * 9617 + r * 4899 + (1 << 13)) >> 14);
    } else {
      decoded_[i * 3] = static_cast<uint8_t>(b);
      decoded_[i * 3 + 1] = static_cast<uint8_t>(g);
      decoded_[i * 3 + 2] = static_cast<uint8_t>(r);
    }
  }
  *out = {decoded_.data(), channels, height, width};
  return Status::Ok();
}

Status ImageDecoder::DecodePng(std::string_view bytes, ImageColor color, HwcImage* out) {
  PngInput input = {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), 0, {0}};
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &input, PngError, PngWarning);
  if (!png) return DataLoss("cannot start a PNG decoder");
  png_infop info = png_create_info_struct(png);
  // Set inside the protected region, read after it; volatile so that longjmp keeps them.
  volatile int channels = 0, height = 0, width = 0;
  volatile bool bad_layout = false, bad_size = false;
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    return DataLoss(std::string("corrupt PNG: ") +
                    (input.error[0] ? input.error : "out of memory"));
  }
  png_set_read_fn(png, &input, PngRead);
  png_read_info(png, info);
  const png_uint_32 w = png_get_image_width(png, info);
  const png_uint_32 h = png_get_image_height(png, info);
  const int bit_depth = png_get_bit_depth(png, info);
  const int color_type = png_get_color_type(png, info);
  const bool has_color = (color_type & PNG_COLOR_MASK_COLOR) != 0;
  const bool gray = color == ImageColor::kGray || (color == ImageColor::kNative && !has_color);
  // OpenCV's IMREAD_COLOR / IMREAD_GRAYSCALE transformations, in its order.
  if (bit_depth == 16) png_set_strip_16(png);
  png_set_strip_alpha(png);
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (!has_color && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (!gray) {
    if (has_color) {
      png_set_bgr(png);
    } else {
      png_set_gray_to_rgb(png);
    }
  } else if (has_color) {
    png_set_rgb_to_gray_fixed(png, 1, 29900, 58700);  // 0.299 R + 0.587 G + 0.114 B
  }
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  channels = png_get_channels(png, info);
  height = static_cast<int>(std::min<png_uint_32>(h, 1u << 30));
  width = static_cast<int>(std::min<png_uint_32>(w, 1u << 30));
  bad_size = !CheckDimensions("PNG", h, w).ok();
  bad_layout = channels != (gray ? 1 : 3) ||
               png_get_rowbytes(png, info) != static_cast<size_t>(w) * channels;
  if (!bad_size && !bad_layout) {
    decoded_.resize(static_cast<size_t>(h) * w * channels);
    rows_.resize(h);
    for (png_uint_32 y = 0; y < h; ++y)
      rows_[y] = decoded_.data() + static_cast<size_t>(y) * w * channels;
    png_read_image(png, rows_.data());
    png_read_end(png, nullptr);
  }
  png_destroy_read_struct(&png, &info, nullptr);
  if (bad_size) return CheckDimensions("PNG", h, w);
  if (bad_layout) {
    return DataLoss("PNG of colour type " + std::to_string(color_type) + ", bit depth " +
                    std::to_string(bit_depth) + " did not expand to " + (gray ? "1" : "3") +
                    " 8-bit channels");
  }
  *out = {decoded_.data(), channels, height, width};
  return Status::Ok();
}

StatusOr<HwcImage> ImageDecoder::Decode(std::string_view bytes, ImageColor color, int new_height,
                                        int new_width) {
  if ((new_height > 0) != (new_width > 0) || new_height < 0 || new_width < 0) {
    return InvalidArgument("resize needs both a height and a width (got " +
                           std::to_string(new_height) + "x" + std::to_string(new_width) + ")");
  }
  // Refused before decoding, so that an absurd size is an error rather than an allocation.
  if (static_cast<double>(new_height) * new_width * 3 > static_cast<double>(MachineMemoryBytes())) {
    return InvalidArgument("resizing to " + std::to_string(new_height) + "x" +
                           std::to_string(new_width) + " needs more than this machine's memory (" +
                           ByteSize(static_cast<double>(MachineMemoryBytes())) + ")");
  }
  HwcImage image;
  switch (DetectImageFormat(bytes)) {
    case ImageFormat::kJpeg:
      DT_RETURN_IF_ERROR(DecodeJpeg(bytes, color, &image));
      break;
    case ImageFormat::kPng:
      DT_RETURN_IF_ERROR(DecodePng(bytes, color, &image));
      break;
    case ImageFormat::kUnknown: {
      if (bytes.empty()) return DataLoss("empty image file (0 bytes)");
      std::string head;
      char hex[4];
      for (size_t i = 0; i < std::min<size_t>(bytes.size(), 4); ++i) {
        std::snprintf(hex, sizeof(hex), "%s%02x", i ? " " : "", static_cast<uint8_t>(bytes[i]));
        head += hex;
      }
      return DataLoss("not a JPEG or PNG image (starts with bytes " + head + ")");
    }
  }
  decoded_height_ = image.height;
  decoded_width_ = image.width;
  if (new_height > 0) {
    resized_.resize(static_cast<size_t>(new_height) * new_width * image.channels);
    ResizeBilinear(image, new_height, new_width, resized_.data(), &resize_scratch_);
    image = {resized_.data(), image.channels, new_height, new_width};
  }
  return image;
}

StatusOr<ChwImage> DecodeImage(std::string_view bytes, ImageColor color, int new_height,
                               int new_width) {
  ImageDecoder decoder;
  DT_ASSIGN_OR_RETURN(HwcImage hwc, decoder.Decode(bytes, color, new_height, new_width));
  ChwImage image;
  image.channels = hwc.channels;
  image.height = hwc.height;
  image.width = hwc.width;
  image.pixels.resize(static_cast<size_t>(hwc.channels) * hwc.height * hwc.width);
  HwcToChw(hwc, image.pixels.data());
  return image;
}

namespace {

constexpr int kCoefBits = 11;  // OpenCV's INTER_RESIZE_COEF_BITS
constexpr int kCoefOne = 1 << kCoefBits;

// Source index and the two fixed-point weights of each output coordinate, as cv::resize computes
// them: float arithmetic on a double scale, weights rounded to nearest (cvRound). Along x a
// coordinate outside the image takes the edge pixel whole; along y (`clamp_weights` false) it
// keeps both weights and the caller clamps the two rows, as OpenCV does. `index` holds out_size
// values, `weights` 2 * out_size.
void LinearTaps(int in_size, int out_size, bool clamp_weights, int* index, int* weights) {
  const double scale = 1.0 / (static_cast<double>(out_size) / in_size);
  for (int d = 0; d < out_size; ++d) {
    float f = static_cast<float>((d + 0.5) * scale - 0.5);
    int s = static_cast<int>(std::floor(f));
    f -= static_cast<float>(s);
    if (clamp_weights && s < 0) {
      f = 0.f;
      s = 0;
    }
    if (clamp_weights && s >= in_size - 1) {
      f = 0.f;
      s = in_size - 1;
    }
    index[d] = s;
    weights[2 * d] = static_cast<int>(std::lrint((1.f - f) * kCoefOne));
    weights[2 * d + 1] = static_cast<int>(std::lrint(f * kCoefOne));
  }
}

}  // namespace

void ResizeBilinear(const HwcImage& in, int out_height, int out_width, uint8_t* out,
                    std::vector<int>* scratch) {
  const int cn = in.channels;
  const size_t row_values = static_cast<size_t>(out_width) * cn;
  // Taps of every column and row, and two horizontally resampled source rows, in one buffer.
  std::vector<int> local;
  std::vector<int>& buffer = scratch ? *scratch : local;
  buffer.resize(3 * static_cast<size_t>(out_width) + 3 * static_cast<size_t>(out_height) +
                2 * row_values);
  int* xs = buffer.data();
  int* xw = xs + out_width;
  int* ys = xw + 2 * out_width;
  int* yw = ys + out_height;
  int* rows[2] = {yw + 2 * out_height, yw + 2 * out_height + row_values};
  LinearTaps(in.width, out_width, /*clamp_weights=*/true, xs, xw);
  LinearTaps(in.height, out_height, /*clamp_weights=*/false, ys, yw);
  int cached[2] = {-1, -1};  // the source row each of `rows` holds

  // One source row resampled horizontally, weights kept (scale kCoefOne).
  auto horizontal = [&](int y, int* dst) {
    const uint8_t* src = in.pixels + static_cast<size_t>(y) * in.width * cn;
    for (int x = 0; x < out_width; ++x) {
      const int s = xs[x];
      const int next = std::min(s + 1, in.width - 1);
      for (int c = 0; c < cn; ++c) {
        dst[x * cn + c] = src[s * cn + c] * xw[2 * x] + src[next * cn + c] * xw[2 * x + 1];
      }
    }
  };
  for (int y = 0; y < out_height; ++y) {
    const int y0 = std::clamp(ys[y], 0, in.height - 1);
    const int y1 = std::clamp(ys[y] + 1, 0, in.height - 1);
    if (cached[0] != y0) {
      if (cached[1] == y0) {  // moving down: the old lower row is the new upper one
        std::swap(rows[0], rows[1]);
        std::swap(cached[0], cached[1]);
      } else {
        horizontal(y0, rows[0]);
        cached[0] = y0;
      }
    }
    if (cached[1] != y1) {
      horizontal(y1, rows[1]);
      cached[1] = y1;
    }
    const int b0 = yw[2 * y], b1 = yw[2 * y + 1];
    uint8_t* dst = out + static_cast<size_t>(y) * row_values;
    // OpenCV's vectorised vertical step (VResizeLinearVec_32s8u), which computes every value of
    // a row: each row value / 16 times its weight, the high 16 bits of each product summed, then
    // rounded by 4. It differs by one level from the exact (b0 * r0 + b1 * r1) / 2^22 in about
    // 12% of values; this is the result cv::resize gives (Debian's OpenCV 4.6, measured).
    for (size_t i = 0; i < row_values; ++i) {
      const int sum = (((rows[0][i] >> 4) * b0) >> 16) + (((rows[1][i] >> 4) * b1) >> 16);
      dst[i] = static_cast<uint8_t>(std::clamp((sum + 2) >> 2, 0, 255));
    }
  }
}

void HwcToChw(const HwcImage& in, uint8_t* out) {
  const size_t plane = static_cast<size_t>(in.height) * in.width;
  if (in.channels == 1) {
    std::memcpy(out, in.pixels, plane);
    return;
  }
  for (size_t i = 0; i < plane; ++i) {
    for (int c = 0; c < in.channels; ++c) out[c * plane + i] = in.pixels[i * in.channels + c];
  }
}

}  // namespace dtrain
