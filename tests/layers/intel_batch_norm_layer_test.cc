// BatchNorm with Intel Caffe's fields (layers/batch_norm_layer.h): a learned scale and shift of
// its own (blobs 3 and 4, Intel's order and defaults), its ReLU, and ghost batch statistics
// (stats_batch_size), forward and backward against values computed here independently in double,
// and finite-difference checks of every gradient.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "proto/net.pb.h"
#include "testing/gradient_checker.h"
#include "testing/in_place_check.h"
#include "testing/layer_test_util.h"

namespace dtrain {
namespace {

using testing::FillValues;
using testing::MakeLayer;
using testing::Values;

constexpr double kEps = 1e-5;

// What Intel Caffe's BatchNorm computes, in double: each run of `sub` consecutive items
// normalised by its own statistics, then gamma * xhat + beta, then the ReLU when `relu`.
struct GhostReference {
  int num, channels, spatial, sub;
  std::vector<double> x, gamma, beta;
  bool relu = false;
  std::vector<double> xhat, y, mean, var;  // mean and var per (group, channel)

  int64_t At(int n, int c, int s) const {
    return (static_cast<int64_t>(n) * channels + c) * spatial + s;
  }
  void Forward() {
    const int groups = num / sub;
    xhat.assign(x.size(), 0);
    y.assign(x.size(), 0);
    mean.assign(groups * channels, 0);
    var.assign(groups * channels, 0);
    for (int g = 0; g < groups; ++g) {
      for (int c = 0; c < channels; ++c) {
        double sum = 0, sq = 0;
        for (int n = g * sub; n < (g + 1) * sub; ++n) {
          for (int s = 0; s < spatial; ++s) sum += x[At(n, c, s)];
        }
        const double m = sum / (sub * spatial);
        for (int n = g * sub; n < (g + 1) * sub; ++n) {
          for (int s = 0; s < spatial; ++s) sq += (x[At(n, c, s)] - m) * (x[At(n, c, s)] - m);
        }
        const double v = sq / (sub * spatial);
        mean[g * channels + c] = m;
        var[g * channels + c] = v;
        for (int n = g * sub; n < (g + 1) * sub; ++n) {
          for (int s = 0; s < spatial; ++s) {
            const int64_t k = At(n, c, s);
            xhat[k] = (x[k] - m) / std::sqrt(v + kEps);
            y[k] = gamma[c] * xhat[k] + beta[c];
            if (relu && y[k] < 0) y[k] = 0;
          }
        }
      }
    }
  }
  // dx, dgamma, dbeta for top diff dy: per group, dxhat = gamma * dy' (dy' masked by the ReLU),
  // dx = (dxhat - mean(dxhat) - mean(dxhat * xhat) * xhat) / sqrt(var + eps); dgamma and dbeta
  // summed over every group.
  void Backward(const std::vector<double>& dy, std::vector<double>* dx, std::vector<double>* dgamma,
                std::vector<double>* dbeta) const {
    const int groups = num / sub;
    const double m = sub * spatial;
    dx->assign(x.size(), 0);
    dgamma->assign(channels, 0);
    dbeta->assign(channels, 0);
    for (int g = 0; g < groups; ++g) {
      for (int c = 0; c < channels; ++c) {
        auto d = [&](int64_t k) { return relu && y[k] <= 0 ? 0.0 : dy[k]; };
        double sum_dxhat = 0, sum_dxhat_xhat = 0;
        for (int n = g * sub; n < (g + 1) * sub; ++n) {
          for (int s = 0; s < spatial; ++s) {
            const int64_t k = At(n, c, s);
            (*dgamma)[c] += d(k) * xhat[k];
            (*dbeta)[c] += d(k);
            sum_dxhat += gamma[c] * d(k);
            sum_dxhat_xhat += gamma[c] * d(k) * xhat[k];
          }
        }
        const double sd = std::sqrt(var[g * channels + c] + kEps);
        for (int n = g * sub; n < (g + 1) * sub; ++n) {
          for (int s = 0; s < spatial; ++s) {
            const int64_t k = At(n, c, s);
            (*dx)[k] = (gamma[c] * d(k) - sum_dxhat / m - sum_dxhat_xhat / m * xhat[k]) / sd;
          }
        }
      }
    }
  }
};

std::vector<double> AsDouble(const Tensor& t) { return {t.data(), t.data() + t.count()}; }

const char kGhost[] = R"(name: "bn" type: "BatchNorm" batch_norm_param {
    use_weight_bias: true stats_batch_size: 2 moving_average_fraction: 0.9
    filler { type: "uniform" min: 0.5 max: 2 } bias_filler { type: "uniform" min: -1 max: 1 } })";

