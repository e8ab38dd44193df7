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

std::string Lstm(const std::string& param) {
  return R"(name: "lstm" type: "LSTM" recurrent_param { )" + param + " }";
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

TEST(LSTMLayerTest, BlobsAndTopInCaffesOrderAndShapes) {
  Tensor x({2, 3, 4}), cont({2, 3}), x_static({3, 5}), h;
  auto layer = MakeLayer(Lstm("num_output: 6"));
  ASSERT_TRUE(layer->Setup({&x, &cont}, {&h}).ok());
  ASSERT_EQ(layer->blobs().size(), 3u);
  EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{24, 4}));  // W_xc
  EXPECT_EQ(layer->blobs()[1]->shape(), (std::vector<int>{24}));     // b_c
  EXPECT_EQ(layer->blobs()[2]->shape(), (std::vector<int>{24, 6}));  // W_hc
  EXPECT_EQ(h.shape(), (std::vector<int>{2, 3, 6}));

  auto with_static = MakeLayer(Lstm("num_output: 6"));
  ASSERT_TRUE(with_static->Setup({&x, &cont, &x_static}, {&h}).ok());
  ASSERT_EQ(with_static->blobs().size(), 4u);
  EXPECT_EQ(with_static->blobs()[2]->shape(), (std::vector<int>{24, 5}));  // W_xc_static
  EXPECT_EQ(with_static->blobs()[3]->shape(), (std::vector<int>{24, 6}));  // W_hc
  EXPECT_EQ(with_static->ForwardMacs(), 2 * 3 * 24 * (4 + 6) + 3 * 24 * 5);
}

TEST(LSTMLayerTest, FillersInitialiseWeightsAndBias) {
  Tensor x({1, 1, 2}), cont({1, 1}), h;
  auto layer =
      MakeLayer(Lstm("num_output: 1 weight_filler { type: 'constant' value: 2 } "
                     "bias_filler { type: 'constant' value: -1 }"));
  ASSERT_TRUE(layer->Setup({&x, &cont}, {&h}).ok());
  EXPECT_EQ(Values(*layer->blobs()[0]), std::vector<float>(8, 2.f));
  EXPECT_EQ(Values(*layer->blobs()[1]), std::vector<float>(4, -1.f));
  EXPECT_EQ(Values(*layer->blobs()[2]), std::vector<float>(4, 2.f));
}

// T = 2, N = 1, D = 1, H = 1; x = (1, 2), cont = (0, 1). Gates in the order i, f, o, g:
// W_xc = (0.5, -0.5, 1, 1), b_c = (0, 0.5, 0, 0), W_hc = (1, 1, -1, 0.5).
// t = 1: cont = 0, so h_0 and c_0 are dropped. a = 1 * W_xc + b_c = (0.5, 0, 1, 1):
//   i = sigmoid(0.5) = 0.6224593, f = 0.5, o = sigmoid(1) = 0.7310586, g = tanh(1) = 0.7615942
//   c_1 = i * g = 0.4740614, h_1 = o * tanh(c_1) = 0.7310586 * 0.4414750 = 0.3227441
// t = 2: cont = 1. a = 2 * W_xc + b_c + h_1 * W_hc
//                    = (1 + h_1, -0.5 + h_1, 2 - h_1, 2 + 0.5 h_1)
//                    = (1.3227441, -0.1772559, 1.6772559, 2.1613720):
//   i = 0.7896379, f = 0.4558017, o = 0.8425408, g = 0.9738204
//   c_2 = f * c_1 + i * g = 0.2160805 + 0.7689630 = 0.9850434
//   h_2 = o * tanh(c_2) = 0.8425408 * 0.7552409 = 0.6363213
TEST(LSTMLayerTest, ForwardByHand) {
  Tensor x({2, 1, 1}), cont({2, 1}), h, h_T, c_T;
  FillValues(&x, {1, 2});
  FillValues(&cont, {0, 1});
  auto layer = MakeLayer(Lstm("num_output: 1"));
  ASSERT_TRUE(layer->Setup({&x, &cont}, {&h}).ok());
  FillValues(layer->blobs()[0].get(), {0.5f, -0.5f, 1, 1});
  FillValues(layer->blobs()[1].get(), {0, 0.5f, 0, 0});
  FillValues(layer->blobs()[2].get(), {1, 1, -1, 0.5f});
  ASSERT_TRUE(layer->Forward({&x, &cont}, {&h}, nullptr).ok());
  ExpectNear(Values(h), {0.3227441f, 0.6363213f});

  // The same with the state exposed: h_0 = c_0 = 5 are dropped by cont_1 = 0; h_T = h_2, c_T = c_2.
  Tensor h0({1, 1, 1}), c0({1, 1, 1});
  FillValues(&h0, {5});
  FillValues(&c0, {5});
  auto exposed = MakeLayer(Lstm("num_output: 1 expose_hidden: true"));
  ASSERT_TRUE(exposed->Setup({&x, &cont, &h0, &c0}, {&h, &h_T, &c_T}).ok());
  for (int i = 0; i < 3; ++i) exposed->blobs()[i]->CopyFrom(*layer->blobs()[i]);
  ASSERT_TRUE(exposed->Forward({&x, &cont, &h0, &c0}, {&h, &h_T, &c_T}, nullptr).ok());
  ExpectNear(Values(h), {0.3227441f, 0.6363213f});
  EXPECT_EQ(h_T.shape(), (std::vector<int>{1, 1, 1}));
  ExpectNear(Values(h_T), {0.6363213f});
  ExpectNear(Values(c_T), {0.9850434f});
}

