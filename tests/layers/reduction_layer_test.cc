#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

std::string Reduction(const std::string& param) {
  return R"(name: "red" type: "Reduction" reduction_param { )" + param + " }";
}

// x = [1 -2 3; -4 5 0].
std::vector<float> Forward(const std::string& prototxt, std::vector<int>* top_shape = nullptr) {
  Tensor x({2, 3}), y;
  FillValues(&x, {1, -2, 3, -4, 5, 0});
  auto layer = MakeLayer(prototxt);
  EXPECT_TRUE(layer->Setup({&x}, {&y}).ok());
  EXPECT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  if (top_shape) *top_shape = y.shape();
  return Values(y);
}

TEST(ReductionLayerTest, DefaultsSumEverythingToAScalar) {
  std::vector<int> shape{9};
  EXPECT_EQ(Forward(R"(name: "red" type: "Reduction")", &shape), (std::vector<float>{3}));
  EXPECT_EQ(shape, std::vector<int>{});
}

TEST(ReductionLayerTest, EachOperationOverTheLastAxis) {
  std::vector<int> shape;
  EXPECT_EQ(Forward(Reduction("operation: SUM axis: 1"), &shape), (std::vector<float>{2, 1}));
  EXPECT_EQ(shape, std::vector<int>{2});
  EXPECT_EQ(Forward(Reduction("operation: ASUM axis: 1")), (std::vector<float>{6, 9}));
  EXPECT_EQ(Forward(Reduction("operation: SUMSQ axis: 1")), (std::vector<float>{14, 41}));
  std::vector<float> mean = Forward(Reduction("operation: MEAN axis: -1"));
  ASSERT_EQ(mean.size(), 2u);
  EXPECT_FLOAT_EQ(mean[0], 2.f / 3);
  EXPECT_FLOAT_EQ(mean[1], 1.f / 3);
}

TEST(ReductionLayerTest, CoeffScalesTheResult) {
  EXPECT_EQ(Forward(Reduction("operation: SUM axis: 1 coeff: -2")), (std::vector<float>{-4, -2}));
  // MEAN over all 6 values, times 3: 3 * 3 / 6.
  EXPECT_EQ(Forward(Reduction("operation: MEAN coeff: 3")), (std::vector<float>{1.5f}));
  EXPECT_EQ(Forward(Reduction("operation: ASUM coeff: 0.5")), (std::vector<float>{7.5f}));
}

TEST(ReductionLayerTest, KeepsTheAxesBeforeAxis) {
  Tensor x({2, 3, 2}), y;
  testing::FillIota(&x, 0.f);
  auto layer = MakeLayer(Reduction("axis: 1"));
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(y.shape(), std::vector<int>{2});
  EXPECT_EQ(Values(y), (std::vector<float>{15, 51}));  // 0+..+5, 6+..+11
}

// Backward by hand on x = [1 -2 0; 3 0.5 -1] with dy = [2, -1] and coeff 2.
std::vector<float> Backward(const std::string& op) {
  Tensor x({2, 3}), y;
  FillValues(&x, {1, -2, 0, 3, 0.5f, -1});
  auto layer = MakeLayer(Reduction("operation: " + op + " axis: 1 coeff: 2"));
  EXPECT_TRUE(layer->Setup({&x}, {&y}).ok());
  EXPECT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  y.mutable_diff()[0] = 2;
  y.mutable_diff()[1] = -1;
  layer->Backward({&y}, {true}, {&x});
  return std::vector<float>(x.diff(), x.diff() + 6);
}

TEST(ReductionLayerTest, BackwardOfEachOperation) {
  EXPECT_EQ(Backward("SUM"), (std::vector<float>{4, 4, 4, -2, -2, -2}));
  EXPECT_EQ(Backward("ASUM"), (std::vector<float>{4, -4, 0, -2, -2, 2}));     // sign(x), 0 at 0
  EXPECT_EQ(Backward("SUMSQ"), (std::vector<float>{8, -16, 0, -12, -2, 4}));  // 2x
  std::vector<float> mean = Backward("MEAN");                                 // coeff / 3
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(mean[i], (i < 3 ? 4.f : -2.f) / 3) << i;
}

TEST(ReductionLayerTest, GradientOfEachOperation) {
  for (const char* op : {"SUM", "ASUM", "SUMSQ", "MEAN"}) {
    for (const char* axis : {"0", "1", "-1"}) {
      SCOPED_TRACE(std::string(op) + " axis " + axis);
      Tensor x({2, 3, 4}), y;
      testing::FillGaussian(&x, 7);
      auto layer =
          MakeLayer(Reduction(std::string("operation: ") + op + " axis: " + axis + " coeff: 1.5"));
      testing::GradientCheckOptions options;
      options.kink_range = 0.05f;  // ASUM's kink at 0
      testing::CheckGradients(*layer, {&x}, {&y}, options);
    }
  }
}

TEST(ReductionLayerTest, AxisOutOfRangeIsAnError) {
  Tensor x({2, 3}), y;
  auto layer = MakeLayer(Reduction("axis: 2"));
  Status s = layer->Setup({&x}, {&y});
  EXPECT_EQ(s.message(),
            "layer 'red' (Reduction): reduction_param.axis 2 is out of range for bottom of shape "
            "2 3 (6)");
  auto negative = MakeLayer(Reduction("axis: -3"));
  EXPECT_FALSE(negative->Setup({&x}, {&y}).ok());
}

TEST(ReductionLayerTest, InPlaceIsAnError) {
  Tensor x({2, 3});
  auto layer = MakeLayer(Reduction("axis: 1"));
  EXPECT_EQ(layer->Setup({&x}, {&x}).message(), "layer 'red' (Reduction): cannot run in place");
}

}  // namespace
}  // namespace dtrain
