#include <gtest/gtest.h>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

TEST(ScaleLayerTest, ForwardLearnedPerChannelWithBias) {
  auto layer = MakeLayer(R"(name: "scale" type: "Scale" scale_param { bias_term: true })");
  Tensor x({2, 3, 1}), y;
  FillValues(&x, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_EQ(layer->blobs().size(), 2u);
  EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{3}));
  EXPECT_EQ(layer->blobs()[1]->shape(), (std::vector<int>{3}));
  EXPECT_EQ(Values(*layer->blobs()[0]), (std::vector<float>{1, 1, 1}));  // default filler
  EXPECT_EQ(Values(*layer->blobs()[1]), (std::vector<float>{0, 0, 0}));
  FillValues(layer->blobs()[0].get(), {1, 2, 3});
  FillValues(layer->blobs()[1].get(), {10, 20, 30});
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(Values(y), (std::vector<float>{11, 24, 39, 14, 30, 48}));
}

TEST(ScaleLayerTest, ForwardScaleFromSecondBottom) {
  auto layer = MakeLayer(R"(name: "scale" type: "Scale" scale_param { axis: 0 })");
  Tensor x({2, 2}), s({2}), y;
  FillValues(&x, {1, 2, 3, 4});
  FillValues(&s, {10, -1});
  ASSERT_TRUE(layer->Setup({&x, &s}, {&y}).ok());
  EXPECT_TRUE(layer->blobs().empty());
  ASSERT_TRUE(layer->Forward({&x, &s}, {&y}, nullptr).ok());
  EXPECT_EQ(Values(y), (std::vector<float>{10, 20, -3, -4}));
}

TEST(ScaleLayerTest, ForwardScalarScale) {
  auto layer = MakeLayer(R"(name: "scale" type: "Scale")");
  Tensor x({2, 2}), s(std::vector<int>{}), y;
  FillValues(&x, {1, 2, 3, 4});
  s.mutable_data()[0] = 0.5f;
  ASSERT_TRUE(layer->Setup({&x, &s}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x, &s}, {&y}, nullptr).ok());
  EXPECT_EQ(Values(y), (std::vector<float>{0.5f, 1, 1.5f, 2}));
}

TEST(ScaleLayerTest, GradientLearnedWithBias) {
  auto layer = MakeLayer(R"(name: "scale" type: "Scale"
      scale_param { axis: 1 num_axes: 2 bias_term: true filler { type: "gaussian" }
                    bias_filler { type: "gaussian" } })");
  Tensor x({2, 3, 2, 2}), y;
  testing::FillGaussian(&x, 1);
  testing::CheckGradients(*layer, {&x}, {&y});
  EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{3, 2}));
}

TEST(ScaleLayerTest, GradientTwoBottomsWithBias) {
  auto layer = MakeLayer(R"(name: "scale" type: "Scale"
      scale_param { bias_term: true bias_filler { type: "gaussian" } })");
  Tensor x({2, 3, 2}), s({3, 2}), y;
  testing::FillGaussian(&x, 1);
  testing::FillGaussian(&s, 2);
  testing::CheckGradients(*layer, {&x, &s}, {&y});
  ASSERT_EQ(layer->blobs().size(), 1u);  // the bias only
  EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{3, 2}));
}

TEST(ScaleLayerTest, InPlaceMatchesOutOfPlace) {
  const char* text = R"(name: "scale" type: "Scale"
      scale_param { bias_term: true filler { type: "gaussian" } bias_filler { type: "gaussian" } })";
  auto layer = MakeLayer(text);
  auto in_place = MakeLayer(text);  // same seed, so the same initial parameters
  Tensor x({2, 3}), y, z;
  testing::FillGaussian(&x, 3);
  z.CopyFrom(x);
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(in_place->Setup({&z}, {&z}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  ASSERT_TRUE(in_place->Forward({&z}, {&z}, nullptr).ok());
  EXPECT_EQ(Values(z), Values(y));
  testing::FillGaussian(&y, 4);
  std::copy(y.data(), y.data() + 6, y.mutable_diff());
  std::copy(y.data(), y.data() + 6, z.mutable_diff());
  for (auto* l : {layer.get(), in_place.get()}) {
    for (auto& b : l->blobs()) b->SetDiff(0.f);
  }
  layer->Backward({&y}, {true}, {&x});
  in_place->Backward({&z}, {true}, {&z});
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(z.diff()[i], x.diff()[i]);
  for (int b = 0; b < 2; ++b) {
    for (int i = 0; i < 3; ++i) {
      EXPECT_FLOAT_EQ(in_place->blobs()[b]->diff()[i], layer->blobs()[b]->diff()[i]);
    }
  }
}

TEST(ScaleLayerTest, MismatchedScaleIsAnErrorNamingBothShapes) {
  auto layer = MakeLayer(R"(name: "scale" type: "Scale")");
  Tensor x({2, 3}), s({4}), y;
  Status s_status = layer->Setup({&x, &s}, {&y});
  ASSERT_FALSE(s_status.ok());
  EXPECT_NE(s_status.message().find("'scale'"), std::string::npos) << s_status.message();
  EXPECT_NE(s_status.message().find("2 3 (6)"), std::string::npos) << s_status.message();
  EXPECT_NE(s_status.message().find("4 (4)"), std::string::npos) << s_status.message();
}

}  // namespace
}  // namespace dtrain
