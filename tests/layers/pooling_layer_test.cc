#include "layers/pooling_layer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/rng.h"
#include "kernels/reference/pooling.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"
#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::CheckGradients;
using testing::FillGaussian;
using testing::FillIota;
using testing::MakeLayer;
using testing::ParseLayerParameter;
using testing::Values;

LayerParameter PoolParam(const std::string& fields) {
  const std::string text = "name: 'pool' type: 'Pooling' pooling_param { " + fields + " }";
  return ParseLayerParameter(text);
}

// Distinct values 0.1 apart in a shuffled order, so that a finite-difference step never changes
// which element is the max.
void FillDistinct(Tensor* t, uint64_t seed) {
  std::vector<float> v(t->count());
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.1f * static_cast<float>(i) - 1.f;
  Rng rng(seed);
  std::shuffle(v.begin(), v.end(), rng.engine());
  std::copy(v.begin(), v.end(), t->mutable_data());
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << "element " << i;
}

TEST(PoolingLayerTest, MaxWithMaskTop) {
  auto layer = MakeLayer(PoolParam("pool: MAX kernel_size: 2 stride: 2"));
  Tensor bottom({1, 1, 4, 4}), top, mask;
  const std::vector<float> x = {1, 9, 2, 3,  //
                                4, 0, 8, 7,  //
                                5, 5, 6, 1,  //
                                2, 3, 0, 6};
  std::copy(x.begin(), x.end(), bottom.mutable_data());
  ASSERT_TRUE(layer->Setup({&bottom}, {&top, &mask}).ok());
  ASSERT_TRUE(layer->Forward({&bottom}, {&top, &mask}, nullptr).ok());
  EXPECT_EQ(top.shape(), (std::vector<int>{1, 1, 2, 2}));
  EXPECT_EQ(Values(top), (std::vector<float>{9, 8, 5, 6}));
  // Argmax index within the plane; ties go to the first (5 at index 8, not 9).
  EXPECT_EQ(Values(mask), (std::vector<float>{1, 6, 8, 10}));
}

// 4x4 image 1..16, kernel 3, stride 2, pad 1: ceil((4 + 2 - 3) / 2) + 1 = 3 outputs per axis,
// windows starting at -1, 1 and 3.
TEST(PoolingLayerTest, MaxCeilRoundingWithPad) {
  auto layer = MakeLayer(PoolParam("pool: MAX kernel_size: 3 stride: 2 pad: 1"));
  Tensor bottom({1, 1, 4, 4}), top;
  FillIota(&bottom, 1.f);
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  ASSERT_TRUE(layer->Forward({&bottom}, {&top}, nullptr).ok());
  EXPECT_EQ(top.shape(), (std::vector<int>{1, 1, 3, 3}));
  EXPECT_EQ(Values(top), (std::vector<float>{6, 8, 8, 14, 16, 16, 14, 16, 16}));
}

TEST(PoolingLayerTest, AveCeilRoundingWithPadCountsPaddingInTheDivisor) {
  // Divisors: a window is clipped to the padded image (extent 3, 3, 2 per axis), so the corner
  // window holds 4 pixels over 3x3 = 9, the last one 1 pixel over 2x2 = 4.
  auto layer = MakeLayer(PoolParam("pool: AVE kernel_size: 3 stride: 2 pad: 1"));
  Tensor bottom({1, 1, 4, 4}), top;
  FillIota(&bottom, 1.f);
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  ASSERT_TRUE(layer->Forward({&bottom}, {&top}, nullptr).ok());
  ExpectNear(Values(top), {14.f / 9, 30.f / 9, 12.f / 6,  //
                           57.f / 9, 99.f / 9, 36.f / 6,  //
                           27.f / 6, 45.f / 6, 16.f / 4});
}

TEST(PoolingLayerTest, CeilRoundingWithoutPad) {
  // 5 wide, kernel 2, stride 2: ceil(1.5) + 1 = 3; the last window holds one column.
  Tensor bottom({1, 1, 1, 5}), top;
  std::vector<float> x = {1, 2, 3, 4, 5};
  std::copy(x.begin(), x.end(), bottom.mutable_data());
  auto rect = MakeLayer(PoolParam("pool: MAX kernel_h: 1 kernel_w: 2 stride_h: 1 stride_w: 2"));
  ASSERT_TRUE(rect->Setup({&bottom}, {&top}).ok());
  ASSERT_TRUE(rect->Forward({&bottom}, {&top}, nullptr).ok());
  EXPECT_EQ(top.shape(), (std::vector<int>{1, 1, 1, 3}));
  EXPECT_EQ(Values(top), (std::vector<float>{2, 4, 5}));
}