TEST(IntelBatchNormLayer, GhostForwardAndBackwardUsePerSubBatchStatistics) {
  auto layer = MakeLayer(kGhost, TRAIN);
  ASSERT_TRUE(layer);
  Tensor x({6, 3, 2, 2}), y;
  testing::FillGaussian(&x, 11, 2.f, 1.f);
  // Make the sub-batches differ: a different offset per run of 2 items.
  for (int64_t i = 0; i < x.count(); ++i) x.mutable_data()[i] += 3.f * static_cast<float>(i / 24);
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_EQ(layer->blobs().size(), 5u);
  GhostReference ref{
      6, 3, 4, 2, AsDouble(x), AsDouble(*layer->blobs()[3]), AsDouble(*layer->blobs()[4])};
  ref.Forward();
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  for (int64_t k = 0; k < y.count(); ++k) EXPECT_NEAR(y.data()[k], ref.y[k], 2e-5) << k;

  // Running statistics: one update per sub-batch, in order, each with m = 2 x 4 elements.
  double factor = 0;
  std::vector<double> mean_sum(3, 0), var_sum(3, 0);
  for (int g = 0; g < 3; ++g) {
    factor = 0.9 * factor + 1;
    for (int c = 0; c < 3; ++c) {
      mean_sum[c] = 0.9 * mean_sum[c] + ref.mean[g * 3 + c];
      var_sum[c] = 0.9 * var_sum[c] + 8.0 / 7.0 * ref.var[g * 3 + c];
    }
  }
  EXPECT_NEAR(layer->blobs()[2]->data()[0], factor, 1e-6);  // 2.71
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(layer->blobs()[0]->data()[c], mean_sum[c], 1e-4) << c;
    EXPECT_NEAR(layer->blobs()[1]->data()[c], var_sum[c], 1e-4) << c;
  }

  Tensor dy_source({6, 3, 2, 2});
  testing::FillGaussian(&dy_source, 12);
  std::copy(dy_source.data(), dy_source.data() + dy_source.count(), y.mutable_diff());
  for (auto& blob : layer->blobs()) blob->SetDiff(0.f);
  layer->Backward({&y}, {true}, {&x});
  std::vector<double> dx, dgamma, dbeta;
  ref.Backward(AsDouble(dy_source), &dx, &dgamma, &dbeta);
  for (int64_t k = 0; k < x.count(); ++k) EXPECT_NEAR(x.diff()[k], dx[k], 2e-5) << k;
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(layer->blobs()[3]->diff()[c], dgamma[c], 1e-4) << c;
    EXPECT_NEAR(layer->blobs()[4]->diff()[c], dbeta[c], 1e-4) << c;
  }
  // The statistics take no gradient.
  for (int b = 0; b < 3; ++b) EXPECT_EQ(layer->blobs()[b]->diff()[0], 0.f);
}

TEST(IntelBatchNormLayer, ReluAfterScaleAndShiftInBothPasses) {
  auto layer = MakeLayer(R"(name: "bn" type: "BatchNorm" batch_norm_param {
      use_weight_bias: true relu: true bias_filler { type: "uniform" min: -1 max: 1 } })",
                         TRAIN);
  ASSERT_TRUE(layer);
  Tensor x({4, 2, 3}), y;
  testing::FillGaussian(&x, 21);
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  GhostReference ref{
      4, 2, 3, 4, AsDouble(x), AsDouble(*layer->blobs()[3]), AsDouble(*layer->blobs()[4])};
  ref.relu = true;
  ref.Forward();
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  int zeros = 0;
  for (int64_t k = 0; k < y.count(); ++k) {
    EXPECT_NEAR(y.data()[k], ref.y[k], 2e-5) << k;
    zeros += y.data()[k] == 0.f;
  }
  EXPECT_GT(zeros, 0);  // the ReLU cut something
  Tensor dy({4, 2, 3});
  testing::FillGaussian(&dy, 22);
  std::copy(dy.data(), dy.data() + dy.count(), y.mutable_diff());
  for (auto& blob : layer->blobs()) blob->SetDiff(0.f);
  layer->Backward({&y}, {true}, {&x});
  std::vector<double> dx, dgamma, dbeta;
  ref.Backward(AsDouble(dy), &dx, &dgamma, &dbeta);
  for (int64_t k = 0; k < x.count(); ++k) EXPECT_NEAR(x.diff()[k], dx[k], 2e-5) << k;
  for (int c = 0; c < 2; ++c) {
    EXPECT_NEAR(layer->blobs()[3]->diff()[c], dgamma[c], 1e-4);
    EXPECT_NEAR(layer->blobs()[4]->diff()[c], dbeta[c], 1e-4);
  }
}

