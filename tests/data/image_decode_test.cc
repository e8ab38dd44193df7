#include "data/image_decode.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/rng.h"
#include "data/datum.h"
#include "image_test_util.h"

namespace dtrain {
namespace {

using testing::BgrPng;
using testing::GradientBgr;
using testing::JpegBytes;
using testing::PngBytes;

// Value (c, y, x) of a CHW image.
int At(const ChwImage& image, int c, int y, int x) {
  return image.pixels[(static_cast<size_t>(c) * image.height + y) * image.width + x];
}

int Luma(const uint8_t* bgr) {
  return static_cast<int>(std::lround(0.114 * bgr[0] + 0.587 * bgr[1] + 0.299 * bgr[2]));
}

TEST(ImageDecodeTest, DetectsFormatFromMagicBytes) {
  const std::vector<uint8_t> bgr = GradientBgr(4, 4);
  EXPECT_EQ(DetectImageFormat(JpegBytes(bgr, 4, 4, 3)), ImageFormat::kJpeg);
  EXPECT_EQ(DetectImageFormat(BgrPng(bgr, 4, 4)), ImageFormat::kPng);
  EXPECT_EQ(DetectImageFormat("GIF89a"), ImageFormat::kUnknown);
  EXPECT_EQ(DetectImageFormat(""), ImageFormat::kUnknown);
}

// Quality 100 without chroma subsampling: within a couple of levels of the original.
TEST(ImageDecodeTest, JpegDecodesToChwBgr) {
  const int height = 12, width = 16;
  const std::vector<uint8_t> bgr = GradientBgr(height, width);
  StatusOr<ChwImage> image = DecodeImage(JpegBytes(bgr, height, width, 3), ImageColor::kColor);
  ASSERT_TRUE(image.ok()) << image.status().message();
  ASSERT_EQ(image->channels, 3);
  ASSERT_EQ(image->height, height);
  ASSERT_EQ(image->width, width);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < 3; ++c) {
        EXPECT_NEAR(At(*image, c, y, x), bgr[(y * width + x) * 3 + c], 3)
            << "c " << c << " y " << y << " x " << x;
      }
    }
  }
}

TEST(ImageDecodeTest, JpegGrayIsTheLuma) {
  const int height = 8, width = 8;
  const std::vector<uint8_t> bgr = GradientBgr(height, width);
  StatusOr<ChwImage> image = DecodeImage(JpegBytes(bgr, height, width, 3), ImageColor::kGray);
  ASSERT_TRUE(image.ok()) << image.status().message();
  ASSERT_EQ(image->channels, 1);
  for (int i = 0; i < height * width; ++i) {
    EXPECT_NEAR(image->pixels[i], Luma(&bgr[i * 3]), 3) << "pixel " << i;
  }
}

TEST(ImageDecodeTest, GrayJpegIsOneChannelNativelyAndThreeInColour) {
  std::vector<uint8_t> gray(6 * 5);
  for (size_t i = 0; i < gray.size(); ++i) gray[i] = static_cast<uint8_t>(40 + 5 * i);
  const std::string jpeg = JpegBytes(gray, 6, 5, 1);
  StatusOr<ChwImage> native = DecodeImage(jpeg, ImageColor::kNative);
  ASSERT_TRUE(native.ok()) << native.status().message();
  EXPECT_EQ(native->channels, 1);
  StatusOr<ChwImage> colour = DecodeImage(jpeg, ImageColor::kColor);
  ASSERT_TRUE(colour.ok()) << colour.status().message();
  ASSERT_EQ(colour->channels, 3);
  for (int i = 0; i < 30; ++i) {
    EXPECT_NEAR(native->pixels[i], gray[i], 2);
    EXPECT_EQ(colour->pixels[i], native->pixels[i]);
    EXPECT_EQ(colour->pixels[60 + i], native->pixels[i]);
  }
}

