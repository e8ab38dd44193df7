#include "net/net.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/proto_io.h"
#include "net/insert_splits.h"
#include "net/net_filter.h"

namespace dtrain {
namespace {

NetParameter ParseNet(const std::string& text) {
  NetParameter p;
  Status s = ParseTextProto(text, "net", &p);
  EXPECT_TRUE(s.ok()) << s.message();
  return p;
}

std::unique_ptr<Net> Build(const std::string& text, Phase phase = TRAIN) {
  NetState state;
  state.set_phase(phase);
  auto net = Net::Create(ParseNet(text), state, 1);
  EXPECT_TRUE(net.ok()) << net.status().message();
  return net.ok() ? std::move(net).value() : nullptr;
}

Status BuildError(const std::string& text) {
  NetState state;
  state.set_phase(TRAIN);
  auto net = Net::Create(ParseNet(text), state, 1);
  EXPECT_FALSE(net.ok());
  return net.ok() ? Status::Ok() : net.status();
}

const char* kData = R"(
  layer { name: "data" type: "DummyData" top: "x" top: "t"
          dummy_data_param { shape { dim: 2 dim: 3 } shape { dim: 2 dim: 4 }
                             data_filler { type: "gaussian" std: 1 } } }
)";

TEST(NetFilter, PhaseStageAndLevelRules) {
  const NetParameter p = ParseNet(R"(
    layer { name: "a" type: "Silence" include { phase: TRAIN } }
    layer { name: "b" type: "Silence" include { phase: TEST } }
    layer { name: "c" type: "Silence" include { stage: "deploy" } }
    layer { name: "d" type: "Silence" exclude { stage: "deploy" } }
    layer { name: "e" type: "Silence" include { min_level: 2 } }
    layer { name: "f" type: "Silence" include { not_stage: "deploy" phase: TEST } }
  )");
  auto names = [&](const NetState& s) {
    std::string out;
    auto filtered = FilterNet(p, s);
    for (const auto& l : filtered->layer()) out += l.name();
    return out;
  };
  NetState train;
  train.set_phase(TRAIN);
  EXPECT_EQ(names(train), "ad");
  NetState test;
  test.set_phase(TEST);
  test.add_stage("deploy");
  test.set_level(3);
  EXPECT_EQ(names(test), "bce");
}

TEST(NetFilter, IncludeAndExcludeTogetherIsAnError) {
  const NetParameter p = ParseNet(
      "layer { name: 'z' type: 'Silence' include { phase: TRAIN } exclude { phase: TEST } }");
  auto r = FilterNet(p, NetState());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("layer 'z'"), std::string::npos);
}

TEST(InsertSplits, BlobUsedTwiceGetsASplitWithCaffesNames) {
  const NetParameter p = InsertSplits(ParseNet(std::string(kData) + R"(
    layer { name: "ip" type: "InnerProduct" bottom: "x" top: "y" inner_product_param { num_output: 4 } }
    layer { name: "l1" type: "EuclideanLoss" bottom: "y" bottom: "t" top: "l1" }
    layer { name: "l2" type: "EuclideanLoss" bottom: "y" bottom: "t" top: "l2" }
  )"));
  ASSERT_EQ(p.layer_size(), 6);
  EXPECT_EQ(p.layer(1).name(), "t_data_1_split");
  EXPECT_EQ(p.layer(3).name(), "y_ip_0_split");
  EXPECT_EQ(p.layer(3).top(1), "y_ip_0_split_1");
  EXPECT_EQ(p.layer(4).bottom(0), "y_ip_0_split_0");
  EXPECT_EQ(p.layer(5).bottom(0), "y_ip_0_split_1");
}

TEST(Net, SplitGradientsSumAcrossConsumers) {
  // Two identical losses on one blob give twice the gradient of one.
  const std::string one = std::string(kData) + R"(
    layer { name: "ip" type: "InnerProduct" bottom: "x" top: "y"
            inner_product_param { num_output: 4 weight_filler { type: "gaussian" std: 1 } } }
    layer { name: "l1" type: "EuclideanLoss" bottom: "y" bottom: "t" top: "l1" })";
  const std::string two = one + R"(
    layer { name: "l2" type: "EuclideanLoss" bottom: "y" bottom: "t" top: "l2" })";
  auto a = Build(one), b = Build(two);
  ASSERT_TRUE(a && b);
  auto la = a->Forward(), lb = b->Forward();
  ASSERT_TRUE(la.ok() && lb.ok());
  EXPECT_NEAR(*lb, 2 * *la, 1e-5);
  a->ClearParamDiffs();
  b->ClearParamDiffs();
  a->Backward();
  b->Backward();
  const Tensor* ga = a->learnable_params()[0];
  const Tensor* gb = b->learnable_params()[0];
  for (int64_t i = 0; i < ga->count(); ++i) EXPECT_NEAR(gb->diff()[i], 2 * ga->diff()[i], 1e-5);
}

