// AnnotatedTransformer: the SSD fork's expand, crop and final transform with their boxes, against
// hand-computed numbers. Where a step draws, the test replays the draws from a second Rng of the
// same seed (the order annotated_transformer.h states) and computes the expected boxes from them.
#include "data/annotated_transformer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "core/proto_io.h"
#include "data/resize_policy.h"

namespace dtrain {
namespace {

TransformationParameter Param(const std::string& text) {
  TransformationParameter param;
  EXPECT_TRUE(ParseTextProto(text, "transform_param", &param).ok()) << text;
  return param;
}

AnnotatedTransformer Ready(const std::string& text, Phase phase = TRAIN) {
  AnnotatedTransformer transformer(Param(text), phase);
  const Status status = transformer.Init();
  EXPECT_TRUE(status.ok()) << status.message();
  return transformer;
}

std::string InitError(const std::string& text) {
  AnnotatedTransformer transformer(Param(text), TRAIN);
  return transformer.Init().message();
}

// A 1-channel image whose pixel (y, x) is 10 y + x.
Image8 Ramp(int height, int width) {
  Image8 image{1, height, width, {}};
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) image.pixels.push_back(static_cast<uint8_t>(10 * y + x));
  }
  return image;
}

AnnotatedBox Object(float xmin, float ymin, float xmax, float ymax, int label = 1,
                    int instance = 0) {
  AnnotatedBox object;
  object.box.xmin = xmin;
  object.box.ymin = ymin;
  object.box.xmax = xmax;
  object.box.ymax = ymax;
  object.box.label = label;
  object.instance_id = instance;
  return object;
}

void ExpectBox(const AnnotatedBox& got, float xmin, float ymin, float xmax, float ymax) {
  EXPECT_NEAR(got.box.xmin, xmin, 1e-5);
  EXPECT_NEAR(got.box.ymin, ymin, 1e-5);
  EXPECT_NEAR(got.box.xmax, xmax, 1e-5);
  EXPECT_NEAR(got.box.ymax, ymax, 1e-5);
}

TEST(AnnotatedTransformer, ExpandPlacesTheImageOnAMeanCanvasAndMovesTheBoxes) {
  const AnnotatedTransformer transformer =
      Ready("mean_value: 7 expand_param { prob: 1 max_expand_ratio: 3 }");
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    Image8 image = Ramp(4, 5);
    std::vector<AnnotatedBox> boxes = {Object(0.2f, 0.25f, 0.6f, 0.75f, 3, 9)};
    Rng rng(seed), replay(seed);
    transformer.Expand(rng, &image, &boxes);
    replay.Uniform(0.f, 1.f);  // the expansion's coin (prob 1: always)
    const float ratio = replay.Uniform(1.f, 3.f);
    const int height = static_cast<int>(4 * ratio), width = static_cast<int>(5 * ratio);
    const int top = static_cast<int>(std::floor(replay.Uniform(0.f, height - 4.f)));
    const int left = static_cast<int>(std::floor(replay.Uniform(0.f, width - 5.f)));
    ASSERT_EQ(image.height, height);
    ASSERT_EQ(image.width, width);
    for (int y = 0; y < height; ++y) {
      for (int x = 0; x < width; ++x) {
        const bool inside = y >= top && y < top + 4 && x >= left && x < left + 5;
        EXPECT_EQ(image.pixels[y * width + x], inside ? 10 * (y - top) + (x - left) : 7);
      }
    }
    // The box, 1..3 of 5 columns and 1..3 of 4 rows, now in pixels left + 1 .. left + 3 of
    // `width` and top + 1 .. top + 3 of `height`.
    ASSERT_EQ(boxes.size(), 1u);
    ExpectBox(boxes[0], (left + 1.f) / width, (top + 1.f) / height, (left + 3.f) / width,
              (top + 3.f) / height);
    EXPECT_EQ(boxes[0].box.label, 3);
    EXPECT_EQ(boxes[0].instance_id, 9);
  }
}

