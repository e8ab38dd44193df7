#include <gtest/gtest.h>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::MakeLayer;

TEST(SplitLayerTest, TopsShareDataAndBackwardSums) {
  auto layer = MakeLayer(R"(name: "split" type: "Split")");
  Tensor x({3}), a, b;
  x.SetData(2.f);
  ASSERT_TRUE(layer->Setup({&x}, {&a, &b}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&a, &b}, nullptr).ok());
  EXPECT_EQ(a.shape(), x.shape());
  EXPECT_EQ(a.data(), x.data());
  EXPECT_EQ(b.data(), x.data());
  EXPECT_NE(a.diff(), x.diff());
  for (int i = 0; i < 3; ++i) {
    a.mutable_diff()[i] = static_cast<float>(i);
    b.mutable_diff()[i] = 10.f;
  }
  layer->Backward({&a, &b}, {true}, {&x});
  for (int i = 0; i < 3; ++i) EXPECT_EQ(x.diff()[i], 10.f + i);
}

TEST(SplitLayerTest, Gradient) {
  auto layer = MakeLayer(R"(name: "split" type: "Split")");
  Tensor x({2, 3, 2}), a, b, c;
  testing::FillGaussian(&x, 1);
  testing::CheckGradients(*layer, {&x}, {&a, &b, &c});
}

TEST(SplitLayerTest, InPlaceIsAnError) {
  auto layer = MakeLayer(R"(name: "split" type: "Split")");
  Tensor x({3}), a;
  Status s = layer->Setup({&x}, {&x, &a});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'split'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
