#include "data/image_decode.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
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

// cv::resize (INTER_LINEAR) of Debian 12's OpenCV 4.6, the library BVLC Caffe built from source
// there resizes with, run once on a 7 x 9 BGR image of std::mt19937(7) values: its vectorised
// vertical step rounds differently from the exact formula in ~12% of values, and along y a row
// outside the image keeps both weights (the first and last rows when enlarging).
TEST(ImageDecodeTest, ResizeGivesOpenCvsValuesDownAndUp) {
  std::mt19937 rng(7);
  std::vector<uint8_t> in(7 * 9 * 3);
  for (uint8_t& v : in) v = static_cast<uint8_t>(rng() % 256);
  const std::vector<uint8_t> down = {142, 175, 70,  167, 104, 79,  87,  150, 140, 163, 206, 67,
                                     128, 118, 126, 66,  127, 153, 129, 131, 112, 85,  49,  18,
                                     105, 119, 151, 128, 151, 180, 130, 73,  56,  191, 118, 81,
                                     132, 46,  55,  90,  77,  24,  164, 111, 115, 160, 128, 123,
                                     177, 186, 98,  137, 129, 113, 210, 199, 86,  127, 124, 133};
  const std::vector<uint8_t> up = {
      175, 196, 25,  199, 152, 89,  239, 79,  193, 201, 84,  155, 152, 104, 90,  171, 126, 51,  167,
      134, 36,  104, 104, 85,  64,  125, 117, 46,  198, 132, 93,  223, 108, 163, 229, 70,  172, 175,
      103, 176, 115, 129, 173, 44,  95,  172, 0,   75,  130, 216, 18,  140, 181, 63,  158, 122, 136,
      163, 102, 116, 166, 92,  78,  170, 130, 81,  159, 156, 91,  111, 152, 123, 90,  149, 130, 96,
      149, 111, 131, 178, 86,  177, 219, 58,  143, 193, 98,  114, 161, 134, 130, 114, 125, 140, 85,
      120, 60,  248, 7,   49,  225, 22,  31,  189, 47,  104, 130, 54,  188, 74,  61,  168, 136, 127,
      146, 191, 176, 122, 227, 182, 131, 187, 150, 174, 73,  79,  191, 109, 51,  199, 202, 40,  99,
      221, 91,  19,  232, 142, 63,  223, 172, 90,  218, 190, 64,  159, 98,  45,  170, 98,  14,  187,
      98,  76,  156, 88,  152, 118, 80,  158, 127, 161, 151, 133, 199, 110, 129, 128, 125, 101, 103,
      195, 49,  124, 178, 88,  117, 128, 163, 100, 86,  207, 144, 58,  235, 183, 97,  187, 180, 120,
      158, 178, 91,  81,  169, 69,  120, 155, 34,  185, 132, 72,  169, 107, 123, 138, 88,  142, 114,
      167, 144, 88,  192, 105, 62,  76,  126, 51,  65,  208, 55,  158, 167, 88,  167, 78,  132, 144,
      89,  187, 172, 107, 221, 196, 130, 143, 178, 145, 96,  168, 180, 71,  138, 172, 121, 110, 158,
      202, 63,  150, 137, 48,  142, 51,  42,  102, 88,  73,  86,  122, 88,  130, 153, 66,  172, 166,
      80,  213, 160, 132, 186, 147, 128, 133, 132, 104, 142, 155, 91,  150, 166, 90,  136, 110, 153,
      128, 76,  191, 213, 61,  92,  195, 104, 76,  164, 175, 49,  167, 119, 40,  173, 45,  36,  97,
      88,  52,  62,  127, 63,  132, 154, 66,  185, 174, 78,  220, 186, 101, 186, 156, 88,  126, 109,
      61,  131, 136, 70,  140, 152, 86,  151, 97,  129, 157, 63,  156, 191, 49,  29,  138, 70,  52,
      52,  104, 90,  125, 114, 83,  218, 120, 71,  128, 115, 104, 73,  101, 117, 112, 64,  76,  164,
      76,  59,  230, 135, 66,  168, 113, 46,  57,  61,  16,  55,  130, 109, 76,  180, 181, 174, 103,
      108, 234, 56,  63,  210, 124, 102, 168, 105, 108, 99,  73,  116, 140, 101, 126, 194, 136, 135,
      123, 99,  137, 75,  75,  130, 86,  83,  98,  130, 103, 74,  206, 137, 57,  183, 122, 71,  123,
      90,  96,  125, 157, 156, 135, 208, 201, 164, 148, 157, 181, 112, 130, 236, 207, 197, 214, 152,
      175, 179, 63,  139, 167, 93,  163, 157, 140, 194, 113, 81,  161, 78,  57,  134, 65,  128, 122,
      97,  160, 97,  173, 154, 57,  204, 147, 109, 219, 139, 196, 222, 189, 195, 213, 227, 194, 145,
      195, 215, 103, 176, 228, 195, 99,  93,  165, 124, 119, 115, 165, 161, 147, 182, 128, 190, 192,
      86,  146, 171, 124, 117, 151, 146, 130, 136, 124, 140, 150, 102, 145, 194, 81,  179, 202, 80,
      223, 197, 88,  154, 166, 97,  96,  137, 109, 130, 123, 136, 151, 115, 153, 169, 29,  26,  133,
      106, 82,  74,  231, 174, 134, 240, 106, 211, 226, 16,  166, 229, 101, 142, 212, 154, 172, 141,
      124, 167, 144, 105, 127, 220, 95,  162, 238, 62,  226, 234, 19,  110, 152, 34,  22,  79,  54,
      121, 77,  86,  182, 76,  105};
  std::vector<uint8_t> out(up.size());
  ResizeBilinear(HwcImage{in.data(), 3, 7, 9}, 4, 5, out.data());
  for (size_t i = 0; i < down.size(); ++i) EXPECT_EQ(out[i], down[i]) << "down, value " << i;
  ResizeBilinear(HwcImage{in.data(), 3, 7, 9}, 12, 16, out.data());
  for (size_t i = 0; i < up.size(); ++i) EXPECT_EQ(out[i], up[i]) << "up, value " << i;
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