// x (T, N, 3) with N = 2 streams, H = 2, weights from a seeded Gaussian filler.
std::vector<float> RunLstm(int t, const std::vector<float>& x_values,
                           const std::vector<float>& cont_values) {
  Tensor x({t, 2, 3}), cont({t, 2}), h;
  FillValues(&x, x_values);
  FillValues(&cont, cont_values);
  auto layer = MakeLayer(Lstm("num_output: 2 " + std::string(kGaussian)));
  EXPECT_TRUE(layer->Setup({&x, &cont}, {&h}).ok());
  EXPECT_TRUE(layer->Forward({&x, &cont}, {&h}, nullptr).ok());
  return Values(h);
}

std::vector<float> Slice(const std::vector<float>& v, size_t begin, size_t end) {
  return std::vector<float>(v.begin() + begin, v.begin() + end);
}

TEST(LSTMLayerTest, ContZeroStartsANewSequence) {
  // Four steps whose cont is (0, 1, 0, 1) are two independent two-step sequences.
  Tensor x({4, 2, 3});
  FillGaussian(&x, 7);
  const std::vector<float> xs = Values(x);
  const std::vector<float> whole = RunLstm(4, xs, {0, 0, 1, 1, 0, 0, 1, 1});
  const std::vector<float> first = RunLstm(2, Slice(xs, 0, 12), {0, 0, 1, 1});
  const std::vector<float> second = RunLstm(2, Slice(xs, 12, 24), {0, 0, 1, 1});
  ExpectNear(Slice(whole, 0, 8), first);
  ExpectNear(Slice(whole, 8, 16), second);
  // Without the reset at step 3 the second part sees the first.
  const std::vector<float> joined = RunLstm(4, xs, {0, 0, 1, 1, 1, 1, 1, 1});
  EXPECT_NE(Slice(joined, 8, 16), second);
  // One stream may restart while the other continues: stream 1 restarts at step 3.
  const std::vector<float> mixed = RunLstm(4, xs, {0, 0, 1, 1, 1, 0, 1, 1});
  for (int t = 2; t < 4; ++t) {
    EXPECT_EQ(Slice(mixed, t * 4, t * 4 + 2), Slice(joined, t * 4, t * 4 + 2));  // stream 0
    EXPECT_EQ(Slice(mixed, t * 4 + 2, t * 4 + 4), Slice(whole, t * 4 + 2, t * 4 + 4));
  }
}

TEST(LSTMLayerTest, StateCarriesOverToTheNextForwardAsInCaffe) {
  // Without expose_hidden the next call starts from the last call's h_T and c_T: two calls of
  // two steps equal one call of four when the second call's cont is 1 at its start.
  Tensor x({4, 2, 3});
  FillGaussian(&x, 8);
  const std::vector<float> xs = Values(x);
  const std::vector<float> whole = RunLstm(4, xs, {0, 0, 1, 1, 1, 1, 1, 1});
  Tensor x2({2, 2, 3}), cont({2, 2}), h;
  FillValues(&cont, {0, 0, 1, 1});
  auto layer = MakeLayer(Lstm("num_output: 2 " + std::string(kGaussian)));
  ASSERT_TRUE(layer->Setup({&x2, &cont}, {&h}).ok());
  FillValues(&x2, Slice(xs, 0, 12));
  ASSERT_TRUE(layer->Forward({&x2, &cont}, {&h}, nullptr).ok());
  ExpectNear(Values(h), Slice(whole, 0, 8));
  FillValues(&x2, Slice(xs, 12, 24));
  FillValues(&cont, {1, 1, 1, 1});
  ASSERT_TRUE(layer->Forward({&x2, &cont}, {&h}, nullptr).ok());
  ExpectNear(Values(h), Slice(whole, 8, 16));
  // A batch of another size starts from zeros.
  Tensor x3({2, 1, 3}), cont3({2, 1}), h3;
  FillValues(&x3, {1, 2, 3, 4, 5, 6});
  FillValues(&cont3, {1, 1});
  ASSERT_TRUE(layer->Forward({&x3, &cont3}, {&h3}, nullptr).ok());
  const std::vector<float> from_zero = Values(h3);
  FillValues(&cont3, {0, 1});
  ASSERT_TRUE(layer->Forward({&x3, &cont3}, {&h3}, nullptr).ok());
  EXPECT_EQ(Values(h3), from_zero);
}

