// BVLC Caffe's own nets (../shared/data/caffe): every net whose layer types dtrain supports
// builds in both phases, with its LMDB sources and mean files pointed at small generated ones.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "core/proto_io.h"
#include "core/tensor.h"
#include "data/data_test_util.h"
#include "layers/registry.h"
#include "net/net.h"
#include "proto/blob.pb.h"
#include "testing/trainable_data.h"

namespace dtrain {
namespace {

namespace fs = std::filesystem;

const std::string kCaffeDir = std::string(DTRAIN_SOURCE_DIR) + "/../shared/data/caffe";

// Image shape a Caffe example's data source implies (C, H, W).
std::vector<int> SourceShape(const std::string& source) {
  if (source.find("mnist") != std::string::npos) return {1, 28, 28};
  if (source.find("cifar") != std::string::npos) return {3, 32, 32};
  return {3, 256, 256};  // ImageNet-style LMDBs are stored at 256x256
}

class CaffeNetBuilder {
 public:
  explicit CaffeNetBuilder(const testing::TempDir& dir) : dir_(dir) {}

  // Rewrites data sources and mean files to generated stand-ins of the right shape.
  void Redirect(NetParameter* net) {
    for (LayerParameter& layer : *net->mutable_layer()) {
      if (layer.type() != "Data") continue;
      const std::vector<int> shape = SourceShape(layer.data_param().source());
      const std::string key = std::to_string(shape[0]) + "x" + std::to_string(shape[1]);
      if (!lmdbs_.count(key)) {
        lmdbs_[key] = dir_.Path("lmdb_" + key);
        testing::WriteTrainableLmdb(lmdbs_[key], 4, shape[0], shape[1], 2);
      }
      layer.mutable_data_param()->set_source(lmdbs_[key]);
      if (layer.transform_param().has_mean_file()) {
        const std::string mean = dir_.Path("mean_" + key + ".binaryproto");
        Tensor m({1, shape[0], shape[1], shape[2]});
        m.SetData(100.f);
        BlobProto proto;
        m.ToProto(&proto, false);
        EXPECT_TRUE(WriteBinaryProtoAtomically(mean, proto).ok());
        layer.mutable_transform_param()->set_mean_file(mean);
      }
    }
  }

 private:
  const testing::TempDir& dir_;
  std::map<std::string, std::string> lmdbs_;
};

bool AllTypesSupported(const NetParameter& net, std::string* missing) {
  for (const LayerParameter& layer : net.layer()) {
    if (!IsSupportedLayerType(layer.type())) {
      *missing = layer.type();
      return false;
    }
  }
  return true;
}

TEST(CaffeModels, EverySupportedNetBuildsInBothPhases) {
  if (!fs::exists(kCaffeDir)) GTEST_SKIP() << "no " << kCaffeDir;
  testing::TempDir dir;
  CaffeNetBuilder builder(dir);
  std::set<std::string> built, skipped;
  for (const auto& entry : fs::recursive_directory_iterator(kCaffeDir)) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".prototxt" || path.find("solver") != std::string::npos) continue;
    NetParameter net;
    ASSERT_TRUE(ReadTextProto(path, &net).ok()) << path;
    std::string missing;
    if (!AllTypesSupported(net, &missing)) {
      skipped.insert(entry.path().filename().string() + " (" + missing + ")");
      continue;
    }
    builder.Redirect(&net);
    for (Phase phase : {TRAIN, TEST}) {
      NetState state;
      state.set_phase(phase);
      auto built_net = Net::Create(net, state, 1);
      ASSERT_TRUE(built_net.ok()) << path << " phase " << phase << ": "
                                  << built_net.status().message();
      EXPECT_FALSE((*built_net)->layers().empty());
    }
    built.insert(path.substr(kCaffeDir.size() + 1));
  }
  std::string list;
  for (const auto& s : skipped) list += " " + s;
  std::cout << "built " << built.size() << " Caffe nets; skipped (unsupported layer):" << list << "\n";
  for (const char* must : {"examples/mnist/lenet_train_test.prototxt",
                           "examples/cifar10/cifar10_quick_train_test.prototxt",
                           "examples/cifar10/cifar10_full_train_test.prototxt",
                           "examples/cifar10/cifar10_full_sigmoid_train_test_bn.prototxt",
                           "models/bvlc_alexnet/train_val.prototxt",
                           "models/bvlc_googlenet/train_val.prototxt",
                           "models/bvlc_googlenet/deploy.prototxt"}) {
    EXPECT_TRUE(built.count(must)) << must << " did not build";
  }
}

}  // namespace
}  // namespace dtrain
