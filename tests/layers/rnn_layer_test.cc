#include <gtest/gtest.h>

#include <memory>
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

std::string Rnn(const std::string& param) {
  return R"(name: "rnn" type: "RNN" recurrent_param { )" + param + " }";
}
const char* kGaussian =
    "weight_filler { type: 'gaussian' std: 0.5 } "
    "bias_filler { type: 'gaussian' std: 0.5 }";

void ExpectNear(const std::vector<float>& actual, const std::vector<float>& expected,
                float tolerance = 1e-5f) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], tolerance) << "element " << i;
  }
}

std::vector<float> Slice(const std::vector<float>& v, size_t begin, size_t end) {
  return std::vector<float>(v.begin() + begin, v.begin() + end);
}

TEST(RNNLayerTest, BlobsAndTopInCaffesOrderAndShapes) {
  Tensor x({2, 3, 4}), cont({2, 3}), x_static({3, 5}), o;
  auto layer = MakeLayer(Rnn("num_output: 6"));
  ASSERT_TRUE(layer->Setup({&x, &cont}, {&o}).ok());
  ASSERT_EQ(layer->blobs().size(), 5u);
  EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{6, 4}));  // W_xh
  EXPECT_EQ(layer->blobs()[1]->shape(), (std::vector<int>{6}));     // b_h
  EXPECT_EQ(layer->blobs()[2]->shape(), (std::vector<int>{6, 6}));  // W_hh
  EXPECT_EQ(layer->blobs()[3]->shape(), (std::vector<int>{6, 6}));  // W_ho
  EXPECT_EQ(layer->blobs()[4]->shape(), (std::vector<int>{6}));     // b_o
  EXPECT_EQ(o.shape(), (std::vector<int>{2, 3, 6}));

  auto with_static = MakeLayer(Rnn("num_output: 6"));
  ASSERT_TRUE(with_static->Setup({&x, &cont, &x_static}, {&o}).ok());
  ASSERT_EQ(with_static->blobs().size(), 6u);
  EXPECT_EQ(with_static->blobs()[2]->shape(), (std::vector<int>{6, 5}));  // W_xh_static
  EXPECT_EQ(with_static->blobs()[3]->shape(), (std::vector<int>{6, 6}));  // W_hh
  EXPECT_EQ(with_static->blobs()[5]->shape(), (std::vector<int>{6}));     // b_o
}

TEST(RNNLayerTest, FillersInitialiseWeightsAndBiases) {
  Tensor x({1, 1, 2}), cont({1, 1}), o;
  auto layer =
      MakeLayer(Rnn("num_output: 1 weight_filler { type: 'constant' value: 2 } "
                    "bias_filler { type: 'constant' value: -1 }"));
  ASSERT_TRUE(layer->Setup({&x, &cont}, {&o}).ok());
  const std::vector<std::vector<float>> expected = {{2, 2}, {-1}, {2}, {2}, {-1}};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(Values(*layer->blobs()[i]), expected[i]) << "blob " << i;
}

