#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillIota;
using testing::MakeLayer;
using testing::Values;

std::string Crop(const std::string& param) {
  return R"(name: "crop" type: "Crop" crop_param { )" + param + " }";
}

// bottom 0 is 1 x 2 x 4 x 5 holding 0..39, so element (0, c, h, w) = 20c + 5h + w.
struct CropInputs {
  Tensor data{std::vector<int>{1, 2, 4, 5}};
  Tensor like{std::vector<int>{1, 1, 2, 3}};
  Tensor top;
  CropInputs() { FillIota(&data, 0.f); }
};

TEST(CropLayerTest, CropsSpatialAxesByDefaultWithOneOffsetPerAxis) {
  CropInputs in;
  auto layer = MakeLayer(Crop("offset: 1 offset: 2"));
  ASSERT_TRUE(layer->Setup({&in.data, &in.like}, {&in.top}).ok());
  ASSERT_TRUE(layer->Forward({&in.data, &in.like}, {&in.top}, nullptr).ok());
  // axis 2: N and C kept (1, 2), H and W from bottom 1 (2, 3); rows h = 1, 2, columns w = 2..4.
  EXPECT_EQ(in.top.shape(), (std::vector<int>{1, 2, 2, 3}));
  EXPECT_EQ(Values(in.top), (std::vector<float>{7, 8, 9, 12, 13, 14, 27, 28, 29, 32, 33, 34}));
}

TEST(CropLayerTest, OneOffsetAppliesToEveryCroppedAxis) {
  CropInputs in;
  auto layer = MakeLayer(Crop("offset: 1"));
  ASSERT_TRUE(layer->Setup({&in.data, &in.like}, {&in.top}).ok());
  ASSERT_TRUE(layer->Forward({&in.data, &in.like}, {&in.top}, nullptr).ok());
  // h = 1, 2 and w = 1..3.
  EXPECT_EQ(Values(in.top), (std::vector<float>{6, 7, 8, 11, 12, 13, 26, 27, 28, 31, 32, 33}));
}

TEST(CropLayerTest, NoOffsetStartsAtZero) {
  CropInputs in;
  auto layer = MakeLayer(R"(name: "crop" type: "Crop")");
  ASSERT_TRUE(layer->Setup({&in.data, &in.like}, {&in.top}).ok());
  ASSERT_TRUE(layer->Forward({&in.data, &in.like}, {&in.top}, nullptr).ok());
  EXPECT_EQ(Values(in.top), (std::vector<float>{0, 1, 2, 5, 6, 7, 20, 21, 22, 25, 26, 27}));
}

TEST(CropLayerTest, AxisOneCropsChannelsToo) {
  CropInputs in;
  auto layer = MakeLayer(Crop("axis: 1 offset: 1 offset: 2 offset: 1"));
  ASSERT_TRUE(layer->Setup({&in.data, &in.like}, {&in.top}).ok());
  ASSERT_TRUE(layer->Forward({&in.data, &in.like}, {&in.top}, nullptr).ok());
  // c = 1, h = 2, 3, w = 1..3.
  EXPECT_EQ(in.top.shape(), (std::vector<int>{1, 1, 2, 3}));
  EXPECT_EQ(Values(in.top), (std::vector<float>{31, 32, 33, 36, 37, 38}));
}

TEST(CropLayerTest, NegativeAxisCountsFromTheEnd) {
  CropInputs in;
  auto layer = MakeLayer(Crop("axis: -1 offset: 2"));  // the last axis only
  ASSERT_TRUE(layer->Setup({&in.data, &in.like}, {&in.top}).ok());
  ASSERT_TRUE(layer->Forward({&in.data, &in.like}, {&in.top}, nullptr).ok());
  EXPECT_EQ(in.top.shape(), (std::vector<int>{1, 2, 4, 3}));
  EXPECT_EQ(std::vector<float>(in.top.data(), in.top.data() + 6),
            (std::vector<float>{2, 3, 4, 7, 8, 9}));
}

TEST(CropLayerTest, AxisZeroCropsEveryAxisOfATwoAxisBlob) {
  Tensor data({3, 4}), like({2, 2}), top;
  FillIota(&data, 0.f);  // row r = 4r .. 4r + 3
  auto layer = MakeLayer(Crop("axis: 0 offset: 1 offset: 2"));
  ASSERT_TRUE(layer->Setup({&data, &like}, {&top}).ok());
  ASSERT_TRUE(layer->Forward({&data, &like}, {&top}, nullptr).ok());
  EXPECT_EQ(Values(top), (std::vector<float>{6, 7, 10, 11}));
}