TEST(AnnotatedTransformer, ExpandSkipsOnTheCoinAndForARatioOfOne) {
  const AnnotatedTransformer never = Ready("expand_param { prob: 0 max_expand_ratio: 4 }");
  const AnnotatedTransformer one = Ready("expand_param { prob: 1 max_expand_ratio: 1.005 }");
  for (const AnnotatedTransformer* transformer : {&never, &one}) {
    Image8 image = Ramp(3, 3);
    std::vector<AnnotatedBox> boxes = {Object(0.1f, 0.1f, 0.5f, 0.5f)};
    Rng rng(1);
    transformer->Expand(rng, &image, &boxes);
    EXPECT_EQ(image.pixels, Ramp(3, 3).pixels);
    ExpectBox(boxes[0], 0.1f, 0.1f, 0.5f, 0.5f);
  }
}

TEST(AnnotatedTransformer, CropTakesWholePixelsAndProjectsTheBoxes) {
  const AnnotatedTransformer transformer = Ready("");
  Image8 image = Ramp(10, 10);
  // The crop [0.25, 0.1, 0.75, 0.62]: pixels from x int(2.5) = 2, y int(1.0) = 1, int(7.5 - 2.5)
  // = 5 wide, int(6.2 - 1.0) = 5 high.
  detection::NormalizedBox crop;
  crop.xmin = 0.25f;
  crop.ymin = 0.1f;
  crop.xmax = 0.75f;
  crop.ymax = 0.62f;
  std::vector<AnnotatedBox> boxes = {Object(0.3f, 0.2f, 0.5f, 0.4f, 1, 1),
                                     Object(0.8f, 0.8f, 0.9f, 0.9f, 2, 2),
                                     Object(0.f, 0.f, 0.5f, 0.5f, 3, 3)};
  boxes[0].box.difficult = true;
  transformer.Crop(crop, &image, &boxes);
  ASSERT_EQ(image.height, 5);
  ASSERT_EQ(image.width, 5);
  EXPECT_EQ(image.pixels[0], 12);          // source (1, 2)
  EXPECT_EQ(image.pixels[4 * 5 + 4], 56);  // source (5, 6)
  // Boxes in the crop's coordinates (width 0.5, height 0.52), the one outside dropped, the
  // partial one clipped: x (0.3 - 0.25) / 0.5 = 0.1, y (0.2 - 0.1) / 0.52 = 0.1923...
  ASSERT_EQ(boxes.size(), 2u);
  ExpectBox(boxes[0], 0.1f, 0.1f / 0.52f, 0.5f, 0.3f / 0.52f);
  EXPECT_TRUE(boxes[0].box.difficult);
  EXPECT_EQ(boxes[0].instance_id, 1);
  ExpectBox(boxes[1], 0.f, 0.f, 0.5f, 0.4f / 0.52f);
  EXPECT_EQ(boxes[1].box.label, 3);
}

TEST(AnnotatedTransformer, EmitConstraintDecidesWhichBoxesACropKeeps) {
  detection::NormalizedBox crop;
  crop.xmin = 0.25f;
  crop.ymin = 0.1f;
  crop.xmax = 0.75f;
  crop.ymax = 0.62f;
  // The box [0, 0, 0.5, 0.5]: centre (0.25, 0.25) on the crop's left edge (kept by CENTER);
  // its share inside the crop: [0.25, 0.1, 0.5, 0.5] = 0.1 of 0.25 = 0.4.
  // A box [0.6, 0.5, 1, 0.9]: centre (0.8, 0.7) outside; share inside 0.15 * 0.12 / 0.16 = 0.1125.
  auto kept = [&](const std::string& emit) {
    const AnnotatedTransformer transformer = Ready(emit);
    Image8 image = Ramp(10, 10);
    std::vector<AnnotatedBox> boxes = {Object(0.f, 0.f, 0.5f, 0.5f, 1),
                                       Object(0.6f, 0.5f, 1.f, 0.9f, 2)};
    transformer.Crop(crop, &image, &boxes);
    std::vector<int> labels;
    for (const AnnotatedBox& b : boxes) labels.push_back(b.box.label);
    return labels;
  };
  EXPECT_EQ(kept(""), (std::vector<int>{1, 2}));
  EXPECT_EQ(kept("emit_constraint { emit_type: CENTER }"), (std::vector<int>{1}));
  EXPECT_EQ(kept("emit_constraint { emit_type: MIN_OVERLAP emit_overlap: 0.5 }"),
            (std::vector<int>{}));
  EXPECT_EQ(kept("emit_constraint { emit_type: MIN_OVERLAP emit_overlap: 0.3 }"),
            (std::vector<int>{1}));
  EXPECT_EQ(kept("emit_constraint { emit_type: MIN_OVERLAP emit_overlap: 0.1 }"),
            (std::vector<int>{1, 2}));
}

