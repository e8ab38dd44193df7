#include "data/transformer.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/proto_io.h"
#include "data/datum.h"
#include "data_test_util.h"

namespace dtrain {
namespace {

// A channels x height x width uint8 Datum whose value at CHW index j is j.
Datum Ramp(int channels, int height, int width) {
  std::vector<uint8_t> pixels(static_cast<size_t>(channels) * height * width);
  for (size_t j = 0; j < pixels.size(); ++j) pixels[j] = static_cast<uint8_t>(j);
  return MakeDatum(channels, height, width, pixels.data(), 0);
}

std::vector<float> Apply(DataTransformer& t, const Datum& datum) {
  std::vector<int> shape = t.OutputShape(datum);
  std::vector<float> out(static_cast<size_t>(shape[0]) * shape[1] * shape[2], -999.f);
  Status s = t.Transform(datum, out.data());
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

TEST(TransformerTest, NoParametersCopiesValues) {
  DataTransformer t(TransformationParameter(), TRAIN, 1);
  ASSERT_TRUE(t.Init().ok());
  const Datum datum = Ramp(2, 2, 2);
  EXPECT_EQ(t.OutputShape(datum), (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(Apply(t, datum), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(TransformerTest, SubtractsMeanValueThenScales) {
  TransformationParameter p;
  p.set_scale(0.5f);
  p.add_mean_value(1.f);
  DataTransformer t(p, TEST, 1);
  ASSERT_TRUE(t.Init().ok());
  // (v - 1) * 0.5 on every channel.
  EXPECT_EQ(Apply(t, Ramp(2, 1, 2)), (std::vector<float>{-0.5f, 0.f, 0.5f, 1.f}));
}

TEST(TransformerTest, MeanValuePerChannel) {
  TransformationParameter p;
  p.add_mean_value(1.f);
  p.add_mean_value(10.f);
  DataTransformer t(p, TEST, 1);
  ASSERT_TRUE(t.Init().ok());
  EXPECT_EQ(Apply(t, Ramp(2, 1, 2)), (std::vector<float>{-1.f, 0.f, -8.f, -7.f}));
}

TEST(TransformerTest, CenterCropInTest) {
  TransformationParameter p;
  p.set_crop_size(2);
  DataTransformer t(p, TEST, 1);
  ASSERT_TRUE(t.Init().ok());
  // 1x4x4 ramp, offsets (1, 1): rows 1-2, columns 1-2.
  const Datum datum = Ramp(1, 4, 4);
  EXPECT_EQ(t.OutputShape(datum), (std::vector<int>{1, 2, 2}));
  EXPECT_EQ(Apply(t, datum), (std::vector<float>{5, 6, 9, 10}));
  // 1x5x4: h_off (5-2)/2 = 1, w_off (4-2)/2 = 1.
  EXPECT_EQ(Apply(t, Ramp(1, 5, 4)), (std::vector<float>{5, 6, 9, 10}));
}

TEST(TransformerTest, RandomCropInTrainCoversEveryOffset) {
  TransformationParameter p;
  p.set_crop_size(2);
  DataTransformer t(p, TRAIN, 7);
  ASSERT_TRUE(t.Init().ok());
  const Datum datum = Ramp(1, 3, 3);
  std::set<float> corners;
  for (int i = 0; i < 100; ++i) {
    const std::vector<float> out = Apply(t, datum);
    // A window at (h, w) holds {3h+w, 3h+w+1, 3h+w+3, 3h+w+4}.
    const float c = out[0];
    EXPECT_EQ(out, (std::vector<float>{c, c + 1, c + 3, c + 4}));
    corners.insert(c);
  }
  EXPECT_EQ(corners, (std::set<float>{0, 1, 3, 4}));
}

TEST(TransformerTest, MirrorFlipsRowsSometimes) {
  TransformationParameter p;
  p.set_mirror(true);
  DataTransformer t(p, TRAIN, 3);
  ASSERT_TRUE(t.Init().ok());
  const Datum datum = Ramp(2, 2, 3);
  const std::vector<float> plain = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  const std::vector<float> flipped = {2, 1, 0, 5, 4, 3, 8, 7, 6, 11, 10, 9};
  int plain_count = 0, flipped_count = 0;
  for (int i = 0; i < 50; ++i) {
    const std::vector<float> out = Apply(t, datum);
    if (out == plain)
      ++plain_count;
    else if (out == flipped)
      ++flipped_count;
    else
      ADD_FAILURE() << "neither the image nor its mirror";
  }
  EXPECT_GT(plain_count, 0);
  EXPECT_GT(flipped_count, 0);
}

TEST(TransformerTest, SameSeedSameDraws) {
  TransformationParameter p;
  p.set_mirror(true);
  p.set_crop_size(2);
  DataTransformer a(p, TRAIN, 11), b(p, TRAIN, 11);
  ASSERT_TRUE(a.Init().ok());
  ASSERT_TRUE(b.Init().ok());
  const Datum datum = Ramp(1, 4, 4);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(Apply(a, datum), Apply(b, datum));
}

TEST(TransformerTest, MeanFileIsIndexedByTheUncroppedPixel) {
  testing::TempDir dir;
  const std::string mean_path = dir.Path("mean.binaryproto");
  BlobProto mean;
  mean.set_num(1);
  mean.set_channels(1);
  mean.set_height(3);
  mean.set_width(3);
  for (int i = 0; i < 9; ++i) mean.add_data(0.5f * i);  // mean[j] = j/2
  ASSERT_TRUE(WriteBinaryProtoAtomically(mean_path, mean).ok());

  TransformationParameter p;
  p.set_mean_file(mean_path);
  p.set_crop_size(1);
  p.set_scale(2.f);
  DataTransformer t(p, TEST, 1);
  Status s = t.Init();
  ASSERT_TRUE(s.ok()) << s.message();
  // Center pixel j = 4: (4 - 2) * 2.
  EXPECT_EQ(Apply(t, Ramp(1, 3, 3)), (std::vector<float>{4.f}));

  p.clear_crop_size();
  DataTransformer whole(p, TEST, 1);
  ASSERT_TRUE(whole.Init().ok());
  EXPECT_EQ(Apply(whole, Ramp(1, 3, 3)), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8}));

  // A mean of another shape is an error naming the file.
  std::vector<float> out(16);
  s = whole.Transform(Ramp(1, 4, 4), out.data());
  EXPECT_EQ(s.message(), "mean_file '" + mean_path + "' is 1x3x3 but the image is 1x4x4");
}

TEST(TransformerTest, FloatData) {
  Datum datum;
  datum.set_channels(1);
  datum.set_height(1);
  datum.set_width(2);
  datum.add_float_data(-1.f);
  datum.add_float_data(3.f);
  TransformationParameter p;
  p.set_scale(2.f);
  p.add_mean_value(1.f);
  DataTransformer t(p, TEST, 1);
  ASSERT_TRUE(t.Init().ok());
  EXPECT_EQ(Apply(t, datum), (std::vector<float>{-4.f, 4.f}));
}

// Decoded pixels, HWC (a decoder's layout; 3 channels take row-wise paths, with and without a
// mean file) or CHW, give exactly what the same image as a Datum gives, draw for draw.
// Small and wide (rows of 33 pixels: the vectorised row loops' main part and their remainder).
TEST(TransformerTest, PixelViewsMatchTheDatum) {
  testing::TempDir dir;
  struct Size {
    int height, width, crop;
  };
  for (const Size size : {Size{5, 7, 4}, Size{36, 37, 33}})
    for (int channels : {1, 3}) {
      const int h = size.height, w = size.width, pixels = h * w;
      SCOPED_TRACE(std::to_string(h) + "x" + std::to_string(w));
      const Datum datum = Ramp(channels, h, w);
      const uint8_t* chw = reinterpret_cast<const uint8_t*>(datum.data().data());
      std::vector<uint8_t> hwc(datum.data().size());
      for (int c = 0; c < channels; ++c) {
        for (int i = 0; i < pixels; ++i) hwc[i * channels + c] = chw[c * pixels + i];
      }
      // A mean image whose every value differs, so that a misplaced one shows.
      const std::string mean_path =
          dir.Path("mean" + std::to_string(channels) + "_" + std::to_string(h) + ".binaryproto");
      BlobProto mean;
      mean.set_num(1);
      mean.set_channels(channels);
      mean.set_height(h);
      mean.set_width(w);
      for (int i = 0; i < channels * pixels; ++i) mean.add_data(0.37f * i - 3.f);
      ASSERT_TRUE(WriteBinaryProtoAtomically(mean_path, mean).ok());
      for (bool mean_file : {false, true}) {
        TransformationParameter p;
        p.set_crop_size(size.crop);
        p.set_mirror(true);
        p.set_scale(0.25f);
        if (mean_file) {
          p.set_mean_file(mean_path);
        } else {
          for (int c = 0; c < channels; ++c) p.add_mean_value(10.f + 3 * c);
        }
        DataTransformer t(p, TRAIN, 1);
        ASSERT_TRUE(t.Init().ok());
        for (int draw = 0; draw < 8; ++draw) {
          t.rng().Seed(draw);
          const std::vector<float> expected = Apply(t, datum);
          std::vector<float> from_hwc(expected.size()), from_chw(expected.size());
          Rng a(draw), b(draw);
          ASSERT_TRUE(
              t.Transform(PixelView{hwc.data(), channels, h, w, true}, a, from_hwc.data()).ok());
          ASSERT_TRUE(t.Transform(PixelView{chw, channels, h, w, false}, b, from_chw.data()).ok());
          EXPECT_EQ(from_hwc, expected)
              << channels << " channels, mean file " << mean_file << ", draw " << draw;
          EXPECT_EQ(from_chw, expected)
              << channels << " channels, mean file " << mean_file << ", draw " << draw;
        }
      }
    }
}

TEST(TransformerTest, BadParametersAreErrors) {
  TransformationParameter both;
  both.set_mean_file("m.binaryproto");
  both.add_mean_value(1.f);
  EXPECT_EQ(DataTransformer(both, TRAIN, 1).Init().message(),
            "transform_param: cannot specify both mean_file and mean_value");

  TransformationParameter missing;
  missing.set_mean_file("/nonexistent/mean.binaryproto");
  Status s = DataTransformer(missing, TRAIN, 1).Init();
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_NE(s.message().find("/nonexistent/mean.binaryproto"), std::string::npos) << s.message();

  std::vector<float> out(64);
  TransformationParameter crop;
  crop.set_crop_size(5);
  DataTransformer t(crop, TRAIN, 1);
  ASSERT_TRUE(t.Init().ok());
  EXPECT_EQ(t.Transform(Ramp(1, 4, 6), out.data()).message(),
            "crop_size 5 is larger than the image (1x4x6)");

  TransformationParameter means;
  means.add_mean_value(1.f);
  means.add_mean_value(2.f);
  DataTransformer m(means, TRAIN, 1);
  ASSERT_TRUE(m.Init().ok());
  EXPECT_EQ(m.Transform(Ramp(3, 2, 2), out.data()).message(),
            "transform_param has 2 mean_value entries; give 1 or one per channel (3)");
}

}  // namespace
}  // namespace dtrain
