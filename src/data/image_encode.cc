#include "data/image_encode.h"

#include <png.h>
#include <turbojpeg.h>

#include <cstdio>
#include <vector>

namespace dtrain {
namespace {

struct PngOutput {
  std::string* bytes;
  char error[256];
};

void PngWrite(png_structp png, png_bytep data, size_t count) {
  auto* output = static_cast<PngOutput*>(png_get_io_ptr(png));
  output->bytes->append(reinterpret_cast<const char*>(data), count);
}

void PngFlush(png_structp) {}

void PngError(png_structp png, png_const_charp message) {
  auto* output = static_cast<PngOutput*>(png_get_error_ptr(png));
  std::snprintf(output->error, sizeof(output->error), "%s", message);
  png_longjmp(png, 1);
}

void PngWarning(png_structp, png_const_charp) {}

}  // namespace

StatusOr<std::string> EncodeJpeg(const HwcImage& image, int quality) {
  tjhandle handle = tjInitCompress();
  if (!handle) {
    return DataLoss(std::string("cannot start a JPEG encoder: ") + tjGetErrorStr2(nullptr));
  }
  const bool gray = image.channels == 1;
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  const int rc =
      tjCompress2(handle, image.pixels, image.width, 0, image.height, gray ? TJPF_GRAY : TJPF_BGR,
                  &jpeg, &size, gray ? TJSAMP_GRAY : TJSAMP_420, quality, 0);
  std::string bytes;
  Status status;
  if (rc != 0) {
    status = DataLoss(std::string("JPEG encoding failed: ") + tjGetErrorStr2(handle));
  } else {
    bytes.assign(reinterpret_cast<const char*>(jpeg), size);
  }
  tjFree(jpeg);
  tjDestroy(handle);
  if (!status.ok()) return status;
  return bytes;
}

StatusOr<std::string> EncodePng(const HwcImage& image) {
  std::string bytes;
  PngOutput output = {&bytes, {0}};
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &output, PngError, PngWarning);
  if (!png) return DataLoss("cannot start a PNG encoder");
  png_infop info = png_create_info_struct(png);
  std::vector<png_bytep> rows(image.height);
  for (int y = 0; y < image.height; ++y) {
    rows[y] =
        const_cast<png_bytep>(image.pixels + static_cast<size_t>(y) * image.width * image.channels);
  }
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, info ? &info : nullptr);
    return DataLoss(std::string("PNG encoding failed: ") +
                    (output.error[0] ? output.error : "out of memory"));
  }
  png_set_write_fn(png, &output, PngWrite, PngFlush);
  png_set_IHDR(png, info, image.width, image.height, 8,
               image.channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  if (image.channels == 3) png_set_bgr(png);
  png_write_image(png, rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return bytes;
}

}  // namespace dtrain
