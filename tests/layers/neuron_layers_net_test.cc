// Caffe's element-wise layers (AbsVal, BNLL, Clip, ELU, Exp, Log, Power, Swish, Threshold) in a
// whole net: it builds, trains (forward, backward, a plain SGD step) and `dtrain check` accepts
// it; a Threshold whose bottom needs a gradient is refused when the net is built.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/proto_io.h"
#include "net/net.h"
#include "proto/net.pb.h"
#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

// Every new type at least once, in place where Caffe allows it; Threshold on the data (which
// needs no gradient).
const char* kNet = R"(
name: "neurons"
layer { name: "data" type: "DummyData" top: "x" top: "t"
        dummy_data_param { refill: false shape { dim: 8 dim: 6 } shape { dim: 8 dim: 3 }
                           data_filler { type: "gaussian" std: 1 }
                           data_filler { type: "gaussian" std: 1 } } }
layer { name: "thr" type: "Threshold" bottom: "x" top: "mask" threshold_param { threshold: 0.3 } }
layer { name: "mix" type: "Eltwise" bottom: "x" bottom: "mask" top: "xm" }
layer { name: "ip1" type: "InnerProduct" bottom: "xm" top: "h"
        inner_product_param { num_output: 6 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "elu" type: "ELU" bottom: "h" top: "h" elu_param { alpha: 0.8 } }
layer { name: "swish" type: "Swish" bottom: "h" top: "s" swish_param { beta: 1.5 } }
layer { name: "abs" type: "AbsVal" bottom: "s" top: "a" }
layer { name: "bnll" type: "BNLL" bottom: "a" top: "a" }
layer { name: "clip" type: "Clip" bottom: "a" top: "a" clip_param { min: 0 max: 4 } }
layer { name: "pow" type: "Power" bottom: "a" top: "p" power_param { power: 2 scale: 0.5 shift: 1 } }
layer { name: "log" type: "Log" bottom: "p" top: "p" log_param { shift: 1 } }
layer { name: "exp" type: "Exp" bottom: "p" top: "p" exp_param { scale: 0.1 } }
layer { name: "ip2" type: "InnerProduct" bottom: "p" top: "out"
        inner_product_param { num_output: 3 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "loss" type: "EuclideanLoss" bottom: "out" bottom: "t" top: "loss" }
)";

NetParameter Parse(const std::string& text) {
  NetParameter p;
  Status s = ParseTextProto(text, "net", &p);
  EXPECT_TRUE(s.ok()) << s.message();
  return p;
}

StatusOr<std::unique_ptr<Net>> Build(const std::string& text) {
  NetState state;
  state.set_phase(TRAIN);
  return Net::Create(Parse(text), state, 1);
}

TEST(NeuronLayersNetTest, TrainsWithEveryNewType) {
  auto net = Build(kNet);
  ASSERT_TRUE(net.ok()) << net.status().message();
  float first = 0.f, last = 0.f;
  for (int iter = 0; iter < 30; ++iter) {
    StatusOr<float> loss = (*net)->Forward();
    ASSERT_TRUE(loss.ok()) << loss.status().message();
    ASSERT_TRUE(std::isfinite(*loss)) << "iteration " << iter;
    if (iter == 0) first = *loss;
    last = *loss;
    (*net)->ClearParamDiffs();
    (*net)->Backward();
    for (Tensor* param : (*net)->learnable_params()) {
      for (int64_t i = 0; i < param->count(); ++i) {
        ASSERT_TRUE(std::isfinite(param->diff()[i]));
        param->mutable_data()[i] -= 0.1f * param->diff()[i];
      }
    }
  }
  EXPECT_LT(last, first);
}

const char* kThresholdNeedingGradient = R"(
layer { name: "data" type: "DummyData" top: "x" top: "t"
        dummy_data_param { shape { dim: 2 dim: 3 } shape { dim: 2 dim: 3 } } }
layer { name: "ip" type: "InnerProduct" bottom: "x" top: "h" inner_product_param { num_output: 3 } }
layer { name: "thr" type: "Threshold" bottom: "h" top: "h" %s}
layer { name: "loss" type: "EuclideanLoss" bottom: "h" bottom: "t" top: "loss" }
)";

std::string ThresholdNet(const std::string& extra) {
  std::string text = kThresholdNeedingGradient;
  text.replace(text.find("%s"), 2, extra);
  return text;
}

TEST(NeuronLayersNetTest, ThresholdWhoseBottomNeedsAGradientIsAnError) {
  auto net = Build(ThresholdNet(""));
  ASSERT_FALSE(net.ok());
  EXPECT_NE(net.status().message().find("layer 'thr' (Threshold) has no gradient (as in Caffe), "
                                        "but its bottom 'h' needs one; set propagate_down: false"),
            std::string::npos)
      << net.status().message();
  auto cut = Build(ThresholdNet("propagate_down: false "));
  ASSERT_TRUE(cut.ok()) << cut.status().message();
  ASSERT_TRUE((*cut)->Forward().ok());
  (*cut)->ClearParamDiffs();
  (*cut)->Backward();  // nothing reaches ip through the threshold
}

TEST(NeuronLayersNetTest, CheckCommandAcceptsEveryNewType) {
  testing::TempDir dir;
  testing::WriteTextFile(dir.Path("net.prototxt"), kNet);
  auto ok = testing::RunDtrain("check --model=" + dir.Path("net.prototxt"));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  testing::WriteTextFile(dir.Path("bad.prototxt"), ThresholdNet(""));
  auto bad = testing::RunDtrain("check --model=" + dir.Path("bad.prototxt"));
  EXPECT_FAILS_WITH(bad, "layer 'thr' (Threshold) has no gradient");
}

}  // namespace
}  // namespace dtrain