TEST(PoolingLayerTest, LastWindowMustStartInsideTheImage) {
  // 5, kernel 2, stride 2, pad 1: ceil(5 / 2) + 1 = 4, but the 4th window would start at
  // 3 * 2 - 1 = 5, past the image, so Caffe drops it.
  EXPECT_EQ(kernels::PooledSize(5, 2, 1, 2, /*round_up=*/true, /*padded=*/true), 3);
  EXPECT_EQ(kernels::PooledSize(5, 2, 1, 2, /*round_up=*/false, /*padded=*/true), 3);
  EXPECT_EQ(kernels::PooledSize(4, 3, 1, 2, true, true), 3);
  EXPECT_EQ(kernels::PooledSize(5, 2, 0, 2, true, false), 3);
  EXPECT_EQ(kernels::PooledSize(5, 2, 0, 2, false, false), 2);
  // Caffe applies the clip on both axes when either is padded: 5, kernel 1, stride 3, pad 0.
  EXPECT_EQ(kernels::PooledSize(5, 1, 0, 3, true, false), 3);
  EXPECT_EQ(kernels::PooledSize(5, 1, 0, 3, true, true), 2);
  auto layer = MakeLayer(PoolParam("pool: AVE kernel_size: 2 stride: 2 pad: 1"));
  Tensor bottom({1, 1, 5, 5}), top;
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  EXPECT_EQ(top.shape(), (std::vector<int>{1, 1, 3, 3}));
}

TEST(PoolingLayerTest, FloorRoundMode) {
  auto layer = MakeLayer(PoolParam("pool: MAX kernel_size: 2 stride: 2 round_mode: FLOOR"));
  Tensor bottom({1, 1, 5, 5}), top;
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  EXPECT_EQ(top.shape(), (std::vector<int>{1, 1, 2, 2}));
}

TEST(PoolingLayerTest, GlobalPooling) {
  Tensor bottom({1, 2, 2, 3}), top;
  FillIota(&bottom, 1.f);  // channel 0: 1..6, channel 1: 7..12
  auto ave = MakeLayer(PoolParam("pool: AVE global_pooling: true"));
  ASSERT_TRUE(ave->Setup({&bottom}, {&top}).ok());
  ASSERT_TRUE(ave->Forward({&bottom}, {&top}, nullptr).ok());
  EXPECT_EQ(top.shape(), (std::vector<int>{1, 2, 1, 1}));
  ExpectNear(Values(top), {3.5f, 9.5f});
  auto max = MakeLayer(PoolParam("pool: MAX global_pooling: true"));
  ASSERT_TRUE(max->Setup({&bottom}, {&top}).ok());
  ASSERT_TRUE(max->Forward({&bottom}, {&top}, nullptr).ok());
  EXPECT_EQ(Values(top), (std::vector<float>{6, 12}));
}

TEST(PoolingLayerTest, CreatedByRegistry) {
  auto layer = MakeLayer(PoolParam("kernel_size: 2"));
  ASSERT_NE(layer, nullptr);
  EXPECT_STREQ(layer->type(), "Pooling");
}

void CheckPoolGradients(const std::string& fields, const std::vector<int>& shape) {
  auto layer = MakeLayer(PoolParam(fields));
  Tensor bottom(shape), top;
  FillDistinct(&bottom, 5);
  CheckGradients(*layer, {&bottom}, {&top});
}

TEST(PoolingLayerTest, GradientMax) {
  CheckPoolGradients("pool: MAX kernel_size: 2 stride: 2", {2, 2, 4, 5});
}

TEST(PoolingLayerTest, GradientMaxOverlappingPadded) {
  CheckPoolGradients("pool: MAX kernel_size: 3 stride: 2 pad: 1", {1, 2, 5, 4});
}

TEST(PoolingLayerTest, GradientMaxWithMaskTop) {
  // The mask top is piecewise constant; only the pooled top carries a gradient.
  auto layer = MakeLayer(PoolParam("pool: MAX kernel_h: 2 kernel_w: 3 stride: 1"));
  Tensor bottom({1, 2, 3, 4}), top, mask;
  FillDistinct(&bottom, 6);
  CheckGradients(*layer, {&bottom}, {&top, &mask});
}

TEST(PoolingLayerTest, GradientAve) {
  CheckPoolGradients("pool: AVE kernel_size: 2 stride: 1", {2, 2, 3, 4});
}

TEST(PoolingLayerTest, GradientAvePadStride) {
  CheckPoolGradients("pool: AVE kernel_size: 3 stride: 2 pad: 1", {1, 2, 5, 5});
}

TEST(PoolingLayerTest, GradientGlobalAve) {
  CheckPoolGradients("pool: AVE global_pooling: true", {2, 3, 3, 2});
}