// A small conv net whose intermediate diffs share buffers (net/diff_planner.h): its weight
// gradients still match finite differences of the loss.
TEST(Net, SharedDiffBuffersKeepGradientsExact) {
  const std::string text = R"(
    force_backward: true
    layer { name: "data" type: "DummyData" top: "x" top: "t"
            dummy_data_param { refill: false shape { dim: 2 dim: 2 dim: 6 dim: 6 }
                               shape { dim: 2 dim: 3 } data_filler { type: "gaussian" std: 1 }
                               data_filler { type: "gaussian" std: 1 } } }
    layer { name: "c1" type: "Convolution" bottom: "x" top: "c1"
            convolution_param { num_output: 3 kernel_size: 3 pad: 1
                                weight_filler { type: "gaussian" std: 0.5 } } }
    layer { name: "r1" type: "TanH" bottom: "c1" top: "r1" }
    layer { name: "c2" type: "Convolution" bottom: "r1" top: "c2"
            convolution_param { num_output: 4 kernel_size: 3
                                weight_filler { type: "gaussian" std: 0.5 } } }
    layer { name: "r2" type: "TanH" bottom: "c2" top: "r2" }
    layer { name: "p" type: "Pooling" bottom: "r2" top: "p"
            pooling_param { pool: AVE kernel_size: 2 stride: 2 } }
    layer { name: "ip" type: "InnerProduct" bottom: "p" top: "y"
            inner_product_param { num_output: 3 weight_filler { type: "gaussian" std: 0.5 } } }
    layer { name: "loss" type: "EuclideanLoss" bottom: "y" bottom: "t" top: "loss" })";
  auto net = Build(text);
  ASSERT_TRUE(net);
  // c1, r1, c2, r2: four diffs, at most two live at once.
  const Tensor* c1 = net->blob_by_name("c1");
  EXPECT_TRUE(c1->SharesDiffWith(*net->blob_by_name("c2")) ||
              c1->SharesDiffWith(*net->blob_by_name("r2")) ||
              c1->SharesDiffWith(*net->blob_by_name("p")));
  ASSERT_TRUE(net->Forward().ok());
  net->ClearParamDiffs();
  net->Backward();
  for (Tensor* param : net->learnable_params()) {
    for (int64_t i = 0; i < param->count(); i += 7) {
      const float analytic = param->diff()[i];
      const float saved = param->data()[i];
      const float h = 1e-2f;
      param->mutable_data()[i] = saved + h;
      const double up = net->Forward().value();
      param->mutable_data()[i] = saved - h;
      const double down = net->Forward().value();
      param->mutable_data()[i] = saved;
      const double numeric = (up - down) / (2 * h);
      EXPECT_NEAR(analytic, numeric, 2e-2 * std::max(1.0, std::abs(numeric)));
    }
  }
}

TEST(Net, InPlaceLayerSharesItsBottom) {
  auto net = Build(std::string(kData) + R"(
    layer { name: "relu" type: "ReLU" bottom: "x" top: "x" })");
  ASSERT_TRUE(net);
  EXPECT_EQ(net->top_vecs()[1][0], net->bottom_vecs()[1][0]);
}

TEST(Net, SharedParametersAreOneTensor) {
  auto net = Build(std::string(kData) + R"(
    layer { name: "a" type: "InnerProduct" bottom: "x" top: "ya" param { name: "w" } param { name: "b" }
            inner_product_param { num_output: 4 } }
    layer { name: "b" type: "InnerProduct" bottom: "x" top: "yb" param { name: "w" } param { name: "b" }
            inner_product_param { num_output: 4 } }
    layer { name: "l" type: "EuclideanLoss" bottom: "ya" bottom: "yb" top: "l" })");
  ASSERT_TRUE(net);
  EXPECT_EQ(net->learnable_params().size(), 2u);
  EXPECT_EQ(net->layer_by_name("a")->blobs()[0].get(), net->layer_by_name("b")->blobs()[0].get());
}