// T = 2, N = 1, D = 1, H = 1; x = (1, 2), cont = (0, 1);
// W_xh = 0.5, b_h = 0.1, W_hh = -1, W_ho = 2, b_o = -0.5.
// t = 1 (cont 0, h_0 dropped): h_1 = tanh(0.5 + 0.1) = tanh(0.6) = 0.5370496
//                              o_1 = tanh(2 h_1 - 0.5) = tanh(0.5740991) = 0.5183633
// t = 2 (cont 1):              h_2 = tanh(1 + 0.1 - h_1) = tanh(0.5629504) = 0.5101633
//                              o_2 = tanh(2 h_2 - 0.5) = tanh(0.5203265) = 0.4779520
TEST(RNNLayerTest, ForwardByHand) {
  Tensor x({2, 1, 1}), cont({2, 1}), o;
  FillValues(&x, {1, 2});
  FillValues(&cont, {0, 1});
  auto layer = MakeLayer(Rnn("num_output: 1"));
  ASSERT_TRUE(layer->Setup({&x, &cont}, {&o}).ok());
  const std::vector<float> values = {0.5f, 0.1f, -1, 2, -0.5f};
  for (int i = 0; i < 5; ++i) FillValues(layer->blobs()[i].get(), {values[i]});
  ASSERT_TRUE(layer->Forward({&x, &cont}, {&o}, nullptr).ok());
  ExpectNear(Values(o), {0.5183633f, 0.4779520f});

  // Exposed: h_0 = 3 is dropped by cont_1 = 0; h_T = h_2.
  Tensor h0({1, 1, 1}), h_T;
  FillValues(&h0, {3});
  auto exposed = MakeLayer(Rnn("num_output: 1 expose_hidden: true"));
  ASSERT_TRUE(exposed->Setup({&x, &cont, &h0}, {&o, &h_T}).ok());
  for (int i = 0; i < 5; ++i) FillValues(exposed->blobs()[i].get(), {values[i]});
  ASSERT_TRUE(exposed->Forward({&x, &cont, &h0}, {&o, &h_T}, nullptr).ok());
  ExpectNear(Values(o), {0.5183633f, 0.4779520f});
  EXPECT_EQ(h_T.shape(), (std::vector<int>{1, 1, 1}));
  ExpectNear(Values(h_T), {0.5101633f});
  // With cont_1 = 1 the exposed h_0 enters: h_1 = tanh(0.6 - 3) = tanh(-2.4) = -0.9836749,
  // o_1 = tanh(2 h_1 - 0.5) = tanh(-2.4673497) = -0.9857175.
  FillValues(&cont, {1, 1});
  ASSERT_TRUE(exposed->Forward({&x, &cont, &h0}, {&o, &h_T}, nullptr).ok());
  EXPECT_NEAR(Values(o)[0], -0.9857175f, 1e-5f);
}

std::vector<float> RunRnn(int t, const std::vector<float>& x_values,
                          const std::vector<float>& cont_values) {
  Tensor x({t, 2, 3}), cont({t, 2}), o;
  FillValues(&x, x_values);
  FillValues(&cont, cont_values);
  auto layer = MakeLayer(Rnn("num_output: 2 " + std::string(kGaussian)));
  EXPECT_TRUE(layer->Setup({&x, &cont}, {&o}).ok());
  EXPECT_TRUE(layer->Forward({&x, &cont}, {&o}, nullptr).ok());
  return Values(o);
}

TEST(RNNLayerTest, ContZeroStartsANewSequence) {
  Tensor x({4, 2, 3});
  FillGaussian(&x, 7);
  const std::vector<float> xs = Values(x);
  const std::vector<float> whole = RunRnn(4, xs, {0, 0, 1, 1, 0, 0, 1, 1});
  ExpectNear(Slice(whole, 0, 8), RunRnn(2, Slice(xs, 0, 12), {0, 0, 1, 1}));
  ExpectNear(Slice(whole, 8, 16), RunRnn(2, Slice(xs, 12, 24), {0, 0, 1, 1}));
  const std::vector<float> joined = RunRnn(4, xs, {0, 0, 1, 1, 1, 1, 1, 1});
  EXPECT_NE(Slice(joined, 8, 16), Slice(whole, 8, 16));
}

TEST(RNNLayerTest, StateCarriesOverToTheNextForwardAsInCaffe) {
  Tensor x({4, 2, 3});
  FillGaussian(&x, 8);
  const std::vector<float> xs = Values(x);
  const std::vector<float> whole = RunRnn(4, xs, {0, 0, 1, 1, 1, 1, 1, 1});
  Tensor x2({2, 2, 3}), cont({2, 2}), o;
  FillValues(&cont, {0, 0, 1, 1});
  auto layer = MakeLayer(Rnn("num_output: 2 " + std::string(kGaussian)));
  ASSERT_TRUE(layer->Setup({&x2, &cont}, {&o}).ok());
  FillValues(&x2, Slice(xs, 0, 12));
  ASSERT_TRUE(layer->Forward({&x2, &cont}, {&o}, nullptr).ok());
  FillValues(&x2, Slice(xs, 12, 24));
  FillValues(&cont, {1, 1, 1, 1});
  ASSERT_TRUE(layer->Forward({&x2, &cont}, {&o}, nullptr).ok());
  ExpectNear(Values(o), Slice(whole, 8, 16));
}

