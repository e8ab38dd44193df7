#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

std::string Embed(const std::string& param) {
  return R"(name: "emb" type: "Embed" embed_param { )" + param + " }";
}

TEST(EmbedLayerTest, LooksUpRowsAndAddsTheBias) {
  Tensor x({2, 2}), y;
  FillValues(&x, {2, 0, 1, 2});
  auto layer = MakeLayer(Embed("num_output: 2 input_dim: 3"));
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_EQ(layer->blobs().size(), 2u);
  EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{3, 2}));  // input_dim x num_output
  EXPECT_EQ(layer->blobs()[1]->shape(), (std::vector<int>{2}));
  FillValues(layer->blobs()[0].get(), {1, 2, 3, 4, 5, 6});
  FillValues(layer->blobs()[1].get(), {0.5f, -1});
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(Values(y), (std::vector<float>{5.5f, 5, 1.5f, 1, 3.5f, 3, 5.5f, 5}));
}

TEST(EmbedLayerTest, WithoutBias) {
  Tensor x({3}), y;
  FillValues(&x, {1, 1, 0});
  auto layer = MakeLayer(Embed("num_output: 2 input_dim: 2 bias_term: false"));
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_EQ(layer->blobs().size(), 1u);
  FillValues(layer->blobs()[0].get(), {1, 2, 3, 4});
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{3, 2}));
  EXPECT_EQ(Values(y), (std::vector<float>{3, 4, 3, 4, 1, 2}));
}

TEST(EmbedLayerTest, FillersInitialiseTheBlobs) {
  Tensor x({1}), y;
  auto layer =
      MakeLayer(Embed("num_output: 3 input_dim: 4 weight_filler { type: 'constant' value: 2 } "
                      "bias_filler { type: 'constant' value: -1 }"));
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  EXPECT_EQ(Values(*layer->blobs()[0]), std::vector<float>(12, 2.f));
  EXPECT_EQ(Values(*layer->blobs()[1]), std::vector<float>(3, -1.f));
}

TEST(EmbedLayerTest, BackwardAccumulatesRowsOfTheIndicesAndTheBias) {
  Tensor x({3}), y;
  FillValues(&x, {2, 0, 2});
  auto layer = MakeLayer(Embed("num_output: 2 input_dim: 3"));
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  float* dy = y.mutable_diff();
  for (int i = 0; i < 6; ++i) dy[i] = static_cast<float>(i + 1);  // rows [1 2] [3 4] [5 6]
  layer->blobs()[0]->SetDiff(0.f);
  layer->blobs()[1]->SetDiff(1.f);  // parameter diffs accumulate
  layer->Backward({&y}, {false}, {&x});
  EXPECT_EQ(std::vector<float>(layer->blobs()[0]->diff(), layer->blobs()[0]->diff() + 6),
            (std::vector<float>{3, 4, 0, 0, 6, 8}));  // row 0: [3 4]; row 2: [1 2] + [5 6]
  EXPECT_EQ(std::vector<float>(layer->blobs()[1]->diff(), layer->blobs()[1]->diff() + 2),
            (std::vector<float>{10, 13}));
}

TEST(EmbedLayerTest, GradientOfWeightsAndBias) {
  Tensor x({2, 3}), y;
  FillValues(&x, {0, 3, 1, 3, 3, 4});
  auto layer =
      MakeLayer(Embed("num_output: 3 input_dim: 5 weight_filler { type: 'gaussian' std: 1 } "
                      "bias_filler { type: 'gaussian' std: 1 }"));
  testing::GradientCheckOptions options;
  options.bottoms = {-1};  // the indices have no gradient; only the parameters
  testing::CheckGradients(*layer, {&x}, {&y}, options);
}

TEST(EmbedLayerTest, IndicesGetNoGradient) {
  auto layer = MakeLayer(Embed("num_output: 2 input_dim: 3"));
  EXPECT_TRUE(layer->HasGradient());
  EXPECT_FALSE(layer->BottomHasGradient(0));
  EXPECT_FALSE(layer->AllowForceBackward(0));
}

Status ForwardStatus(const std::vector<float>& indices) {
  Tensor x({static_cast<int>(indices.size())}), y;
  FillValues(&x, indices);
  auto layer = MakeLayer(Embed("num_output: 2 input_dim: 3"));
  Status s = layer->Setup({&x}, {&y});
  if (!s.ok()) return s;
  return layer->Forward({&x}, {&y}, nullptr);
}

TEST(EmbedLayerTest, IndexOutsideTheVocabularyOrNotAnIntegerIsAnError) {
  EXPECT_TRUE(ForwardStatus({0, 2}).ok());
  EXPECT_EQ(ForwardStatus({0, 3}).message(),
            "layer 'emb' (Embed): bottom value 3.000000 at position 1 is not an integer index in "
            "[0, input_dim = 3)");
  EXPECT_EQ(ForwardStatus({-1}).message(),
            "layer 'emb' (Embed): bottom value -1.000000 at position 0 is not an integer index in "
            "[0, input_dim = 3)");
  EXPECT_EQ(ForwardStatus({1, 1, 1.5f}).message(),
            "layer 'emb' (Embed): bottom value 1.500000 at position 2 is not an integer index in "
            "[0, input_dim = 3)");
}

Status SetupStatus(const std::string& prototxt) {
  Tensor x({2}), y;
  auto layer = MakeLayer(prototxt);
  return layer->Setup({&x}, {&y});
}

TEST(EmbedLayerTest, BadParametersAreErrors) {
  EXPECT_EQ(SetupStatus(Embed("input_dim: 3")).message(),
            "layer 'emb' (Embed): embed_param.num_output must be positive");
  EXPECT_EQ(SetupStatus(Embed("num_output: 2")).message(),
            "layer 'emb' (Embed): embed_param.input_dim must be positive");
  Status filler = SetupStatus(Embed("num_output: 2 input_dim: 3 weight_filler { type: 'nope' }"));
  EXPECT_EQ(filler.message().find("layer 'emb' (Embed): embed_param.weight_filler: "), 0u)
      << filler.message();
}

TEST(EmbedLayerTest, PreloadedBlobsOfTheWrongShapeAreAnError) {
  Tensor x({2}), y;
  auto layer = MakeLayer(Embed("num_output: 2 input_dim: 3"));
  layer->blobs().push_back(std::make_shared<Tensor>(std::vector<int>{2, 3}));
  layer->blobs().push_back(std::make_shared<Tensor>(std::vector<int>{2}));
  EXPECT_EQ(layer->Setup({&x}, {&y}).message(),
            "layer 'emb' (Embed): incorrect weight shape: expected 3 2 (6), got 2 3 (6)");
}

}  // namespace
}  // namespace dtrain
