// DataTransformer with Intel Caffe's random_resize_param, random_aspect_ratio_param and pad: the
// draws in Intel's order (mirror and crop offsets first, then the resize's), the resized image
// then cropped, CHW and HWC alike, the TEST phase's fixed resize, the zero border, the refusals.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "data/datum.h"
#include "data/image_resize.h"
#include "data/random_resize.h"
#include "data/transformer.h"

namespace dtrain {
namespace {

std::vector<uint8_t> Pixels(int count, int seed) {
  Rng rng(static_cast<uint64_t>(seed));
  std::vector<uint8_t> pixels(static_cast<size_t>(count));
  for (uint8_t& p : pixels) p = static_cast<uint8_t>(rng.Next() % 256);
  return pixels;
}

std::vector<float> Transformed(const TransformationParameter& p, Phase phase, const Datum& datum,
                               uint64_t seed) {
  DataTransformer t(p, phase, seed);
  const Status init = t.Init();
  EXPECT_TRUE(init.ok()) << init.message();
  const std::vector<int> shape = t.OutputShape(datum);
  std::vector<float> out(static_cast<size_t>(shape[0]) * shape[1] * shape[2], -999.f);
  const Status s = t.Transform(datum, out.data());
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

// Plane c of a CHW image, resized with ResizeImage (tested on its own), as floats.
std::vector<uint8_t> ResizePlane(const std::vector<uint8_t>& chw, int c, int height, int width,
                                 const ResizePlan& plan) {
  std::vector<uint8_t> box(static_cast<size_t>(plan.height) * plan.width);
  for (int y = 0; y < plan.height; ++y) {
    for (int x = 0; x < plan.width; ++x) {
      box[y * plan.width + x] =
          chw[(static_cast<size_t>(c) * height + plan.y + y) * width + plan.x + x];
    }
  }
  std::vector<uint8_t> out(static_cast<size_t>(plan.out_height) * plan.out_width);
  ResizeImage({box.data(), 1, plan.height, plan.width}, plan.out_height, plan.out_width,
              plan.interpolation, out.data());
  return out;
}

// TEST phase, Intel's resnet50 _acc files: the shorter side to a fixed size, then the centre
// crop; one channel.
TEST(TransformerResize, TestPhaseFixedResizeThenCentreCrop) {
  TransformationParameter p;
  p.set_crop_size(4);
  p.add_mean_value(10.f);
  p.mutable_random_resize_param()->set_min_size(5);
  p.mutable_random_resize_param()->set_max_size(5);
  p.mutable_random_resize_param()->mutable_resize_param()->add_interp_mode(ResizeParameter::CUBIC);
  const std::vector<uint8_t> pixels = Pixels(9 * 12, 1);
  const Datum datum = MakeDatum(1, 9, 12, pixels.data(), 0);
  // 9 x 12: the shorter side 5, the longer int(12 / 9 * 5) = 6; centre crop at (0, 1).
  ResizePlan plan;
  plan.height = 9;
  plan.width = 12;
  plan.out_height = 5;
  plan.out_width = 6;
  plan.interpolation = Interpolation::kCubic;
  const std::vector<uint8_t> resized = ResizePlane(pixels, 0, 9, 12, plan);
  std::vector<float> expected;
  for (int h = 0; h < 4; ++h) {
    for (int w = 0; w < 4; ++w) expected.push_back(resized[(0 + h) * 6 + 1 + w] - 10.f);
  }
  EXPECT_EQ(Transformed(p, TEST, datum, 1), expected);
  EXPECT_EQ(Transformed(p, TEST, datum, 2), expected);  // any seed: nothing random is left
}

// TRAIN: raw draws mirror, h, w, then the resize's; the offsets are taken on the resized size.
TEST(TransformerResize, TrainDrawsMirrorAndOffsetsBeforeTheResize) {
  TransformationParameter p;
  p.set_crop_size(6);
  p.set_mirror(true);
  p.set_scale(0.5f);
  p.mutable_random_resize_param()->set_min_size(7);
  p.mutable_random_resize_param()->set_max_size(11);
  const int channels = 3, height = 10, width = 14;
  const std::vector<uint8_t> pixels = Pixels(channels * height * width, 2);
  const Datum datum = MakeDatum(channels, height, width, pixels.data(), 0);
  int mirrored = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    Rng rng(seed);
    const uint32_t mirror = rng.Next(), h = rng.Next(), w = rng.Next();
    StatusOr<ResizePlan> plan = DrawResize(p, channels, height, width, rng);
    ASSERT_TRUE(plan.ok());
    const int h_off = static_cast<int>(h % (plan->out_height - 6 + 1));
    const int w_off = static_cast<int>(w % (plan->out_width - 6 + 1));
    mirrored += mirror % 2;
    std::vector<float> expected;
    for (int c = 0; c < channels; ++c) {
      const std::vector<uint8_t> resized = ResizePlane(pixels, c, height, width, *plan);
      for (int y = 0; y < 6; ++y) {
        for (int x = 0; x < 6; ++x) {
          const int sx = mirror % 2 ? w_off + 5 - x : w_off + x;
          expected.push_back(resized[(h_off + y) * plan->out_width + sx] * 0.5f);
        }
      }
    }
    EXPECT_EQ(Transformed(p, TRAIN, datum, seed), expected) << "seed " << seed;
  }
  EXPECT_GT(mirrored, 0);
  EXPECT_LT(mirrored, 12);
}

// The Inception crop: the box drawn, resized to crop x crop; the crop offsets are then 0.
TEST(TransformerResize, AspectCropIsResizedToTheCropSize) {
  TransformationParameter p;
  p.set_crop_size(8);
  RandomAspectRatioParameter* a = p.mutable_random_aspect_ratio_param();
  a->set_min_area_ratio(0.08f);
  a->set_aspect_ratio_change(0.75f);
  a->mutable_resize_param()->add_interp_mode(ResizeParameter::CUBIC);
  const int height = 20, width = 30;
  const std::vector<uint8_t> pixels = Pixels(height * width, 3);
  const Datum datum = MakeDatum(1, height, width, pixels.data(), 0);
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    Rng rng(seed);
    rng.Next();  // h
    rng.Next();  // w
    StatusOr<ResizePlan> plan = DrawResize(p, 1, height, width, rng);
    ASSERT_TRUE(plan.ok());
    const std::vector<uint8_t> resized = ResizePlane(pixels, 0, height, width, *plan);
    EXPECT_EQ(Transformed(p, TRAIN, datum, seed),
              std::vector<float>(resized.begin(), resized.end()))
        << "seed " << seed;
  }
}

// The same image as CHW planes (a Datum) and HWC (a decoder's buffer) transforms alike.
TEST(TransformerResize, ChwAndHwcImagesGiveTheSameValues) {
  TransformationParameter p;
  p.set_crop_size(7);
  p.set_mirror(true);
  p.add_mean_value(100.f);
  p.add_mean_value(110.f);
  p.add_mean_value(120.f);
  p.mutable_random_aspect_ratio_param()->set_aspect_ratio_change(0.75f);
  const int height = 16, width = 23;
  const std::vector<uint8_t> hwc = Pixels(3 * height * width, 4);
  std::vector<uint8_t> chw(hwc.size());
  HwcToChw({hwc.data(), 3, height, width}, chw.data());
  const Datum datum = MakeDatum(3, height, width, chw.data(), 0);
  DataTransformer t(p, TRAIN, 0);
  ASSERT_TRUE(t.Init().ok());
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    std::vector<float> from_hwc(3 * 7 * 7), from_chw(3 * 7 * 7);
    Rng a(seed), b(seed);
    ASSERT_TRUE(
        t.Transform(PixelView{hwc.data(), 3, height, width, true}, a, from_hwc.data()).ok());
    ASSERT_TRUE(
        t.Transform(PixelView{chw.data(), 3, height, width, false}, b, from_chw.data()).ok());
    EXPECT_EQ(from_hwc, from_chw) << "seed " << seed;
  }
}