void CheckLstmGradients(const std::vector<float>& cont_values, bool with_static) {
  Tensor x({3, 2, 3}), cont({3, 2}), x_static({2, 2}), h;
  FillGaussian(&x, 11);
  FillGaussian(&x_static, 12);
  FillValues(&cont, cont_values);
  auto layer = MakeLayer(Lstm("num_output: 2 " + std::string(kGaussian)));
  testing::GradientCheckOptions options;
  options.bottoms = with_static ? std::vector<int>{0, 2} : std::vector<int>{0};  // not cont
  if (with_static) {
    testing::CheckGradients(*layer, {&x, &cont, &x_static}, {&h}, options);
  } else {
    testing::CheckGradients(*layer, {&x, &cont}, {&h}, options);
  }
}

TEST(LSTMLayerTest, GradientOfInputAndParameters) { CheckLstmGradients({0, 0, 1, 1, 1, 1}, false); }

TEST(LSTMLayerTest, GradientWithAResetAndAFractionalCont) {
  CheckLstmGradients({0, 0, 1, 0, 0.5f, 1}, false);
}

TEST(LSTMLayerTest, GradientWithStaticInput) { CheckLstmGradients({0, 0, 1, 1, 0, 1}, true); }

TEST(LSTMLayerTest, ExposedHiddenStateShapesAndGradient) {
  // cont_1 = 1, so h_0 and c_0 matter; h_T and c_T tops carry their own diffs.
  Tensor x({3, 2, 3}), cont({3, 2}), x_static({2, 4}), h0({1, 2, 2}), c0({1, 2, 2});
  Tensor h, h_T, c_T;
  FillGaussian(&x, 21);
  FillGaussian(&x_static, 22);
  FillGaussian(&h0, 23, 0.5f);
  FillGaussian(&c0, 24, 0.5f);
  FillValues(&cont, {1, 1, 1, 0, 1, 1});
  auto layer = MakeLayer(Lstm("num_output: 2 expose_hidden: true " + std::string(kGaussian)));
  const TensorVec bottom{&x, &cont, &x_static, &h0, &c0};
  const TensorVec top{&h, &h_T, &c_T};
  ASSERT_TRUE(layer->Setup(bottom, top).ok());
  EXPECT_EQ(layer->blobs().size(), 4u);
  EXPECT_EQ(h.shape(), (std::vector<int>{3, 2, 2}));
  EXPECT_EQ(h_T.shape(), (std::vector<int>{1, 2, 2}));
  EXPECT_EQ(c_T.shape(), (std::vector<int>{1, 2, 2}));
  ASSERT_TRUE(layer->Forward(bottom, top, nullptr).ok());
  EXPECT_EQ(Values(h_T), Slice(Values(h), 8, 12));
  testing::GradientCheckOptions options;
  options.bottoms = {0, 2, 3, 4};
  testing::CheckGradients(*layer, bottom, top, options);
}

TEST(LSTMLayerTest, ContGetsNoGradient) {
  auto layer = MakeLayer(Lstm("num_output: 2"));
  EXPECT_TRUE(layer->BottomHasGradient(0));
  EXPECT_FALSE(layer->BottomHasGradient(1));
  EXPECT_TRUE(layer->BottomHasGradient(2));
  EXPECT_FALSE(layer->AllowForceBackward(1));
  EXPECT_TRUE(layer->AllowForceBackward(0));
}

Status SetupStatus(const std::string& param, const std::vector<std::vector<int>>& bottom_shapes,
                   int num_tops = 1) {
  std::vector<Tensor> bottoms, tops(num_tops);
  for (const auto& shape : bottom_shapes) bottoms.emplace_back(shape);
  TensorVec bottom, top;
  for (Tensor& t : bottoms) bottom.push_back(&t);
  for (Tensor& t : tops) top.push_back(&t);
  auto layer = MakeLayer(Lstm(param));
  return layer->Setup(bottom, top);
}

