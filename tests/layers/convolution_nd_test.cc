// Convolution and Deconvolution over other than two spatial axes (layers/base_convolution_layer.h):
// 3-D volumes as VNet's, 1-D sequences, a channel axis other than 1. Values are checked against
// direct loops written from the definition (no lowering), gradients by finite differences.
//
// ConvolutionNdLayerTest and DeconvolutionNdLayerTest run twice in ctest (kernels/kernel_list.h:
// oneDNN where it applies, then with DTRAIN_TEST_ENGINE=REFERENCE); ConvolutionNdEngineTest names
// the engines itself, and ConvolutionNdSetupTest chooses no kernel, so neither is rerun.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "kernels/reference/im2col.h"
#include "layers/registry.h"
#include "proto/layer_params.pb.h"
#include "proto/net.pb.h"
#include "testing/gradient_checker.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::CheckGradients;
using testing::FillGaussian;
using testing::FillIota;
using testing::FillValues;
using testing::MakeLayer;
using testing::ParseLayerParameter;
using testing::Values;

LayerParameter Param(const std::string& type, const std::string& fields) {
  return ParseLayerParameter("name: 'c' type: '" + type + "' convolution_param { " + fields +
                             " weight_filler { type: 'gaussian' std: 0.5 } "
                             "bias_filler { type: 'gaussian' std: 0.5 } }");
}

// The window of a direct computation, per spatial axis.
struct Window {
  std::vector<int> kernel, stride, pad, dilation;
};

// Row-major multi-index of `flat` in `dims`.
std::vector<int> Unflatten(int64_t flat, const std::vector<int>& dims) {
  std::vector<int> index(dims.size());
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    index[d] = static_cast<int>(flat % dims[d]);
    flat /= dims[d];
  }
  return index;
}

int64_t Count(const std::vector<int>& dims) {
  int64_t n = 1;
  for (int d : dims) n *= d;
  return n;
}

// Walks every (output position, tap) pair of an N-d cross-correlation of spatial dims `in` to
// `out`, calling f(flat out position, flat tap, flat in position) where the tap reads the input.
template <typename F>
void ForEachTap(const std::vector<int>& in, const std::vector<int>& out, const Window& w, F f) {
  for (int64_t p = 0; p < Count(out); ++p) {
    const std::vector<int> o = Unflatten(p, out);
    for (int64_t t = 0; t < Count(w.kernel); ++t) {
      const std::vector<int> k = Unflatten(t, w.kernel);
      int64_t flat = 0;
      bool inside = true;
      for (size_t a = 0; a < in.size(); ++a) {
        const int i = o[a] * w.stride[a] - w.pad[a] + k[a] * w.dilation[a];
        inside = inside && i >= 0 && i < in[a];
        flat = flat * in[a] + i;
      }
      if (inside) f(p, t, flat);
    }
  }
}

// Convolution by its definition: x (batch, C, in...), weights (O, C / groups, kernel...).
std::vector<float> DirectConvolution(const Tensor& x, const Tensor& weights, const Tensor* bias,
                                     int groups, const Window& w, const std::vector<int>& out) {
  const int batch = x.shape(0), channels = x.shape(1), outputs = weights.shape(0);
  const std::vector<int> in(x.shape().begin() + 2, x.shape().end());
  const int cg = channels / groups, og = outputs / groups;
  const int64_t in_n = Count(in), out_n = Count(out), taps = Count(w.kernel);
  std::vector<double> y(static_cast<size_t>(batch) * outputs * out_n, 0.0);
  for (int n = 0; n < batch; ++n) {
    for (int o = 0; o < outputs; ++o) {
      double* dst = &y[(static_cast<size_t>(n) * outputs + o) * out_n];
      for (int c = 0; c < cg; ++c) {
        const float* src = x.data() + (int64_t{n} * channels + (o / og) * cg + c) * in_n;
        const float* filter = weights.data() + (int64_t{o} * cg + c) * taps;
        ForEachTap(in, out, w,
                   [&](int64_t p, int64_t t, int64_t i) { dst[p] += src[i] * filter[t]; });
      }
      if (bias) {
        for (int64_t p = 0; p < out_n; ++p) dst[p] += bias->data()[o];
      }
    }
  }
  return std::vector<float>(y.begin(), y.end());
}

