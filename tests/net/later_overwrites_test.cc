// Net::FindLaterOverwrites and what BatchNorm makes of it: a BatchNorm that does not run in place
// keeps a copy of its input for backward only when a later layer overwrites that input (in place
// on the blob, or on a Split or Reshape sharing its storage); otherwise backward reads the input
// again. Each net here is trained side by side with the same computation written without the
// later in-place layer: losses, every blob's data and diff and every parameter gradient must be
// equal, which they are not if the copy is skipped where the values did not survive.
#include <gtest/gtest.h>

#include <string>

#include "core/proto_io.h"
#include "net/net.h"
#include "proto/net.pb.h"
#include "testing/net_agreement.h"

namespace dtrain {
namespace {

using testing::RelativeError;

std::unique_ptr<Net> Build(const std::string& layers) {
  NetParameter param;
  const std::string text = R"(
    force_backward: true
    layer { name: "data" type: "DummyData" top: "x" top: "t"
            dummy_data_param { refill: false shape { dim: 4 dim: 6 dim: 5 dim: 5 }
                               shape { dim: 4 dim: 16 dim: 5 dim: 5 }
                               data_filler { type: "gaussian" std: 1 }
                               data_filler { type: "gaussian" std: 1 } } }
    layer { name: "c" type: "Convolution" bottom: "x" top: "c"
            convolution_param { num_output: 16 kernel_size: 3 pad: 1 bias_term: false
                                weight_filler { type: "gaussian" std: 0.3 } } }
    layer { name: "bn" type: "BatchNorm" bottom: "c" top: "n" }
    layer { name: "scale" type: "Scale" bottom: "n" top: "n"
            scale_param { bias_term: true filler { type: "uniform" min: 0.5 max: 2 }
                          bias_filler { type: "uniform" min: -1 max: 1 } } }
    layer { name: "relu" type: "ReLU" bottom: "n" top: "n" }
    layer { name: "loss" type: "EuclideanLoss" bottom: "n" bottom: "t" top: "loss" }
    )" + layers;
  Status parsed = ParseTextProto(text, "net", &param);
  EXPECT_TRUE(parsed.ok()) << parsed.message();
  NetState state;
  state.set_phase(TRAIN);
  auto net = Net::Create(param, state, 1, "");
  EXPECT_TRUE(net.ok()) << net.status().message();
  return net.ok() ? std::move(net).value() : nullptr;
}

// `overwriting`: layers after BatchNorm, one of which runs in place on (an alias of) its input
// "c"; `separate`: the same computation with that layer writing a new top instead.
void ExpectSameTraining(const std::string& overwriting, const std::string& separate,
                        const std::vector<std::string>& compared_blobs) {
  auto in_place = Build(overwriting);
  auto new_top = Build(separate);
  ASSERT_TRUE(in_place && new_top);
  EXPECT_TRUE(in_place->layer_by_name("bn")->bottom_overwritten_later(0));
  EXPECT_FALSE(new_top->layer_by_name("bn")->bottom_overwritten_later(0));
  for (int iteration = 0; iteration < 2; ++iteration) {
    SCOPED_TRACE("iteration " + std::to_string(iteration));
    StatusOr<float> loss = in_place->Forward();
    StatusOr<float> want = new_top->Forward();
    ASSERT_TRUE(loss.ok() && want.ok());
    EXPECT_EQ(*loss, *want);
    in_place->ClearParamDiffs();
    new_top->ClearParamDiffs();
    in_place->Backward();
    new_top->Backward();
    for (const std::string& blob : compared_blobs) {
      for (bool diff : {false, true}) {
        EXPECT_EQ(RelativeError(*in_place->blob_by_name(blob), *new_top->blob_by_name(blob), diff),
                  0.0)
            << blob << (diff ? " diff" : " data");
      }
    }
    testing::ExpectSameParameters(*in_place, *new_top, 0.0);
  }
}

TEST(LaterOverwrites, InPlaceLayerOnASplitOfTheInputKeepsACopy) {
  // The Split's tops share the storage of "c", which BatchNorm reads.
  const std::string split = R"(
      layer { name: "split" type: "Split" bottom: "c" top: "c1" top: "c2" })";
  ExpectSameTraining(split + R"(layer { name: "late" type: "ReLU" bottom: "c2" top: "c2" }
                 layer { name: "loss2" type: "EuclideanLoss" bottom: "c2" bottom: "t" top: "l" })",
                     split + R"(layer { name: "late" type: "ReLU" bottom: "c2" top: "r" }
                 layer { name: "loss2" type: "EuclideanLoss" bottom: "r" bottom: "t" top: "l" })",
                     {"x", "n"});
}

TEST(LaterOverwrites, InPlaceLayerOnAReshapeOfTheInputKeepsACopy) {
  const std::string reshape = R"(
      layer { name: "flat" type: "Reshape" bottom: "c" top: "f"
              reshape_param { shape { dim: 0 dim: -1 } } })";
  ExpectSameTraining(reshape + R"(layer { name: "late" type: "TanH" bottom: "f" top: "f" }
                   layer { name: "sum" type: "Reduction" bottom: "f" top: "s" })",
                     reshape + R"(layer { name: "late" type: "TanH" bottom: "f" top: "g" }
                   layer { name: "sum" type: "Reduction" bottom: "g" top: "s" })",
                     {"x", "n"});
}

TEST(LaterOverwrites, InputReadOnlyByLaterLayersIsNotCopied) {
  // A DenseNet's pattern: the BatchNorm's input also feeds a Concat.
  auto net = Build(R"(layer { name: "cat" type: "Concat" bottom: "c" bottom: "n" top: "k" }
                      layer { name: "sum" type: "Reduction" bottom: "k" top: "s" })");
  ASSERT_TRUE(net);
  EXPECT_FALSE(net->layer_by_name("bn")->bottom_overwritten_later(0));
  EXPECT_TRUE(net->layer_by_name("scale")->bottom_overwritten_later(0));  // the ReLU after it
  EXPECT_FALSE(net->layer_by_name("loss")->bottom_overwritten_later(0));
}

}  // namespace
}  // namespace dtrain
