// Helpers for the image tests: images of known content, encoded with TurboJPEG and libpng
// directly (not through dtrain's own encoder), and image list files.
#pragma once

#include <gtest/gtest.h>
#include <png.h>
#include <turbojpeg.h>

#include <cstdint>
#include <string>
#include <vector>

#include "data_test_util.h"

namespace dtrain::testing {

// A height x width BGR image (HWC) with a distinct gradient per channel and a per-image offset:
// B = 20 + 9x + seed, G = 30 + 7y + seed, R = 200 - 3x - 4y (values stay within 0..255 up to
// 16 x 16 and seed < 60).
inline std::vector<uint8_t> GradientBgr(int height, int width, int seed = 0) {
  std::vector<uint8_t> pixels(static_cast<size_t>(height) * width * 3);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      uint8_t* p = &pixels[(static_cast<size_t>(y) * width + x) * 3];
      p[0] = static_cast<uint8_t>(20 + 9 * x + seed);
      p[1] = static_cast<uint8_t>(30 + 7 * y + seed);
      p[2] = static_cast<uint8_t>(200 - 3 * x - 4 * y);
    }
  }
  return pixels;
}

// JPEG bytes of HWC pixels (3-channel BGR or 1-channel gray).
inline std::string JpegBytes(const std::vector<uint8_t>& hwc, int height, int width, int channels,
                             int quality = 100, int subsampling = TJSAMP_444) {
  tjhandle handle = tjInitCompress();
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  const int rc =
      tjCompress2(handle, hwc.data(), width, 0, height, channels == 1 ? TJPF_GRAY : TJPF_BGR, &jpeg,
                  &size, channels == 1 ? TJSAMP_GRAY : subsampling, quality, 0);
  EXPECT_EQ(rc, 0) << tjGetErrorStr2(handle);
  std::string bytes(reinterpret_cast<const char*>(jpeg), size);
  tjFree(jpeg);
  tjDestroy(handle);
  return bytes;
}

// PNG bytes: `rows` holds height rows of packed samples as libpng expects them for
// `color_type` / `bit_depth` (RGB order, big-endian 16-bit samples). `palette` (RGB triples) and
// `trns` (alpha per palette entry) for palette images.
inline std::string PngBytes(int height, int width, int color_type, int bit_depth,
                            const std::vector<std::vector<uint8_t>>& rows,
                            const std::vector<uint8_t>& palette = {},
                            const std::vector<uint8_t>& trns = {}) {
  std::string bytes;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    ADD_FAILURE() << "libpng failed writing a test image";
    png_destroy_write_struct(&png, &info);
    return std::string();
  }
  png_set_write_fn(
      png, &bytes,
      [](png_structp p, png_bytep data, size_t n) {
        static_cast<std::string*>(png_get_io_ptr(p))->append(reinterpret_cast<char*>(data), n);
      },
      [](png_structp) {});
  png_set_IHDR(png, info, width, height, bit_depth, color_type, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  std::vector<png_color> colors;
  for (size_t i = 0; i + 2 < palette.size(); i += 3) {
    colors.push_back({palette[i], palette[i + 1], palette[i + 2]});
  }
  if (!colors.empty()) png_set_PLTE(png, info, colors.data(), static_cast<int>(colors.size()));
  if (!trns.empty()) {
    png_set_tRNS(png, info, trns.data(), static_cast<int>(trns.size()), nullptr);
  }
  png_write_info(png, info);
  std::vector<png_bytep> pointers;
  for (const auto& row : rows) pointers.push_back(const_cast<png_bytep>(row.data()));
  png_write_image(png, pointers.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return bytes;
}

// An 8-bit colour PNG of HWC BGR pixels (exact, lossless).
inline std::string BgrPng(const std::vector<uint8_t>& bgr, int height, int width) {
  std::vector<std::vector<uint8_t>> rows(height, std::vector<uint8_t>(width * 3));
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const uint8_t* p = &bgr[(static_cast<size_t>(y) * width + x) * 3];
      rows[y][x * 3] = p[2];
      rows[y][x * 3 + 1] = p[1];
      rows[y][x * 3 + 2] = p[0];
    }
  }
  return PngBytes(height, width, PNG_COLOR_TYPE_RGB, 8, rows);
}

inline void WriteBytes(const std::string& path, const std::string& bytes) {
  WriteFile(path, std::vector<uint8_t>(bytes.begin(), bytes.end()));
}

}  // namespace dtrain::testing