// Deconvolution by its definition: every bottom value stamps its filter into the top. x (batch,
// C, in...), weights (C, O / groups, kernel...), top spatial dims `out`.
std::vector<float> DirectDeconvolution(const Tensor& x, const Tensor& weights, const Tensor* bias,
                                       int groups, const Window& w, const std::vector<int>& out) {
  const int batch = x.shape(0), channels = x.shape(1), og = weights.shape(1);
  const int outputs = og * groups, cg = channels / groups;
  const std::vector<int> in(x.shape().begin() + 2, x.shape().end());
  const int64_t in_n = Count(in), out_n = Count(out), taps = Count(w.kernel);
  std::vector<double> y(static_cast<size_t>(batch) * outputs * out_n, 0.0);
  for (int n = 0; n < batch; ++n) {
    for (int c = 0; c < channels; ++c) {
      const float* src = x.data() + (int64_t{n} * channels + c) * in_n;
      for (int o = 0; o < og; ++o) {
        double* dst = &y[(static_cast<size_t>(n) * outputs + (c / cg) * og + o) * out_n];
        const float* filter = weights.data() + (int64_t{c} * og + o) * taps;
        // The top is the convolution's input: its positions are the taps' targets.
        ForEachTap(out, in, w,
                   [&](int64_t p, int64_t t, int64_t i) { dst[i] += src[p] * filter[t]; });
      }
    }
    if (bias) {
      for (int o = 0; o < outputs; ++o) {
        for (int64_t p = 0; p < out_n; ++p)
          y[(int64_t{n} * outputs + o) * out_n + p] += bias->data()[o];
      }
    }
  }
  return std::vector<float>(y.begin(), y.end());
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-4 * std::max(1.f, std::abs(want[i]))) << "at " << i;
  }
}

// 3-D, every per-axis setting different: D kernel 3 stride 2 pad 1, H kernel 2 dilation 2,
// W kernel 1 pad 1; two groups.
const char kPerAxis[] =
    "num_output: 4 group: 2 kernel_size: 3 kernel_size: 2 kernel_size: 1 stride: 2 stride: 1 "
    "stride: 1 pad: 1 pad: 0 pad: 1 dilation: 1 dilation: 2 dilation: 1";
const Window kPerAxisWindow = {{3, 2, 1}, {2, 1, 1}, {1, 0, 1}, {1, 2, 1}};

TEST(ConvolutionNdLayerTest, ByHand3d) {
  // x = 1..8 in a 2x2x2 volume, a 2x2x2 filter of ones: one output, their sum, plus the bias.
  auto layer = MakeLayer(Param("Convolution", "num_output: 1 kernel_size: 2"));
  Tensor bottom({1, 1, 2, 2, 2}), top;
  FillIota(&bottom, 1.f);
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  FillValues(layer->blobs()[0].get(), std::vector<float>(8, 1.f));
  FillValues(layer->blobs()[1].get(), {0.5f});
  ASSERT_TRUE(layer->Forward({&bottom}, {&top}, nullptr).ok());
  EXPECT_EQ(top.shape(), (std::vector<int>{1, 1, 1, 1, 1}));
  EXPECT_EQ(Values(top), (std::vector<float>{36.5f}));
}

TEST(ConvolutionNdLayerTest, PerAxisWindows3dMatchDirectLoops) {
  auto layer = MakeLayer(Param("Convolution", kPerAxis));
  Tensor bottom({2, 4, 5, 6, 4}), top;
  FillGaussian(&bottom, 3);
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  // D (5 + 2 - 3) / 2 + 1 = 3; H (6 - 3) / 1 + 1 = 4; W (4 + 2 - 1) + 1 = 6.
  ASSERT_EQ(top.shape(), (std::vector<int>{2, 4, 3, 4, 6}));
  EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{4, 2, 3, 2, 1}));
  ASSERT_TRUE(layer->Forward({&bottom}, {&top}, nullptr).ok());
  ExpectNear(Values(top), DirectConvolution(bottom, *layer->blobs()[0], layer->blobs()[1].get(), 2,
                                            kPerAxisWindow, {3, 4, 6}));
}

TEST(ConvolutionNdLayerTest, OneSpatialAxisMatchesDirectLoops) {
  auto layer = MakeLayer(Param("Convolution",
                               "num_output: 4 kernel_size: 3 stride: 2 pad: 1 "
                               "dilation: 2 group: 2"));
  Tensor bottom({2, 2, 11}), top;
  FillGaussian(&bottom, 4);
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  // (11 + 2 - 5) / 2 + 1 = 5.
  ASSERT_EQ(top.shape(), (std::vector<int>{2, 4, 5}));
  EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{4, 1, 3}));
  ASSERT_TRUE(layer->Forward({&bottom}, {&top}, nullptr).ok());
  ExpectNear(Values(top), DirectConvolution(bottom, *layer->blobs()[0], layer->blobs()[1].get(), 2,
                                            {{3}, {2}, {1}, {2}}, {5}));
}

