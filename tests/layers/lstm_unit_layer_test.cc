#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillGaussian;
using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

const char* kUnit = R"(name: "unit" type: "LSTMUnit")";

// N = 2 streams, H = 1; gates in the order i, f, o, g.
// Stream 0: c_prev = 0.5, gates (0, 0, 0, 0), cont 1: i = f = o = 0.5, g = 0;
//   c = 0.5 * 0.5 + 0.5 * 0 = 0.25, h = 0.5 * tanh(0.25) = 0.5 * 0.2449187 = 0.1224593.
// Stream 1: c_prev = 2, gates (1, 2, -1, 0.5), cont 0 drops c_prev: i = sigmoid(1) = 0.7310586,
//   g = tanh(0.5) = 0.4621172, c = i * g = 0.3378347, o = sigmoid(-1) = 0.2689414,
//   h = o * tanh(c) = 0.2689414 * 0.3255429 = 0.0875520.
TEST(LSTMUnitLayerTest, ForwardByHand) {
  Tensor c_prev({1, 2, 1}), gates({1, 2, 4}), cont({1, 2}), c, h;
  FillValues(&c_prev, {0.5f, 2});
  FillValues(&gates, {0, 0, 0, 0, 1, 2, -1, 0.5f});
  FillValues(&cont, {1, 0});
  auto layer = MakeLayer(kUnit);
  ASSERT_TRUE(layer->Setup({&c_prev, &gates, &cont}, {&c, &h}).ok());
  EXPECT_TRUE(layer->blobs().empty());
  ASSERT_TRUE(layer->Forward({&c_prev, &gates, &cont}, {&c, &h}, nullptr).ok());
  EXPECT_EQ(c.shape(), (std::vector<int>{1, 2, 1}));
  EXPECT_EQ(h.shape(), (std::vector<int>{1, 2, 1}));
  const std::vector<float> cs = Values(c), hs = Values(h);
  EXPECT_NEAR(cs[0], 0.25f, 1e-6f);
  EXPECT_NEAR(cs[1], 0.3378347f, 1e-6f);
  EXPECT_NEAR(hs[0], 0.1224593f, 1e-6f);
  EXPECT_NEAR(hs[1], 0.0875520f, 1e-6f);
}

// One step of the LSTM layer is the unit on W_xc x + b_c + W_hc (cont h_0) (here h_0 = 0).
TEST(LSTMUnitLayerTest, MatchesOneStepOfTheLstmLayer) {
  Tensor x({1, 3, 2}), cont({1, 3}), h0({1, 3, 2}), c0({1, 3, 2}), h, h_T, c_T;
  FillGaussian(&x, 1);
  FillGaussian(&c0, 2);
  h0.SetData(0.f);
  FillValues(&cont, {1, 0, 0.5f});
  auto lstm = MakeLayer(
      R"(name: "lstm" type: "LSTM" recurrent_param { num_output: 2 expose_hidden: true
         weight_filler { type: 'gaussian' std: 1 } bias_filler { type: 'gaussian' std: 1 } })");
  ASSERT_TRUE(lstm->Setup({&x, &cont, &h0, &c0}, {&h, &h_T, &c_T}).ok());
  ASSERT_TRUE(lstm->Forward({&x, &cont, &h0, &c0}, {&h, &h_T, &c_T}, nullptr).ok());
  Tensor gates({1, 3, 8}), c, h_unit;
  const float* w = lstm->blobs()[0]->data();
  const float* b = lstm->blobs()[1]->data();
  for (int n = 0; n < 3; ++n) {
    for (int j = 0; j < 8; ++j) {
      gates.mutable_data()[n * 8 + j] =
          b[j] + w[j * 2] * x.data()[n * 2] + w[j * 2 + 1] * x.data()[n * 2 + 1];
    }
  }
  auto unit = MakeLayer(kUnit);
  ASSERT_TRUE(unit->Setup({&c0, &gates, &cont}, {&c, &h_unit}).ok());
  ASSERT_TRUE(unit->Forward({&c0, &gates, &cont}, {&c, &h_unit}, nullptr).ok());
  for (int j = 0; j < 6; ++j) {
    EXPECT_NEAR(Values(c)[j], Values(c_T)[j], 1e-5f) << j;
    EXPECT_NEAR(Values(h_unit)[j], Values(h)[j], 1e-5f) << j;
  }
}

