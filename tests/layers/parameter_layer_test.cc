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

TEST(ParameterLayerTest, OffersItsZeroFilledBlobAsTheTop) {
  auto layer =
      MakeLayer(R"(name: "p" type: "Parameter" parameter_param { shape { dim: 2 dim: 3 } })");
  Tensor y;
  ASSERT_TRUE(layer->Setup({}, {&y}).ok());
  ASSERT_EQ(layer->blobs().size(), 1u);
  EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{2, 3}));
  EXPECT_EQ(y.shape(), (std::vector<int>{2, 3}));
  ASSERT_TRUE(layer->Forward({}, {&y}, nullptr).ok());
  EXPECT_EQ(Values(y), std::vector<float>(6, 0.f));
  FillValues(layer->blobs()[0].get(), {1, 2, 3, 4, 5, 6});  // e.g. a solver step
  ASSERT_TRUE(layer->Forward({}, {&y}, nullptr).ok());
  EXPECT_EQ(Values(y), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(ParameterLayerTest, WithoutAShapeTheBlobIsAScalar) {
  auto layer = MakeLayer(R"(name: "p" type: "Parameter")");
  Tensor y;
  ASSERT_TRUE(layer->Setup({}, {&y}).ok());
  EXPECT_EQ(layer->blobs()[0]->shape(), std::vector<int>{});
  EXPECT_EQ(y.shape(), std::vector<int>{});
  EXPECT_EQ(y.count(), 1);
}

TEST(ParameterLayerTest, BackwardAccumulatesTheTopDiffIntoTheBlob) {
  auto layer = MakeLayer(R"(name: "p" type: "Parameter" parameter_param { shape { dim: 3 } })");
  Tensor y;
  ASSERT_TRUE(layer->Setup({}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({}, {&y}, nullptr).ok());
  y.mutable_diff()[0] = 1, y.mutable_diff()[1] = -2, y.mutable_diff()[2] = 0.5f;
  layer->blobs()[0]->SetDiff(1.f);
  layer->Backward({&y}, {}, {});
  EXPECT_EQ(std::vector<float>(layer->blobs()[0]->diff(), layer->blobs()[0]->diff() + 3),
            (std::vector<float>{2, -1, 1.5f}));
}

TEST(ParameterLayerTest, Gradient) {
  auto layer = MakeLayer(
      R"(name: "p" type: "Parameter" parameter_param { shape { dim: 2 dim: 1 dim: 2 } })");
  Tensor y;
  testing::CheckGradients(*layer, {}, {&y});
}

TEST(ParameterLayerTest, NegativeDimIsAnError) {
  auto layer =
      MakeLayer(R"(name: "p" type: "Parameter" parameter_param { shape { dim: 2 dim: -1 } })");
  Tensor y;
  EXPECT_EQ(layer->Setup({}, {&y}).message(),
            "layer 'p' (Parameter): parameter_param.shape: dim -1 (dimension 1) is outside [0, "
            "2147483647]");
}

TEST(ParameterLayerTest, TakesNoBottom) {
  auto layer = MakeLayer(R"(name: "p" type: "Parameter")");
  Tensor x({1}), y;
  EXPECT_EQ(layer->Setup({&x}, {&y}).message(),
            "layer 'p' (Parameter): bottom takes exactly 0 blob(s), got 1");
}

}  // namespace
}  // namespace dtrain