// A CMYK JPEG (as some ImageNet files are) converts to BGR with OpenCV's formula.
TEST(ImageDecodeTest, CmykJpegConvertsToBgr) {
  const uint8_t cmyk[4] = {40, 120, 200, 180};
  std::vector<uint8_t> pixels;
  for (int i = 0; i < 8 * 8; ++i) pixels.insert(pixels.end(), cmyk, cmyk + 4);
  tjhandle handle = tjInitCompress();
  unsigned char* jpeg = nullptr;
  unsigned long size = 0;
  ASSERT_EQ(
      tjCompress2(handle, pixels.data(), 8, 0, 8, TJPF_CMYK, &jpeg, &size, TJSAMP_444, 100, 0), 0);
  const std::string bytes(reinterpret_cast<const char*>(jpeg), size);
  tjFree(jpeg);
  tjDestroy(handle);
  StatusOr<ChwImage> image = DecodeImage(bytes, ImageColor::kNative);
  ASSERT_TRUE(image.ok()) << image.status().message();
  ASSERT_EQ(image->channels, 3);
  auto convert = [](int ink, int k) { return k - (((255 - ink) * k) >> 8); };
  EXPECT_NEAR(At(*image, 0, 3, 3), convert(cmyk[2], cmyk[3]), 3);  // B from yellow
  EXPECT_NEAR(At(*image, 1, 3, 3), convert(cmyk[1], cmyk[3]), 3);
  EXPECT_NEAR(At(*image, 2, 3, 3), convert(cmyk[0], cmyk[3]), 3);
  StatusOr<ChwImage> gray = DecodeImage(bytes, ImageColor::kGray);
  ASSERT_TRUE(gray.ok()) << gray.status().message();
  EXPECT_EQ(gray->channels, 1);
}

TEST(ImageDecodeTest, PngColourIsExact) {
  const int height = 5, width = 7;
  const std::vector<uint8_t> bgr = GradientBgr(height, width, 11);
  StatusOr<ChwImage> image = DecodeImage(BgrPng(bgr, height, width), ImageColor::kNative);
  ASSERT_TRUE(image.ok()) << image.status().message();
  ASSERT_EQ(image->channels, 3);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < 3; ++c) EXPECT_EQ(At(*image, c, y, x), bgr[(y * width + x) * 3 + c]);
    }
  }
}

TEST(ImageDecodeTest, PngGrayWeightsChannelsAsOpenCv) {
  const std::vector<uint8_t> bgr = GradientBgr(4, 6);
  StatusOr<ChwImage> image = DecodeImage(BgrPng(bgr, 4, 6), ImageColor::kGray);
  ASSERT_TRUE(image.ok()) << image.status().message();
  ASSERT_EQ(image->channels, 1);
  for (int i = 0; i < 24; ++i) EXPECT_NEAR(image->pixels[i], Luma(&bgr[i * 3]), 1) << i;
}

TEST(ImageDecodeTest, PngPaletteWithTransparencyExpandsToBgr) {
  const std::vector<uint8_t> palette = {255, 0, 0, 0, 128, 0, 10, 20, 30};  // RGB
  const std::vector<uint8_t> trns = {0, 128, 255};                          // alpha, dropped
  // 2 x 3 pixels, 8-bit indices.
  const std::string png =
      PngBytes(2, 3, PNG_COLOR_TYPE_PALETTE, 8, {{0, 1, 2}, {2, 2, 0}}, palette, trns);
  StatusOr<ChwImage> image = DecodeImage(png, ImageColor::kNative);
  ASSERT_TRUE(image.ok()) << image.status().message();
  ASSERT_EQ(image->channels, 3);
  const int index[2][3] = {{0, 1, 2}, {2, 2, 0}};
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 3; ++x) {
      const uint8_t* rgb = &palette[index[y][x] * 3];
      EXPECT_EQ(At(*image, 0, y, x), rgb[2]);
      EXPECT_EQ(At(*image, 1, y, x), rgb[1]);
      EXPECT_EQ(At(*image, 2, y, x), rgb[0]);
    }
  }
}

TEST(ImageDecodeTest, PngAlphaIsDroppedAndSixteenBitKeepsTheHighByte) {
  // RGBA 8-bit, one row of two pixels.
  StatusOr<ChwImage> rgba = DecodeImage(
      PngBytes(1, 2, PNG_COLOR_TYPE_RGBA, 8, {{1, 2, 3, 0, 4, 5, 6, 255}}), ImageColor::kColor);
  ASSERT_TRUE(rgba.ok()) << rgba.status().message();
  EXPECT_EQ(rgba->pixels, (std::vector<uint8_t>{3, 6, 2, 5, 1, 4}));
  // RGB 16-bit, big-endian samples: (0x1234, 0xABCD, 0x00FF).
  StatusOr<ChwImage> deep =
      DecodeImage(PngBytes(1, 1, PNG_COLOR_TYPE_RGB, 16, {{0x12, 0x34, 0xAB, 0xCD, 0x00, 0xFF}}),
                  ImageColor::kColor);
  ASSERT_TRUE(deep.ok()) << deep.status().message();
  EXPECT_EQ(deep->pixels, (std::vector<uint8_t>{0x00, 0xAB, 0x12}));
}

