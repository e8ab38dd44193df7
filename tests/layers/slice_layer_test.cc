#include <gtest/gtest.h>

#include <numeric>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::MakeLayer;
using testing::Values;

TEST(SliceLayerTest, ForwardAtSlicePoints) {
  auto layer =
      MakeLayer(R"(name: "slice" type: "Slice" slice_param { slice_point: 1 slice_point: 3 })");
  Tensor x({2, 4}), a, b, c;
  std::iota(x.mutable_data(), x.mutable_data() + 8, 0.f);  // [0 1 2 3] [4 5 6 7]
  ASSERT_TRUE(layer->Setup({&x}, {&a, &b, &c}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&a, &b, &c}, nullptr).ok());
  EXPECT_EQ(a.shape(), (std::vector<int>{2, 1}));
  EXPECT_EQ(b.shape(), (std::vector<int>{2, 2}));
  EXPECT_EQ(c.shape(), (std::vector<int>{2, 1}));
  EXPECT_EQ(Values(a), (std::vector<float>{0, 4}));
  EXPECT_EQ(Values(b), (std::vector<float>{1, 2, 5, 6}));
  EXPECT_EQ(Values(c), (std::vector<float>{3, 7}));
}

TEST(SliceLayerTest, ForwardEqualPartsWithLegacySliceDim) {
  auto layer = MakeLayer(R"(name: "slice" type: "Slice" slice_param { slice_dim: 0 })");
  Tensor x({4, 2}), a, b;
  std::iota(x.mutable_data(), x.mutable_data() + 8, 0.f);
  ASSERT_TRUE(layer->Setup({&x}, {&a, &b}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&a, &b}, nullptr).ok());
  EXPECT_EQ(Values(a), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_EQ(Values(b), (std::vector<float>{4, 5, 6, 7}));
}

TEST(SliceLayerTest, Gradient) {
  auto layer = MakeLayer(R"(name: "slice" type: "Slice" slice_param { axis: 1 slice_point: 2 })");
  Tensor x({2, 5, 2}), a, b;
  testing::FillGaussian(&x, 1);
  testing::CheckGradients(*layer, {&x}, {&a, &b});
}

TEST(SliceLayerTest, UnevenEqualSplitIsAnError) {
  auto layer = MakeLayer(R"(name: "slice" type: "Slice")");
  Tensor x({2, 4}), a, b, c;
  Status s = layer->Setup({&x}, {&a, &b, &c});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'slice'"), std::string::npos) << s.message();
}

TEST(SliceLayerTest, DecreasingSlicePointsAreAnError) {
  auto layer =
      MakeLayer(R"(name: "slice" type: "Slice" slice_param { slice_point: 3 slice_point: 2 })");
  Tensor x({2, 4}), a, b, c;
  Status s = layer->Setup({&x}, {&a, &b, &c});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'slice'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