TEST(ConvolutionNdLayerTest, FourSpatialAxesMatchDirectLoops) {
  // More axes than oneDNN convolves over: the reference computes it in both runs.
  auto layer = MakeLayer(Param("Convolution", "num_output: 2 kernel_size: 2 pad: 1 stride: 2"));
  Tensor bottom({1, 2, 3, 2, 3, 2}), top;
  FillGaussian(&bottom, 5);
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  ASSERT_EQ(top.shape(), (std::vector<int>{1, 2, 2, 2, 2, 2}));
  EXPECT_EQ(layer->engine_report().rfind("reference", 0), 0u) << layer->engine_report();
  ASSERT_TRUE(layer->Forward({&bottom}, {&top}, nullptr).ok());
  ExpectNear(
      Values(top),
      DirectConvolution(bottom, *layer->blobs()[0], layer->blobs()[1].get(), 1,
                        {{2, 2, 2, 2}, {2, 2, 2, 2}, {1, 1, 1, 1}, {1, 1, 1, 1}}, {2, 2, 2, 2}));
}

TEST(ConvolutionNdLayerTest, ChannelAxisTwoTakesTheAxesBeforeItAsTheBatch) {
  // (2, 3, C = 2, 5, 4) with axis 2 is six images of (2, 5, 4): the same as (6, 2, 5, 4).
  auto layer = MakeLayer(Param("Convolution", "num_output: 3 kernel_size: 2 axis: 2"));
  auto flat = MakeLayer(Param("Convolution", "num_output: 3 kernel_size: 2"));
  Tensor bottom({2, 3, 2, 5, 4}), top, flat_bottom({6, 2, 5, 4}), flat_top;
  FillGaussian(&bottom, 6);
  FillValues(&flat_bottom, Values(bottom));
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  ASSERT_TRUE(flat->Setup({&flat_bottom}, {&flat_top}).ok());
  EXPECT_EQ(top.shape(), (std::vector<int>{2, 3, 3, 4, 3}));
  flat->blobs()[0]->CopyFrom(*layer->blobs()[0]);
  flat->blobs()[1]->CopyFrom(*layer->blobs()[1]);
  ASSERT_TRUE(layer->Forward({&bottom}, {&top}, nullptr).ok());
  ASSERT_TRUE(flat->Forward({&flat_bottom}, {&flat_top}, nullptr).ok());
  EXPECT_EQ(Values(top), Values(flat_top));
}

TEST(ConvolutionNdLayerTest, VNetShapes) {
  // VNet's first layers on a 16x16x8 volume: 5x5x5 pad 2 keeps the size, 2x2x2 stride 2 halves it.
  auto same = MakeLayer(Param("Convolution", "num_output: 16 kernel_size: 5 pad: 2"));
  auto down = MakeLayer(Param("Convolution", "num_output: 32 kernel_size: 2 stride: 2"));
  Tensor x({2, 1, 16, 16, 8}), y, z;
  ASSERT_TRUE(same->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(down->Setup({&y}, {&z}).ok());
  EXPECT_EQ(y.shape(), (std::vector<int>{2, 16, 16, 16, 8}));
  EXPECT_EQ(same->blobs()[0]->shape(), (std::vector<int>{16, 1, 5, 5, 5}));
  EXPECT_EQ(z.shape(), (std::vector<int>{2, 32, 8, 8, 4}));
  EXPECT_EQ(same->ForwardMacs(), 2.0 * 16 * (16 * 16 * 8) * 1 * 125);
}

void CheckNdGradients(const std::string& type, const std::string& fields,
                      const std::vector<int>& bottom_shape) {
  auto layer = MakeLayer(Param(type, fields));
  Tensor bottom(bottom_shape), top;
  FillGaussian(&bottom, 7);
  CheckGradients(*layer, {&bottom}, {&top});
}

TEST(ConvolutionNdLayerTest, Gradient3d) {
  CheckNdGradients("Convolution", "num_output: 2 kernel_size: 2", {2, 2, 3, 3, 3});
}

TEST(ConvolutionNdLayerTest, Gradient3dGroupsDilationStridePadAsymmetric) {
  CheckNdGradients("Convolution", kPerAxis, {1, 4, 5, 4, 3});
}

TEST(ConvolutionNdLayerTest, Gradient3dNoBiasPointwise) {
  CheckNdGradients("Convolution", "num_output: 3 kernel_size: 1 bias_term: false", {2, 2, 2, 3, 2});
}

TEST(ConvolutionNdLayerTest, Gradient1d) {
  CheckNdGradients("Convolution", "num_output: 2 kernel_size: 3 stride: 2 pad: 2 dilation: 2",
                   {2, 3, 9});
}

TEST(DeconvolutionNdLayerTest, PerAxisWindows3dMatchDirectLoops) {
  auto layer = MakeLayer(Param("Deconvolution", kPerAxis));
  Tensor bottom({2, 4, 3, 4, 6}), top;
  FillGaussian(&bottom, 8);
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  // D 2 * (3 - 1) + 3 - 2 = 5; H 1 * 3 + 3 - 0 = 6; W 1 * 5 + 1 - 2 = 4.
  ASSERT_EQ(top.shape(), (std::vector<int>{2, 4, 5, 6, 4}));
  EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{4, 2, 3, 2, 1}));
  ASSERT_TRUE(layer->Forward({&bottom}, {&top}, nullptr).ok());
  ExpectNear(Values(top), DirectDeconvolution(bottom, *layer->blobs()[0], layer->blobs()[1].get(),
                                              2, kPerAxisWindow, {5, 6, 4}));
}