TEST(LSTMLayerTest, BadParametersAndShapesAreErrors) {
  EXPECT_EQ(SetupStatus("", {{2, 3, 4}, {2, 3}}).message(),
            "layer 'lstm' (LSTM): recurrent_param.num_output must be positive");
  EXPECT_EQ(SetupStatus("num_output: 2", {{2, 3, 4}, {2, 2}}).message(),
            "layer 'lstm' (LSTM): cont (bottom 1) must have shape (T, N) = 2 3 (6) of x (bottom "
            "0) shape 2 3 4 (24), got 2 2 (4)");
  EXPECT_EQ(SetupStatus("num_output: 2", {{2, 3, 4}, {2, 3, 1}}).message(),
            "layer 'lstm' (LSTM): cont (bottom 1) must have shape (T, N) = 2 3 (6) of x (bottom "
            "0) shape 2 3 4 (24), got 2 3 1 (6)");
  EXPECT_EQ(SetupStatus("num_output: 2", {{6}, {6}}).message(),
            "layer 'lstm' (LSTM): x (bottom 0) must have at least 2 axes (T, N, ...), got shape "
            "6 (6)");
  EXPECT_EQ(SetupStatus("num_output: 2", {{2, 3, 4}, {2, 3}, {2, 5}}).message(),
            "layer 'lstm' (LSTM): x_static (bottom 2) must have N = 3 rows of 5 values (shape (N, "
            "...)), got shape 2 5 (10)");
  EXPECT_EQ(
      SetupStatus("num_output: 2 expose_hidden: true", {{2, 3, 4}, {2, 3}, {1, 3, 2}, {1, 2, 2}}, 3)
          .message(),
      "layer 'lstm' (LSTM): c_0 (bottom 3) must have shape (1, N, num_output) = 1 3 2 (6), "
      "got 1 2 2 (4)");
  EXPECT_EQ(SetupStatus("num_output: 2 expose_hidden: true", {{2, 3, 4}, {2, 3}}, 3).message(),
            "layer 'lstm' (LSTM): bottom takes at least 4 blob(s), got 2");
  EXPECT_EQ(
      SetupStatus("num_output: 2 expose_hidden: true", {{2, 3, 4}, {2, 3}, {1, 3, 2}, {1, 3, 2}})
          .message(),
      "layer 'lstm' (LSTM): top takes exactly 3 blob(s), got 1");
  Status filler = SetupStatus("num_output: 2 bias_filler { type: 'nope' }", {{2, 3, 4}, {2, 3}});
  EXPECT_EQ(filler.message().find("layer 'lstm' (LSTM): recurrent_param.bias_filler: "), 0u)
      << filler.message();
}

TEST(LSTMLayerTest, TimeStepsAndInputSizeAreFixedAtSetup) {
  Tensor x({2, 3, 4}), cont({2, 3}), h;
  auto layer = MakeLayer(Lstm("num_output: 2"));
  ASSERT_TRUE(layer->Setup({&x, &cont}, {&h}).ok());
  Tensor x3({3, 3, 4}), cont3({3, 3});
  EXPECT_EQ(layer->Forward({&x3, &cont3}, {&h}, nullptr).message(),
            "layer 'lstm' (LSTM): x (bottom 0) shape 3 3 4 (36) has 3 time steps, but the layer "
            "was set up for 2");
  Tensor x5({2, 3, 5});
  EXPECT_EQ(layer->Forward({&x5, &cont}, {&h}, nullptr).message(),
            "layer 'lstm' (LSTM): x (bottom 0) shape 2 3 5 (30) has 5 inputs per time step and "
            "stream (axes 2 on), but the weights expect 4");
  // Another number of streams is fine.
  Tensor x1({2, 1, 4}), cont1({2, 1});
  EXPECT_TRUE(layer->Forward({&x1, &cont1}, {&h}, nullptr).ok());
  EXPECT_EQ(h.shape(), (std::vector<int>{2, 1, 2}));
}

TEST(LSTMLayerTest, PreloadedBlobsOfTheWrongShapeAreAnError) {
  Tensor x({2, 3, 4}), cont({2, 3}), h;
  auto layer = MakeLayer(Lstm("num_output: 2"));
  layer->blobs().push_back(std::make_shared<Tensor>(std::vector<int>{8, 4}));
  layer->blobs().push_back(std::make_shared<Tensor>(std::vector<int>{8}));
  layer->blobs().push_back(std::make_shared<Tensor>(std::vector<int>{2, 8}));
  EXPECT_EQ(layer->Setup({&x, &cont}, {&h}).message(),
            "layer 'lstm' (LSTM): incorrect shape of learnable blob 2 (W_hc): expected 8 2 (16), "
            "got 2 8 (16)");
}

}  // namespace
}  // namespace dtrain