TEST(PoolingLayerTest, GradientGlobalMax) {
  CheckPoolGradients("pool: MAX global_pooling: true", {2, 3, 3, 2});
}

Status SetupError(const std::string& fields, const std::vector<int>& shape, int tops = 1) {
  auto layer = MakeLayer(PoolParam(fields));
  Tensor bottom(shape), top, mask;
  TensorVec top_vec = {&top};
  if (tops > 1) top_vec.push_back(&mask);
  return layer->Setup({&bottom}, top_vec);
}

// A window larger than the (padded) input, as BVLC Caffe takes it (OpenPose's deploy nets
// declare a 1x1 input): Caffe's rounding gives one output, its window clipped to the input, and
// AVE divides by the window's extent within the padded input.
TEST(PoolingLayerTest, AWindowLargerThanTheInputPoolsItAllAsCaffe) {
  const struct {
    std::string fields;
    std::vector<int> shape;
    float want;
  } cases[] = {
      {"pool: MAX kernel_size: 3 stride: 2", {1, 1, 2, 2}, 4.f},
      {"pool: AVE kernel_size: 3 stride: 2", {1, 1, 2, 2}, 10.f / 4},
      {"pool: MAX kernel_size: 4 pad: 1", {1, 1, 2, 2}, 4.f},
      {"pool: AVE kernel_size: 4 pad: 1", {1, 1, 2, 2}, 10.f / 16},  // extent 4 x 4 with padding
      {"pool: MAX kernel_size: 2 stride: 2", {1, 1, 1, 1}, 7.f},     // OpenPose's 1x1 input
  };
  for (const auto& c : cases) {
    auto layer = MakeLayer(PoolParam(c.fields));
    Tensor bottom(c.shape), top;
    const std::vector<float> x = {1, 4, 2, 3};
    if (bottom.count() == 1) {
      bottom.mutable_data()[0] = 7.f;
    } else {
      std::copy(x.begin(), x.end(), bottom.mutable_data());
    }
    ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok()) << c.fields;
    ASSERT_TRUE(layer->Forward({&bottom}, {&top}, nullptr).ok()) << c.fields;
    EXPECT_EQ(top.shape(), (std::vector<int>{1, 1, 1, 1})) << c.fields;
    EXPECT_NEAR(top.data()[0], c.want, 1e-6) << c.fields;
  }
}

TEST(PoolingLayerTest, GradientWindowLargerThanTheInput) {
  CheckPoolGradients("pool: MAX kernel_size: 3 stride: 2", {2, 2, 2, 2});
  CheckPoolGradients("pool: AVE kernel_size: 4 pad: 1", {1, 2, 2, 3});
}

// Where Caffe's rounding gives no output (a window starting past the padded input), refused.
TEST(PoolingLayerTest, KernelLeavingNoOutputIsRefused) {
  Status s = SetupError("kernel_size: 5 pad: 1", {1, 1, 2, 2});
  EXPECT_EQ(s.message(),
            "layer 'pool' (Pooling): kernel 5x5, stride 1x1 and pad 1x1 leave no output of bottom "
            "shape 1 1 2 2 (4) (Caffe's rounding gives 0x0)");
}

TEST(PoolingLayerTest, PadMustBeSmallerThanKernel) {
  Status s = SetupError("kernel_size: 2 pad: 2", {1, 1, 4, 4});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("(Pooling)"), std::string::npos) << s.message();
}

TEST(PoolingLayerTest, BadParameters) {
  EXPECT_FALSE(SetupError("pool: MAX", {1, 1, 4, 4}).ok());  // no kernel
  EXPECT_FALSE(SetupError("kernel_size: 2 kernel_h: 2 kernel_w: 2", {1, 1, 4, 4}).ok());
  EXPECT_FALSE(SetupError("kernel_h: 2", {1, 1, 4, 4}).ok());
  EXPECT_FALSE(SetupError("global_pooling: true kernel_size: 2", {1, 1, 4, 4}).ok());
  EXPECT_FALSE(SetupError("global_pooling: true stride: 2", {1, 1, 4, 4}).ok());
  EXPECT_FALSE(SetupError("kernel_size: 2 stride: 0", {1, 1, 4, 4}).ok());
  EXPECT_FALSE(SetupError("kernel_size: 2 pad: 1 pad_h: 1", {1, 1, 4, 4}).ok());
  EXPECT_FALSE(SetupError("kernel_size: 2", {1, 4, 4}).ok());                  // not 4-D
  EXPECT_FALSE(SetupError("pool: AVE kernel_size: 2", {1, 1, 4, 4}, 2).ok());  // AVE has no mask
  EXPECT_TRUE(SetupError("pool: MAX kernel_size: 2", {1, 1, 4, 4}, 2).ok());
}

}  // namespace
}  // namespace dtrain