TEST(DeconvolutionNdLayerTest, VNetUpsamplingShapes) {
  // VNet's 2x2x2 stride 2 deconvolutions double each axis.
  auto layer = MakeLayer(Param("Deconvolution", "num_output: 8 kernel_size: 2 stride: 2"));
  Tensor bottom({1, 16, 2, 3, 4}), top;
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  EXPECT_EQ(top.shape(), (std::vector<int>{1, 8, 4, 6, 8}));
  EXPECT_EQ(layer->blobs()[0]->shape(), (std::vector<int>{16, 8, 2, 2, 2}));
}

TEST(DeconvolutionNdLayerTest, OneSpatialAxisMatchesDirectLoops) {
  auto layer = MakeLayer(Param("Deconvolution", "num_output: 3 kernel_size: 4 stride: 2 pad: 1"));
  Tensor bottom({2, 2, 5}), top;
  FillGaussian(&bottom, 9);
  ASSERT_TRUE(layer->Setup({&bottom}, {&top}).ok());
  // 2 * 4 + 4 - 2 = 10.
  ASSERT_EQ(top.shape(), (std::vector<int>{2, 3, 10}));
  ASSERT_TRUE(layer->Forward({&bottom}, {&top}, nullptr).ok());
  ExpectNear(Values(top), DirectDeconvolution(bottom, *layer->blobs()[0], layer->blobs()[1].get(),
                                              1, {{4}, {2}, {1}, {1}}, {10}));
}

TEST(DeconvolutionNdLayerTest, Gradient3d) {
  CheckNdGradients("Deconvolution", "num_output: 2 kernel_size: 2 stride: 2", {1, 2, 2, 3, 2});
}

TEST(DeconvolutionNdLayerTest, Gradient3dGroupsDilationStridePadAsymmetric) {
  CheckNdGradients("Deconvolution", kPerAxis, {1, 4, 3, 2, 3});
}

TEST(DeconvolutionNdLayerTest, Gradient1d) {
  CheckNdGradients("Deconvolution", "num_output: 2 kernel_size: 3 stride: 2 pad: 1", {2, 2, 4});
}

// The same layer on each engine, named in its LayerContext.
std::unique_ptr<Layer> OnEngine(const LayerParameter& param, const char* engine) {
  LayerContext context;
  context.engine = engine;
  auto layer = CreateLayer(param, context);
  EXPECT_TRUE(layer.ok()) << layer.status().message();
  return layer.ok() ? std::move(layer).value() : nullptr;
}

