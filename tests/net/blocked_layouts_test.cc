// Activations between oneDNN layers stay in oneDNN's blocked layouts (core/tensor.h, "Other
// layouts"): nets of the shapes of ResNet's and MobileNet v2's blocks compute on the default
// engine what they compute on the reference kernels with plain tensors: loss, every blob, the
// input's gradient and every parameter gradient, over two iterations; and the blocks' inner
// activations are in fact held blocked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/proto_io.h"
#include "net/net.h"
#include "proto/net.pb.h"
#include "testing/net_agreement.h"

namespace dtrain {
namespace {

using testing::RelativeError;

constexpr double kTolerance = 1e-4;  // as the agreement harness

std::unique_ptr<Net> Build(const std::string& text, const std::string& engine) {
  NetParameter param;
  Status parsed = ParseTextProto(text, "net", &param);
  EXPECT_TRUE(parsed.ok()) << parsed.message();
  NetState state;
  state.set_phase(TRAIN);
  auto net = Net::Create(param, state, 1, engine);
  EXPECT_TRUE(net.ok()) << net.status().message();
  return net.ok() ? std::move(net).value() : nullptr;
}

// Trains `text` twice, on the default engine and on the reference, and compares; then checks
// that each of `blocked` is held in a non-plain layout on the default engine.
void ExpectSameAsReference(const std::string& text, const std::vector<std::string>& blocked) {
  auto fast = Build(text, "");
  auto reference = Build(text, "REFERENCE");
  ASSERT_TRUE(fast && reference);
  for (int iteration = 0; iteration < 2; ++iteration) {
    SCOPED_TRACE("iteration " + std::to_string(iteration));
    StatusOr<float> fast_loss = fast->Forward();
    StatusOr<float> reference_loss = reference->Forward();
    ASSERT_TRUE(fast_loss.ok() && reference_loss.ok());
    EXPECT_NEAR(*fast_loss, *reference_loss, kTolerance * std::max(1.f, std::abs(*reference_loss)));
    for (const std::string& name : blocked) {
      const Tensor& blob = *fast->blob_by_name(name);
      EXPECT_NE(blob.data_layout(), nullptr) << name << " is not held blocked";
    }
    for (const std::string& name : reference->blob_names()) {
      EXPECT_LE(RelativeError(*fast->blob_by_name(name), *reference->blob_by_name(name), false),
                kTolerance)
          << name << " data";
    }
    fast->ClearParamDiffs();
    reference->ClearParamDiffs();
    fast->Backward();
    reference->Backward();
    EXPECT_LE(RelativeError(*fast->blob_by_name("x"), *reference->blob_by_name("x"), true),
              kTolerance)
        << "input gradient";
    testing::ExpectSameParameters(*fast, *reference, kTolerance);
  }
}

// A convolution `name` with `out` outputs (and `group` groups), then BatchNorm and Scale in place,
// and a ReLU when `relu`.
std::string ConvBn(const std::string& name, const std::string& bottom, int out, int kernel,
                   int group, bool relu) {
  const std::string pad = std::to_string(kernel / 2);
  std::string text = "layer { name: '" + name + "' type: 'Convolution' bottom: '" + bottom +
                     "' top: '" + name +
                     "' convolution_param { num_output: " + std::to_string(out) +
                     " kernel_size: " + std::to_string(kernel) + " pad: " + pad +
                     " group: " + std::to_string(group) +
                     " bias_term: false weight_filler { type: 'gaussian' std: 0.3 } } }\n";
  text += "layer { name: '" + name + "_bn' type: 'BatchNorm' bottom: '" + name + "' top: '" + name +
          "' }\n";
  text += "layer { name: '" + name + "_scale' type: 'Scale' bottom: '" + name + "' top: '" + name +
          "' scale_param { bias_term: true filler { type: 'uniform' min: 0.5 max: 2 } "
          "bias_filler { type: 'uniform' min: -1 max: 1 } } }\n";
  if (relu) {
    text += "layer { name: '" + name + "_relu' type: 'ReLU' bottom: '" + name + "' top: '" + name +
            "' }\n";
  }
  return text;
}

// DummyData x (2 x `channels` x 6 x 6) and target t (2 x 16 x 3 x 3) around `body`, whose last
// top is `last`; then max pooling and a loss.
std::string NetAround(int channels, const std::string& body, const std::string& last) {
  return "force_backward: true\n"
         "layer { name: 'data' type: 'DummyData' top: 'x' top: 't' dummy_data_param {"
         " shape { dim: 2 dim: " +
         std::to_string(channels) +
         " dim: 6 dim: 6 } shape { dim: 2 dim: 16 dim: 3 dim: 3 }"
         " data_filler { type: 'gaussian' std: 1 } data_filler { type: 'gaussian' std: 1 } } }\n" +
         body + "layer { name: 'pool' type: 'Pooling' bottom: '" + last +
         "' top: 'y' pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n"
         "layer { name: 'loss' type: 'EuclideanLoss' bottom: 'y' bottom: 't' top: 'loss' }\n";
}

TEST(BlockedLayouts, ResidualBlockEqualsReference) {
  // ResNet's basic block: two convolutions with BatchNorm, the shortcut added, a ReLU after.
  const std::string body = ConvBn("stem", "x", 16, 3, 1, true) +
                           ConvBn("a", "stem", 16, 3, 1, true) + ConvBn("b", "a", 16, 3, 1, false) +
                           "layer { name: 'sum' type: 'Eltwise' bottom: 'b' bottom: 'stem' "
                           "top: 'sum' }\n"
                           "layer { name: 'sum_relu' type: 'ReLU' bottom: 'sum' top: 'sum' }\n" +
                           ConvBn("out", "sum", 16, 1, 1, false);
  ExpectSameAsReference(NetAround(3, body, "out"), {"a", "b", "sum", "out"});
}

TEST(BlockedLayouts, InvertedResidualWithPaddedChannelBlocksEqualsReference) {
  // MobileNet v2's block on 24 channels (not a whole number of 16-channel blocks): expand,
  // depthwise, project, shortcut.
  const std::string body =
      ConvBn("stem", "x", 24, 1, 1, true) + ConvBn("expand", "stem", 48, 1, 1, true) +
      ConvBn("dw", "expand", 48, 3, 48, true) + ConvBn("project", "dw", 24, 1, 1, false) +
      "layer { name: 'sum' type: 'Eltwise' bottom: 'project' bottom: 'stem' "
      "top: 'sum' }\n" +
      // 3x3, padded: after a 1x1 convolution between two BatchNorms the
      // first one's shift gradient is 0 (up to rounding), nothing to compare.
      ConvBn("out", "sum", 16, 3, 1, false);
  ExpectSameAsReference(NetAround(8, body, "out"), {"expand", "dw", "out"});
}

}  // namespace
}  // namespace dtrain
