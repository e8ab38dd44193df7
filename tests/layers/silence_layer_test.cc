#include <gtest/gtest.h>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::MakeLayer;

TEST(SilenceLayerTest, ForwardLeavesBottomsAndBackwardZeroesTheirDiffs) {
  auto layer = MakeLayer(R"(name: "quiet" type: "Silence")");
  Tensor a({2}), b({3});
  a.SetData(1.f);
  a.SetDiff(5.f);
  b.SetDiff(5.f);
  ASSERT_TRUE(layer->Setup({&a, &b}, {}).ok());
  ASSERT_TRUE(layer->Forward({&a, &b}, {}, nullptr).ok());
  EXPECT_EQ(a.data()[0], 1.f);
  layer->Backward({}, {true, false}, {&a, &b});
  EXPECT_EQ(a.diff()[0], 0.f);
  EXPECT_EQ(a.diff()[1], 0.f);
  EXPECT_EQ(b.diff()[0], 5.f);
}

TEST(SilenceLayerTest, Gradient) {
  auto layer = MakeLayer(R"(name: "quiet" type: "Silence")");
  Tensor a({2, 3});
  testing::FillGaussian(&a, 1);
  testing::CheckGradients(*layer, {&a}, {});
}

TEST(SilenceLayerTest, TopsAreAnError) {
  auto layer = MakeLayer(R"(name: "quiet" type: "Silence")");
  Tensor a({2}), y;
  Status s = layer->Setup({&a}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'quiet'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