// Forward and backward of `type` on oneDNN and on the reference, from the same weights, inputs
// and top gradient: the two agree within float rounding, and oneDNN really ran.
void ExpectEnginesAgree(const std::string& type, const std::string& fields,
                        const std::vector<int>& bottom_shape) {
  auto onednn = OnEngine(Param(type, fields), "ONEDNN");
  auto reference = OnEngine(Param(type, fields), "REFERENCE");
  ASSERT_TRUE(onednn && reference);
  Tensor x(bottom_shape), y, rx(bottom_shape), ry;
  FillGaussian(&x, 10);
  rx.CopyFrom(x);
  ASSERT_TRUE(onednn->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(reference->Setup({&rx}, {&ry}).ok());
  EXPECT_EQ(onednn->engine_report().rfind("onednn", 0), 0u) << onednn->engine_report();
  EXPECT_EQ(reference->engine_report().rfind("reference", 0), 0u) << reference->engine_report();
  for (int i = 0; i < 2; ++i) reference->blobs()[i]->CopyFrom(*onednn->blobs()[i]);
  ASSERT_TRUE(onednn->Forward({&x}, {&y}, nullptr).ok());
  ASSERT_TRUE(reference->Forward({&rx}, {&ry}, nullptr).ok());
  ExpectNear(Values(y), Values(ry));
  FillGaussian(&y, 11);
  std::copy(y.data(), y.data() + y.count(), y.mutable_diff());
  std::copy(y.data(), y.data() + y.count(), ry.mutable_diff());
  onednn->Backward({&y}, {true}, {&x});
  reference->Backward({&ry}, {true}, {&rx});
  ExpectNear(std::vector<float>(x.diff(), x.diff() + x.count()),
             std::vector<float>(rx.diff(), rx.diff() + rx.count()));
  for (int i = 0; i < 2; ++i) {
    const Tensor& a = *onednn->blobs()[i];
    const Tensor& b = *reference->blobs()[i];
    ExpectNear(std::vector<float>(a.diff(), a.diff() + a.count()),
               std::vector<float>(b.diff(), b.diff() + b.count()));
  }
}

TEST(ConvolutionNdEngineTest, OnednnAgreesWithTheReference3d) {
  ExpectEnginesAgree("Convolution", kPerAxis, {2, 4, 5, 6, 4});
  ExpectEnginesAgree("Convolution", "num_output: 16 kernel_size: 3 pad: 1", {2, 8, 6, 5, 4});
  ExpectEnginesAgree("Convolution", "num_output: 8 kernel_size: 2 stride: 2", {1, 16, 4, 4, 6});
}

TEST(ConvolutionNdEngineTest, OnednnAgreesWithTheReference1d) {
  ExpectEnginesAgree("Convolution", "num_output: 4 kernel_size: 3 pad: 1 group: 2", {2, 4, 12});
}

TEST(ConvolutionNdEngineTest, OnednnDeconvolutionAgreesWithTheReference) {
  ExpectEnginesAgree("Deconvolution", kPerAxis, {2, 4, 3, 4, 6});
  ExpectEnginesAgree("Deconvolution", "num_output: 8 kernel_size: 2 stride: 2", {1, 16, 2, 3, 4});
  ExpectEnginesAgree("Deconvolution", "num_output: 3 kernel_size: 4 stride: 2 pad: 1",
                     {2, 6, 5, 4});
}

TEST(ConvolutionNdEngineTest, OnednnDeclinesFourSpatialAxesByName) {
  auto layer = OnEngine(Param("Convolution", "num_output: 1 kernel_size: 1"), "ONEDNN");
  Tensor bottom({1, 1, 2, 2, 2, 2}), top;
  const Status s = layer->Setup({&bottom}, {&top});
  EXPECT_EQ(s.message(),
            "layer 'c' (Convolution): engine ONEDNN requested, but oneDNN declines: oneDNN "
            "convolves over 1, 2 or 3 spatial axes, this problem has 4");
}

TEST(ConvolutionNdEngineTest, NdIm2ColOfTwoAxesIsTheTwoDOne) {
  // The N-d lowering over two axes computes what the 2-D one does, entry for entry.
  kernels::Window2d w;
  w.kernel_h = 3, w.kernel_w = 2, w.pad_h = 1, w.pad_w = 2, w.stride_h = 2, w.stride_w = 1;
  w.dilation_h = 2, w.dilation_w = 1;
  const int channels = 2, height = 5, width = 4;
  const int out_h = kernels::ConvOutputSize(height, 3, 1, 2, 2);
  const int out_w = kernels::ConvOutputSize(width, 2, 2, 1, 1);
  const kernels::SpatialAxis axes[] = {{height, out_h, 3, 1, 2, 2}, {width, out_w, 2, 2, 1, 1}};
  Tensor x({channels, height, width}), c({channels * 6, out_h * out_w});
  FillGaussian(&x, 1);
  FillGaussian(&c, 2);
  std::vector<float> col2d(c.count()), colnd(c.count()), img2d(x.count()), imgnd(x.count());
  reference::Im2Col(x.data(), channels, height, width, w, col2d.data());
  reference::Im2ColNd(x.data(), channels, axes, 2, colnd.data());
  EXPECT_EQ(col2d, colnd);
  reference::Col2Im(c.data(), channels, height, width, w, img2d.data());
  reference::Col2ImNd(c.data(), channels, axes, 2, imgnd.data());
  EXPECT_EQ(img2d, imgnd);
}

Status SetupError(const std::string& type, const std::string& fields,
                  const std::vector<int>& bottom_shape) {
  auto layer = MakeLayer(Param(type, fields));
  Tensor bottom(bottom_shape), top;
  return layer->Setup({&bottom}, {&top});
}

TEST(ConvolutionNdSetupTest, ListsOfTheWrongLengthNameTheFieldAndTheAxes) {
  EXPECT_EQ(
      SetupError("Convolution", "num_output: 1 kernel_size: 2 kernel_size: 2", {1, 1, 4, 4, 4})
          .message(),
      "layer 'c' (Convolution): kernel_size must be given once, or once per spatial axis "
      "(3), got 2 values");
  EXPECT_EQ(
      SetupError("Convolution", "num_output: 1 kernel_size: 1 stride: 1 stride: 1", {1, 1, 4, 4, 4})
          .message(),
      "layer 'c' (Convolution): stride must be given once, or once per spatial axis (3), "
      "got 2 values");
  EXPECT_EQ(
      SetupError("Deconvolution", "num_output: 1 kernel_size: 1 pad: 0 pad: 0 pad: 0", {1, 1, 4, 4})
          .message(),
      "layer 'c' (Deconvolution): pad must be given once, or once per spatial axis (2), got "
      "3 values");
  EXPECT_EQ(
      SetupError("Convolution", "num_output: 1 kernel_size: 1 dilation: 1 dilation: 1", {1, 1, 4})
          .message(),
      "layer 'c' (Convolution): dilation must be given once, or once per spatial axis (1), "
      "got 2 values");
}

TEST(ConvolutionNdSetupTest, TheHwFormsAreFor2dOnly) {
  EXPECT_EQ(
      SetupError("Convolution", "num_output: 1 kernel_h: 2 kernel_w: 2", {1, 1, 4, 4, 4}).message(),
      "layer 'c' (Convolution): kernel_h/kernel_w apply to 2-D convolution only, but the "
      "bottom has 3 spatial axes; give kernel_size instead");
  EXPECT_EQ(
      SetupError("Deconvolution", "num_output: 1 kernel_size: 1 pad_h: 1", {1, 1, 4}).message(),
      "layer 'c' (Deconvolution): pad_h/pad_w apply to 2-D convolution only, but the bottom "
      "has 1 spatial axes; give pad instead");
}

TEST(ConvolutionNdSetupTest, AxisOutOfRangeOrWithoutSpatialAxes) {
  EXPECT_EQ(
      SetupError("Convolution", "num_output: 1 kernel_size: 1 axis: 5", {1, 1, 4, 4, 4}).message(),
      "layer 'c' (Convolution): convolution_param.axis 5 is out of range for bottom shape "
      "1 1 4 4 4 (64) (5 axes)");
  EXPECT_EQ(
      SetupError("Convolution", "num_output: 1 kernel_size: 1 axis: -6", {1, 1, 4, 4, 4}).message(),
      "layer 'c' (Convolution): convolution_param.axis -6 is out of range for bottom shape "
      "1 1 4 4 4 (64) (5 axes)");
  EXPECT_EQ(SetupError("Convolution", "num_output: 1 kernel_size: 1 axis: -1", {2, 3}).message(),
            "layer 'c' (Convolution): needs a spatial axis after the channel axis 1, got bottom "
            "shape 2 3 (6)");
}

TEST(ConvolutionNdSetupTest, AKernelLargerThanThePaddedVolumeNamesTheLayer) {
  EXPECT_EQ(SetupError("Convolution",
                       "num_output: 1 kernel_size: 3 kernel_size: 5 kernel_size: 3 "
                       "pad: 1",
                       {1, 1, 4, 2, 4})
                .message(),
            "layer 'c' (Convolution): kernel 3x5x3 (dilated) with pad 1x1x1 gives no output for "
            "bottom shape 1 1 4 2 4 (32)");
}

}  // namespace
}  // namespace dtrain
