// Caffe's LSTM and RNN in whole nets: a captioner in miniature (words embedded, a recurrent
// layer over time, per-step scores through InnerProduct and SoftmaxWithLoss on axis 2) learns
// to predict each next word; a net in which cont would need a gradient is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/proto_io.h"
#include "net/net.h"
#include "proto/net.pb.h"
#include "testing/net_training.h"

namespace dtrain {
namespace {

NetParameter Parse(const std::string& text) {
  NetParameter p;
  Status s = ParseTextProto(text, "net", &p);
  EXPECT_TRUE(s.ok()) << s.message();
  return p;
}

StatusOr<std::unique_ptr<Net>> Build(std::string text, const std::string& type) {
  text.replace(text.find("%s"), 2, type);
  NetState state;
  state.set_phase(TRAIN);
  return Net::Create(Parse(text), state, 1);
}

// T = 4 steps of N = 2 streams: the input words are (3 = start, 0, 1, 2), the targets the next
// words (0, 1, 2, 1), so step 4 needs the recurrent state (word 2 follows word 1 at step 3, word
// 1 follows word 2 at step 4: only the history tells). cont = (0, 1, 1, 1): each batch is one
// sequence. Constant words come from DummyData, one (1, 2) top per value, put in order by Concat.
const char* kCaptioner = R"(
layer { name: "words" type: "DummyData" top: "w0" top: "w1" top: "w2" top: "w3" top: "t1"
        top: "start" top: "more"
        dummy_data_param { refill: false
          shape { dim: 1 dim: 2 } shape { dim: 1 dim: 2 } shape { dim: 1 dim: 2 }
          shape { dim: 1 dim: 2 } shape { dim: 1 dim: 2 } shape { dim: 1 dim: 2 }
          shape { dim: 3 dim: 2 }
          data_filler { type: "constant" value: 0 } data_filler { type: "constant" value: 1 }
          data_filler { type: "constant" value: 2 } data_filler { type: "constant" value: 3 }
          data_filler { type: "constant" value: 1 } data_filler { type: "constant" value: 0 }
          data_filler { type: "constant" value: 1 } } }
layer { name: "input" type: "Concat" bottom: "w3" bottom: "w0" bottom: "w1" bottom: "w2"
        top: "input" concat_param { axis: 0 } }
layer { name: "target" type: "Concat" bottom: "w0" bottom: "w1" bottom: "w2" bottom: "t1"
        top: "target" concat_param { axis: 0 } }
layer { name: "cont" type: "Concat" bottom: "start" bottom: "more" top: "cont"
        concat_param { axis: 0 } }
layer { name: "embed" type: "Embed" bottom: "input" top: "e"
        embed_param { num_output: 6 input_dim: 4 bias_term: false
                      weight_filler { type: "uniform" min: -0.5 max: 0.5 } } }
layer { name: "rec" type: "%s" bottom: "e" bottom: "cont" top: "h"
        recurrent_param { num_output: 8 weight_filler { type: "uniform" min: -0.3 max: 0.3 }
                          bias_filler { type: "constant" value: 0 } } }
layer { name: "predict" type: "InnerProduct" bottom: "h" top: "scores"
        inner_product_param { num_output: 4 axis: 2
                              weight_filler { type: "gaussian" std: 0.3 } } }
layer { name: "loss" type: "SoftmaxWithLoss" bottom: "scores" bottom: "target" top: "loss"
        softmax_param { axis: 2 } }
)";

void ExpectCaptionerTrains(const std::string& type) {
  auto net = Build(kCaptioner, type);
  ASSERT_TRUE(net.ok()) << net.status().message();
  EXPECT_EQ((*net)->blob_by_name("cont")->shape(), (std::vector<int>{4, 2}));
  EXPECT_EQ((*net)->blob_by_name("h")->shape(), (std::vector<int>{4, 2, 8}));
  EXPECT_EQ((*net)->blob_by_name("scores")->shape(), (std::vector<int>{4, 2, 4}));
  auto [first, last] = testing::TrainWithPlainSgd(**net, 150, 0.5f);
  EXPECT_NEAR(first, std::log(4.f), 0.3f);
  EXPECT_LT(last, 0.1f * first);
}

TEST(RecurrentLayersNetTest, LstmCaptionerTrains) { ExpectCaptionerTrains("LSTM"); }

TEST(RecurrentLayersNetTest, RnnCaptionerTrains) { ExpectCaptionerTrains("RNN"); }

TEST(RecurrentLayersNetTest, ContThatNeedsAGradientIsAnError) {
  const char* text = R"(
layer { name: "data" type: "DummyData" top: "x" top: "d"
        dummy_data_param { shape { dim: 2 dim: 1 dim: 3 } shape { dim: 2 dim: 1 dim: 1 } } }
layer { name: "ip" type: "InnerProduct" bottom: "d" top: "cont"
        inner_product_param { num_output: 1 axis: 1 } }
layer { name: "rec" type: "%s" bottom: "x" bottom: "cont" top: "h"
        recurrent_param { num_output: 2 } }
layer { name: "loss" type: "Reduction" bottom: "h" top: "loss" loss_weight: 1 }
)";
  for (const std::string type : {"LSTM", "RNN"}) {
    auto net = Build(text, type);
    ASSERT_FALSE(net.ok()) << type;
    EXPECT_EQ(net.status().message(),
              "layer 'rec' (" + type +
                  ") gives no gradient to its bottom 1 (as in Caffe), but bottom 'cont' needs "
                  "one; set propagate_down: false for it");
  }
}

}  // namespace
}  // namespace dtrain