// pad: a border of zeros; the values inside rounded where mean_value is given (Intel's).
TEST(TransformerResize, PadSurroundsTheOutputWithZeros) {
  const uint8_t pixels[6] = {1, 2, 3, 4, 5, 6};
  const Datum datum = MakeDatum(1, 2, 3, pixels, 0);
  TransformationParameter p;
  p.set_pad(1);
  p.set_scale(0.5f);
  // No mean_value: (v * 0.5), not rounded, in a 4 x 5 frame.
  DataTransformer t(p, TEST, 1);
  ASSERT_TRUE(t.Init().ok());
  EXPECT_EQ(t.OutputShape(datum), (std::vector<int>{1, 4, 5}));
  EXPECT_EQ(Transformed(p, TEST, datum, 1), (std::vector<float>{0, 0,   0,   0,   0,  //
                                                                0, 0.5, 1,   1.5, 0,  //
                                                                0, 2,   2.5, 3,   0,  //
                                                                0, 0,   0,   0,   0}));
  // mean_value 0.4: (v - 0.4) * 0.5 = 0.3, 0.8, 1.3, 1.8, 2.3, 2.8, rounded to nearest.
  p.add_mean_value(0.4f);
  EXPECT_EQ(Transformed(p, TEST, datum, 1), (std::vector<float>{0, 0, 0, 0, 0,  //
                                                                0, 0, 1, 1, 0,  //
                                                                0, 2, 2, 3, 0,  //
                                                                0, 0, 0, 0, 0}));
  // With a crop and a mirror: crop 2 of 2 x 3 in TEST is columns 0..1; mirrored, then framed.
  TransformationParameter q;
  q.set_pad(2);
  q.set_crop_size(2);
  q.set_mirror(true);
  int flipped = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const std::vector<float> out = Transformed(q, TEST, datum, seed);
    ASSERT_EQ(out.size(), 36u);
    const bool mirror = Rng(seed).Next() % 2 != 0;
    flipped += mirror;
    std::vector<float> expected(36, 0.f);
    expected[2 * 6 + 2] = mirror ? 2 : 1;
    expected[2 * 6 + 3] = mirror ? 1 : 2;
    expected[3 * 6 + 2] = mirror ? 5 : 4;
    expected[3 * 6 + 3] = mirror ? 4 : 5;
    EXPECT_EQ(out, expected) << "seed " << seed;
  }
  EXPECT_GT(flipped, 0);
}