TEST(AnnotatedTransformer, WarpResizeCropMirrorMeanAndScale) {
  // 4x8 resized (WARP, NEAREST) to 2x4: pixel (y, x) from source (2y, 2x), value 20y + 2x.
  // A 2x2 crop at left UniformInt(3), top UniformInt(1) = 0, mirrored on the coin;
  // out = (pixel - 1) * 0.5.
  const AnnotatedTransformer transformer = Ready(
      "mirror: true crop_size: 2 mean_value: 1 scale: 0.5 "
      "resize_param { height: 2 width: 4 resize_mode: WARP interp_mode: NEAREST }");
  EXPECT_EQ(transformer.OutputShape(1, 4, 8), (std::vector<int>{1, 2, 2}));
  int mirrored = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    Rng rng(seed), replay(seed);
    std::vector<AnnotatedBox> boxes = {Object(0.25f, 0.25f, 0.5f, 0.75f),
                                       Object(-0.2f, 0.f, 0.1f, 0.5f, 2)};
    std::vector<float> out(4);
    ASSERT_TRUE(transformer.Transform(Ramp(4, 8), rng, out.data(), &boxes).ok());
    const bool mirror = replay.UniformInt(2) == 1;
    mirrored += mirror;
    ASSERT_EQ(replay.UniformInt(1), 0u);
    const int left = static_cast<int>(replay.UniformInt(3));
    for (int y = 0; y < 2; ++y) {
      for (int x = 0; x < 2; ++x) {
        const int sx = mirror ? 1 - x : x;
        EXPECT_EQ(out[y * 2 + x], (20 * y + 2 * (left + sx) - 1) * 0.5f) << "seed " << seed;
      }
    }
    // Window [left / 4, 0, (left + 2) / 4, 1]. The first box: x 0.25..0.5 = 1..2 of the 4
    // resized columns, so left + 0 .. in the window: ((1 - left) / 2, (2 - left) / 2) clipped.
    // The second box, clipped by the resize policy to x 0..0.1 (0..0.4 columns), survives only
    // in the window at left 0.
    std::vector<std::array<float, 4>> expected;
    const float x0 = std::clamp((1.f - left) / 2, 0.f, 1.f);
    const float x1 = std::clamp((2.f - left) / 2, 0.f, 1.f);
    if (x1 > x0) expected.push_back({x0, 0.25f, x1, 0.75f});
    if (left == 0) expected.push_back({0.f, 0.f, 0.2f, 0.5f});
    ASSERT_EQ(boxes.size(), expected.size()) << "seed " << seed;
    for (size_t i = 0; i < boxes.size(); ++i) {
      auto [xmin, ymin, xmax, ymax] = expected[i];
      if (mirror) {
        const float old_xmin = xmin;
        xmin = 1 - xmax;
        xmax = 1 - old_xmin;
      }
      ExpectBox(boxes[i], xmin, ymin, xmax, ymax);
    }
  }
  EXPECT_GT(mirrored, 0);
  EXPECT_LT(mirrored, 8);
}