TEST(IntelBatchNormLayer, InPlaceWithReluAndSubBatchesMatchesOutOfPlace) {
  Tensor x({4, 3, 2, 2});
  testing::FillGaussian(&x, 25);
  testing::ExpectInPlaceMatchesOutOfPlace(R"(name: "bn" type: "BatchNorm" batch_norm_param {
      use_weight_bias: true relu: true stats_batch_size: 2
      bias_filler { type: "uniform" min: -1 max: 1 } })",
                                          x);
}

TEST(IntelBatchNormLayer, GradientsOfScaleShiftAndInputByFiniteDifferences) {
  for (const char* sub : {"0", "2"}) {
    SCOPED_TRACE(std::string("stats_batch_size ") + sub);
    auto layer = MakeLayer(std::string(R"(name: "bn" type: "BatchNorm" batch_norm_param {
        use_weight_bias: true stats_batch_size: )") +
                               sub + R"(
        filler { type: "uniform" min: 0.5 max: 2 } bias_filler { type: "uniform" min: -1 max: 1 } })",
                           TRAIN);
    ASSERT_TRUE(layer);
    Tensor x({4, 3, 2, 2}), y;
    testing::FillGaussian(&x, 31, 2.f, 1.f);
    testing::GradientCheckOptions options;
    options.threshold = 5e-3f;
    testing::CheckGradients(*layer, {&x}, {&y}, options);
  }
}

// With the stored statistics the statistic blobs change the output but are not learned, so the
// input is checked by finite differences and gamma and beta against sum(dy * xhat) and sum(dy).
TEST(IntelBatchNormLayer, GradientsWithGlobalStatistics) {
  const char text[] = R"(name: "bn" type: "BatchNorm" batch_norm_param {
      use_weight_bias: true use_global_stats: true filler { type: "uniform" min: 0.5 max: 2 }
      bias_filler { type: "uniform" min: -1 max: 1 } })";
  auto layer = MakeLayer(text, TRAIN);
  ASSERT_TRUE(layer);
  Tensor x({2, 3, 2}), y;
  testing::FillGaussian(&x, 41);
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  const std::vector<float> mean = {0.5f, -1, 2}, var = {1, 4, 0.25f};
  FillValues(layer->blobs()[0].get(), mean);
  FillValues(layer->blobs()[1].get(), var);
  FillValues(layer->blobs()[2].get(), {1});
  testing::GradientCheckOptions options;
  options.check_params = false;
  testing::CheckGradients(*layer, {&x}, {&y}, options);

  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  Tensor dy({2, 3, 2});
  testing::FillGaussian(&dy, 42);
  std::copy(dy.data(), dy.data() + dy.count(), y.mutable_diff());
  for (auto& blob : layer->blobs()) blob->SetDiff(0.f);
  layer->Backward({&y}, {true}, {&x});
  for (int c = 0; c < 3; ++c) {
    double dgamma = 0, dbeta = 0;
    for (int n = 0; n < 2; ++n) {
      for (int s = 0; s < 2; ++s) {
        const int k = (n * 3 + c) * 2 + s;
        dgamma += dy.data()[k] * (x.data()[k] - mean[c]) / std::sqrt(var[c] + kEps);
        dbeta += dy.data()[k];
      }
    }
    EXPECT_NEAR(layer->blobs()[3]->diff()[c], dgamma, 1e-5) << c;
    EXPECT_NEAR(layer->blobs()[4]->diff()[c], dbeta, 1e-5) << c;
  }
}