void CheckUnitGradients(const std::vector<float>& cont_values) {
  Tensor c_prev({1, 3, 2}), gates({1, 3, 8}), cont({1, 3}), c, h;
  FillGaussian(&c_prev, 3);
  FillGaussian(&gates, 4);
  FillValues(&cont, cont_values);
  auto layer = MakeLayer(kUnit);
  testing::GradientCheckOptions options;
  options.bottoms = {0, 1};  // not cont
  testing::CheckGradients(*layer, {&c_prev, &gates, &cont}, {&c, &h}, options);
}

TEST(LSTMUnitLayerTest, GradientWithZeroCont) { CheckUnitGradients({0, 0, 0}); }

TEST(LSTMUnitLayerTest, GradientWithNonZeroCont) { CheckUnitGradients({1, 0, 0.5f}); }

TEST(LSTMUnitLayerTest, BackwardWritesOnlyTheDiffsAskedFor) {
  Tensor c_prev({1, 1, 1}), gates({1, 1, 4}), cont({1, 1}), c, h;
  FillValues(&c_prev, {1});
  FillValues(&cont, {1});
  auto layer = MakeLayer(kUnit);
  ASSERT_TRUE(layer->Setup({&c_prev, &gates, &cont}, {&c, &h}).ok());
  ASSERT_TRUE(layer->Forward({&c_prev, &gates, &cont}, {&c, &h}, nullptr).ok());
  c.SetDiff(1.f);
  h.SetDiff(1.f);
  c_prev.SetDiff(7.f);
  gates.SetDiff(0.f);
  layer->Backward({&c, &h}, {false, true, false}, {&c_prev, &gates, &cont});
  EXPECT_EQ(c_prev.diff()[0], 7.f);
  EXPECT_NE(gates.diff()[1], 0.f);  // the forget gate saw c_prev = 1
  EXPECT_FALSE(layer->BottomHasGradient(2));
  EXPECT_TRUE(layer->BottomHasGradient(0));
  EXPECT_FALSE(layer->AllowForceBackward(2));
}

Status SetupStatus(const std::vector<std::vector<int>>& shapes) {
  Tensor a(shapes[0]), b(shapes[1]), k(shapes[2]), c, h;
  auto layer = MakeLayer(kUnit);
  return layer->Setup({&a, &b, &k}, {&c, &h});
}

TEST(LSTMUnitLayerTest, BadShapesAreErrors) {
  EXPECT_TRUE(SetupStatus({{1, 2, 3}, {1, 2, 12}, {1, 2}}).ok());
  EXPECT_EQ(SetupStatus({{2, 3}, {1, 2, 12}, {1, 2}}).message(),
            "layer 'unit' (LSTMUnit): c_prev (bottom 0) must have shape (1, N, H), got 2 3 (6)");
  EXPECT_EQ(SetupStatus({{1, 2, 3}, {1, 2, 9}, {1, 2}}).message(),
            "layer 'unit' (LSTMUnit): gates (bottom 1) must have shape (1, N, 4H) = 1 2 12 (24) "
            "for c_prev (bottom 0) shape 1 2 3 (6), got 1 2 9 (18)");
  EXPECT_EQ(SetupStatus({{1, 2, 3}, {1, 2, 12}, {2, 1}}).message(),
            "layer 'unit' (LSTMUnit): cont (bottom 2) must have shape (1, N) = 1 2 (2) for "
            "c_prev (bottom 0) shape 1 2 3 (6), got 2 1 (2)");
}

}  // namespace
}  // namespace dtrain
