// A V1 (or V0) .caffemodel loads through ReadBinaryNetParameter and gives exactly the forward
// outputs of the same weights written in the current format.
#include <gtest/gtest.h>

#include <vector>

#include "core/proto_io.h"
#include "net/net.h"
#include "net/read_net.h"
#include "testing/files.h"

namespace dtrain {
namespace {

const char* kNet = R"(
  name: "small"
  layer { name: "data" type: "Input" top: "data"
          input_param { shape { dim: 2 dim: 3 dim: 5 dim: 5 } } }
  layer { name: "conv" type: "Convolution" bottom: "data" top: "conv"
          convolution_param { num_output: 4 kernel_size: 3
                              weight_filler { type: "gaussian" std: 0.5 }
                              bias_filler { type: "gaussian" std: 0.5 } } }
  layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" }
  layer { name: "fc" type: "InnerProduct" bottom: "conv" top: "fc"
          inner_product_param { num_output: 3 weight_filler { type: "gaussian" std: 0.5 }
                                bias_filler { type: "gaussian" std: 0.5 } } }
)";

std::unique_ptr<Net> Build(uint64_t seed) {
  NetParameter param;
  EXPECT_TRUE(ParseTextProto(kNet, "net", &param).ok());
  NetState state;
  state.set_phase(TEST);
  auto net = Net::Create(param, state, seed);
  EXPECT_TRUE(net.ok()) << net.status().message();
  return std::move(net).value();
}

std::vector<float> Outputs(Net* net) {
  Tensor* data = net->blob_by_name("data");
  for (int64_t i = 0; i < data->count(); ++i) data->mutable_data()[i] = 0.01f * (i % 37) - 0.2f;
  EXPECT_TRUE(net->Forward().ok());
  const Tensor* fc = net->blob_by_name("fc");
  return std::vector<float>(fc->data(), fc->data() + fc->count());
}

// The trained net's weights as Caffe wrote them before 2015: V1 `layers`, or V0 inside them.
NetParameter AsOldFormat(const NetParameter& current, bool v0) {
  NetParameter old;
  old.set_name(current.name());
  for (const LayerParameter& layer : current.layer()) {
    if (layer.blobs_size() == 0) continue;
    V1LayerParameter* v1 = old.add_layers();
    const bool conv = layer.type() == "Convolution";
    if (v0) {
      v1->mutable_layer()->set_name(layer.name());
      v1->mutable_layer()->set_type(conv ? "conv" : "innerproduct");
      *v1->mutable_layer()->mutable_blobs() = layer.blobs();
    } else {
      v1->set_name(layer.name());
      v1->set_type(conv ? V1LayerParameter::CONVOLUTION : V1LayerParameter::INNER_PRODUCT);
      *v1->mutable_blobs() = layer.blobs();
    }
  }
  return old;
}

TEST(UpgradeWeights, OldCaffemodelsGiveTheSameOutputs) {
  testing::TempDir dir;
  std::unique_ptr<Net> trained = Build(7);
  NetParameter current;
  trained->ToProto(&current);
  const std::string current_path = dir.Path("current.caffemodel");
  ASSERT_TRUE(WriteBinaryProtoAtomically(current_path, current).ok());

  auto load = [&](const std::string& path) {
    auto weights = ReadBinaryNetParameter(path);
    EXPECT_TRUE(weights.ok()) << weights.status().message();
    EXPECT_EQ(weights->layers_size(), 0);
    std::unique_ptr<Net> net = Build(99);  // different initialisation, replaced by the file
    WeightsMatch match;
    EXPECT_TRUE(net->CopyTrainedLayersFrom(*weights, &match).ok());
    EXPECT_EQ(match.copied, (std::vector<std::string>{"conv", "fc"})) << path;
    return Outputs(net.get());
  };
  const std::vector<float> expected = load(current_path);
  EXPECT_NE(expected, Outputs(Build(99).get()));  // the weights matter
  for (bool v0 : {false, true}) {
    const std::string path = dir.Path(v0 ? "v0.caffemodel" : "v1.caffemodel");
    ASSERT_TRUE(WriteBinaryProtoAtomically(path, AsOldFormat(current, v0)).ok());
    EXPECT_EQ(load(path), expected) << path;
  }
}

}  // namespace
}  // namespace dtrain
