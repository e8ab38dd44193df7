// Caffe's loss layers ContrastiveLoss, HingeLoss, InfogainLoss (H from a file),
// MultinomialLogisticLoss and SigmoidCrossEntropyLoss in a whole net: it builds, each loss falls
// under a plain SGD step, and `dtrain check` accepts it.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/proto_io.h"
#include "net/net.h"
#include "proto/blob.pb.h"
#include "proto/net.pb.h"
#include "testing/files.h"
#include "testing/run_command.h"

namespace dtrain {
namespace {

// One inner product per loss, so that each loss alone drives its own weights; a siamese pair of
// inner products sharing their weights ("siam") for ContrastiveLoss. %s is the H file.
const char* kNet = R"(
name: "losses"
layer { name: "data" type: "DummyData" top: "x" top: "x2" top: "cls" top: "sim" top: "target"
        dummy_data_param { refill: false
          shape { dim: 8 dim: 6 } shape { dim: 8 dim: 6 } shape { dim: 8 } shape { dim: 8 }
          shape { dim: 8 dim: 3 }
          data_filler { type: "gaussian" std: 1 } data_filler { type: "gaussian" std: 1 }
          data_filler { type: "constant" value: 2 } data_filler { type: "constant" value: 1 }
          data_filler { type: "uniform" min: 0 max: 1 } } }
layer { name: "ip_a" type: "InnerProduct" bottom: "x" top: "fa" param { name: "siam" }
        inner_product_param { num_output: 3 bias_term: false
                              weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "ip_b" type: "InnerProduct" bottom: "x2" top: "fb" param { name: "siam" }
        inner_product_param { num_output: 3 bias_term: false
                              weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "contrastive" type: "ContrastiveLoss" bottom: "fa" bottom: "fb" bottom: "sim"
        top: "contrastive" }
layer { name: "ip_h" type: "InnerProduct" bottom: "x" top: "sh"
        inner_product_param { num_output: 3 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "hinge" type: "HingeLoss" bottom: "sh" bottom: "cls" top: "hinge"
        hinge_loss_param { norm: L2 } }
layer { name: "ip_i" type: "InnerProduct" bottom: "x" top: "si"
        inner_product_param { num_output: 3 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "infogain" type: "InfogainLoss" bottom: "si" bottom: "cls" top: "infogain"
        infogain_loss_param { source: "%s" } }
layer { name: "ip_m" type: "InnerProduct" bottom: "x" top: "sm"
        inner_product_param { num_output: 3 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "prob" type: "Softmax" bottom: "sm" top: "pm" }
layer { name: "nll" type: "MultinomialLogisticLoss" bottom: "pm" bottom: "cls" top: "nll" }
layer { name: "ip_s" type: "InnerProduct" bottom: "x" top: "ss"
        inner_product_param { num_output: 3 weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "sce" type: "SigmoidCrossEntropyLoss" bottom: "ss" bottom: "target" top: "sce" }
)";

const char* kLosses[] = {"contrastive", "hinge", "infogain", "nll", "sce"};

class LossLayersNetTest : public ::testing::Test {
 protected:
  LossLayersNetTest() {
    // H for label 2 rewards class 2 and, half as much, class 1.
    Tensor h({3, 3});
    const float values[] = {1, 0, 0, 0, 1, 0, 0, 0.5f, 1};
    for (int i = 0; i < 9; ++i) h.mutable_data()[i] = values[i];
    BlobProto proto;
    h.ToProto(&proto, false);
    EXPECT_TRUE(WriteBinaryProtoAtomically(dir_.Path("H.binaryproto"), proto).ok());
    text_ = kNet;
    text_.replace(text_.find("%s"), 2, dir_.Path("H.binaryproto"));
  }
  testing::TempDir dir_;
  std::string text_;
};

TEST_F(LossLayersNetTest, EveryLossFallsUnderSgd) {
  NetParameter param;
  ASSERT_TRUE(ParseTextProto(text_, "net", &param).ok());
  NetState state;
  state.set_phase(TRAIN);
  auto net = Net::Create(param, state, 1);
  ASSERT_TRUE(net.ok()) << net.status().message();
  float first[5] = {}, last[5] = {};
  for (int iter = 0; iter < 30; ++iter) {
    StatusOr<float> loss = (*net)->Forward();
    ASSERT_TRUE(loss.ok()) << loss.status().message();
    ASSERT_TRUE(std::isfinite(*loss)) << "iteration " << iter;
    for (int k = 0; k < 5; ++k) {
      const float value = (*net)->blob_by_name(kLosses[k])->data()[0];
      if (iter == 0) first[k] = value;
      last[k] = value;
    }
    (*net)->ClearParamDiffs();
    (*net)->Backward();
    for (Tensor* p : (*net)->learnable_params()) {
      for (int64_t i = 0; i < p->count(); ++i) {
        ASSERT_TRUE(std::isfinite(p->diff()[i]));
        p->mutable_data()[i] -= 0.1f * p->diff()[i];
      }
    }
  }
  for (int k = 0; k < 5; ++k) EXPECT_LT(last[k], first[k]) << kLosses[k];
}

TEST_F(LossLayersNetTest, CheckCommandAcceptsEveryLoss) {
  testing::WriteTextFile(dir_.Path("net.prototxt"), text_);
  auto result = testing::RunDtrain("check --model=" + dir_.Path("net.prototxt"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
}

}  // namespace
}  // namespace dtrain