TEST(ImageDecodeTest, PngLowBitGrayAndGrayAlpha) {
  // 2-bit gray, four pixels 0..3 packed in one byte: 0b00011011.
  StatusOr<ChwImage> gray =
      DecodeImage(PngBytes(1, 4, PNG_COLOR_TYPE_GRAY, 2, {{0x1B}}), ImageColor::kNative);
  ASSERT_TRUE(gray.ok()) << gray.status().message();
  EXPECT_EQ(gray->channels, 1);
  EXPECT_EQ(gray->pixels, (std::vector<uint8_t>{0, 85, 170, 255}));
  StatusOr<ChwImage> gray_alpha = DecodeImage(
      PngBytes(1, 2, PNG_COLOR_TYPE_GRAY_ALPHA, 8, {{7, 0, 9, 255}}), ImageColor::kNative);
  ASSERT_TRUE(gray_alpha.ok()) << gray_alpha.status().message();
  EXPECT_EQ(gray_alpha->channels, 1);
  EXPECT_EQ(gray_alpha->pixels, (std::vector<uint8_t>{7, 9}));
  StatusOr<ChwImage> colour = DecodeImage(
      PngBytes(1, 2, PNG_COLOR_TYPE_GRAY_ALPHA, 8, {{7, 0, 9, 255}}), ImageColor::kColor);
  ASSERT_TRUE(colour.ok()) << colour.status().message();
  EXPECT_EQ(colour->pixels, (std::vector<uint8_t>{7, 9, 7, 9, 7, 9}));
}

// 2 x 2 to 4 x 4: source coordinates -0.25 (clamped to 0), 0.25, 0.75, 1.25 (clamped to 1).
TEST(ImageDecodeTest, ResizeUpMatchesHandComputedBilinear) {
  const uint8_t in[4] = {0, 100, 200, 40};
  uint8_t out[16];
  ResizeBilinear(HwcImage{in, 1, 2, 2}, 4, 4, out);
  const uint8_t expected[16] = {0,   25,  75, 100,  // row 0 (= source row 0)
                                50,  59,  76, 85,   // 0.75 * row 0 + 0.25 * row 1: 58.75, 76.25
                                150, 126, 79, 55,   // 0.25 * row 0 + 0.75 * row 1: 126.25, 78.75
                                200, 160, 80, 40};  // row 1
  for (int i = 0; i < 16; ++i) EXPECT_EQ(out[i], expected[i]) << "pixel " << i;
}

TEST(ImageDecodeTest, ResizeDownAveragesPairsPerChannel) {
  // 1 x 4 BGR to 1 x 2: source x 0.5 and 2.5.
  const uint8_t in[12] = {10, 0, 255, 20, 100, 255, 30, 7, 0, 51, 9, 0};
  uint8_t out[6];
  ResizeBilinear(HwcImage{in, 3, 1, 4}, 1, 2, out);
  const uint8_t expected[6] = {15, 50, 255, 41, 8, 0};  // 40.5 and 8 round up, as OpenCV's
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], expected[i]) << "value " << i;
}

TEST(ImageDecodeTest, DecodeResizesOnRequest) {
  const std::vector<uint8_t> bgr = {0, 0, 0, 100, 100, 100, 200, 200, 200, 40, 40, 40};
  ImageDecoder decoder;
  StatusOr<HwcImage> image = decoder.Decode(BgrPng(bgr, 2, 2), ImageColor::kColor, 4, 4);
  ASSERT_TRUE(image.ok()) << image.status().message();
  EXPECT_EQ(image->height, 4);
  EXPECT_EQ(image->width, 4);
  EXPECT_EQ(image->pixels[(1 * 4 + 1) * 3 + 2], 59);  // as ResizeUpMatchesHandComputedBilinear
  EXPECT_FALSE(decoder.Decode(BgrPng(bgr, 2, 2), ImageColor::kColor, 4, 0).ok());
}