TEST(AnnotatedTransformer, TestPhaseCropsTheCentre) {
  const AnnotatedTransformer transformer = Ready("crop_size: 2", TEST);
  std::vector<float> out(4);
  std::vector<AnnotatedBox> boxes = {Object(0.f, 0.f, 0.5f, 0.5f)};
  Rng rng(1);
  ASSERT_TRUE(transformer.Transform(Ramp(4, 5), rng, out.data(), &boxes).ok());
  // top (4 - 2) / 2 = 1, left (5 - 2) / 2 = 1: pixels 11, 12, 21, 22.
  EXPECT_EQ(out, (std::vector<float>{11, 12, 21, 22}));
  // Window [0.2, 0.25, 0.6, 0.75]; the box [0, 0, 0.5, 0.5] -> [0, 0, 0.75, 0.5].
  ASSERT_EQ(boxes.size(), 1u);
  ExpectBox(boxes[0], 0.f, 0.f, 0.75f, 0.5f);
}

TEST(AnnotatedTransformer, FitLargeSizeAndPadWithEachPadMode) {
  // A 2x4 image into 4x4: aspect 2 > 1, the content 2 rows (floor(4 / 2)), one row of padding
  // above and one below. Boxes: y scaled by 2 / 2 and shifted by the padding 1 (of 4 rows).
  const Image8 image = Ramp(2, 4);  // rows {0, 1, 2, 3} and {10, 11, 12, 13}
  const std::vector<float> row0 = {0, 1, 2, 3}, row1 = {10, 11, 12, 13};
  struct Case {
    std::string pad;
    std::vector<float> first, last;
  };
  const std::vector<Case> cases = {
      {"pad_mode: CONSTANT pad_value: 9", {9, 9, 9, 9}, {9, 9, 9, 9}},
      {"pad_mode: MIRRORED", row1, row0},  // reflect 101: row -1 is row 1, row 2 is row 0
      {"pad_mode: REPEAT_NEAREST", row0, row1}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.pad);
    const AnnotatedTransformer transformer = Ready(
        "resize_param { height: 4 width: 4 resize_mode: FIT_LARGE_SIZE_AND_PAD " + c.pad + " }");
    EXPECT_EQ(transformer.OutputShape(1, 2, 4), (std::vector<int>{1, 4, 4}));
    std::vector<float> out(16);
    std::vector<AnnotatedBox> boxes = {Object(0.f, 0.f, 1.f, 1.f), Object(0.5f, 0.5f, 1.f, 1.f)};
    Rng rng(1);
    ASSERT_TRUE(transformer.Transform(image, rng, out.data(), &boxes).ok());
    EXPECT_EQ(std::vector<float>(out.begin(), out.begin() + 4), c.first);
    EXPECT_EQ(std::vector<float>(out.begin() + 4, out.begin() + 8), row0);
    EXPECT_EQ(std::vector<float>(out.begin() + 8, out.begin() + 12), row1);
    EXPECT_EQ(std::vector<float>(out.begin() + 12, out.end()), c.last);
    ASSERT_EQ(boxes.size(), 2u);
    ExpectBox(boxes[0], 0.f, 0.25f, 1.f, 0.75f);
    ExpectBox(boxes[1], 0.5f, 0.5f, 1.f, 0.75f);
  }
}

