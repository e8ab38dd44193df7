#include <gtest/gtest.h>

#include <cmath>

#include "proto/net.pb.h"
#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

TEST(BatchNormLayerTest, TrainForwardUsesBatchStatisticsAndUpdatesCaffeBlobs) {
  auto layer = MakeLayer(R"(name: "bn" type: "BatchNorm")", TRAIN);
  // N = 2, C = 2, one spatial element: channel 0 holds {1, 3}, channel 1 holds {10, 20}.
  Tensor x({2, 2, 1}), y;
  FillValues(&x, {1, 10, 3, 20});
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_EQ(layer->blobs().size(), 3u);
  EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{2}));
  EXPECT_EQ(layer->blobs()[1]->shape(), (std::vector<int>{2}));
  EXPECT_EQ(layer->blobs()[2]->shape(), (std::vector<int>{1}));
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  const float s0 = 1.f / std::sqrt(1.f + 1e-5f), s1 = 5.f / std::sqrt(25.f + 1e-5f);
  const std::vector<float> want = {-s0, -s1, s0, s1};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(y.data()[i], want[i], 1e-6);
  // Caffe's storage: mean sum, unbiased variance sum (m/(m-1) = 2), scale factor.
  EXPECT_EQ(Values(*layer->blobs()[0]), (std::vector<float>{2, 15}));
  EXPECT_EQ(Values(*layer->blobs()[1]), (std::vector<float>{2, 50}));
  EXPECT_EQ(Values(*layer->blobs()[2]), (std::vector<float>{1}));
  // A second batch decays the sums by moving_average_fraction.
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_NEAR(layer->blobs()[2]->data()[0], 1.999f, 1e-6);
  EXPECT_NEAR(layer->blobs()[0]->data()[1], 15 * 1.999f, 1e-4);
}

TEST(BatchNormLayerTest, TestForwardUsesStoredStatistics) {
  auto layer = MakeLayer(R"(name: "bn" type: "BatchNorm" batch_norm_param { eps: 0 })", TEST);
  Tensor x({1, 2, 2}), y;
  FillValues(&x, {4, 0, 30, 35});
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  // Estimates are blob / scale factor: mean {2, 15}, variance {1, 25}.
  FillValues(layer->blobs()[0].get(), {4, 30});
  FillValues(layer->blobs()[1].get(), {2, 50});
  FillValues(layer->blobs()[2].get(), {2});
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(Values(y), (std::vector<float>{2, -2, 3, 4}));
  EXPECT_EQ(Values(*layer->blobs()[2]), (std::vector<float>{2}));  // not updated
}

TEST(BatchNormLayerTest, StatisticsAreNotLearned) {
  auto layer = MakeLayer(R"(name: "bn" type: "BatchNorm")", TRAIN);
  Tensor x({2, 3}), y;
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_EQ(layer->layer_param().param_size(), 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(layer->param_propagate_down(i));
    EXPECT_EQ(layer->layer_param().param(i).lr_mult(), 0.f);
  }
}

TEST(BatchNormLayerTest, GradientTrainingMode) {
  auto layer = MakeLayer(
      R"(name: "bn" type: "BatchNorm" batch_norm_param { use_global_stats: false })", TEST);
  Tensor x({3, 2, 2, 2}), y;
  testing::FillGaussian(&x, 1, 2.f, 1.f);
  testing::GradientCheckOptions options;
  options.check_params = false;
  options.threshold = 5e-3f;
  testing::CheckGradients(*layer, {&x}, {&y}, options);
}

TEST(BatchNormLayerTest, GradientGlobalStats) {
  auto layer = MakeLayer(R"(name: "bn" type: "BatchNorm")", TEST);
  Tensor x({2, 3, 2}), y;
  testing::FillGaussian(&x, 2);
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  FillValues(layer->blobs()[0].get(), {0.5f, -1, 2});
  FillValues(layer->blobs()[1].get(), {1, 4, 0.25f});
  FillValues(layer->blobs()[2].get(), {1});
  testing::GradientCheckOptions options;
  options.check_params = false;
  testing::CheckGradients(*layer, {&x}, {&y}, options);
}

TEST(BatchNormLayerTest, LearnableStatisticsAreAnError) {
  auto layer = MakeLayer(R"(name: "bn" type: "BatchNorm" param { lr_mult: 1 })", TRAIN);
  Tensor x({2, 3}), y;
  Status s = layer->Setup({&x}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'bn'"), std::string::npos) << s.message();
}

TEST(BatchNormLayerTest, PreloadedBlobsOfWrongSizeAreAnError) {
  auto layer = MakeLayer(R"(name: "bn" type: "BatchNorm")", TEST);
  for (int i = 0; i < 3; ++i)
    layer->blobs().push_back(std::make_shared<Tensor>(std::vector<int>{4}));
  Tensor x({2, 3}), y;
  Status s = layer->Setup({&x}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'bn'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace dtrain