TEST(TransformerResize, ProblemsWithAnImageNameTheField) {
  TransformationParameter p;
  p.set_crop_size(40);
  p.mutable_random_resize_param();  // min_size 0, max_size 0: the image's own sides
  const std::vector<uint8_t> pixels = Pixels(30 * 50, 5);
  DataTransformer t(p, TRAIN, 1);
  ASSERT_TRUE(t.Init().ok());
  // The shape check passes (any size is resized) ...
  EXPECT_TRUE(t.CheckFits(1, 30, 50).ok());
  EXPECT_EQ(t.OutputShape(1, 30, 50), (std::vector<int>{1, 40, 40}));
  // ... but a shorter side drawn in 30..50 below 40 leaves the crop too large.
  std::vector<float> out(40 * 40);
  std::string message;
  for (uint64_t seed = 1; seed <= 20 && message.empty(); ++seed) {
    t.rng().Seed(seed);
    const Status s = t.Transform(MakeDatum(1, 30, 50, pixels.data(), 0), out.data());
    if (!s.ok()) message = s.message();
  }
  EXPECT_EQ(message.rfind("after transform_param.random_resize_param resized the 1x30x50 image: "
                          "crop_size 40 is larger than the image (1x",
                          0),
            0u)
      << message;

  Datum floats;
  floats.set_channels(1);
  floats.set_height(2);
  floats.set_width(2);
  for (int i = 0; i < 4; ++i) floats.add_float_data(1.f);
  TransformationParameter aspect;
  aspect.set_crop_size(2);
  aspect.mutable_random_aspect_ratio_param();
  DataTransformer f(aspect, TRAIN, 1);
  ASSERT_TRUE(f.Init().ok());
  EXPECT_EQ(f.Transform(floats, out.data()).message(),
            "transform_param.random_aspect_ratio_param with a float_data record: Intel Caffe "
            "resizes and pads 8-bit images only");
}

// The SSD fork's augmentations are AnnotatedData's; the classic transform would ignore them.
TEST(TransformerResize, AnnotatedDataFieldsAreRefusedByName) {
  const std::pair<const char*, const char*> cases[] = {
      {"resize_param { height: 300 width: 300 }", "resize_param"},
      {"distort_param { brightness_prob: 0.5 }", "distort_param"},
      {"expand_param { max_expand_ratio: 4 }", "expand_param"},
      {"emit_constraint { emit_type: CENTER }", "emit_constraint"},
      {"noise_param { prob: 0.5 }", "noise_param"},
      {"crop_h: 10", "crop_h"},
      {"bgr2rgb: true", "bgr2rgb"}};
  for (const auto& [text, field] : cases) {
    TransformationParameter p;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &p)) << text;
    DataTransformer t(p, TRAIN, 1);
    EXPECT_EQ(t.Init().message(), std::string("transform_param.") + field +
                                      ": not supported by this data layer (dtrain applies the "
                                      "SSD fork's augmentations in AnnotatedData only)");
  }
}

}  // namespace
}  // namespace dtrain
