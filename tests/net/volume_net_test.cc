// A small net of VNet's shape (Intel Caffe's models/intel_optimized_models/VNet) on 3-D volumes:
// 5x5x5 convolutions, 2x2x2 stride-2 down-convolutions and deconvolutions, PReLU, the input tiled
// by Split + Concat and added by Eltwise, a skip Concat, a Reshape to voxels and a softmax loss.
// Built here from a prototxt string (the Intel files are not shipped): it builds, trains on the
// default engine as on the reference kernels (loss, every blob, every gradient), and `dtrain
// check` passes it; with VNet's Python Dice loss, check refuses that layer by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/proto_io.h"
#include "hostile/hostile.h"
#include "net/net.h"
#include "testing/files.h"
#include "testing/net_agreement.h"

namespace dtrain {
namespace {

using testing::RelativeError;

constexpr double kTolerance = 1e-4;

const char kLayers[] = R"(
layer { name: 'data' type: 'DummyData' top: 'data' top: 'label' dummy_data_param {
  shape { dim: 2 dim: 1 dim: 8 dim: 8 dim: 4 } shape { dim: 2 dim: 256 }
  data_filler { type: 'gaussian' std: 1 } data_filler { type: 'uniform' min: 0 max: 1.99 }
  refill: false } }
layer { name: 'conv_in' type: 'Convolution' bottom: 'data' top: 'conv_in' convolution_param {
  num_output: 4 kernel_size: 5 pad: 2 weight_filler { type: 'msra' variance_norm: AVERAGE }
  bias_filler { type: 'constant' value: 0.1 } } }
layer { name: 'split' type: 'Split' bottom: 'data' top: 't1' top: 't2' top: 't3' top: 't4' }
layer { name: 'tile' type: 'Concat' bottom: 't1' bottom: 't2' bottom: 't3' bottom: 't4'
  top: 'tiled' }
layer { name: 'block1' type: 'Eltwise' bottom: 'conv_in' bottom: 'tiled' top: 'block1'
  eltwise_param { operation: SUM } }
layer { name: 'block1_relu' type: 'PReLU' bottom: 'block1' top: 'block1' }
layer { name: 'down' type: 'Convolution' bottom: 'block1' top: 'down' convolution_param {
  num_output: 8 kernel_size: 2 stride: 2 weight_filler { type: 'msra' } } }
layer { name: 'down_relu' type: 'PReLU' bottom: 'down' top: 'down' }
layer { name: 'conv_mid' type: 'Convolution' bottom: 'down' top: 'conv_mid' convolution_param {
  num_output: 8 kernel_size: 3 pad: 1 weight_filler { type: 'msra' } } }
layer { name: 'block2' type: 'Eltwise' bottom: 'conv_mid' bottom: 'down' top: 'block2' }
layer { name: 'up' type: 'Deconvolution' bottom: 'block2' top: 'up' convolution_param {
  num_output: 4 kernel_size: 2 stride: 2 weight_filler { type: 'msra' } } }
layer { name: 'up_relu' type: 'PReLU' bottom: 'up' top: 'up' }
layer { name: 'skip' type: 'Concat' bottom: 'up' bottom: 'block1' top: 'skip' }
layer { name: 'conv_out' type: 'Convolution' bottom: 'skip' top: 'conv_out' convolution_param {
  num_output: 2 kernel_size: 1 weight_filler { type: 'msra' } } }
layer { name: 'flat' type: 'Reshape' bottom: 'conv_out' top: 'flat'
  reshape_param { shape { dim: 0 dim: 2 dim: 256 } } }
)";

const char kSoftmaxLoss[] =
    "layer { name: 'loss' type: 'SoftmaxWithLoss' bottom: 'flat' bottom: 'label' top: 'loss' }\n";

// VNet's own loss: a Python layer after a Softmax.
const char kPythonDiceLoss[] =
    "layer { name: 'softmax' type: 'Softmax' bottom: 'flat' top: 'softmax_out' }\n"
    "layer { name: 'loss' type: 'Python' bottom: 'softmax_out' bottom: 'label' top: 'loss'\n"
    "  python_param { module: 'pyLayer' layer: 'DiceLoss' } loss_weight: 1 }\n";

std::string NetText(const char* loss) {
  return std::string("name: 'vnet_like'\n") + kLayers + loss;
}

std::unique_ptr<Net> Build(const std::string& engine) {
  NetParameter param;
  Status parsed = ParseTextProto(NetText(kSoftmaxLoss), "net", &param);
  EXPECT_TRUE(parsed.ok()) << parsed.message();
  NetState state;
  state.set_phase(TRAIN);
  auto net = Net::Create(param, state, 1, engine);
  EXPECT_TRUE(net.ok()) << net.status().message();
  return net.ok() ? std::move(net).value() : nullptr;
}

TEST(VolumeNetTest, TrainsOnTheDefaultEngineAsOnTheReference) {
  auto fast = Build("");
  auto reference = Build("REFERENCE");
  ASSERT_TRUE(fast && reference);
  EXPECT_EQ(fast->blob_by_name("down")->shape(), (std::vector<int>{2, 8, 4, 4, 2}));
  EXPECT_EQ(fast->blob_by_name("skip")->shape(), (std::vector<int>{2, 8, 8, 8, 4}));
  for (int iteration = 0; iteration < 2; ++iteration) {
    SCOPED_TRACE("iteration " + std::to_string(iteration));
    StatusOr<float> fast_loss = fast->Forward();
    StatusOr<float> reference_loss = reference->Forward();
    ASSERT_TRUE(fast_loss.ok() && reference_loss.ok());
    EXPECT_TRUE(std::isfinite(*fast_loss));
    EXPECT_NEAR(*fast_loss, *reference_loss, kTolerance * std::max(1.f, std::abs(*reference_loss)));
    for (const std::string& name : reference->blob_names()) {
      EXPECT_LE(RelativeError(*fast->blob_by_name(name), *reference->blob_by_name(name), false),
                kTolerance)
          << name << " data";
    }
    fast->ClearParamDiffs();
    reference->ClearParamDiffs();
    fast->Backward();
    reference->Backward();
    const auto& fast_params = fast->learnable_params();
    const auto& reference_params = reference->learnable_params();
    ASSERT_EQ(fast_params.size(), reference_params.size());
    for (size_t i = 0; i < fast_params.size(); ++i) {
      EXPECT_LE(RelativeError(*fast_params[i], *reference_params[i], true), kTolerance)
          << "parameter " << i;
      // Both take the same small step, so the next iteration compares again.
      for (Net* net : {fast.get(), reference.get()}) {
        Tensor& p = *net->learnable_params()[i];
        const float* diff = p.diff();
        float* data = p.mutable_data();
        for (int64_t j = 0; j < p.count(); ++j) data[j] -= 0.01f * diff[j];
      }
    }
  }
}

TEST(VolumeNetTest, CheckPassesItAndNamesThePythonLoss) {
  testing::TempDir dir;
  testing::WriteTextFile(dir.Path("net.prototxt"), NetText(kSoftmaxLoss));
  const auto ok = testing::RunDtrainWithin(120, "check --model=" + dir.Path("net.prototxt"));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  testing::WriteTextFile(dir.Path("python.prototxt"), NetText(kPythonDiceLoss));
#ifdef DTRAIN_HAS_PYTHON_LAYERS
  // The layer runs; its module, not on PYTHONPATH, is named.
  EXPECT_REFUSED_WITH(testing::RunDtrainWithin(120, "check --model=" + dir.Path("python.prototxt")),
                      "layer 'loss' (Python): python_param pyLayer.DiceLoss: cannot import "
                      "module 'pyLayer'");
#else
  EXPECT_REFUSED_WITH(testing::RunDtrainWithin(120, "check --model=" + dir.Path("python.prototxt")),
                      "layer 'loss': unknown layer type \"Python\" (Python layers run the "
                      "model's own Python code; this dtrain was built without Python");
#endif
}

}  // namespace
}  // namespace dtrain