TEST(CropLayerTest, BackwardPutsTheTopDiffInTheWindowAndZeroElsewhere) {
  Tensor data({1, 1, 3, 3}), like({1, 1, 2, 2}), top;
  FillIota(&data, 0.f);
  auto layer = MakeLayer(Crop("offset: 1 offset: 0"));
  ASSERT_TRUE(layer->Setup({&data, &like}, {&top}).ok());
  ASSERT_TRUE(layer->Forward({&data, &like}, {&top}, nullptr).ok());
  EXPECT_EQ(Values(top), (std::vector<float>{3, 4, 6, 7}));
  float* dy = top.mutable_diff();
  dy[0] = 1, dy[1] = 2, dy[2] = 3, dy[3] = 4;
  data.SetDiff(9.f);
  like.SetDiff(9.f);
  layer->Backward({&top}, {true, true}, {&data, &like});
  EXPECT_EQ(std::vector<float>(data.diff(), data.diff() + 9),
            (std::vector<float>{0, 0, 0, 1, 2, 0, 3, 4, 0}));
  // The reference blob's values do not matter: its gradient is zero.
  EXPECT_EQ(std::vector<float>(like.diff(), like.diff() + 4), (std::vector<float>(4, 0.f)));
}

TEST(CropLayerTest, Gradient) {
  Tensor data({2, 3, 5, 4}), like({1, 1, 3, 2}), top;
  testing::FillGaussian(&data, 5);
  auto layer = MakeLayer(Crop("offset: 1 offset: 2"));
  testing::GradientCheckOptions options;
  options.bottoms = {0};
  testing::CheckGradients(*layer, {&data, &like}, {&top}, options);
}

Status SetupStatus(const std::string& prototxt, const std::vector<int>& data_shape,
                   const std::vector<int>& like_shape) {
  Tensor data(data_shape), like(like_shape), top;
  auto layer = MakeLayer(prototxt);
  return layer->Setup({&data, &like}, {&top});
}

TEST(CropLayerTest, AxisOutOfRangeIsAnError) {
  Status s = SetupStatus(Crop("axis: 4"), {1, 2, 4, 5}, {1, 1, 2, 3});
  EXPECT_EQ(s.message(),
            "layer 'crop' (Crop): crop_param.axis 4 is out of range for bottom 0 of shape 1 2 4 5 "
            "(40)");
}

TEST(CropLayerTest, WrongNumberOfOffsetsIsAnError) {
  Status s = SetupStatus(Crop("offset: 1 offset: 1 offset: 1"), {1, 2, 4, 5}, {1, 1, 2, 3});
  EXPECT_EQ(s.message(),
            "layer 'crop' (Crop): crop_param.offset needs one value, or one per cropped axis (2 "
            "for axes 2 to 3 of bottom 0 1 2 4 5 (40)), got 3");
}

TEST(CropLayerTest, WindowOutsideTheDataIsAnError) {
  Status s = SetupStatus(Crop("offset: 0 offset: 3"), {1, 2, 4, 5}, {1, 1, 2, 3});
  EXPECT_EQ(s.message(),
            "layer 'crop' (Crop): crop_param: the crop of axis 3 is out of bounds: size 3 (bottom "
            "1 1 1 2 3 (6)) at offset 3 does not fit in 5 (bottom 0 1 2 4 5 (40))");
  s = SetupStatus(R"(name: "crop" type: "Crop")", {1, 2, 4, 5}, {1, 1, 6, 3});
  EXPECT_NE(s.message().find("the crop of axis 2 is out of bounds"), std::string::npos)
      << s.message();
}

TEST(CropLayerTest, ReferenceWithFewerAxesIsAnError) {
  Status s = SetupStatus(R"(name: "crop" type: "Crop")", {1, 2, 4, 5}, {2, 3});
  EXPECT_EQ(s.message(),
            "layer 'crop' (Crop): bottom 1 2 3 (6) has fewer axes than bottom 0 1 2 4 5 (40)");
}

TEST(CropLayerTest, InPlaceIsAnError) {
  Tensor data({1, 1, 2, 2}), like({1, 1, 2, 2});
  auto layer = MakeLayer(R"(name: "crop" type: "Crop")");
  Status s = layer->Setup({&data, &like}, {&data});
  EXPECT_EQ(s.message(), "layer 'crop' (Crop): cannot run in place");
}

TEST(CropLayerTest, NeedsTwoBottoms) {
  Tensor data({1, 1, 2, 2}), top;
  auto layer = MakeLayer(R"(name: "crop" type: "Crop")");
  Status s = layer->Setup({&data}, {&top});
  EXPECT_EQ(s.message(), "layer 'crop' (Crop): bottom takes exactly 2 blob(s), got 1");
}

}  // namespace
}  // namespace dtrain
