// AnnotatedTransformer on hostile input: crop boxes outside the image or not finite, NaN object
// boxes, empty and inconsistent images, canvases and resizes beyond 2^28 pixels. Nothing may
// crash; each refusal is an exact message.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/proto_io.h"
#include "data/annotated_transformer.h"

namespace dtrain {
namespace {

AnnotatedTransformer Ready(const std::string& text) {
  TransformationParameter param;
  EXPECT_TRUE(ParseTextProto(text, "transform_param", &param).ok()) << text;
  AnnotatedTransformer transformer(param, TRAIN);
  EXPECT_TRUE(transformer.Init().ok()) << text;
  return transformer;
}

Image8 Flat(int height, int width, uint8_t value = 50) {
  return {1, height, width, std::vector<uint8_t>(static_cast<size_t>(height) * width, value)};
}

detection::NormalizedBox Box(float xmin, float ymin, float xmax, float ymax) {
  detection::NormalizedBox box;
  box.xmin = xmin;
  box.ymin = ymin;
  box.xmax = xmax;
  box.ymax = ymax;
  return box;
}

TEST(AnnotatedTransformerHostile, CropOutsideOrNotFiniteLeavesAnEmptyImageThatTransformRefuses) {
  const AnnotatedTransformer transformer = Ready("");
  for (const detection::NormalizedBox& crop :
       {Box(1.5f, 1.5f, 2.f, 2.f), Box(-3.f, -3.f, -1.f, -1.f), Box(NAN, 0.f, 1.f, 1.f),
        Box(0.f, 0.f, INFINITY, 1.f), Box(0.5f, 0.5f, 0.51f, 0.51f)}) {
    Image8 image = Flat(10, 10);
    std::vector<AnnotatedBox> boxes = {{Box(0.f, 0.f, 1.f, 1.f), 0}};
    transformer.Crop(crop, &image, &boxes);
    EXPECT_EQ(image.height * image.width, 0);
    EXPECT_TRUE(boxes.empty());
    std::vector<float> out(1);
    Rng rng(1);
    EXPECT_EQ(transformer.Transform(image, rng, out.data(), &boxes).message(),
              "AnnotatedData's transform: the image is empty (1x0x0)");
  }
  // A crop reaching past the image is clipped to it.
  Image8 image = Flat(10, 10);
  std::vector<AnnotatedBox> boxes;
  transformer.Crop(Box(-0.5f, 0.5f, 0.5f, 1.5f), &image, &boxes);
  EXPECT_EQ(image.height, 5);
  EXPECT_EQ(image.width, 5);
}

TEST(AnnotatedTransformerHostile, NanObjectBoxesAreDroppedEverywhere) {
  const AnnotatedTransformer transformer = Ready(
      "crop_size: 2 mirror: true emit_constraint { emit_type: CENTER } "
      "expand_param { prob: 1 max_expand_ratio: 2 } "
      "resize_param { height: 4 width: 4 resize_mode: FIT_LARGE_SIZE_AND_PAD }");
  const AnnotatedBox nan{Box(NAN, NAN, NAN, NAN), 0};
  const AnnotatedBox half_nan{Box(0.1f, NAN, 0.5f, 0.5f), 1};
  Rng rng(3);
  Image8 image = Flat(6, 8);
  std::vector<AnnotatedBox> boxes = {nan, half_nan};
  transformer.Expand(rng, &image, &boxes);
  EXPECT_TRUE(boxes.empty());
  boxes = {nan, half_nan};
  transformer.Crop(Box(0.f, 0.f, 0.5f, 0.5f), &image, &boxes);
  EXPECT_TRUE(boxes.empty());
  boxes = {nan, half_nan};
  std::vector<float> out(4);
  const Status status = transformer.Transform(image, rng, out.data(), &boxes);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(boxes.empty());
}

TEST(AnnotatedTransformerHostile, EmptyAndInconsistentImages) {
  const AnnotatedTransformer transformer = Ready(
      "distort_param { brightness_prob: 1 brightness_delta: 9 } "
      "expand_param { prob: 1 max_expand_ratio: 4 }");
  Rng rng(1);
  Image8 empty{3, 0, 0, {}};
  std::vector<AnnotatedBox> boxes;
  EXPECT_TRUE(transformer.Distort(rng, &empty).ok());
  transformer.Expand(rng, &empty, &boxes);
  EXPECT_EQ(empty.height, 0);
  std::vector<float> out(1);
  EXPECT_EQ(transformer.Transform(empty, rng, out.data(), &boxes).message(),
            "AnnotatedData's transform: the image is empty (3x0x0)");
  EXPECT_EQ(transformer.Transform({0, 1, 1, {}}, rng, out.data(), &boxes).message(),
            "AnnotatedData's transform: the image is empty (0x1x1)");
  const Image8 short_buffer{1, 2, 2, {1, 2, 3}};
  EXPECT_EQ(transformer.Transform(short_buffer, rng, out.data(), &boxes).message(),
            "AnnotatedData's transform: the image holds 3 values, not 1x2x2");
  Image8 copy = short_buffer;
  EXPECT_EQ(transformer.Distort(rng, &copy).message(),
            "AnnotatedData's transform: the image holds 3 values, not 1x2x2");
  transformer.Expand(rng, &copy, &boxes);  // left alone
  EXPECT_EQ(copy.pixels.size(), 3u);
  transformer.Crop(Box(0.f, 0.f, 1.f, 1.f), &copy, &boxes);  // emptied
  EXPECT_EQ(copy.height * copy.width, 0);
}

TEST(AnnotatedTransformerHostile, ExpandSkipsACanvasPast2To28Pixels) {
  // A 1 x 20000 image with ratios up to 16384: the canvas int(r) x int(20000 r) passes 2^28
  // pixels once r > ~116, so nearly every draw is skipped; the replay says which.
  const AnnotatedTransformer transformer =
      Ready("expand_param { prob: 1 max_expand_ratio: 16384 }");
  int skipped = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    Rng rng(seed), replay(seed);
    Image8 image = Flat(1, 20000);
    std::vector<AnnotatedBox> boxes = {{Box(0.25f, 0.f, 0.5f, 1.f), 0}};
    transformer.Expand(rng, &image, &boxes);
    replay.Uniform(0.f, 1.f);
    const float ratio = replay.Uniform(1.f, 16384.f);
    const int64_t height = static_cast<int64_t>(ratio);
    const int64_t width = static_cast<int64_t>(20000 * ratio);
    if (height * width > (int64_t{1} << 28)) {
      ++skipped;
      EXPECT_EQ(image.width, 20000);
      EXPECT_EQ(boxes[0].box.xmin, 0.25f);
    } else {
      EXPECT_EQ(image.width, width);
    }
  }
  EXPECT_GT(skipped, 0);
}

TEST(AnnotatedTransformerHostile, ResizesThatMakeNoPixelsOrTooMany) {
  std::vector<float> out(16);
  std::vector<AnnotatedBox> boxes;
  Rng rng(1);
  EXPECT_EQ(Ready("resize_param { height: 4 width: 4 resize_mode: FIT_LARGE_SIZE_AND_PAD }")
                .Transform(Flat(1, 1000), rng, out.data(), &boxes)
                .message(),
            "transform_param.resize_param: FIT_LARGE_SIZE_AND_PAD would resize the 1x1000 image "
            "to 0x4");
  const AnnotatedTransformer small =
      Ready("resize_param { height: 300 width: 300 resize_mode: FIT_SMALL_SIZE }");
  EXPECT_EQ(small.OutputShape(1, 1, 100000), (std::vector<int>{1, 300, 30000000}));
  EXPECT_EQ(small.Transform(Flat(1, 100000), rng, out.data(), &boxes).message(),
            "transform_param.resize_param: FIT_SMALL_SIZE would resize the 1x100000 image to "
            "300x30000000, more than 2^28 pixels");
}

}  // namespace
}  // namespace dtrain
