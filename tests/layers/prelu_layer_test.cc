#include <gtest/gtest.h>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;

TEST(PReLULayerTest, ForwardWithDefaultSlope) {
  auto layer = MakeLayer(R"(name: "prelu" type: "PReLU")");
  Tensor x({1, 2, 1, 2}), y;
  FillValues(&x, {-1.f, 2.f, -4.f, 3.f});
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_EQ(layer->blobs().size(), 1u);
  EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{2}));
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  const float want[] = {-0.25f, 2.f, -1.f, 3.f};
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(y.data()[i], want[i]);
}

TEST(PReLULayerTest, ForwardPerChannelSlopes) {
  auto layer = MakeLayer(R"(name: "prelu" type: "PReLU")");
  Tensor x({2, 2, 1}), y;
  FillValues(&x, {-1.f, -2.f, -3.f, 4.f});
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  FillValues(layer->blobs()[0].get(), {0.5f, 0.1f});
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  const float want[] = {-0.5f, -0.2f, -1.5f, 4.f};
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(y.data()[i], want[i]);
}

TEST(PReLULayerTest, ChannelSharedHasOneScalarSlope) {
  auto layer = MakeLayer(R"(name: "prelu" type: "PReLU" prelu_param { channel_shared: true })");
  Tensor x({1, 3}), y;
  FillValues(&x, {-1.f, -2.f, 3.f});
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  EXPECT_EQ(layer->blobs()[0]->num_axes(), 0);
  EXPECT_EQ(layer->blobs()[0]->count(), 1);
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  const float want[] = {-0.25f, -0.5f, 3.f};
  for (int i = 0; i < 3; ++i) EXPECT_FLOAT_EQ(y.data()[i], want[i]);
}

TEST(PReLULayerTest, Gradient) {
  auto layer = MakeLayer(R"(name: "prelu" type: "PReLU"
                            prelu_param { filler { type: "gaussian" std: 0.5 } })");
  Tensor x({2, 3, 2, 2}), y;
  testing::FillGaussian(&x, 1);
  testing::GradientCheckOptions options;
  options.kink = 0.f;
  options.kink_range = 0.01f;
  testing::CheckGradients(*layer, {&x}, {&y}, options);
}

TEST(PReLULayerTest, GradientChannelShared) {
  auto layer = MakeLayer(R"(name: "prelu" type: "PReLU" prelu_param { channel_shared: true })");
  Tensor x({2, 3, 2}), y;
  testing::FillGaussian(&x, 2);
  testing::GradientCheckOptions options;
  options.kink = 0.f;
  options.kink_range = 0.01f;
  testing::CheckGradients(*layer, {&x}, {&y}, options);
}

TEST(PReLULayerTest, InPlaceMatchesOutOfPlace) {
  const char* text = R"(name: "prelu" type: "PReLU"
                        prelu_param { filler { type: "uniform" min: 0.1 max: 0.9 } })";
  auto layer = MakeLayer(text);
  auto in_place = MakeLayer(text);
  Tensor x({2, 3, 2}), y, z;
  testing::FillGaussian(&x, 3);
  z.CopyFrom(x);
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(in_place->Setup({&z}, {&z}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  ASSERT_TRUE(in_place->Forward({&z}, {&z}, nullptr).ok());
  for (int i = 0; i < 12; ++i) EXPECT_FLOAT_EQ(z.data()[i], y.data()[i]);
  testing::FillGaussian(&y, 4);
  std::copy(y.data(), y.data() + 12, y.mutable_diff());
  std::copy(y.data(), y.data() + 12, z.mutable_diff());
  layer->blobs()[0]->SetDiff(0.f);
  in_place->blobs()[0]->SetDiff(0.f);
  layer->Backward({&y}, {true}, {&x});
  in_place->Backward({&z}, {true}, {&z});
  for (int i = 0; i < 12; ++i) EXPECT_FLOAT_EQ(z.diff()[i], x.diff()[i]);
  for (int c = 0; c < 3; ++c) {
    EXPECT_FLOAT_EQ(in_place->blobs()[0]->diff()[c], layer->blobs()[0]->diff()[c]);
  }
}

TEST(PReLULayerTest, OneAxisBottomIsAnError) {
  auto layer = MakeLayer(R"(name: "prelu" type: "PReLU")");
  Tensor x({5}), y;
  Status s = layer->Setup({&x}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'prelu'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
