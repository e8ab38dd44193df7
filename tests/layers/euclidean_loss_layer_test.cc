#include <gtest/gtest.h>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

TEST(EuclideanLossLayerTest, Forward) {
  auto layer = MakeLayer(R"(name: "l2" type: "EuclideanLoss")");
  Tensor a({2, 2}), b({2, 2}), top;
  FillValues(&a, {1, 2, 3, 4});
  FillValues(&b, {0, 0, 1, 1});
  ASSERT_TRUE(layer->Setup({&a, &b}, {&top}).ok());
  float loss = 0;
  ASSERT_TRUE(layer->Forward({&a, &b}, {&top}, &loss).ok());
  // (1 + 4 + 4 + 9) / (2 * N) with N = 2.
  EXPECT_FLOAT_EQ(top.data()[0], 4.5f);
  EXPECT_EQ(top.num_axes(), 0);
  EXPECT_FLOAT_EQ(loss, 4.5f);
  EXPECT_TRUE(layer->AutoTopBlobs());
  EXPECT_EQ(layer->DefaultLossWeight(0), 1.f);
}

TEST(EuclideanLossLayerTest, ForwardWithLossWeight) {
  auto layer = MakeLayer(R"(name: "l2" type: "EuclideanLoss" loss_weight: 2)");
  Tensor a({1, 1}), b({1, 1}), top;
  a.mutable_data()[0] = 3.f;
  b.mutable_data()[0] = 1.f;
  ASSERT_TRUE(layer->Setup({&a, &b}, {&top}).ok());
  float loss = 0;
  ASSERT_TRUE(layer->Forward({&a, &b}, {&top}, &loss).ok());
  EXPECT_FLOAT_EQ(top.data()[0], 2.f);
  EXPECT_FLOAT_EQ(loss, 4.f);
}

TEST(EuclideanLossLayerTest, Gradient) {
  auto layer = MakeLayer(R"(name: "l2" type: "EuclideanLoss")");
  Tensor a({3, 2, 2}), b({3, 4}), top;
  testing::FillGaussian(&a, 1);
  testing::FillGaussian(&b, 2);
  testing::CheckGradients(*layer, {&a, &b}, {&top});
}

TEST(EuclideanLossLayerTest, DifferentSizesAreAnErrorNamingBothShapes) {
  auto layer = MakeLayer(R"(name: "l2" type: "EuclideanLoss")");
  Tensor a({2, 3}), b({2, 4}), top;
  Status s = layer->Setup({&a, &b}, {&top});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'l2'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("2 3 (6)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("2 4 (8)"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