TEST(ImageDecodeTest, TruncatedJpegIsDataLoss) {
  // 64 x 64 (the gradients wrap round): the entropy-coded data is most of the file.
  const std::vector<uint8_t> bgr = GradientBgr(64, 64);
  const std::string jpeg = JpegBytes(bgr, 64, 64, 3);
  StatusOr<ChwImage> image = DecodeImage(jpeg.substr(0, jpeg.size() * 3 / 4), ImageColor::kColor);
  ASSERT_FALSE(image.ok());
  EXPECT_EQ(image.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(image.status().message().find("corrupt or truncated JPEG: "), std::string::npos)
      << image.status().message();
  StatusOr<ChwImage> header = DecodeImage(jpeg.substr(0, 20), ImageColor::kColor);
  ASSERT_FALSE(header.ok());
  EXPECT_EQ(header.status().message().rfind("corrupt JPEG", 0), 0u) << header.status().message();
}

// Junk between two segments is the one libjpeg-turbo warning that leaves the pixels intact.
TEST(ImageDecodeTest, ExtraneousBytesBeforeAMarkerAreAccepted) {
  const std::vector<uint8_t> bgr = GradientBgr(16, 16);
  const std::string jpeg = JpegBytes(bgr, 16, 16, 3);
  // Two junk bytes after the JFIF APP0 segment (SOI, then 18 bytes), before the next marker:
  // libjpeg-turbo warns "Corrupt JPEG data: 2 extraneous bytes before marker 0xdb".
  ASSERT_EQ(static_cast<uint8_t>(jpeg[20]), 0xFF);
  const std::string junk = jpeg.substr(0, 20) + std::string("\x12\x34", 2) + jpeg.substr(20);
  StatusOr<ChwImage> clean = DecodeImage(jpeg, ImageColor::kColor);
  StatusOr<ChwImage> junky = DecodeImage(junk, ImageColor::kColor);
  ASSERT_TRUE(clean.ok() && junky.ok()) << junky.status().message();
  EXPECT_EQ(junky->pixels, clean->pixels);
}

TEST(ImageDecodeTest, TruncatedPngAndOtherFormatsAreDataLoss) {
  const std::string png = BgrPng(GradientBgr(8, 8), 8, 8);
  StatusOr<ChwImage> cut = DecodeImage(png.substr(0, png.size() - 30), ImageColor::kColor);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(cut.status().message().rfind("corrupt PNG: ", 0), 0u) << cut.status().message();
  EXPECT_EQ(DecodeImage("GIF89a", ImageColor::kColor).status().message(),
            "not a JPEG or PNG image (starts with bytes 47 49 46 38)");
  EXPECT_EQ(DecodeImage("", ImageColor::kColor).status().message(), "empty image file (0 bytes)");
}

// Damaged files (random bytes overwritten, or cut anywhere) decode or fail with DataLoss; never a
// crash, an abort or another kind of error (run under ASan/UBSan to check memory too).
TEST(ImageDecodeTest, DamagedFilesFailCleanly) {
  const std::vector<uint8_t> bgr = GradientBgr(24, 24);
  const std::string files[2] = {JpegBytes(bgr, 24, 24, 3, 90, TJSAMP_420), BgrPng(bgr, 24, 24)};
  Rng rng(5);
  ImageDecoder decoder;
  int failed = 0;
  for (const std::string& file : files) {
    for (int trial = 0; trial < 300; ++trial) {
      std::string bytes = file;
      if (trial % 3 == 0) {
        bytes.resize(rng.UniformInt(static_cast<uint32_t>(bytes.size())));
      } else {
        const int damage = 1 + static_cast<int>(rng.UniformInt(8));
        for (int d = 0; d < damage; ++d) {
          bytes[rng.UniformInt(static_cast<uint32_t>(bytes.size()))] =
              static_cast<char>(rng.UniformInt(256));
        }
      }
      for (ImageColor color : {ImageColor::kColor, ImageColor::kGray}) {
        StatusOr<HwcImage> image =
            decoder.Decode(bytes, color, trial % 2 ? 8 : 0, trial % 2 ? 5 : 0);
        if (!image.ok()) {
          ++failed;
          EXPECT_EQ(image.status().code(), StatusCode::kDataLoss) << image.status().message();
        }
      }
    }
  }
  EXPECT_GT(failed, 300);  // most damage is noticed
}

TEST(ImageDecodeTest, EncodedDatumParsesToPixels) {
  const std::vector<uint8_t> bgr = GradientBgr(3, 4);
  Datum encoded;
  encoded.set_encoded(true);
  encoded.set_data(BgrPng(bgr, 3, 4));
  encoded.set_label(7);
  Datum datum;
  Status s = ParseDatum(encoded.SerializeAsString(), "00000000_a.png", &datum);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(datum.encoded());
  EXPECT_EQ(DatumShapeString(datum), "3x3x4");
  EXPECT_EQ(datum.label(), 7);
  EXPECT_EQ(static_cast<uint8_t>(datum.data()[12 + 5]), bgr[5 * 3 + 1]);  // G of pixel 5
  s = ParseDatum(encoded.SerializeAsString(), "k", &datum, ImageColor::kGray);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(DatumShapeString(datum), "1x3x4");
}

}  // namespace
}  // namespace dtrain