void CheckRnnGradients(const std::vector<float>& cont_values, bool with_static) {
  Tensor x({3, 2, 3}), cont({3, 2}), x_static({2, 2}), o;
  FillGaussian(&x, 11);
  FillGaussian(&x_static, 12);
  FillValues(&cont, cont_values);
  auto layer = MakeLayer(Rnn("num_output: 2 " + std::string(kGaussian)));
  testing::GradientCheckOptions options;
  options.bottoms = with_static ? std::vector<int>{0, 2} : std::vector<int>{0};  // not cont
  if (with_static) {
    testing::CheckGradients(*layer, {&x, &cont, &x_static}, {&o}, options);
  } else {
    testing::CheckGradients(*layer, {&x, &cont}, {&o}, options);
  }
}

TEST(RNNLayerTest, GradientOfInputAndParameters) { CheckRnnGradients({0, 0, 1, 1, 1, 1}, false); }

TEST(RNNLayerTest, GradientWithAResetAndAFractionalCont) {
  CheckRnnGradients({0, 0, 1, 0, 0.5f, 1}, false);
}

TEST(RNNLayerTest, GradientWithStaticInput) { CheckRnnGradients({0, 0, 1, 1, 0, 1}, true); }

TEST(RNNLayerTest, ExposedHiddenStateShapesAndGradient) {
  Tensor x({3, 2, 3}), cont({3, 2}), x_static({2, 4}), h0({1, 2, 2}), o, h_T;
  FillGaussian(&x, 21);
  FillGaussian(&x_static, 22);
  FillGaussian(&h0, 23, 0.5f);
  FillValues(&cont, {1, 1, 1, 0, 1, 1});
  auto layer = MakeLayer(Rnn("num_output: 2 expose_hidden: true " + std::string(kGaussian)));
  const TensorVec bottom{&x, &cont, &x_static, &h0};
  const TensorVec top{&o, &h_T};
  ASSERT_TRUE(layer->Setup(bottom, top).ok());
  EXPECT_EQ(layer->blobs().size(), 6u);
  EXPECT_EQ(o.shape(), (std::vector<int>{3, 2, 2}));
  EXPECT_EQ(h_T.shape(), (std::vector<int>{1, 2, 2}));
  testing::GradientCheckOptions options;
  options.bottoms = {0, 2, 3};
  testing::CheckGradients(*layer, bottom, top, options);
}

TEST(RNNLayerTest, ContGetsNoGradient) {
  auto layer = MakeLayer(Rnn("num_output: 2"));
  EXPECT_TRUE(layer->BottomHasGradient(0));
  EXPECT_FALSE(layer->BottomHasGradient(1));
  EXPECT_FALSE(layer->AllowForceBackward(1));
}

Status SetupStatus(const std::string& param, const std::vector<std::vector<int>>& bottom_shapes,
                   int num_tops = 1) {
  std::vector<Tensor> bottoms, tops(num_tops);
  for (const auto& shape : bottom_shapes) bottoms.emplace_back(shape);
  TensorVec bottom, top;
  for (Tensor& t : bottoms) bottom.push_back(&t);
  for (Tensor& t : tops) top.push_back(&t);
  auto layer = MakeLayer(Rnn(param));
  return layer->Setup(bottom, top);
}

TEST(RNNLayerTest, BadParametersAndShapesAreErrors) {
  EXPECT_EQ(SetupStatus("", {{2, 3, 4}, {2, 3}}).message(),
            "layer 'rnn' (RNN): recurrent_param.num_output must be positive");
  EXPECT_EQ(SetupStatus("num_output: 2", {{2, 3, 4}, {3, 3}}).message(),
            "layer 'rnn' (RNN): cont (bottom 1) must have shape (T, N) = 2 3 (6) of x (bottom 0) "
            "shape 2 3 4 (24), got 3 3 (9)");
  EXPECT_EQ(
      SetupStatus("num_output: 2 expose_hidden: true", {{2, 3, 4}, {2, 3}, {3, 2}}, 2).message(),
      "layer 'rnn' (RNN): h_0 (bottom 2) must have shape (1, N, num_output) = 1 3 2 (6), "
      "got 3 2 (6)");
  EXPECT_EQ(SetupStatus("num_output: 2", {{2, 3, 4}, {2, 3}, {3, 5}, {1}}).message(),
            "layer 'rnn' (RNN): bottom takes at most 3 blob(s), got 4");
}

}  // namespace
}  // namespace dtrain