TEST(AnnotatedTransformer, FitSmallSizeCoversAndExtrapolates) {
  // 2x4 with height 4 width 4: aspect 2 >= 1, so 4 x floor(2 * 4) = 4x8. crop_size 4 in TEST:
  // left (8 - 4) / 2 = 2, window [0.25, 0, 0.75, 1]. The box [0.25, 0, 0.5, 0.5] -> x 0..0.5,
  // y 0..0.5; height_scale 2, width_scale 4 scale it by the crop's size in the resized image
  // (4 x 4) over (2, 4): y doubles -> [0, 0, 0.5, 1].
  const std::string resize = "resize_param { height: 4 width: 4 resize_mode: FIT_SMALL_SIZE ";
  const AnnotatedTransformer transformer =
      Ready("crop_size: 4 " + resize + "height_scale: 2 width_scale: 4 }", TEST);
  EXPECT_EQ(Ready(resize + "}").OutputShape(1, 2, 4), (std::vector<int>{1, 4, 8}));
  std::vector<float> out(16);
  std::vector<AnnotatedBox> boxes = {Object(0.25f, 0.f, 0.5f, 0.5f)};
  Rng rng(1);
  ASSERT_TRUE(transformer.Transform(Ramp(2, 4), rng, out.data(), &boxes).ok());
  ASSERT_EQ(boxes.size(), 1u);
  ExpectBox(boxes[0], 0.f, 0.f, 0.5f, 1.f);
  // A width_scale past the crop's 4 columns: the fork aborts.
  const AnnotatedTransformer wide =
      Ready("crop_size: 4 " + resize + "height_scale: 2 width_scale: 5 }", TEST);
  EXPECT_EQ(wide.Transform(Ramp(2, 4), rng, out.data(), &boxes).message(),
            "transform_param.resize_param.width_scale 5 is more than the crop's width in the "
            "resized image (4)");
}

TEST(AnnotatedTransformer, EveryInterpolationResizes) {
  for (const char* mode : {"LINEAR", "AREA", "NEAREST", "CUBIC", "LANCZOS4"}) {
    SCOPED_TRACE(mode);
    const AnnotatedTransformer transformer =
        Ready(std::string("resize_param { height: 3 width: 3 interp_mode: ") + mode + " }");
    Image8 flat{3, 6, 6, std::vector<uint8_t>(108, 40)};
    std::vector<float> out(27);
    std::vector<AnnotatedBox> boxes;
    Rng rng(1);
    ASSERT_TRUE(transformer.Transform(flat, rng, out.data(), &boxes).ok());
    EXPECT_EQ(out, std::vector<float>(27, 40));
  }
}

TEST(AnnotatedTransformer, Bgr2rgbSwapsTheOutputChannels) {
  const AnnotatedTransformer transformer = Ready("bgr2rgb: true");
  std::vector<float> out(3);
  std::vector<AnnotatedBox> boxes;
  Rng rng(1);
  ASSERT_TRUE(transformer.Transform({3, 1, 1, {10, 20, 30}}, rng, out.data(), &boxes).ok());
  EXPECT_EQ(out, (std::vector<float>{30, 20, 10}));
}