TEST(Net, LossWeightScalesLossAndPropagateDownStopsGradient) {
  auto net = Build(std::string(kData) + R"(
    layer { name: "ip" type: "InnerProduct" bottom: "x" top: "y" inner_product_param { num_output: 4 } }
    layer { name: "l" type: "EuclideanLoss" bottom: "y" bottom: "t" top: "l" loss_weight: 3
            propagate_down: true propagate_down: false })");
  ASSERT_TRUE(net);
  auto loss = net->Forward();
  ASSERT_TRUE(loss.ok());
  EXPECT_NEAR(*loss, 3 * net->blob_by_name("l")->data()[0], 1e-6);
  const int l = 2;
  EXPECT_TRUE(net->bottom_need_backward(l)[0]);
  EXPECT_FALSE(net->bottom_need_backward(l)[1]);
  EXPECT_FALSE(net->layer_need_backward(0));  // data needs no gradient
}

TEST(Net, BackwardHookRunsAfterEachLayerInReverseOrder) {
  auto net = Build(std::string(kData) + R"(
    layer { name: "ip" type: "InnerProduct" bottom: "x" top: "y" inner_product_param { num_output: 4 } }
    layer { name: "l" type: "EuclideanLoss" bottom: "y" bottom: "t" top: "l" })");
  ASSERT_TRUE(net);
  std::vector<int> order;
  float diff_at_hook = 0;
  net->AddBackwardHook([&](int i) {
    order.push_back(i);
    if (i == 1) diff_at_hook = net->learnable_params()[0]->diff()[0];
  });
  ASSERT_TRUE(net->Forward().ok());
  net->ClearParamDiffs();
  net->Backward();
  EXPECT_EQ(order, (std::vector<int>{2, 1, 0}));
  EXPECT_NE(diff_at_hook, 0.f);  // the gradient is ready when the hook runs
}

TEST(Net, WeightsRoundTripAndShapeMismatchNamesTheLayer) {
  const std::string text = std::string(kData) + R"(
    layer { name: "ip" type: "InnerProduct" bottom: "x" top: "y"
            inner_product_param { num_output: 4 weight_filler { type: "gaussian" std: 1 } } })";
  auto a = Build(text);
  NetParameter weights;
  a->ToProto(&weights);
  NetState state;
  auto b = Net::Create(ParseNet(text), state, 99);  // other seed, other initial weights
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE((*b)->CopyTrainedLayersFrom(weights).ok());
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ((*b)->learnable_params()[0]->data()[i], a->learnable_params()[0]->data()[i]);
  }
  auto c = Build(std::string(kData) + R"(
    layer { name: "ip" type: "InnerProduct" bottom: "x" top: "y" inner_product_param { num_output: 5 } })");
  Status s = c->CopyTrainedLayersFrom(weights);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("layer 'ip'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("5 3 (15)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("4 3 (12)"), std::string::npos) << s.message();
}

TEST(Net, ErrorsNameTheLayer) {
  Status s = BuildError(std::string(kData) + R"(
    layer { name: "ip" type: "InnerProduct" bottom: "nope" top: "y" inner_product_param { num_output: 4 } })");
  EXPECT_NE(s.message().find("layer 'ip' (InnerProduct): bottom 'nope' is not produced"),
            std::string::npos)
      << s.message();
  s = BuildError(std::string(kData) + "layer { name: 'w' type: 'Warp' bottom: 'x' top: 'y' }");
  EXPECT_NE(s.message().find("1 layer(s) of a type dtrain does not have:\n"
                             "  layer 'w': unknown layer type \"Warp\"\nsupported types: "),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("Convolution"), std::string::npos);
}

TEST(Net, LegacyInputFieldsBecomeAnInputLayer) {
  auto net = Build(R"(
    input: "data" input_shape { dim: 2 dim: 3 dim: 4 dim: 5 }
    layer { name: "relu" type: "ReLU" bottom: "data" top: "r" })");
  ASSERT_TRUE(net);
  EXPECT_EQ(net->blob_by_name("data")->shape(), (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(net->output_blob_indices().size(), 1u);
}

}  // namespace
}  // namespace dtrain
