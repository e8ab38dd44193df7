// BVLC Caffe's own nets (testing::CaffeModelsDir(), skipped where absent): every net whose layer
// types dtrain supports builds in both phases, with its LMDB sources and mean files pointed at
// small generated ones.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "core/proto_io.h"
#include "core/tensor.h"
#include "layers/registry.h"
#include "net/net.h"
#include "proto/blob.pb.h"
#include "testing/caffe_nets.h"
#include "testing/files.h"

namespace dtrain {
namespace {

namespace fs = std::filesystem;

using testing::AllTypesSupported;
using testing::CaffeNetBuilder;

const std::string kCaffeDir = testing::CaffeModelsDir();

TEST(CaffeModels, EverySupportedNetBuildsInBothPhases) {
  if (const std::string missing = testing::CaffeModelsMissing(); !missing.empty()) {
    GTEST_SKIP() << missing;
  }
  testing::TempDir dir;
  CaffeNetBuilder builder(dir);
  std::set<std::string> built, skipped;
  for (const auto& entry : fs::recursive_directory_iterator(kCaffeDir)) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".prototxt" || path.find("solver") != std::string::npos)
      continue;
    NetParameter net;
    ASSERT_TRUE(ReadTextProto(path, &net).ok()) << path;
    std::string missing;
    if (!AllTypesSupported(net, &missing)) {
      skipped.insert(entry.path().filename().string() + " (" + missing + ")");
      continue;
    }
    builder.Redirect(&net);
    for (const NetState& state : testing::BuildStates(net)) {
      auto built_net = Net::Create(net, state, 1);
      ASSERT_TRUE(built_net.ok()) << path << " " << state.ShortDebugString() << ": "
                                  << built_net.status().message();
      EXPECT_FALSE((*built_net)->layers().empty());
    }
    built.insert(path.substr(kCaffeDir.size() + 1));
  }
  std::string list;
  for (const auto& s : skipped) list += " " + s;
  std::cout << "built " << built.size() << " Caffe nets; skipped (unsupported layer):" << list
            << "\n";
  for (const char* must :
       {"examples/mnist/lenet_train_test.prototxt",
        "examples/cifar10/cifar10_quick_train_test.prototxt",
        "examples/cifar10/cifar10_full_train_test.prototxt",
        "examples/cifar10/cifar10_full_sigmoid_train_test_bn.prototxt",
        "models/bvlc_alexnet/train_val.prototxt", "models/bvlc_googlenet/train_val.prototxt",
        "models/bvlc_googlenet/deploy.prototxt"}) {
    EXPECT_TRUE(built.count(must)) << must << " did not build";
  }
}

}  // namespace
}  // namespace dtrain