TEST(AnnotatedTransformer, InitNamesEveryRefusedField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"mean_file: 'mean.binaryproto'",
       "transform_param.mean_file: AnnotatedData does not read mean images (Intel Caffe's "
       "expansion reads one of the canvas's size); give mean_value"},
      {"pad: 2", "transform_param.pad: not supported yet by AnnotatedData"},
      {"crop_h: 4", "transform_param.crop_h: not supported yet by AnnotatedData"},
      {"crop_w: 4", "transform_param.crop_w: not supported yet by AnnotatedData"},
      {"flow: true", "transform_param.flow: not supported yet by AnnotatedData"},
      {"crop_size: 8 random_resize_param { }",
       "transform_param.random_resize_param: not supported yet by AnnotatedData"},
      {"crop_size: 8 random_aspect_ratio_param { }",
       "transform_param.random_aspect_ratio_param: not supported yet by AnnotatedData"},
      {"noise_param { prob: 0.5 }",
       "transform_param.noise_param.prob: not supported yet by AnnotatedData"},
      {"noise_param { decolorize: true }",
       "transform_param.noise_param.decolorize: not supported yet by AnnotatedData"},
      {"noise_param { jpeg: 80 }",
       "transform_param.noise_param.jpeg: not supported yet by AnnotatedData"},
      {"scale: nan", "transform_param.scale must be finite"},
      {"mean_value: 1 mean_value: inf", "transform_param.mean_value must be finite"},
      {"crop_size: 20000", "transform_param.crop_size 20000 makes more than 2^28 pixels"},
      {"resize_param { width: 4 }", "transform_param.resize_param.height must be positive"},
      {"resize_param { height: 4 }", "transform_param.resize_param.width must be positive"},
      {"resize_param { height: 20000 width: 20000 }",
       "transform_param.resize_param: 20000x20000 is more than 2^28 pixels"},
      {"resize_param { height: 4 width: 4 pad_value: nan }",
       "transform_param.resize_param.pad_value must be finite"},
      {"distort_param { brightness_prob: 1 brightness_delta: -3 }",
       "transform_param.distort_param.brightness_delta -3 must be non-negative"},
      {"expand_param { prob: nan }", "transform_param.expand_param.prob must be finite"},
      {"expand_param { max_expand_ratio: 1e9 }",
       "transform_param.expand_param.max_expand_ratio 1e+09 must be in [1, 16384] (a larger "
       "canvas passes 2^28 pixels)"},
      {"expand_param { max_expand_ratio: 0.5 }",
       "transform_param.expand_param.max_expand_ratio 0.5 must be in [1, 16384] (a larger canvas "
       "passes 2^28 pixels)"},
      {"expand_param { max_expand_ratio: nan }",
       "transform_param.expand_param.max_expand_ratio nan must be in [1, 16384] (a larger canvas "
       "passes 2^28 pixels)"},
      {"emit_constraint { emit_type: MIN_OVERLAP emit_overlap: nan }",
       "transform_param.emit_constraint.emit_overlap must be finite"},
  };
  for (const auto& [text, message] : cases) EXPECT_EQ(InitError(text), message) << text;
  // Accepted: noise_param that asks for nothing, every resize mode and interpolation.
  EXPECT_EQ(InitError("noise_param { prob: 0 }"), "");
  EXPECT_EQ(InitError("resize_param { height: 4 width: 4 resize_mode: FIT_SMALL_SIZE "
                      "interp_mode: AREA interp_mode: LANCZOS4 }"),
            "");
}

TEST(AnnotatedTransformer, TransformAndDistortRefuseImagesThatDoNotFit) {
  std::vector<float> out(64);
  std::vector<AnnotatedBox> boxes;
  Rng rng(1);
  EXPECT_EQ(Ready("crop_size: 5").Transform(Ramp(4, 8), rng, out.data(), &boxes).message(),
            "transform_param.crop_size 5 is larger than the image (1x4x8)");
  EXPECT_EQ(Ready("crop_size: 5 resize_param { height: 4 width: 4 }")
                .Transform(Ramp(4, 8), rng, out.data(), &boxes)
                .message(),
            "transform_param.crop_size 5 is larger than the resized image (1x4x4)");
  EXPECT_EQ(
      Ready("mean_value: 1 mean_value: 2").Transform(Ramp(2, 2), rng, out.data(), &boxes).message(),
      "transform_param has 2 mean_value entries; give 1 or one per channel (1)");
  EXPECT_EQ(Ready("bgr2rgb: true").Transform(Ramp(2, 2), rng, out.data(), &boxes).message(),
            "transform_param.bgr2rgb needs 3-channel images; this one is 1x2x2");
  EXPECT_EQ(Ready("resize_param { height: 4 width: 4 pad_value: 1 pad_value: 2 "
                  "resize_mode: FIT_LARGE_SIZE_AND_PAD }")
                .Transform(Ramp(2, 4), rng, out.data(), &boxes)
                .message(),
            "transform_param.resize_param has 2 pad_value entries; give 1 or one per channel (1)");
  Image8 gray = Ramp(2, 2);
  EXPECT_EQ(Ready("distort_param { brightness_prob: 1 }").Distort(rng, &gray).message(),
            "transform_param.distort_param needs 3-channel (B, G, R) images; this one is 1x2x2");
}

}  // namespace
}  // namespace dtrain