TEST(IntelBatchNormLayer, BlobsInIntelOrderWithIntelDefaults) {
  Tensor x({2, 4, 3}), y;
  auto five =
      MakeLayer(R"(name: "bn" type: "BatchNorm" batch_norm_param { use_weight_bias: true })");
  ASSERT_TRUE(five && five->Setup({&x}, {&y}).ok());
  ASSERT_EQ(five->blobs().size(), 5u);
  EXPECT_EQ(Values(*five->blobs()[3]), std::vector<float>(4, 1.f));  // gamma: constant 1
  EXPECT_EQ(Values(*five->blobs()[4]), std::vector<float>(4, 0.f));  // beta: constant 0
  EXPECT_TRUE(five->IsStatistic(2));
  EXPECT_FALSE(five->IsStatistic(3));
  EXPECT_FALSE(five->IsStatistic(4));
  EXPECT_TRUE(five->param_propagate_down(3));
  EXPECT_TRUE(five->param_propagate_down(4));

  auto four = MakeLayer(R"(name: "bn" type: "BatchNorm"
      batch_norm_param { use_weight_bias: true bias_term: false })");
  ASSERT_TRUE(four && four->Setup({&x}, {&y}).ok());
  EXPECT_EQ(four->blobs().size(), 4u);

  // On its own, without use_weight_bias set, the layer is Caffe's: 3 blobs.
  auto three = MakeLayer(R"(name: "bn" type: "BatchNorm" batch_norm_param { relu: false })");
  ASSERT_TRUE(three && three->Setup({&x}, {&y}).ok());
  EXPECT_EQ(three->blobs().size(), 3u);
}

TEST(IntelBatchNormLayer, ZeroGammaFillerGivesAllZeroOutput) {
  auto layer = MakeLayer(R"(name: "bn" type: "BatchNorm"
      batch_norm_param { use_weight_bias: true filler { value: 0 } })",
                         TRAIN);
  ASSERT_TRUE(layer);
  Tensor x({3, 4, 2, 2}), y;
  testing::FillGaussian(&x, 51, 3.f, 2.f);
  ASSERT_TRUE(layer->Setup({&x}, {&y}).ok());
  ASSERT_TRUE(layer->Forward({&x}, {&y}, nullptr).ok());
  EXPECT_EQ(Values(y), std::vector<float>(y.count(), 0.f));
}

TEST(IntelBatchNormLayer, StatsBatchSizeMustDivideTheBatch) {
  for (const auto& [sub, message] : std::vector<std::pair<std::string, std::string>>{
           {"4",
            "layer 'bn' (BatchNorm): stats_batch_size 4 does not divide the batch of 6 "
            "(Intel Caffe requires it to)"},
           {"8", "layer 'bn' (BatchNorm): stats_batch_size 8 is larger than the batch of 6"},
           {"4294967295", "stats_batch_size 4294967295 is larger than the batch of 6"}}) {
    auto layer = MakeLayer(
        "name: 'bn' type: 'BatchNorm' batch_norm_param { stats_batch_size: " + sub + " }", TRAIN);
    ASSERT_TRUE(layer);
    Tensor x({6, 2}), y;
    const Status s = layer->Setup({&x}, {&y});
    ASSERT_FALSE(s.ok()) << sub;
    EXPECT_NE(s.message().find(message), std::string::npos) << s.message();
  }
  // With the stored statistics (TEST) there are no sub-batches: any value is ignored, as Intel.
  auto test =
      MakeLayer("name: 'bn' type: 'BatchNorm' batch_norm_param { stats_batch_size: 4 }", TEST);
  Tensor x({6, 2}), y;
  EXPECT_TRUE(test && test->Setup({&x}, {&y}).ok());
}

TEST(IntelBatchNormLayer, PreloadedBlobsOfWrongCountOrShapeNameTheBlob) {
  Tensor x({2, 3}), y;
  auto count =
      MakeLayer(R"(name: "bn" type: "BatchNorm" batch_norm_param { use_weight_bias: true })");
  ASSERT_TRUE(count);
  for (int i = 0; i < 4; ++i) {
    count->blobs().push_back(std::make_shared<Tensor>(std::vector<int>{i == 2 ? 1 : 3}));
  }
  Status s = count->Setup({&x}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("layer 'bn' (BatchNorm): expected 5 blobs (mean, variance, scale "
                             "factor, gamma, beta), got 4 blob(s)"),
            std::string::npos)
      << s.message();
  auto shape =
      MakeLayer(R"(name: "bn" type: "BatchNorm" batch_norm_param { use_weight_bias: true })");
  ASSERT_TRUE(shape);
  for (int i = 0; i < 5; ++i) {
    shape->blobs().push_back(std::make_shared<Tensor>(std::vector<int>{i == 2   ? 1
                                                                       : i == 4 ? 4
                                                                                : 3}));
  }
  s = shape->Setup({&x}, {&y});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("blob 4 (beta) must hold 3 value(s), got 4"), std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace dtrain
